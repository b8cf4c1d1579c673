#!/usr/bin/env bash
# deps: install what the pipeline needs from Debian's archive, once.
# A stamp in the cache skips the dpkg query on later runs.
. "$(dirname "$0")/lib.sh"

pkgs=(
	# kernel build
	gcc make bc bison flex libelf-dev libssl-dev perl git ccache dpkg-dev xz-utils zstd cpio kmod
	# make pkg: bindeb-pkg's debian/rules (dh_*), its linux-libc-dev (headers_install)
	debhelper rsync
	# guests: QEMU (TCG), virtme-ng's runtime dependencies, udev for its ports
	qemu-system-x86 python3 python3-argcomplete python3-requests busybox-static file
	iproute2 kbd util-linux util-linux-extra udev debian-archive-keyring
	# make: ps, to stop the running guests on Ctrl-C (lib.sh kill_tree)
	procps
	# workloads, tools, report (no cgroup-tools: the guest scripts, like the
	# kernel's cgroup selftests, make memcgs and read them through cgroupfs)
	rt-tests libglib2.0-dev pkg-config gnuplot-nox
	# the scale bench and the sentinels: stress-ng (switch/mq), iperf3 (TCP
	# over loopback), liburing (churn's io_uring mode, linked statically)
	stress-ng iperf3 liburing-dev
	# make test's check of the lkp-tests job files (bench/lkp)
	python3-yaml
	# checkpatch.pl's SPDX check
	python3-ply python3-git e2fsprogs
)
stamp=$CACHE/.deps-$(printf '%s\n' "${pkgs[@]}" | sha256sum | cut -c1-12)
mkdir -p "$CACHE"
[ -f "$stamp" ] && exit 0
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "missing packages: ${missing[*]} (run as root or apt-get install them)"
	log deps "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q > /dev/null 2>&1 || die "apt-get update failed"
	apt-get install -y -q --no-install-recommends "${missing[@]}" > "$CACHE/deps.log" 2>&1 ||
		die "apt-get install failed (see $CACHE/deps.log)"
fi
mkdir -p "$CACHE"
touch "$stamp"
log deps "ok"
