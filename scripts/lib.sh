# shellcheck shell=bash
# Common helpers for the objstock scripts.  Sourced by every stage; also run
# by the Makefile as a small command:
#   bash scripts/lib.sh knobs|clean|distclean
#
# Errors: a stage ends in exactly ONE 'objstock: error: ...' line on stderr.
# - die prints it and exits with status $DIE_STATUS;
# - a stage that stops on anything else (set -e: a failed command, a shell
#   'write error' on a full disk, ...) gets one from the EXIT trap below:
#   'STAGE: no space left under DIR' when the disk is full, else
#   'STAGE failed (exit N)'; it then exits with $DIE_STATUS too;
# - a stage whose child exits with $DIE_STATUS (the child has said it) adds
#   nothing: under set -e it exits with that status, and the trap stays quiet.
#   To add context instead, use 'run_or_die MESSAGE CMD...'.
# - quiet_exit N leaves with status N and no line (a status that is a result,
#   e.g. the guest command's).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIE_STATUS=86
: "${T0:=$(date +%s)}"
export T0 TOP

# progress line: "[  12s] stage: message"
log() {
	local stage=$1; shift
	printf '[%5ss] %-9s %s\n' "$(( $(date +%s) - T0 ))" "$stage:" "$*" >&2
}

# full_dir: the first of CACHE, OUT, TOP and TMPDIR whose filesystem is full
# (under 1 MiB or no inode left), if any
full_dir() {
	local d p avail inodes
	for d in "${CACHE:-}" "${OUT:-}" "$TOP" "${TMPDIR:-/tmp}"; do
		case $d in '' | *$'\n'*) continue ;; esac
		p=$d
		while [ ! -e "$p" ] && [ "$p" != / ]; do p=$(dirname "$p"); done
		avail=$(df -Pk -- "$p" 2> /dev/null | awk 'NR == 2 {print $4}') || true
		inodes=$(df -Pi -- "$p" 2> /dev/null | awk 'NR == 2 {print $4}') || true
		if { [ -n "$avail" ] && [ "$avail" -lt 1024 ] 2> /dev/null; } || [ "$inodes" = 0 ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

# one-line error, exit $DIE_STATUS; on a full disk the line says so
die() {
	local msg=$* d
	case $msg in
	*space* | *"disk full"* | *" free under "*) ;;
	*) if d=$(full_dir); then msg="$msg (no space left under $d)"; fi ;;
	esac
	printf 'objstock: error: %s\n' "$msg" >&2
	exit "$DIE_STATUS"
}

# quiet_exit N: exit with status N, no error line (N is a result, not a fault)
quiet_exit() {
	QUIET_EXIT=1
	exit "$1"
}

# run_or_die MESSAGE CMD...: run CMD; if it fails, die with MESSAGE and its
# status, unless CMD is a stage that already printed its error line
run_or_die() {
	local msg=$1 rc=0; shift
	"$@" || rc=$?
	[ "$rc" = 0 ] && return 0
	[ "$rc" = "$DIE_STATUS" ] && exit "$rc"
	die "$msg (exit $rc)"
}

