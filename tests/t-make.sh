#!/usr/bin/env bash
# t-make: the Makefile (help, .PHONY, clean/distclean on awkward or
# dangerous CACHEs, make shell on a cold cache), the one-error-line rule of
# scripts/lib.sh (a stage that fails on a plain command or a full disk,
# nested stages), and check.sh's run directory.  Everything runs in a copy
# of the repository's pipeline files under $tmp; no network, no kernel.
. "$(dirname "$0")/lib.sh"

export DEB_MIRROR=file://$tmp/no-mirror CACHE=$tmp/cache-default
# a copy of the pipeline: what make and the scripts read
repo=$tmp/repo
mkdir -p "$repo"
cp -a "$TOP/Makefile" "$TOP/README.md" "$TOP/scripts" "$TOP/patches" "$TOP/config" "$TOP/guest" "$TOP/expected" "$repo"/
mkmake() { make --no-print-directory -C "$repo" "$@"; }

# --- make help, .PHONY, README ---------------------------------------------
help=$(mkmake help 2>&1)
missing=
for t in $(grep -oE '`make [a-z-]+' "$TOP/README.md" | cut -c7- | sort -u) test; do
	grep -qE "make ([a-z-]+\|)*$t\b" <<< "$help" || missing+=" $t"
done
check help-targets 'make help names every target the README mentions, and test' test -z "$missing"
[ -z "$missing" ] || fail help-targets-missing "not in make help:$missing"
table=$(sed -n '/^## Knobs/,/^## [^K]/p' "$TOP/README.md" | grep '^|')
missing=
for k in $(printf '%s\n' "$table" | grep -oE '`[A-Z][A-Z0-9_]*`' | tr -d '`' | sort -u); do
	grep -qw -- "$k" <<< "$help" || missing+=" $k"
done
check help-knobs 'make help lists every knob of the README table' test -z "$missing"
[ -z "$missing" ] || fail help-knobs-missing "not in make help:$missing"
check help-no-stray 'make help prints no Makefile syntax' bash -c '! printf "%s\n" "$1" | grep -qE "^(CACHE|S|SHELL|export|\.PHONY)|:=|\?="' _ "$help"
missing=
for t in $(sed -n 's/^\.PHONY:\(.*\)/\1/p' "$TOP/Makefile"); do
	grep -qE "^$t:" "$TOP/Makefile" || missing+=" $t"
