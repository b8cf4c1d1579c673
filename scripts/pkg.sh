#!/usr/bin/env bash
# pkg: Debian packages (make bindeb-pkg) of the two bench kernels, base 7.3
# (BASE_REV) and patched, into $CACHE/pkg/{base,patched}/, to boot on real
# hardware and run bench/hw/run there.  Built the way bench.sh builds
# `make`'s kernels (lib.sh's bench_build: one checkout, the microbenchmark
# bench/kernel/objstock_bench.c in mm/, the same config for both), each with
# a kernel release of its own, KVER-objstock-base and KVER-objstock-patched,
# so both install side by side and bench/hw/run can tell which one is booted.
# PKG_KCONFIG, the config both start from:
#   bench (default)  allnoconfig + the bench's fragments: exactly the config
#                    of `make`'s kernels; it boots under QEMU/virtme-ng only
#                    (NR_CPUS=8, virtio, no disk or NIC drivers)
#   localmodconfig   this machine's /boot/config-$(uname -r), cut down to the
#                    modules loaded now (lsmod), + config/hw.config: build on
#                    the machine you will benchmark
#   FILE             that kconfig file (e.g. the target's /boot/config-*)
#                    + config/hw.config
. "$(dirname "$0")/lib.sh"

NUMA=1 check_knobs
kc=${PKG_KCONFIG:-bench}
cfg=() frag=()
case $kc in
bench) obj=$CACHE/obj/pkg ;;
localmodconfig)
	start=/boot/config-$(uname -r)
	[ -r "$start" ] || die "PKG_KCONFIG=localmodconfig: no $start (set PKG_KCONFIG to a config file)"
	command -v lsmod > /dev/null || die "PKG_KCONFIG=localmodconfig needs lsmod (apt install kmod)"
	mkdir -p "$CACHE/obj"
	lsmod > "$CACHE/obj/pkg-hw.lsmod"
	cfg=(-b "$start" -l "$CACHE/obj/pkg-hw.lsmod") obj=$CACHE/obj/pkg-hw ;;
*)
	case $kc in *$'\n'*) knob_bad PKG_KCONFIG "bench, localmodconfig or a kconfig file" ;; esac
	[ -f "$kc" ] && [ -r "$kc" ] || knob_bad PKG_KCONFIG "bench, localmodconfig or a readable kconfig file"
	grep -q '^CONFIG_' "$kc" || knob_bad PKG_KCONFIG "not a kconfig file (no CONFIG_ line)"
	cfg=(-b "$(realpath -- "$kc")") obj=$CACHE/obj/pkg-hw ;;
esac

"$TOP/scripts/deps.sh"
"$TOP/scripts/fetch.sh"
"$TOP/scripts/tree.sh"
tree_register
base_rev=${BASE_REV:-objstock-base}
git -C "$TREE" rev-parse -q --verify "$base_rev^{commit}" > /dev/null ||
	die "BASE_REV '$base_rev' is not a commit of $TREE"
if [ "$kc" = bench ]; then
	mapfile -t frag < <(fragments "$TREE")
else
	frag=("$TOP/config/hw.config")
fi
bench_src > /dev/null
head=$(git -C "$TREE" rev-parse HEAD)
kv=$(make -s -C "$TREE" kernelversion)
t0=$(date +%s)
for k in base patched; do
	rev=$([ $k = base ] && echo "$base_rev" || echo "$head")
	out=$CACHE/pkg/$k
	# dpkg-buildpackage writes the packages next to the object directory
	stamp=$CACHE/obj/.pkg-stamp
	mkdir -p "$CACHE/obj" && : > "$stamp"
	# (-d: dpkg-buildpackage would refuse without libdw-dev, which only a
	# config with BTF or objtool's libdw support needs; debhelper, which
	# debian/rules uses, comes from deps.sh)
	bench_build "$rev" -t bindeb-pkg -m LOCALVERSION="-objstock-$k" -m KDEB_PKGVERSION="$kv-1" \
		-m DPKG_FLAGS=-d ${cfg[@]+"${cfg[@]}"} "$obj-$k" "${frag[@]}"
	mapfile -t debs < <(find "$CACHE/obj" -maxdepth 1 -type f -newer "$stamp" \
		\( -name '*.deb' -o -name '*.buildinfo' -o -name '*.changes' \))
	grep -q "/linux-image-$kv-objstock-${k}_.*\.deb$" <<< "$(printf '%s\n' "${debs[@]}")" ||
		die "make bindeb-pkg made no linux-image-$kv-objstock-$k package (see $obj-$k/build.log)"
	rm -rf "$out"
	mkdir -p "$out"
	mv -- "${debs[@]}" "$out"/
	echo "$rev $(git -C "$TREE" rev-parse --short "$rev") PKG_KCONFIG=$kc" > "$out/REVISION"
	log pkg "$k: $(cd "$out" && ls ./*.deb | sed 's:^\./::' | tr '\n' ' ')"
done
log pkg "done in $(( $(date +%s) - t0 ))s: $CACHE/pkg/{base,patched}/ (install: dpkg -i linux-image-*.deb; boot it; bench/hw/run)"