# Directories to remove on a failed exit if they are still empty (an empty
# runs/check-* says nothing); non-empty ones are kept as evidence.
declare -p FAIL_RMDIR > /dev/null 2>&1 || FAIL_RMDIR=()
on_exit() {
	local rc=$? d stage
	if [ "$rc" != 0 ]; then
		for d in "${FAIL_RMDIR[@]}"; do rmdir -- "$d" 2> /dev/null || true; done
	fi
	[ "$rc" = 0 ] || [ "$rc" = "$DIE_STATUS" ] || [ "${QUIET_EXIT:-0}" = 1 ] && return 0
	stage=${STAGE:-${0##*/}}
	stage=${stage%.sh}
	if [ "$rc" -gt 128 ]; then
		printf 'objstock: error: %s stopped by signal %s\n' "$stage" "$((rc - 128))" >&2
	elif d=$(full_dir); then
		printf 'objstock: error: %s: no space left under %s\n' "$stage" "$d" >&2
	else
		printf 'objstock: error: %s failed (exit %s)\n' "$stage" "$rc" >&2
	fi
	exit "$DIE_STATUS"
}
trap on_exit EXIT

# --- CACHE: everything downloaded or built; `make distclean` deletes it, so
# it must not be a directory that holds anything else we know of.
shq() { printf '%q' "$1"; }
check_cache() {
	local c=$1 real top home
	case $c in *$'\n'*) die "refusing CACHE=$(shq "$c"): it contains a newline" ;; esac
	real=$(realpath -m -- "$c")
	top=$(realpath -m -- "$TOP")
	home=$(realpath -m -- "${HOME:-/root}")
	[ "$real" != / ] || die "refusing CACHE=$c: it is /"
	case $top/ in "$real"/*) die "refusing CACHE=$c: it is the repository or a directory above it ($real)" ;; esac
	case $home/ in "$real"/*) die "refusing CACHE=$c: it is \$HOME or a directory above it ($real)" ;; esac
	# inside the repository: only in a directory of its own (build/, ...)
	case $real/ in "$top"/*)
		local comp=${real#"$top"/}
		comp=${comp%%/*}
		case $comp in patches | scripts | tests | guest | config | expected | bench | tools | results | .git | .ci) false ;;
		*) ! git -C "$top" ls-files --error-unmatch -- "$comp" > /dev/null 2>&1 ;; esac ||
			die "refusing CACHE=$c: it is inside the repository's $comp/" ;;
	esac
	[ ! -e "$real/patches" ] || die "refusing CACHE=$c: it holds a patches/ directory (another checkout?)"
}

CACHE=${CACHE:-$TOP/build}
case $CACHE in /*) ;; *) CACHE=$TOP/$CACHE ;; esac
check_cache "$CACHE"
KVER=${KVER:-7.3}
DEB_VERSION=${DEB_VERSION:-7.3.4-1~bpo13+1}
DEB_SUITE=${DEB_SUITE:-trixie-backports}
export CACHE KVER DEB_VERSION DEB_SUITE

# host_mirror: the Debian mirror the host's own apt sources use (deb822
# .sources or one-line .list, under APT_SOURCES_DIR, default /etc/apt), so a
# machine behind a local mirror or proxy just works: of the enabled entries,
# not a security or ports archive, the first URI ending in /debian, else the
# first one (as scripts/vng-setup.sh's host_debian_entries picks its main
# mirror).  DEB_MIRROR overrides it.
host_mirror() {
	local d=${APT_SOURCES_DIR:-/etc/apt} f
	for f in "$d"/sources.list.d/*.sources "$d"/sources.list "$d"/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		case $f in
		*.sources)
			# per stanza: its URIs (continuation lines too), unless 'Enabled: no'
			awk 'BEGIN { RS = "" }
			{
				n = split($0, L, "\n"); uris = ""; field = ""; on = 1
				for (i = 1; i <= n; i++) {
					if (L[i] ~ /^#/) continue
					if (L[i] ~ /^[ \t]/) { if (field == "uris") uris = uris " " L[i]; continue }
					field = tolower(substr(L[i], 1, index(L[i], ":") - 1)); v = substr(L[i], index(L[i], ":") + 1)
					if (field == "uris") uris = v
					if (field == "enabled" && tolower(v) ~ /^[ \t]*no[ \t]*$/) on = 0
				}
				if (on) { m = split(uris, U, " "); for (i = 1; i <= m; i++) print U[i] }
			}' "$f" ;;
		*)
			sed -n 's/^[[:space:]]*deb\(-src\)\{0,1\}[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]*\)\{0,1\}\([^[:space:]]*\).*/\3/p' "$f" ;;
		esac
	done | grep -E '^(https?|file)://' | sed 's:/*$::' | grep -Ev -- '-security$|/debian-security|-ports$' |
		awk '!any { any = $0 } /\/debian$/ { print; deb = 1; exit } END { if (!deb && any) print any }' || true
}
# run as a command (make clean, distclean, knobs), lib.sh needs no mirror
lib_cmd=
[ "${BASH_SOURCE[0]}" != "$0" ] || lib_cmd=${1:-}
if [ -z "${DEB_MIRROR:-}" ] && [ -z "$lib_cmd" ]; then
	DEB_MIRROR=$(host_mirror)
	[ -n "$DEB_MIRROR" ] || die "cannot find a Debian mirror in ${APT_SOURCES_DIR:-/etc/apt}/sources* (set DEB_MIRROR=...)"
fi
export DEB_MIRROR="${DEB_MIRROR:-}"

# need_space DIR MIB: refuse to start a stage that would fill the disk
need_space() {
	local dir=$1 mib=$2 avail
	mkdir -p -- "$dir"
	avail=$(df -Pm -- "$dir" | awk 'NR==2 {print $4}')
	[ "$avail" -ge "$mib" ] ||
		die "only ${avail} MiB free under $dir, need ${mib} MiB (move the cache with CACHE=...)"
}

# where an unpacked base lives, and its git tree
SRC_DIR=$CACHE/src/linux-$DEB_VERSION
TREE=${TREE:-$CACHE/tree}

# --- knobs: checked before anything is downloaded or built -------------------
# Empty means the default, as for the scripts (ICOUNT: empty means off).
knob_bad() { die "$1=$(shq "${!1}"): $2"; }
is_uint() { case $1 in '' | *[!0-9]*) return 1 ;; esac; [ ${#1} -le 9 ]; }
knob_01() { case ${!1:-} in '' | 0 | 1) ;; *) knob_bad "$1" "must be 0 or 1" ;; esac; }
knob_pos() {
	[ -z "${!1:-}" ] && return 0
	is_uint "${!1}" && [ "$((10#${!1}))" -ge 1 ] || knob_bad "$1" "must be a positive integer${2:+ ($2)}"
}

# selftest_names TREE: the cgroup selftests TREE's kselftest Makefile declares
selftest_names() {
	local d=$1/tools/testing/selftests/cgroup
	[ -f "$d/Makefile" ] || return 0
	make -s -C "$d" -f Makefile -f - objstock-list 2> /dev/null <<'EOM' || true
objstock-list:
	@for t in $(TEST_GEN_PROGS) $(TEST_PROGS); do echo $$(basename $$t); done
EOM
}

# check_selftests [NAME...]: SELFTESTS and SELFTESTS_SKIP are selftest names,
# and, if NAMEs are given, among them
check_selftests() {
	local - v t have=" $* "
	set -f
	for v in SELFTESTS SELFTESTS_SKIP; do
		case ${!v:-} in *$'\n'*) knob_bad "$v" "one line of space-separated names" ;; esac
		for t in ${!v:-}; do
			case $t in -* | *[!A-Za-z0-9_.+-]*) die "$v: '$t' is not a selftest name" ;; esac
			[ $# = 0 ] || case $have in *" $t "*) ;; *)
				die "unknown selftest '$t' in $v (have: $*)" ;; esac
		done
	done
}

