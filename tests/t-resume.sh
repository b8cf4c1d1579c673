#!/usr/bin/env bash
# t-resume: RUN= resumes a stopped run of make or make scale (lib.sh
# meta_write, kept_boot): finished boots are kept, an unfinished one is not,
# the first start is kept, and a run measured with other kernels or
# workloads is refused, its meta.txt untouched.
. "$(dirname "$0")/lib.sh"

run=$tmp/run
mkdir -p "$run/base-1" "$run/patched-1" "$run/base-2" "$run/nokmem-1"
meta() { printf 'kernel_version 7.3.4\nseries_sha256 %s\nworkloads a b\n' "$1"; }
meta aaaa > "$run/meta.txt"
echo 'started 2026-01-01T00:00:00Z' >> "$run/meta.txt"
echo 0 > "$run/base-1/guest-rc"; echo 'count 1' > "$run/base-1/kinsn.out"; : > "$run/base-1/boot-ok"
echo 0 > "$run/patched-1/guest-rc"                       # no counts: unfinished
# counts and guest-rc 0, but boot.sh failed it (an Oops after the command,
# a timeout at shutdown): no boot-ok
echo 0 > "$run/nokmem-1/guest-rc"; echo 'count 1' > "$run/nokmem-1/kinsn.out"
echo 143 > "$run/base-2/guest-rc"; echo 'count 1' > "$run/base-2/kinsn.out"   # killed

# a run with other kernels: refused, its meta.txt as it was
cp "$run/meta.txt" "$tmp/meta.before"
meta bbbb > "$tmp/new"
expect resume-other-series "RUN=.* was measured with another series_sha256 \('aaaa', now 'bbbb'\): not resuming it" \
	bash -c '. "$1/scripts/lib.sh"; meta_write "$2" "$3" kernel_version series_sha256 workloads' _ "$TOP" "$run" "$tmp/new"
check resume-other-untouched 'a refused resume leaves meta.txt as it was' cmp "$tmp/meta.before" "$run/meta.txt"

# the same kernels: resumed, the first start kept
meta aaaa > "$tmp/new"
check resume-same 'the same kernels and workloads: resumed; finished boots kept, unfinished and failed ones (one that boot.sh failed after its counts) not' bash -c '
	. "$1/scripts/lib.sh"
	meta_write "$2" "$3" kernel_version series_sha256 workloads 2> /dev/null
	kept_boot "$2/base-1" && ! kept_boot "$2/patched-1" && ! kept_boot "$2/base-2" && ! kept_boot "$2/nokmem-1" &&
	grep -qx "started 2026-01-01T00:00:00Z" "$2/meta.txt" && grep -q "^resumed " "$2/meta.txt" &&
	grep -qx "series_sha256 aaaa" "$2/meta.txt" && ! [ -e "$3" ]' _ "$TOP" "$run" "$tmp/new"

# a new run: nothing is kept, even a directory that looks finished
new=$tmp/fresh
mkdir -p "$new/base-1"; echo 0 > "$new/base-1/guest-rc"; echo 'count 1' > "$new/base-1/kinsn.out"; : > "$new/base-1/boot-ok"
meta aaaa > "$tmp/new"
check resume-new-keeps-nothing 'a run without meta.txt starts anew: no boot is kept' bash -c '
	. "$1/scripts/lib.sh"
	meta_write "$2" "$3" kernel_version series_sha256 workloads 2> /dev/null
	! kept_boot "$2/base-1" && grep -q "^started " "$2/meta.txt" && ! grep -q "^resumed " "$2/meta.txt"' _ "$TOP" "$new" "$tmp/new"

# a resume with fewer repetitions or vCPU counts (a top-up of part of the
# matrix): meta.txt still describes the whole run
knobs=$tmp/knobs
mkdir -p "$knobs"
printf 'kernel_version 7.3.4\nseries_sha256 aaaa\nrepetitions 2\nscale_cpus 1 2 4 8\ntraffic_cpus 8\nqemu v1\nstarted 2026-01-01T00:00:00Z\nresumed 2026-01-02T00:00:00Z\nfinished 2026-01-03T00:00:00Z\n' > "$knobs/meta.txt"
printf 'kernel_version 7.3.4\nseries_sha256 aaaa\nrepetitions 1\nscale_cpus 1 2 16\nqemu v2\n' > "$tmp/new"
check resume-keeps-union 'a resume with fewer knobs: the larger repetitions, the union of the vCPU counts, the old-only lines, earlier_ for the rest, every resume' bash -c '
	. "$1/scripts/lib.sh"
	meta_write "$2" "$3" kernel_version series_sha256 2> /dev/null
	grep -qx "repetitions 2" "$2/meta.txt" && grep -qx "scale_cpus 1 2 4 8 16" "$2/meta.txt" &&
	grep -qx "traffic_cpus 8" "$2/meta.txt" && grep -qx "qemu v2" "$2/meta.txt" &&
	grep -qx "earlier_qemu v1" "$2/meta.txt" && grep -qx "started 2026-01-01T00:00:00Z" "$2/meta.txt" &&
	[ "$(grep -c "^resumed " "$2/meta.txt")" = 2 ] && ! grep -q "^finished " "$2/meta.txt"' _ "$TOP" "$knobs" "$tmp/new"

# make's resume keys hold the bench/workloads file's hash: a row whose OPS
# or arguments changed (mmap's 10000 -> 40000) must not mix its windows
check resume-bench-workloads-file "scripts/bench.sh writes workloads_sha256 to meta.txt and names it among meta_write's resume keys (the refusal itself: resume-other-series)" \
	bash -c 'grep -q "echo \"workloads_sha256 \$(sha256sum < \"\$wl\"" "$1" && grep -q "^meta_write .* workloads_sha256\$" "$1"' _ "$TOP/scripts/bench.sh"
