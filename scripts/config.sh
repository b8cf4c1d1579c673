#!/usr/bin/env bash
# config: allnoconfig + our kconfig fragments -> $OBJ/.config, then check that
# every option a fragment asks for survived olddefconfig.
#   config.sh [-b CONFIG [-l LSMOD]] SRCTREE OBJDIR FRAGMENT...
# -b CONFIG: start from the kconfig file CONFIG (e.g. a machine's
# /boot/config-*) instead of allnoconfig; its certificate paths, which name
# files of the distribution's source tree, are dropped.  -l LSMOD: then keep
# only the modules loaded in LSMOD (lsmod's output; localmodconfig).
. "$(dirname "$0")/lib.sh"

usage="usage: config.sh [-b CONFIG [-l LSMOD]] SRCTREE OBJDIR FRAGMENT..."
start= lsmod=
while getopts b:l: o; do
	case $o in
	b) start=$OPTARG ;;
	l) lsmod=$OPTARG ;;
	*) die "$usage" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || die "$usage"
[ -z "$lsmod" ] || [ -n "$start" ] || die "config.sh: -l needs -b"
src=$(realpath -m -- "$1") obj=$(realpath -m -- "$2"); shift 2
for f in "$@"; do [ -r "$f" ] || die "no kconfig fragment $f"; done
for f in "$start" "$lsmod"; do [ -z "$f" ] || [ -r "$f" ] || die "cannot read $f"; done
mkdir -p -- "$obj"
# (a fragment saved with CRLF line ends is read as if it had LF); the start
# config and the module list are part of what makes the config "unchanged"
{
	if [ -n "$start" ]; then
		echo "# objstock: from $start${lsmod:+, modules of $lsmod}"
		sed 's/\r$//' "$start" ${lsmod:+"$lsmod"} | sha256sum | sed 's/^/# objstock: /'
	fi
	sed 's/\r$//' "$@"
} > "$obj/objstock.fragment"
if [ -f "$obj/.config" ] && [ -f "$obj/.objstock-fragment" ] &&
	cmp -s "$obj/objstock.fragment" "$obj/.objstock-fragment"; then
	log config "unchanged ($(basename -a "$@" | tr '\n' ' '))"
	exit 0
fi
if [ -n "$start" ]; then
	log config "$start${lsmod:+ (localmodconfig: $lsmod)} + $(basename -a "$@" | tr '\n' ' ')"
	sed -e 's/\r$//' -e '/^CONFIG_SYSTEM_\(TRUSTED\|REVOCATION\)_KEYS=/d' \
		-e '/^CONFIG_MODULE_SIG_KEY=/d' "$start" > "$obj/.config"
	: > "$obj/config.log"
	if [ -n "$lsmod" ]; then
		make -s -C "$src" O="$obj" olddefconfig >> "$obj/config.log" 2>&1 ||
			die "olddefconfig of $start failed (see $obj/config.log)"
		{ yes '' || true; } | make -s -C "$src" O="$obj" LSMOD="$(realpath -- "$lsmod")" localmodconfig >> "$obj/config.log" 2>&1 ||
			die "localmodconfig failed (see $obj/config.log)"
	fi
	# later lines win: the fragments override the start config
	sed 's/\r$//' "$@" >> "$obj/.config"
else
	log config "allnoconfig + $(basename -a "$@" | tr '\n' ' ')"
	KCONFIG_ALLCONFIG=$obj/objstock.fragment \
		make -s -C "$src" O="$obj" allnoconfig > "$obj/config.log" 2>&1 ||
		die "allnoconfig failed (see $obj/config.log)"
fi
make -s -C "$src" O="$obj" olddefconfig >> "$obj/config.log" 2>&1 ||
	die "olddefconfig failed (see $obj/config.log)"

# every CONFIG_X=v and '# CONFIG_X is not set' must be in the result
lost=()
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF "$line" "$obj/.config" || lost+=("$line") ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		grep -q "^$opt=" "$obj/.config" && lost+=("$opt=n") ;;
	esac
done < "$obj/objstock.fragment"
if [ ${#lost[@]} -gt 0 ]; then
	rm -f "$obj/.objstock-fragment"
	die "kconfig dropped: ${lost[*]} (missing dependencies?)"
fi
cp "$obj/objstock.fragment" "$obj/.objstock-fragment"
log config "ok: $(grep -c '^CONFIG_.*=' "$obj/.config") options set"