# selftest names known before the tree is (re)made: the tree's or else the
# unpacked base's, plus what patches/ adds to a kselftest Makefile
early_selftest_names() {
	local t
	for t in "$TREE" "$SRC_DIR"; do
		[ -f "$t/tools/testing/selftests/cgroup/Makefile" ] || continue
		{
			selftest_names "$t"
			cat /dev/null "${PATCHES:-$TOP/patches}"/*.patch 2> /dev/null |
				sed -n 's/^+TEST_\(GEN_\)\{0,1\}PROGS[[:space:]]*[:+]\{0,1\}=\(.*\)/\2/p' | tr -s ' \t' '\n\n'
		} | awk 'NF && !seen[$0]++'
		return 0
	done
}

# check_boot_knobs: the knobs of a guest boot (boot.sh)
check_boot_knobs() {
	local v
	knob_01 KVM
	if [ "${KVM:-0}" = 1 ]; then
		[ -w "${KVM_DEV:-/dev/kvm}" ] ||
			die "KVM=1 but ${KVM_DEV:-/dev/kvm} is missing or not writable (drop KVM=1 to use TCG)"
	fi
	case ${TCG_THREAD:-single} in single | multi) ;; *) knob_bad TCG_THREAD "must be single or multi" ;; esac
	knob_pos TIMEOUT "seconds"
	knob_pos CPUS
	knob_pos NUMA "nodes"
	[ "${NUMA:-2}" -le "${CPUS:-2}" ] ||
		die "NUMA=${NUMA:-2} nodes need at least as many CPUS (have CPUS=${CPUS:-2}; set NUMA=1 or more CPUS)"
	v=${MEM:-2G}
	case $v in [1-9]*[MG]) is_uint "${v%[MG]}" ;; *) false ;; esac ||
		knob_bad MEM "must be a size in M or G, e.g. 2G"
	case ${BOOT_RETRIES:-1} in *[!0-9]*) knob_bad BOOT_RETRIES "must be a number" ;; esac
	[ -z "${VNG:-}" ] || [ -x "$VNG" ] || knob_bad VNG "not an executable"
}

# check_knobs: every knob a user may set for a build or a boot
check_knobs() {
	local v w
	check_boot_knobs
	if [ -n "${ICOUNT:-}" ]; then
		IFS=, read -ra w <<< "$ICOUNT"
		for v in "${w[@]}"; do
			case $v in
			shift=auto | align=on | align=off | sleep=on | sleep=off | rr=off | rr=record | rr=replay | rrfile=?* | rrsnapshot=?*) ;;
			shift=*) is_uint "${v#shift=}" || knob_bad ICOUNT "shift must be a number or auto" ;;
			*) knob_bad ICOUNT "QEMU -icount options: shift=N|auto,sleep=on|off,align=on|off (empty: off)" ;;
			esac
		done
	fi
	knob_pos R "repetitions"
	knob_pos PHASES "obj stock phases per window, at most 64"
	knob_pos REPEAT "windows per cgroup of a repeated workload in a boot"
	[ -z "${PHASES:-}" ] || [ "$((10#$PHASES))" -le 64 ] || knob_bad PHASES "at most 64"
	knob_01 QUICK
	knob_pos JOBS
	knob_pos BOOTS "guests booted at once"
	if [ -n "${BASE_REV:-}" ]; then
		case $BASE_REV in
		-* | *..* | *[!A-Za-z0-9._/@{}~^:+-]*) knob_bad BASE_REV "not a git revision (a tag, branch or commit of the tree)" ;;
		esac
	fi
	knob_01 EVENTS
	knob_01 FLOOR
	knob_01 TRAFFIC
	knob_01 DEBUG
	knob_01 FORCE
	knob_01 HARNESS_TESTS
	knob_01 DEB_TRUSTED
	knob_01 SERIES_EMPTY_OK
	case $CACHE in *[[:space:]:]*)
		die "CACHE=$(shq "$CACHE"): the kernel's build cannot work under a path with spaces or colons" ;; esac
	[ -z "${PATCHES:-}" ] || [ -d "$PATCHES" ] || knob_bad PATCHES "not a directory"
	case $DEB_VERSION in [0-9]*) ;; *) knob_bad DEB_VERSION "not a Debian version" ;; esac
	case $DEB_VERSION$DEB_SUITE in *[!A-Za-z0-9.+~:_-]*) die "DEB_VERSION/DEB_SUITE: not a Debian version/suite" ;; esac
	case ${DEB_MIRROR:-} in "" | http://* | https://* | file://*) ;; *) knob_bad DEB_MIRROR "must be an http(s):// or file:// URL" ;; esac
	mapfile -t w < <(early_selftest_names)
	check_selftests ${w[@]+"${w[@]}"}
}

# list_file FILE: the words of a list file (config/kunit-memcg-suites ...),
# one a line: no comments (#...), no blank lines, no CR of a CRLF line
list_file() {
	sed -e 's/\r$//' -e 's/#.*//' "$1" | tr -s ' \t' '\n\n' | sed '/^$/d'
}

# The kconfig fragments of every kernel we build, base or patched, test or
# bench: one config, so ccache shares all but what the series changes.
# With "series", add what the series itself introduces (config/series.config:
# its own KUnit suites), which only the `make check` kernel gets.
#   fragments TREE [series]
fragments() {
	echo "$TOP/config/base.config"
	echo "$1/tools/testing/selftests/cgroup/config"
	echo "$TOP/config/kunit.config"
	if [ "${2:-}" = series ] && [ -s "$TOP/config/series.config" ]; then
		echo "$TOP/config/series.config"
	fi
}

# --- the bench kernels (bench.sh boots them, pkg.sh packages them): base and
# patched from one checkout, $CACHE/bench-src, switched between objstock-base
# (or BASE_REV) and the tree's HEAD: ccache keys on paths relative to $CACHE,
# so the patched build only compiles what the series changes.  Both carry
# the bench's in-kernel microbenchmark, bench/kernel/objstock_bench.c, in mm/.
# bench_src: the checkout (made on first use), echoed
bench_src() {
	local src=$CACHE/bench-src
	if ! git -C "$src" rev-parse -q --verify HEAD > /dev/null 2>&1; then
		rm -rf "$src"
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$src" objstock-base ||
			die "cannot check out objstock-base into $src"
	fi
	echo "$src"
}

# bench_build REV [BUILD.SH OPTIONS] OBJDIR FRAGMENT...: build REV of the
# tree, with the microbenchmark, in $CACHE/bench-src (see bench_src)
bench_build() {
	local rev=$1 src=$CACHE/bench-src opts=()
	shift
	while [ $# -gt 0 ]; do
		case $1 in -?) opts+=("$1" "$2"); shift 2 ;; *) break ;; esac
	done
	git -C "$src" checkout -q -f --detach "$rev" || die "cannot check out $rev in $src"
	cp "$TOP/bench/kernel/objstock_bench.c" "$src/mm/objstock_bench.c"
	echo 'obj-y += objstock_bench.o' >> "$src/mm/Makefile"
	"$TOP/scripts/build.sh" ${opts[@]+"${opts[@]}"} "$src" "$@"
	git -C "$src" checkout -q -f HEAD -- mm/Makefile
}

