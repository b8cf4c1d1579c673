#!/usr/bin/env bash
# build: configure and build a kernel (bzImage) with ccache.
#   build.sh [-t TARGET] [-m VAR=VALUE]... [-b CONFIG [-l LSMOD]] SRCTREE OBJDIR FRAGMENT...
# -t: the make target instead of bzImage (bindeb-pkg: scripts/pkg.sh);
# -m: a variable for the kernel's make (LOCALVERSION=...); -b, -l: config.sh's.
. "$(dirname "$0")/lib.sh"

usage="usage: build.sh [-t TARGET] [-m VAR=VALUE]... [-b CONFIG [-l LSMOD]] SRCTREE OBJDIR FRAGMENT..."
target=bzImage cfg=() lv=()
while getopts t:m:b:l: o; do
	case $o in
	t) target=$OPTARG ;;
	m) case $OPTARG in [A-Z]*=*) lv+=("$OPTARG") ;; *) die "$usage" ;; esac ;;
	b | l) cfg+=("-$o" "$OPTARG") ;;
	*) die "$usage" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || die "$usage"
src=$(realpath -m -- "$1") obj=$(realpath -m -- "$2"); shift 2
"$TOP/scripts/config.sh" ${cfg[@]+"${cfg[@]}"} "$src" "$obj" "$@"

export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
# base and patched trees live at different paths: hash relative paths
export CCACHE_BASEDIR=$CACHE CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
need_space "$obj" 1500
jobs=${JOBS:-$(nproc)}
log build "$(basename "$src") -> $obj (-j$jobs, ccache $CCACHE_DIR)"
start=$(date +%s)
if ! make -C "$src" O="$obj" -j"$jobs" CC="ccache gcc" KBUILD_BUILD_TIMESTAMP=objstock \
	KBUILD_BUILD_USER=objstock KBUILD_BUILD_HOST=objstock ${lv[@]+"${lv[@]}"} "$target" > "$obj/build.log" 2>&1; then
	grep -m5 -E 'error:|Error [0-9]|No space left' "$obj/build.log" >&2 || tail -5 "$obj/build.log" >&2 || true
	if grep -q 'No space left' "$obj/build.log"; then die "disk full while building $obj"; fi
	die "kernel build failed (see $obj/build.log)"
fi
log build "done in $(( $(date +%s) - start ))s: $(cat "$obj/include/config/kernel.release")"
