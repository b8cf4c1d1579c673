#!/usr/bin/env bash
# config: allnoconfig + our kconfig fragments -> $OBJ/.config, then check that
# every option a fragment asks for survived olddefconfig.
#   config.sh SRCTREE OBJDIR FRAGMENT...
. "$(dirname "$0")/lib.sh"

[ $# -ge 3 ] || die "usage: config.sh SRCTREE OBJDIR FRAGMENT..."
src=$(realpath -m -- "$1") obj=$(realpath -m -- "$2"); shift 2
for f in "$@"; do [ -r "$f" ] || die "no kconfig fragment $f"; done
mkdir -p -- "$obj"
# (a fragment saved with CRLF line ends is read as if it had LF)
sed 's/\r$//' "$@" > "$obj/objstock.fragment"
if [ -f "$obj/.config" ] && [ -f "$obj/.objstock-fragment" ] &&
	cmp -s "$obj/objstock.fragment" "$obj/.objstock-fragment"; then
	log config "unchanged ($(basename -a "$@" | tr '\n' ' '))"
	exit 0
fi
log config "allnoconfig + $(basename -a "$@" | tr '\n' ' ')"
KCONFIG_ALLCONFIG=$obj/objstock.fragment \
	make -s -C "$src" O="$obj" allnoconfig > "$obj/config.log" 2>&1 ||
	die "allnoconfig failed (see $obj/config.log)"
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