done
check phony-rules 'every .PHONY target has a rule' test -z "$missing"
[ -z "$missing" ] || fail phony-rules-missing "no rule:$missing"
check phony-test 'test is a .PHONY target' grep -qE '^\.PHONY:.* test( |$)' "$TOP/Makefile"
# every knob a script reads (${NAME:-...}) is in the README table
missing=
for k in $(grep -ohE '\$\{[A-Z_][A-Z0-9_]*:?[-=]' "$TOP"/scripts/*.sh | sed -E 's/^\$\{//; s/:?[-=]$//' | sort -u); do
	case $k in HOME | TMPDIR | T0 | STAGE | QUIET_EXIT) continue ;; esac
	grep -q "\`$k\`" <<< "$table" || missing+=" $k"
done
check readme-knobs 'every knob the scripts read is in the README table' test -z "$missing"
[ -z "$missing" ] || fail readme-knobs-missing "not in README's table:$missing"

# --- clean and distclean ---------------------------------------------------
# a CACHE with a space: only it goes (was: rm -rf /tmp/a and ./b, the
# issue's CACHE="/tmp/a b": here $tmp/a and the repository's b/)
c="$tmp/a b"
mkdir -p "$c/obj" "$tmp/a" "$repo/b"
mkmake distclean CACHE="$c" > /dev/null 2>&1
check distclean-space 'distclean CACHE="X/a b" deletes "X/a b" only, not X/a and ./b' test ! -e "$c" -a -d "$tmp/a" -a -d "$repo/b"
mkdir -p "$c/obj" "$c/runs" "$c/keep"
mkmake clean CACHE="$c" > /dev/null 2>&1
check clean-space 'clean CACHE="X/a b" deletes its obj and runs only' test ! -e "$c/obj" -a ! -e "$c/runs" -a -d "$c/keep" -a -d "$tmp/a" -a -d "$repo/b"
# dangerous CACHEs are refused with one line, and nothing is deleted (each
# case on its own copy: the old Makefile deleted them)
refuse() {
	local name=$1 re=$2 what=$3; shift 3
	expect "$name" "$re" env "$@"
	check "$name-kept" "$what is still there" test -e "$what"
}
copy() { mkdir -p "$1" && cp -a "$repo"/. "$1"/; }
mkdir -p "$tmp/home1/obj" "$tmp/home2" "$tmp/other/patches" "$tmp/nl"
refuse clean-home 'refusing CACHE=.*: it is \$HOME' "$tmp/home1/obj" HOME="$tmp/home1" make -C "$repo" clean CACHE="$tmp/home1"
refuse distclean-home 'refusing CACHE=.*: it is \$HOME' "$tmp/home2" HOME="$tmp/home2" make -C "$repo" distclean CACHE="$tmp/home2"
copy "$tmp/r1"
refuse distclean-repo 'refusing CACHE=.*: it is the repository or a directory above it' "$tmp/r1/Makefile" make -C "$tmp/r1" distclean CACHE="$tmp/r1"
copy "$tmp/up/r2"
refuse distclean-above 'refusing CACHE=.*: it is the repository or a directory above it' "$tmp/up/r2/Makefile" make -C "$tmp/up/r2" distclean CACHE="$tmp/up"
copy "$tmp/r3"
refuse distclean-relative-repo 'refusing CACHE=.*: it is the repository or a directory above it' "$tmp/r3/Makefile" make -C "$tmp/r3" distclean CACHE=.
refuse distclean-patches-holder 'refusing CACHE=.*holds a patches/ directory' "$tmp/other/patches" make -C "$repo" distclean CACHE="$tmp/other"
copy "$tmp/r4"
refuse distclean-in-patches "refusing CACHE=.*inside the repository's patches" "$tmp/r4/patches/series" make -C "$tmp/r4" distclean CACHE="$tmp/r4/patches"
copy "$tmp/r5"
refuse distclean-in-scripts "refusing CACHE=.*inside the repository's scripts/" "$tmp/r5/scripts/lib.sh" make -C "$tmp/r5" distclean CACHE="$tmp/r5/scripts"
refuse distclean-newline 'refusing CACHE=.*contains a newline' "$tmp/nl" make -C "$repo" distclean CACHE="$tmp/nl
$tmp/nl"
# and every stage refuses them too (lib.sh), before doing anything
expect cache-root 'refusing CACHE=/: it is /' env CACHE=/ "$repo/scripts/config.sh"
expect cache-home-stage 'refusing CACHE=.*: it is \$HOME' env HOME="$tmp/home" CACHE="$tmp/home" "$repo/scripts/build.sh"

# --- make shell --------------------------------------------------------------
# (-o build -o knobs: not the kernel build, only the shell's own recipe)
expect shell-cold "no kernel at .*/obj/patched/arch/x86/boot/bzImage \\(run 'make build' first\\)" \
	make -C "$repo" shell -o build -o knobs CACHE="$tmp/cold" VNG="$TOP/tests/fixtures/boot/vng"
k=$tmp/warm/obj/patched/arch/x86/boot/bzImage
mkdir -p "$(dirname "$k")" && : > "$k"
STUB_ARGS=$tmp/shell-args make -C "$repo" shell -o build -o knobs CACHE="$tmp/warm" \
	VNG="$TOP/tests/fixtures/boot/vng" > /dev/null 2>&1 < /dev/null
check shell-vng 'make shell runs VNG on the built kernel' grep -qx -- "$k" "$tmp/shell-args"

# --- one error line: the EXIT trap, nested stages, run_or_die -----------------
cat > "$tmp/stage-plain.sh" <<EOS
#!/usr/bin/env bash
. "$TOP/scripts/lib.sh"
false
EOS
cat > "$tmp/stage-parent.sh" <<EOS
#!/usr/bin/env bash
. "$TOP/scripts/lib.sh"
"$TOP/scripts/config.sh" "$tmp" "$tmp/obj-parent" "$tmp/no-such.config"
EOS
cat > "$tmp/stage-parent2.sh" <<EOS
#!/usr/bin/env bash
. "$TOP/scripts/lib.sh"
"$tmp/stage-plain.sh"
echo not reached
EOS
cat > "$tmp/stage-guest5.sh" <<EOS
#!/usr/bin/env bash
. "$TOP/scripts/lib.sh"
quiet_exit 5
EOS
cat > "$tmp/stage-context.sh" <<EOS
#!/usr/bin/env bash
. "$TOP/scripts/lib.sh"
run_or_die "the guest run failed" "\$1"
EOS
chmod +x "$tmp"/stage-*.sh
expect trap-plain 'stage-plain failed \(exit 1\)' "$tmp/stage-plain.sh"
expect trap-nested-die 'no kconfig fragment .*no-such.config' "$tmp/stage-parent.sh"
expect trap-nested 'stage-plain failed \(exit 1\)' "$tmp/stage-parent2.sh"
expect run-or-die-status 'the guest run failed \(exit 5\)' "$tmp/stage-context.sh" "$tmp/stage-guest5.sh"
expect run-or-die-died 'stage-plain failed' "$tmp/stage-context.sh" "$tmp/stage-plain.sh"

# --- a full disk: one line naming the directory (was: a shell 'write error') --
mkdir -p "$tmp/mnt-full"
if mount -t tmpfs -o size=1m objstock-full "$tmp/mnt-full" 2> /dev/null; then
	dd if=/dev/zero of="$tmp/mnt-full/fill" bs=64k > /dev/null 2>&1
	mkdir -p "$tmp/mnt-full/obj" 2> /dev/null
	echo 'CONFIG_OBJSTOCK_TEST=y' > "$tmp/frag.config"
	expect disk-full-stage "config: no space left under .*mnt-full" \
		env CACHE="$tmp/mnt-full" "$TOP/scripts/config.sh" "$tmp" "$tmp/mnt-full/obj" "$tmp/frag.config"
	expect disk-full-nested "config: no space left under .*mnt-full" \
		env CACHE="$tmp/mnt-full" "$TOP/scripts/build.sh" "$tmp" "$tmp/mnt-full/obj" "$tmp/frag.config"
	rm -f "$tmp/mnt-full/fill"
	# was harness.sh's disk-full: a 1 MiB cache cannot take a build
	printf 'allnoconfig:\n\t@cp $(KCONFIG_ALLCONFIG) $(O)/.config\nolddefconfig:\n\t@true\n' > "$tmp/Makefile"
	expect disk-full 'only [0-9]+ MiB free under .*mnt-full.*need 1500 MiB' \
		env CACHE="$tmp/mnt-full" "$TOP/scripts/build.sh" "$tmp" "$tmp/mnt-full/obj" "$tmp/frag.config"
	umount "$tmp/mnt-full"
else
	skip disk-full "cannot mount a tmpfs (not root?)"
fi

# --- CRLF list files and kconfig fragments ------------------------------------
printf 'suite_a\r\n# a comment\r\n\r\nsuite_b  # why\r\n' > "$tmp/suites"
check crlf-list-file 'a CRLF list file: its words, without CRs and comments' \
	test "$(list_file "$tmp/suites" 2>&1 | tr '\n' ' ')" = "suite_a suite_b "
mkdir -p "$tmp/ksrc"
# a stand-in kernel Makefile; its allnoconfig reads lines as kconfig does (LF)
printf 'allnoconfig:\n\t@tr -d "\\r" < $(KCONFIG_ALLCONFIG) > $(O)/.config\nolddefconfig:\n\t@true\n' > "$tmp/ksrc/Makefile"
printf 'CONFIG_A=y\r\n# CONFIG_B is not set\r\n' > "$tmp/crlf.config"
check crlf-fragment 'config.sh takes a CRLF kconfig fragment' \
	"$TOP/scripts/config.sh" "$tmp/ksrc" "$tmp/obj-crlf" "$tmp/crlf.config"

# --- check.sh: the harness's tests first, the run dir ------------------------
# (stubs for the stages that would download)
printf '#!/bin/sh\nexit 0\n' > "$repo/scripts/deps.sh"
printf '#!/usr/bin/env bash\n. "$(dirname "$0")/lib.sh"\ndie "fetch stub: no download in the tests"\n' > "$repo/scripts/fetch.sh"
mkdir -p "$repo/tests"
printf '#!/bin/sh\necho "harness:stub PASS ran before the fetch" > "$1"\necho "1 passed, 0 failed, 0 skipped"\n' > "$repo/tests/run"
chmod +x "$repo/scripts/deps.sh" "$repo/scripts/fetch.sh" "$repo/tests/run"
expect check-fails-early 'fetch stub: no download' env CACHE="$tmp/cache-run" HARNESS_TESTS=0 "$repo/scripts/check.sh"
check check-no-empty-run 'a failed check leaves no empty runs/check-*' \
	bash -c '! ls -d "$1"/runs/check-* 2> /dev/null' _ "$tmp/cache-run"
expect check-fails-later 'fetch stub: no download' env CACHE="$tmp/cache-run2" HARNESS_TESTS=1 "$repo/scripts/check.sh"
check check-harness-first 'make test runs before the fetch; its results are kept' \
	bash -c 'grep -q "harness:stub PASS" "$1"/runs/check-*/harness.results' _ "$tmp/cache-run2"
