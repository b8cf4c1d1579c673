#!/bin/sh
# check (guest side): runs inside the test kernel as root, cwd = the run dir
# shared with the host.  Sets up a real environment for the cgroup selftests
# (cgroup2 with all controllers, swap on a RAM disk, a tmpfs root), runs our
# KUnit suites again from inside a child memcg, runs the selftests, and leaves
# TAP/KTAP files for the host to parse.
#   check.sh SELFTEST_DIR [TESTS...]     (TESTS: names from SELFTEST_DIR)
set -u
out=$(pwd)
st=$1; shift
tests=${*:-$(cat "$st/objstock-tests")}
per_test_timeout=${OBJSTOCK_TEST_TIMEOUT:-600}
mkdir -p "$out/selftests" "$out/kunit"

note() { echo "objstock-guest: $*" > /dev/kmsg; echo "objstock-guest: $*"; }
finish() {
	dmesg > "$out/dmesg.txt" 2>/dev/null
	echo "$1" > "$out/guest-rc"
	exit "$1"
}

# --- cgroup v2 with every controller the selftests use, delegation to
# namespaces (test_cgcore_lesser_ns_open) and hugetlb accounting
[ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] || {
	mkdir -p /sys/fs/cgroup
	mount -t cgroup2 none /sys/fs/cgroup || { note "cannot mount cgroup2"; finish 2; }
}
mount -o remount,nsdelegate,memory_hugetlb_accounting /sys/fs/cgroup ||
	note "cannot remount cgroup2 with nsdelegate,memory_hugetlb_accounting"
for c in $(cat /sys/fs/cgroup/cgroup.controllers); do
	echo "+$c" > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
done
note "controllers: $(cat /sys/fs/cgroup/cgroup.subtree_control)"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# --- swap on a RAM disk (brd.rd_size is on the command line)
if [ -b /dev/ram0 ] && mkswap /dev/ram0 > /dev/null 2>&1 && swapon /dev/ram0; then
	note "swap: $(awk '/SwapTotal/ {print $2 " kB"}' /proc/meminfo)"
else
	note "no swap"
fi
[ -w /sys/module/zswap/parameters/enabled ] && echo 1 > /sys/module/zswap/parameters/enabled

# --- KUnit suites that need a real memcg: run them again from a child cgroup
if [ -d /sys/kernel/debug/kunit ]; then
	mkdir -p /sys/fs/cgroup/objstock-kunit
	for suite in ${OBJSTOCK_KUNIT_SUITES:-}; do
		[ -e "/sys/kernel/debug/kunit/$suite/run" ] || { note "no KUnit suite $suite"; continue; }
		sh -c "echo \$\$ > /sys/fs/cgroup/objstock-kunit/cgroup.procs &&
			echo 1 > /sys/kernel/debug/kunit/$suite/run"
		cat "/sys/kernel/debug/kunit/$suite/results" > "$out/kunit/$suite.ktap"
	done
	rmdir /sys/fs/cgroup/objstock-kunit 2>/dev/null
fi

# --- an ext4 root on a RAM disk: test_kmem_basic counts negative dentries
# of "/...", which neither a 9p root nor tmpfs caches, and test_memcontrol
# makes O_TMPFILE page cache in its working directory.
R=/run/objstock-root
mkdir -p $R
mkfs.ext4 -q -F /dev/ram1 > /dev/null 2>&1 && mount -t ext4 /dev/ram1 $R ||
	{ note "cannot make an ext4 root on /dev/ram1"; finish 2; }
for d in bin sbin lib lib32 lib64 libx32 usr etc; do
	if [ -L "/$d" ]; then
		cp -a "/$d" "$R/$d"
	elif [ -d "/$d" ]; then
		mkdir "$R/$d" && mount --bind "/$d" "$R/$d"
	fi
done
for d in proc sys dev; do mkdir "$R/$d" && mount --rbind "/$d" "$R/$d"; done
mkdir -p "$R/tmp" "$R/run" "$R/root" "$R/out"
chmod 1777 "$R/tmp"
mount -t tmpfs tmpfs "$R/tmp"
cp -a "$st" "$R/selftests"
mount --bind "$out" "$R/out"

# OBJSTOCK_REPEAT=N (diagnosis of flaky tests, not make check): each test N
# times, into $t.1.tap ... $t.N.tap, with its failed cases on the console
repeat=${OBJSTOCK_REPEAT:-1}
for t in $tests; do
	for i in $(seq 1 "$repeat"); do
		sfx=
		[ "$repeat" -gt 1 ] && sfx=.$i
		note "selftest $t$sfx"
		chroot $R /bin/sh -c "cd /selftests && timeout -k 5 $per_test_timeout ./$t" \
			> "$out/selftests/$t$sfx.tap" 2>&1
		rc=$?
		echo "$rc" > "$out/selftests/$t$sfx.rc"
		note "selftest $t$sfx exit $rc$([ "$repeat" -gt 1 ] &&
			grep '^not ok' "$out/selftests/$t$sfx.tap" | tr '\n' ' ' | sed 's/^./: &/')"
		# leave no test cgroups behind for the next test
		find /sys/fs/cgroup -mindepth 1 -depth -type d -name '*test*' -exec rmdir {} + 2>/dev/null
	done
done
finish 0
