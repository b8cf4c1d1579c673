#!/usr/bin/env bash
# t-churn: churn's gang (-g: W workers in one window, as `make scale` runs
# them), yield (-y), the warm-up cgroup (-w), no warm-up (-n), the uring and mmap2 modes, and
# their bad input, run in userspace on this host (no bench kernel: no -s, -p
# or slab here).
. "$(dirname "$0")/lib.sh"

churn=$tmp/churn
if ! gcc -O2 -Wall -Werror -static -no-pie -fno-pie -o "$churn" "$TOP/tools/workloads/churn.c" -luring \
		> "$tmp/churn.log" 2>&1; then
	fail churn-static-builds "gcc: $(grep -m1 error "$tmp/churn.log")"
	exit 0
fi
pass churn-static-builds 'churn.c builds static with liburing, -Wall -Werror'

# a gang: W workers' loops in one window, one result line from the gang
out=$("$churn" -g 3 -y pipe 4 30 2> "$tmp/gang.err")
check churn-gang-line 'churn -g 3: one line "churn mode=gang-pipe workers=3 ns=N", nothing on stderr' \
	bash -c '[ "$(printf "%s\n" "$1" | wc -l)" = 1 ] && printf "%s\n" "$1" | grep -Eqx "churn mode=gang-pipe workers=3 ns=[1-9][0-9]*" && ! [ -s "$2" ]' \
	_ "$out" "$tmp/gang.err"
# every worker ran its loop: each writes its own markers file through a run
# command, counted afterwards
mkdir -p "$tmp/marks"
"$churn" -g 4 run -- sh -c 'echo x >> '"$tmp"'/marks/$$' > /dev/null 2>&1
check churn-gang-workers 'churn -g 4 run: 4 workers, each ran the command twice (warm-up + window)' \
	bash -c '[ "$(cat "$1"/* | wc -l)" = 8 ] && [ "$(ls "$1" | wc -l)" = 8 ]' _ "$tmp/marks"
# a worker that fails: the gang fails, saying how many got there
rc=0
"$churn" -g 2 run -- false > /dev/null 2> "$tmp/fail.err" || rc=$?
check churn-gang-worker-fails 'a failing worker: non-zero exit and "0 of 2 workers reached their window"' \
	bash -c '[ "$1" != 0 ] && grep -q "gang: 0 of 2 workers reached their window" "$2"' _ "$rc" "$tmp/fail.err"
# the gang spreads workers over the -c directories: a directory that is not
# a cgroup fails the worker that joins it, and so the gang
rc=0
"$churn" -g 2 -c "$tmp/not-a-cgroup" pipe 1 10 > /dev/null 2> "$tmp/cg.err" || rc=$?
check churn-gang-bad-cgroup 'a -c directory that is not a cgroup: non-zero, "cannot join cgroup"' \
	bash -c '[ "$1" != 0 ] && grep -q "cannot join cgroup $2" "$3"' _ "$rc" "$tmp/not-a-cgroup" "$tmp/cg.err"
rc=0
"$churn" -g 2 -p 4 pipe 1 16 > /dev/null 2> "$tmp/gp.err" || rc=$?
check churn-gang-no-phases '-g with -p 4: refused in one line' \
	bash -c '[ "$1" != 0 ] && grep -qx "churn: error: -g does not go with -p > 1, -d, -e or -w" "$2"' _ "$rc" "$tmp/gp.err"

# -w: the warm-up in WARM_DIR's cgroup, the window in -c's (plain
# directories stand in for cgroups: churn writes its pid to DIR/cgroup.procs)
mkdir -p "$tmp/warm" "$tmp/win"
rc=0
"$churn" -c "$tmp/win" -w "$tmp/warm" run -- sh -c \
	'if [ -e "$1/cgroup.procs" ]; then echo window; else echo warm-up; fi >> "$2"' _ "$tmp/win" "$tmp/wlog" \
	> /dev/null 2> "$tmp/w.err" || rc=$?
check churn-warm-cgroup 'churn -c WIN -w WARM run: exit 0, the warm-up runs before churn joins WIN, the window after; both cgroup.procs hold its pid' \
	bash -c '[ "$4" = 0 ] && [ "$(cat "$1")" = "$(printf "warm-up\nwindow")" ] && [ -s "$2/cgroup.procs" ] && cmp -s "$2/cgroup.procs" "$3/cgroup.procs"' \
	_ "$tmp/wlog" "$tmp/warm" "$tmp/win" "$rc"
rc=0
"$churn" -g 2 -w "$tmp/warm" pipe 1 10 > /dev/null 2> "$tmp/gw.err" || rc=$?
check churn-gang-no-warm '-g with -w: refused in one line' \
	bash -c '[ "$1" != 0 ] && grep -qx "churn: error: -g does not go with -p > 1, -d, -e or -w" "$2"' _ "$rc" "$tmp/gw.err"

# -n: the run mode without its warm-up run (the bench's windows after the
# first of a workload in a boot): the command runs once, in the window
rc=0
"$churn" -n run -- sh -c 'echo x >> "$1"' _ "$tmp/nlog" > "$tmp/n.out" 2> "$tmp/n.err" || rc=$?
check churn-no-warmup 'churn -n run: exit 0, the command ran once (no warm-up), one result line' \
	bash -c '[ "$1" = 0 ] && [ "$(cat "$2")" = x ] && grep -Eqx "churn mode=run size=0 iters=1 ns=[0-9]+ ns_per_op=[0-9.]+" "$3"' \
	_ "$rc" "$tmp/nlog" "$tmp/n.out"