# tree_register: record this run (its pid and start time, the series $TREE
# now holds from tree.sh's stamp, DEB_VERSION and this checkout) as a user
# of $TREE until it exits, so that a tree.sh of another patches/ or
# DEB_VERSION (a run from another checkout with the same CACHE) refuses to
# change the tree under it instead of changing what it builds and tests.
# Called right after tree.sh by the runs that build from the tree: check,
# bench/scale (bench_kernels), build-each, pkg.
tree_register() {
	local users=$TREE/.git/objstock-users
	mkdir -p "$users" &&
		echo "$(cut -d' ' -f1 "$TREE/.git/objstock-applied") $(proc_start $$) $DEB_VERSION $TOP" > "$users/.$$" &&
		mv -f "$users/.$$" "$users/$$" ||
		die "cannot record this run in $users"
}

# proc_start PID: the process's start time (field 22 of /proc/PID/stat, after
# the command name, which may hold spaces), empty if there is no such process
proc_start() {
	sed 's/^.*) //' "/proc/$1/stat" 2> /dev/null | awk '{print $20}'
}

# bench_kernels: what make and make scale boot, ready: packages, the base
# source, the tree, the bench tools (start/stop: churn's marker addresses)
# and both bench kernels (objdir[base], objdir[patched]) built with one
# config: the test kernel's, without what the series adds.  BASE_REV (default
# objstock-base) is the base kernel's revision of the tree.
bench_kernels() {
	local k rev head frag markers
	"$TOP/scripts/deps.sh"
	"$TOP/scripts/fetch.sh"
	"$TOP/scripts/tree.sh"
	tree_register
	# BASE_REV needs the tree: check it now, before the tools and kernel builds
	base_rev=${BASE_REV:-objstock-base}
	git -C "$TREE" rev-parse -q --verify "$base_rev^{commit}" > /dev/null ||
		die "BASE_REV '$base_rev' is not a commit of $TREE"
	"$TOP/scripts/tools-build.sh" > /dev/null
	markers=$(cat "$CACHE/tools/markers")
	start=$(printf '%s\n' $markers | sed -n 's/^start=//p')
	stop=$(printf '%s\n' $markers | sed -n 's/^stop=//p')
	[ -n "$start" ] && [ -n "$stop" ] || die "no marker addresses in $CACHE/tools/markers"
	git -C "$TREE" diff --quiet HEAD ||
		log bench "warning: $TREE has uncommitted changes; benchmarking its HEAD commit"
	bench_src > /dev/null
	head=$(git -C "$TREE" rev-parse HEAD)
	declare -gA objdir=([base]=$CACHE/obj/bench-base [patched]=$CACHE/obj/bench-patched)
	[ "$base_rev" = objstock-base ] ||
		objdir[base]=$CACHE/obj/bench-rev-$(git -C "$TREE" rev-parse --short "$base_rev")
	mapfile -t frag < <(fragments "$TREE")
	for k in base patched; do
		rev=$([ $k = base ] && echo "$base_rev" || echo "$head")
		bench_build "$rev" "${objdir[$k]}" "${frag[@]}"
	done
	"$TOP/scripts/vng-setup.sh" > /dev/null	# records the virtme-ng version
}

