#!/usr/bin/env bash
# t-pool: the job pool bench.sh boots its guests in (scripts/lib.sh pool_*):
# at most BOOTS jobs at once, every job run, and a failure ends the run with
# its status once the jobs already running have finished, starting no more.
. "$(dirname "$0")/lib.sh"

# job N SECONDS STATUS: note its start and end in $tmp/trace, exit STATUS
job() {
	echo "start $1" >> "$tmp/trace"
	sleep "$2"
	echo "end $1" >> "$tmp/trace"
	return "$3"
}

: > "$tmp/trace"
rc=0
( set -e; BOOTS=2; pool_init; pool_total=5
  for i in 1 2 3 4 5; do pool_run "job $i" job "$i" 0.3 0; done
  pool_wait ) 2> "$tmp/pool.log" || rc=$?
check pool-at-most 'BOOTS=2, five jobs: exit 0, all five started and ended, never more than 2 at once, "(5/5)" logged' \
	bash -c '[ "$1" = 0 ] && [ "$(grep -c "^start" "$2")" = 5 ] && [ "$(grep -c "^end" "$2")" = 5 ] &&
		[ "$(awk '\''$1 == "start" { n++ } $1 == "end" { n-- } n > m { m = n } END { print m + 0 }'\'' "$2")" = 2 ] &&
		grep -q "done (5/5)" "$3"' _ "$rc" "$tmp/trace" "$tmp/pool.log"

# job 2 fails while job 1 still runs: job 1 ends, jobs 3-5 never start, the
# pool exits with job 2's status
: > "$tmp/trace"
rc=0
( set -e; BOOTS=2; pool_init; pool_total=5
  pool_run "job 1" job 1 1 0
  pool_run "job 2" job 2 0.2 7
  for i in 3 4 5; do pool_run "job $i" job "$i" 0.2 0; [ "$pool_failed" = 0 ] || break; done
  pool_wait; echo "not reached" >> "$tmp/trace" ) 2> "$tmp/fail.log" || rc=$?
check pool-failure 'a failed job: the pool exits 7 (its status) after the running job ends; no job starts after the failure' \
	bash -c '[ "$1" = 7 ] && grep -qx "end 1" "$2" && ! grep -q "start [345]\|not reached" "$2" &&
		grep -q "job 2 failed (exit 7); waiting for the 1 still running" "$3"' _ "$rc" "$tmp/trace" "$tmp/fail.log"

# pool_kill: the running jobs' processes, children first, end (what
# bench.sh's trap does on Ctrl-C); a job's child in a process group of its
# own (as boot.sh's timeout) is reached too
: > "$tmp/trace"
rc=0
( set -e; BOOTS=2; pool_init; pool_total=2
  pool_run "job 1" bash -c 'setsid sleep 30 & echo $! > "$1/child1"; wait' _ "$tmp"
  pool_run "job 2" job 2 30 0
  sleep 0.5; pool_kill; pool_wait ) 2> /dev/null || rc=$?
sleep 0.2
# gone: no such process, or a zombie (orphans go to PID 1, which need not
# reap them at once)
check pool-kill 'pool_kill: both jobs end at once (non-zero), the setsid child of one is gone too' \
	bash -c '[ "$1" != 0 ] && ! grep -q "^end" "$2" && case $(ps -o stat= -p "$(cat "$3")") in "" | Z*) ;; *) false ;; esac' \
	_ "$rc" "$tmp/trace" "$tmp/child1"

# BOOTS=1: one at a time, in order
: > "$tmp/trace"
( BOOTS=1; pool_init; pool_total=3
  for i in 1 2 3; do pool_run "job $i" job "$i" 0.1 0; done
  pool_wait ) 2> /dev/null
check pool-serial 'BOOTS=1: the jobs run one after the other, in order' \
	bash -c '[ "$(cut -d" " -f1,2 "$1" | tr "\n" " ")" = "start 1 end 1 start 2 end 2 start 3 end 3 " ]' _ "$tmp/trace"