rc=0
"$churn" -n pipe 1 10 > /dev/null 2> "$tmp/np.err" || rc=$?
check churn-no-warmup-run-only '-n with a loop mode (whose warm-up is part of its state): refused in one line' \
	bash -c '[ "$1" != 0 ] && grep -qx "churn: error: -n (no warm-up run) is for the run mode only" "$2"' _ "$rc" "$tmp/np.err"

# uring: DEPTH NOPs per ring, iters= is DEPTH * ITERS
out=$("$churn" uring 16 5 2> "$tmp/uring.err")
if grep -q 'io_uring_queue_init.*\(not permitted\|not implemented\|Function not\)' "$tmp/uring.err"; then
	skip churn-uring "io_uring is disabled on this host: $(tail -1 "$tmp/uring.err")"
else
	check churn-uring 'churn uring 16 5: iters=80 (16 NOPs x 5 rings)' \
		bash -c 'printf "%s\n" "$1" | grep -Eqx "churn mode=uring size=16 iters=80 ns=[0-9]+ ns_per_op=[0-9.]+"' _ "$out"
fi
rc=0
"$churn" uring 0 5 > /dev/null 2> "$tmp/u0.err" || rc=$?
check churn-uring-bad-depth 'churn uring 0 5: "DEPTH must be a positive integer"' \
	bash -c '[ "$1" != 0 ] && grep -q "DEPTH must be a positive integer" "$2"' _ "$rc" "$tmp/u0.err"

# mmap2: a file mapping in DIR
mkdir -p "$tmp/m2"
out=$("$churn" mmap2 10 "$tmp/m2" 2> "$tmp/m2.err")
check churn-mmap2 'churn mmap2 10 DIR: one result line, the file gone afterwards' \
	bash -c 'printf "%s\n" "$1" | grep -Eqx "churn mode=mmap2 size=134217728 iters=10 ns=[0-9]+ ns_per_op=[0-9.]+" && ! ls "$2"/churn-mmap2.* 2>/dev/null' \
	_ "$out" "$tmp/m2"
rc=0
"$churn" mmap2 10 "$tmp/no-such-dir" > /dev/null 2> "$tmp/m2bad.err" || rc=$?
check churn-mmap2-bad-dir 'churn mmap2 into a missing DIR: non-zero, "cannot create a file in"' \
	bash -c '[ "$1" != 0 ] && grep -q "cannot create a file in" "$2"' _ "$rc" "$tmp/m2bad.err"

# xattr bursts: BURST must divide ITERS / PHASES, and they need the bench
# kernel's RCU barrier file (this host has none): both refused in one line
mkdir -p "$tmp/shm"
rc=0
"$churn" xattr 64 30 "$tmp/shm" 8 > /dev/null 2> "$tmp/xb.err" || rc=$?
check churn-xattr-burst-divides 'churn xattr 64 30 DIR 8: non-zero, "BURST 8 does not divide ITERS / PHASES = 30"' \
	bash -c '[ "$1" != 0 ] && grep -qx "churn: error: BURST 8 does not divide ITERS / PHASES = 30" "$2"' _ "$rc" "$tmp/xb.err"
shm=$(mktemp -d /dev/shm/t-churn.XXXXXX 2> /dev/null) || shm=
rc=0
[ -z "$shm" ] || "$churn" xattr 64 32 "$shm" 8 > /dev/null 2> "$tmp/xr.err" || rc=$?
[ -z "$shm" ] || rmdir "$shm"
if [ -z "$shm" ] || grep -q "does not support user.\* xattrs" "$tmp/xr.err"; then
	skip churn-xattr-burst-barrier 'no tmpfs with user.* xattrs at /dev/shm on this host'
elif [ -e /sys/kernel/debug/objstock_rcu_barrier ]; then
	skip churn-xattr-burst-barrier 'this host is a bench kernel (it has the barrier file)'
else
	check churn-xattr-burst-barrier 'churn xattr 64 32 /dev/shm/DIR 8 on a kernel without the barrier file: non-zero, says what it needs' \
		bash -c '[ "$1" != 0 ] && grep -q "^churn: error: -s and xattr bursts need /sys/kernel/debug/objstock_rcu_barrier" "$2"' _ "$rc" "$tmp/xr.err"
fi

# -d drains the stocks through the bench kernel's file: without it, one line
if [ -e /sys/kernel/debug/objstock_drain ]; then
	skip churn-drain-needs-file 'this host is a bench kernel (it has the drain file)'
else
	rc=0
	"$churn" -d pipe 1 10 > /dev/null 2> "$tmp/d.err" || rc=$?
	check churn-drain-needs-file 'churn -d on a kernel without objstock_drain: non-zero, says what it needs' \
		bash -c '[ "$1" != 0 ] && grep -q "^churn: error: -d needs /sys/kernel/debug/objstock_drain" "$2"' _ "$rc" "$tmp/d.err"
fi

# dying holds its objects through the bench kernel's file: without it, one
# line, and no child cgroup made
if [ -e /sys/kernel/debug/objstock_hold ]; then
	skip churn-dying-needs-file 'this host is a bench kernel (it has the hold file)'
else
	rc=0
	"$churn" dying 16 64 > /dev/null 2> "$tmp/dy.err" || rc=$?
	check churn-dying-needs-file 'churn dying on a kernel without objstock_hold: non-zero, one line, says what it needs' \
		bash -c '[ "$1" != 0 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "^churn: error: /sys/kernel/debug/objstock_hold: .*objstock_bench.c" "$2"' _ "$rc" "$tmp/dy.err"
fi
rc=0
"$churn" dying 16 > /dev/null 2> "$tmp/du.err" || rc=$?
check churn-dying-usage 'churn dying N (no SIZE): non-zero, the usage line' \
	bash -c '[ "$1" != 0 ] && grep -q "^churn: error: usage: churn dying N SIZE" "$2"' _ "$rc" "$tmp/du.err"