# kinsn_boot WHAT RUNDIR KERNEL_DIR PLUGIN_OPTS APPEND GUEST_CMD...: boot the
# kernel in KERNEL_DIR under -icount with the kinsn plugin (its options, e.g.
# "cache=on", after start/stop/out) and run GUEST_CMD (quoted for the guest);
# CPUS, TIMEOUT as for boot.sh (NUMA=1).  Dies, saying WHAT, unless the guest
# command exited 0.
kinsn_boot() {
	local what=$1 rd=$2 kdir=$3 popts=$4 append=$5 rc=0
	shift 5
	mkdir -p "$rd"
	rm -f -- "$rd/boot-ok"
	# paths quoted for vng's split of --qemu-opts and for the guest's shell
	QEMU_OPTS="${ICOUNT:+-icount $ICOUNT }-plugin $(printf '%q' "$CACHE/tools/libkinsn.so,start=$start,stop=$stop,out=$rd/kinsn.out${popts:+,$popts}")" \
		TIMEOUT=${TIMEOUT:-1800} NUMA=1 APPEND="$append" \
		"$TOP/scripts/boot.sh" "$kdir/arch/x86/boot/bzImage" "$rd" "$(printf '%q ' "$@")" || rc=$?
	# boot.sh has said why if it died; else the guest command failed
	[ "$rc" != "$DIE_STATUS" ] || exit "$rc"
	[ "$rc" = 0 ] || die "$what: the guest's command exited $rc (see $rd)"
	# what a resume keeps (kept_boot): a boot boot.sh passed, not one that
	# wrote its counts and guest-rc 0, then crashed or timed out
	: > "$rd/boot-ok"
}

# A stopped run resumed (RUN=its directory, make and make scale): its
# meta.txt must say what NEW (the meta.txt lines this run would write) says
# for each KEY, or it is not resumed.  Then meta.txt describes both: a line
# that differs takes the larger of two numbers (repetitions) or the union of
# two lists (scale_cpus 1 2 + 4 8), any other change is kept as an
# 'earlier_KEY' line, lines only the old meta.txt had stay; the first start
# is kept and a 'resumed' line added for each resume.  Sets resumed=1 when
# RUN had a meta.txt.
#   meta_write RUN NEW KEY...
meta_write() {
	local run=$1 new=$2 key old now started
	shift 2
	started=$(date -u +%FT%TZ) resumed=0
	if [ -s "$run/meta.txt" ]; then
		for key in "$@"; do
			old=$(grep "^$key " "$run/meta.txt" || true)
			now=$(grep "^$key " "$new" || true)
			[ "$old" = "$now" ] ||
				die "RUN=$run was measured with another $key ('${old#"$key "}', now '${now#"$key "}'): not resuming it"
		done
		started=$(sed -n 's/^started //p' "$run/meta.txt")
		resumed=1
		log resume "$run (started $started): finished boots are kept"
	fi
	{
		if [ "$resumed" = 1 ]; then
			awk '
			FNR == NR { if ($1 != "started" && $1 != "resumed" && $1 != "finished" && !($1 in old)) { old[$1] = substr($0, length($1) + 2); order[++n] = $1 }
				next }
			{ k = $1; v = substr($0, length(k) + 2); seen[k] = 1
				if (!(k in old) || old[k] == v) { print; next }
				if (v ~ /^[0-9]+$/ && old[k] ~ /^[0-9]+$/) { print k " " (v + 0 > old[k] + 0 ? v : old[k]); next }
				if (k ~ /_cpus$|_memcgs$/) {
					m = split(old[k], a, " "); u = old[k]; delete have
					for (i = 1; i <= m; i++) have[a[i]] = 1
					m = split(v, a, " ")
					for (i = 1; i <= m; i++) if (!(a[i] in have)) { u = u " " a[i]; have[a[i]] = 1 }
					print k " " u; next }
				print; print "earlier_" k " " old[k] }
			END { for (i = 1; i <= n; i++) if (!(order[i] in seen)) print order[i] " " old[order[i]] }' "$run/meta.txt" "$new"
		else
			cat "$new"
		fi
		echo "started $started"
		[ "$resumed" = 0 ] || { grep '^resumed ' "$run/meta.txt" || true; echo "resumed $(date -u +%FT%TZ)"; }
	} > "$run/meta.txt.tmp" && mv -- "$run/meta.txt.tmp" "$run/meta.txt"
	rm -f -- "$new"
}
# kept_boot DIR: a boot of a resumed run that finished (its counts, guest
# status 0, and boot.sh passed it: kinsn_boot's boot-ok)
kept_boot() {
	[ "${resumed:-0}" = 1 ] && [ "$(cat "$1/guest-rc" 2> /dev/null)" = 0 ] && [ -s "$1/kinsn.out" ] &&
		[ -e "$1/boot-ok" ]
}

# --- a pool of background jobs, at most BOOTS at once (bench.sh's boots).
# pool_init; pool_run WHAT CMD...; ...; pool_wait.  pool_run starts CMD in
# the background once fewer than BOOTS run (and not at all once one has
# failed: the caller stops queueing when pool_failed is set); pool_wait
# waits for every job and exits with the first failure's status (a job
# that died says why; every failure is logged with its status).  Progress:
# "WHAT done (n/pool_total); ~N min left".  Needs bash 5.1 (wait -n -p).
pool_init() {
	declare -gA pool_what=()
	pool_running=0 pool_failed=0 pool_done=0 pool_total=${pool_total:-0} pool_t0=$(date +%s)
}
pool_reap() {
	local p= rc=0 el what
	wait -n -p p || rc=$?
	if [ -z "${p:-}" ]; then
		# no job ended (a signal, or none left): nothing to count
		[ "$rc" != 127 ] || pool_running=0
		return 0
	fi
	what=${pool_what[$p]:-a job}
	unset "pool_what[$p]"
	pool_running=$((pool_running - 1))
	if [ "$rc" != 0 ]; then
		[ "$pool_failed" != 0 ] || pool_failed=$rc
		if [ "$pool_running" = 0 ]; then
			log bench "$what failed (exit $rc)"
		else
			log bench "$what failed (exit $rc); waiting for the $pool_running still running"
		fi
		return 0
	fi
	pool_done=$((pool_done + 1))
	el=$(( $(date +%s) - pool_t0 ))
	log bench "$what done ($pool_done/$pool_total); ~$(( el * (pool_total - pool_done) / pool_done / 60 )) min left"
}
# pool_kill: TERM every process of the running jobs (boot.sh's timeout
# runs vng and QEMU in a process group of its own, which a Ctrl-C of make
# does not reach; timeout passes the TERM on).  The whole tree is listed
# first, then killed parents first: a shell whose child died first would
# go on to its next command.
pool_kill() {
	local p t=()
	for p in "${!pool_what[@]}"; do tree_pids "$p"; done
	for p in "${t[@]}"; do kill -TERM "$p" 2> /dev/null || true; done
}
# tree_pids PID: append PID and its descendants, parents first, to t[]
tree_pids() {
	local c
	t+=("$1")
	for c in $(ps -o pid= --ppid "$1" 2> /dev/null); do tree_pids "$c"; done
}
pool_run() {
	local what=$1
	shift
	while [ "$pool_running" -ge "${BOOTS:-1}" ]; do pool_reap; done
	[ "$pool_failed" = 0 ] || return 0
	"$@" &
	pool_what[$!]=$what
	pool_running=$((pool_running + 1))
}
pool_wait() {
	while [ "$pool_running" -gt 0 ]; do pool_reap; done
	[ "$pool_failed" = 0 ] || exit "$pool_failed"
}

# bench_meta: the meta.txt lines that say what was measured (after bench_kernels)
bench_meta() {
	echo "kernel_version $(make -s -C "$TREE" kernelversion)"
	echo "base_rev $base_rev $(git -C "$TREE" rev-parse --short "$base_rev")"
	echo "deb_version $DEB_VERSION"
	echo "config_sha256 $(sha256sum "${objdir[base]}/.config" | cut -c1-16)"
	# shellcheck disable=SC2046
	echo "series_sha256 $(cd "${PATCHES:-$TOP/patches}" && cat /dev/null $(tr -d '\r' < series | grep -v '^#') | sha256sum | cut -c1-16)"
	echo "series $(tr -d '\r' < "${PATCHES:-$TOP/patches}/series" | grep -vc '^#\|^$' || true)"
	echo "qemu $(qemu-system-x86_64 --version | head -1)"
	echo "virtme_ng $(cat "$CACHE/virtme-ng.version" 2>/dev/null || echo custom)"
	echo "qemu_plugin_header $(cat "$CACHE/tools/include/VERSION" 2>/dev/null || echo unknown)"
}

# A private apt in DIR with one sources.list LINE: the system's sources,
# preferences and state stay untouched.  Sets APT_OPTS for apt-get/apt-cache.
#   apt_private DIR LINE
apt_private() {
	local dir=$1
	mkdir -p "$dir"/etc/preferences.d "$dir"/state/lists/partial "$dir"/cache/archives/partial
	echo "$2" > "$dir/etc/sources.list"
	APT_OPTS=(-q
		-o Dir::Etc::SourceList="$dir/etc/sources.list"
		-o Dir::Etc::SourceParts=/dev/null
		-o Dir::Etc::Preferences=/dev/null
		-o Dir::Etc::PreferencesParts="$dir/etc/preferences.d"
		-o Dir::State="$dir/state"
		-o Dir::Cache="$dir/cache"
		-o APT::Architecture=amd64
		-o Acquire::Languages=none
		-o APT::Sandbox::User=root)
}

# --- as a command, for the Makefile ------------------------------------------
if [ -n "$lib_cmd" ]; then
	STAGE="make $lib_cmd"
	case $lib_cmd in
	knobs) check_knobs ;;
	clean) rm -rf -- "$CACHE/obj" "$CACHE/runs" ;;
	distclean) rm -rf -- "$CACHE" ;;
	*) die "usage: lib.sh knobs|clean|distclean" ;;
	esac
	exit 0
fi
