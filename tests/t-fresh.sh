#!/usr/bin/env bash
# t-fresh: a fresh host that is not this one (issue 12).  scripts/tools-build.sh
# and scripts/vng-setup.sh run against a stub archive (tests/fixtures/fresh:
# a host's apt sources, what each suite carries) through stub apt-get,
# apt-cache, dpkg-query, qemu-system-x86_64, gcc, nm and pkg-config: no
# network, no qemu source, no kernel.
export DEB_MIRROR=http://mirror.invalid/debian
. "$(dirname "$0")/lib.sh"
fix=$TOP/tests/fixtures/fresh
bin=$tmp/bin
mkdir -p "$bin"

# --- the stubs ----------------------------------------------------------------
# apt-get/apt-cache: the archive is $STUB_ARCHIVE/SUITE.{madison,showsrc}; an
# update copies the private sources.list's suites into its lists; madison and
# showsrc read those lists; download and source need the version in the
# archive now.  Every call is logged to $STUB_LOG (update: with its suites).
cat > "$bin/apt-stub" <<'EOF'
#!/bin/bash
src= state=
while [ $# -gt 0 ]; do
	case $1 in
	-o) case $2 in Dir::Etc::SourceList=*) src=${2#*=} ;; Dir::State=*) state=${2#*=} ;; esac; shift 2 ;;
	-*) shift ;;
	*) break ;;
	esac
done
me=${0##*/}
echo "$me $*" >> "$STUB_LOG"
suites() { sed 's/\[[^]]*\]//' "$src" | awk '$1 ~ /^deb/ {print $3}'; }
has() {	# has EXT VERSION: the archive has VERSION in one of the suites
	local s
	for s in $(suites); do
		[ -f "$STUB_ARCHIVE/$s.$1" ] || continue
		awk -F'|' -v v="$2" '{ x = $2; gsub(/ /, "", x) } x == v || ($1 == "Version: " v) { f = 1 }
			END { exit !f }' "$STUB_ARCHIVE/$s.$1" && return 0
	done
	return 1
}
case $me:$1 in
apt-get:update)
	echo "suites: $(suites | paste -sd' ')" >> "$STUB_LOG"
	[ "${STUB_OFFLINE:-0}" = 1 ] && { echo "E: offline" >&2; exit 100; }
	rm -f "$state"/lists/stub_*
	for s in $(suites); do
		cat "$STUB_ARCHIVE/$s.madison" > "$state/lists/stub_${s}_Packages" 2> /dev/null || : > "$state/lists/stub_${s}_Packages"
		cat "$STUB_ARCHIVE/$s.showsrc" > "$state/lists/stub_${s}_Sources" 2> /dev/null || true
	done ;;
apt-get:download)
	[ "${STUB_OFFLINE:-0}" = 1 ] && exit 100
	v=${2#virtme-ng=}
	has madison "$v" || { echo "E: Can't find a source to download version '$v' of 'virtme-ng'" >&2; exit 100; }
	d=$(mktemp -d); mkdir -p "$d/DEBIAN" "$d/usr/bin"
	printf 'Package: virtme-ng\nVersion: %s\nArchitecture: all\nMaintainer: t <t@t>\nDescription: stub\n' "$v" > "$d/DEBIAN/control"
	echo "$v" > "$d/usr/bin/virtme-ng"
	dpkg-deb --root-owner-group -b "$d" "virtme-ng_${v}_all.deb" > /dev/null; rm -rf "$d" ;;
apt-get:source)
	[ "${STUB_OFFLINE:-0}" = 1 ] && exit 100
	v=${3#qemu=}
	has showsrc "$v" || { echo "E: no source for qemu $v" >&2; exit 100; }
	nv=${v#*:} up=${nv%-*}
	d=$(mktemp -d); mkdir -p "$d/qemu-$up"
	cp -r "$STUB_QEMU_SRC_TREE/orig/." "$d/qemu-$up/"
	echo "/* source $v */" >> "$d/qemu-$up/include/qemu/qemu-plugin.h"
	tar -cJf "qemu_$up.orig.tar.xz" -C "$d" "qemu-$up"
	tar -cJf "qemu_$nv.debian.tar.xz" -C "$STUB_QEMU_SRC_TREE" debian
	: > "qemu_$nv.dsc"; rm -rf "$d" ;;
apt-cache:madison) cat "$state"/lists/stub_*_Packages 2> /dev/null ;;
apt-cache:showsrc) cat "$state"/lists/stub_*_Sources 2> /dev/null ;;
*) echo "stub $me: unexpected $*" >&2; exit 1 ;;
esac
EOF
cat > "$bin/dpkg-query" <<'EOF'
#!/bin/bash
case "$*" in *source:Version*qemu-system-x86*) printf '%s' "$STUB_QEMU_PKG"; exit 0 ;; esac
exec /usr/bin/dpkg-query "$@"
EOF
cat > "$bin/qemu-system-x86_64" <<'EOF'
#!/bin/bash
if [ "$1" = --version ]; then
	up=${STUB_QEMU_PKG#*:}; up=${up%%+*}; up=${up%%-*}
	echo "QEMU emulator version ${STUB_QEMU_VERSION:-$up} (Debian $STUB_QEMU_PKG)"
	exit 0
fi
echo "qemu $*" >> "$STUB_LOG"
cat > /dev/null
if [ -n "${STUB_QEMU_REFUSE:-}" ]; then
	echo "qemu-system-x86_64: Could not load plugin x.so: plugin requires API version 4, but this QEMU supports only up to version 1" >&2
	exit 1
fi
EOF
cat > "$bin/gcc" <<'EOF'
#!/bin/bash
echo "gcc $*" >> "$STUB_LOG"
while [ $# -gt 1 ]; do [ "$1" = -o ] && { echo stub > "$2"; exit 0; }; shift; done
exit 1
EOF
printf '#!/bin/sh\nprintf "%%s\\n" "0000000000402010 T bench_start" "0000000000402020 T bench_stop"\n' > "$bin/nm"
printf '#!/bin/sh\nexit 0\n' > "$bin/pkg-config"
chmod +x "$bin"/*
ln -s apt-stub "$bin/apt-get"
ln -s apt-stub "$bin/apt-cache"

# run NAME HOST SCRIPT: run SCRIPT (tools-build.sh or vng-setup.sh) with the
# stubs, host sources fixture HOST and cache $tmp/c-NAME (c-$SHARE if set); stdout in
# $tmp/NAME.out, stderr in $tmp/NAME.err (the files expect reads too), calls
# in $tmp/NAME.log
run() {
	local name=$1 host=$2 script=$3 cache=$tmp/c-${SHARE:-$1}
	mkdir -p "$cache"
	PATH=$bin:$PATH APT_SOURCES_DIR=$fix/sources/$host CACHE=$cache \
		STUB_LOG=$tmp/$name.log STUB_ARCHIVE=$fix/archive/${ARCHIVE:-now} \
		STUB_QEMU_SRC_TREE=$fix/qemu-src STUB_QEMU_PKG=${QEMU_PKG:-1:7.2+dfsg-7+deb12u18} \
		"$TOP/scripts/$script" > "$tmp/$name.out" 2> "$tmp/$name.err" < /dev/null
}
# the header a tools-build run left, and the qemu source version it names
hdr_of() { cat "$tmp/c-$1/tools/include/qemu-plugin.h" 2> /dev/null; }
# the suites of the run's (first) index update
suites_of() { grep -m1 '^suites: ' "$tmp/$1.log" | cut -d' ' -f2-; }
# a case from a run: exit status 0 and CONDITION true, else FAIL with stderr
verdict() {
	local name=$1 rc=$2 what=$3; shift 3
	if [ "$rc" != 0 ]; then
		fail "$name" "exit $rc: $(grep -m1 'error' "$tmp/$name.err" || tail -1 "$tmp/$name.err")"
	elif "$@"; then
		pass "$name" "$what"
	else
		fail "$name" "$what: not so (suites: $(suites_of "$name"); $(grep -m1 -E 'source|download' "$tmp/$name.log"))"
	fi
}

# --- the host's apt sources -------------------------------------------------------
# deb822 (stanzas, continuation lines, an inline key, Enabled: no, lower-case
# field names) and one-line (options, comments, leading blanks): every entry
if grep -q '^apt_sources_entries()' "$TOP/scripts/vng-setup.sh"; then
	got=$(bash -c '. "$1/scripts/vng-setup.sh"; apt_sources_entries "$2"' _ "$TOP" "$fix/sources/mixed" 2>&1)
	if [ "$got" = "$(cat "$fix/sources/mixed.expected")" ]; then
		pass fresh.apt-sources-parse "deb822 and one-line entries of sources/mixed"
	else
		fail fresh.apt-sources-parse "got: $(paste -sd';' <<< "$got")"
	fi
	got=$(bash -c '. "$1/scripts/vng-setup.sh"; host_debian_entries "$2"' _ "$TOP" "$fix/sources/trixie" 2>&1)
	want=$'mirror trixie\nmirror trixie-updates\nhttp://mirror.invalid/debian-security trixie-security'
	if [ "$got" = "$want" ]; then
		pass fresh.apt-host-suites "trixie host: trixie, trixie-updates on the mirror, trixie-security"
	else
		fail fresh.apt-host-suites "got: $(paste -sd';' <<< "$got")"
	fi
else
	fail fresh.apt-sources-parse "scripts/vng-setup.sh has no apt_sources_entries"
	fail fresh.apt-host-suites "scripts/vng-setup.sh has no host_debian_entries"
fi

# lib.sh's host_mirror (DEB_MIRROR's default): the host's Debian mirror, not
# a vendor's repository sorted before it, nor a disabled stanza's
got=
for h in trixie sid bookworm mixed vendor-first; do
	got+="$h=$(env -u DEB_MIRROR APT_SOURCES_DIR="$fix/sources/$h" bash -c '. "$1/scripts/lib.sh"; host_mirror' _ "$TOP" 2>&1) "
done
want="trixie=http://mirror.invalid/debian sid=http://mirror.invalid/debian bookworm=http://mirror.invalid/debian mixed=http://mirror.invalid/debian vendor-first=http://mirror.invalid/debian "
if [ "$got" = "$want" ]; then
	pass fresh.host-mirror "the host's Debian mirror from deb822 and one-line sources (vendor first, disabled stanza)"
else
	fail fresh.host-mirror "got: $got"
fi
got=$(bash -c '. "$1/scripts/vng-setup.sh"; host_suites "$2"' _ "$TOP" "$fix/sources/vendor-first" 2>&1 | paste -sd' ')
check fresh.host-mirror-suites "vendor-first: the suites of that mirror (trixie trixie-updates)" \
	test "$got" = 'trixie trixie-updates'

# no package registry's host name in the repository's files: the mirror is
# the host's (a pattern that does not match itself)
re='debian[.]org|npmjs[.](org|com)|pypi[.]org|proxy[.]golang[.]org'
if git -C "$TOP" rev-parse --git-dir > /dev/null 2>&1; then
	named=$(git -C "$TOP" grep -IliE -e "$re" | head -3 | tr '\n' ' ')
else
	named=$(grep -rIliE --exclude-dir=.git --exclude-dir=build -e "$re" "$TOP" | head -3 | tr '\n' ' ')
fi
check fresh.no-registry-host "no registry host named in the repository" test -z "$named"
[ -z "$named" ] || fail fresh.no-registry-host-files "named in: $named"

# --- qemu-plugin.h: from the source of exactly the host's qemu ---------------------
# a trixie host (deb822 sources): the header of its qemu 10.0.13, from trixie
QEMU_PKG=1:10.0.13+ds-0+deb13u1 run fresh.qemu-trixie-host trixie tools-build.sh
verdict fresh.qemu-trixie-host $? "deb-src of trixie trixie-updates trixie-security, header of 1:10.0.13+ds-0+deb13u1" \
	eval '[ "$(suites_of fresh.qemu-trixie-host)" = "trixie trixie-updates trixie-security" ] &&
		hdr_of fresh.qemu-trixie-host | grep -qF "source 1:10.0.13+ds-0+deb13u1"'

# a sid host (one-line sources, a vendor repo, a disabled stanza): sid only
QEMU_PKG=1:11.1.2+ds-3 run fresh.qemu-sid-host sid tools-build.sh
verdict fresh.qemu-sid-host $? "deb-src of sid only, header of 1:11.1.2+ds-3 (not sid's newest)" \
	eval '[ "$(suites_of fresh.qemu-sid-host)" = sid ] &&
		hdr_of fresh.qemu-sid-host | grep -qF "source 1:11.1.2+ds-3"'

# bookworm moved on to deb12u19; the host still has deb12u18, which only
# bookworm-security carries: that exact version, not the suite's newest
run fresh.qemu-exact-version bookworm tools-build.sh
verdict fresh.qemu-exact-version $? "fetched qemu=1:7.2+dfsg-7+deb12u18 (bookworm has deb12u19)" \
	eval 'grep -q "source --download-only qemu=1:7.2+dfsg-7+deb12u18$" "$tmp/fresh.qemu-exact-version.log"'

# run again: nothing to fetch or build, no apt call
c=fresh.qemu-cached
QEMU_PKG=1:10.0.13+ds-0+deb13u1 SHARE=fresh.qemu-trixie-host run "$c" trixie tools-build.sh
verdict "$c" $? "a second run: no apt-get/apt-cache call, no rebuild" \
	eval '! grep -qsE "^(apt-|gcc)" "$tmp/$c.log"'

# no suite has the host's qemu: one line naming that version
QEMU_PKG=1:9.9+ds-1 expect fresh.qemu-no-source "no source package for the host's qemu 1:9\.9\+ds-1" \
	run fresh.qemu-no-source trixie tools-build.sh

# the host's qemu changed since the header was fetched: fetched again, rebuilt
mkdir -p "$tmp/c-fresh.qemu-upgraded/tools/include"
echo '/* source 1:7.2+dfsg-7+deb12u18 */' > "$tmp/c-fresh.qemu-upgraded/tools/include/qemu-plugin.h"
echo '1:7.2+dfsg-7+deb12u18' > "$tmp/c-fresh.qemu-upgraded/tools/include/VERSION"
echo old > "$tmp/c-fresh.qemu-upgraded/tools/libkinsn.so"
touch -d '1 hour' "$tmp/c-fresh.qemu-upgraded/tools/libkinsn.so"	# newer than kinsn.c
QEMU_PKG=1:10.0.13+ds-0+deb13u1 run fresh.qemu-upgraded trixie tools-build.sh
verdict fresh.qemu-upgraded $? "header of the new qemu 1:10.0.13+ds-0+deb13u1, plugin rebuilt" \
	eval 'hdr_of fresh.qemu-upgraded | grep -qF "source 1:10.0.13+ds-0+deb13u1" &&
		grep -q "^gcc -shared" "$tmp/fresh.qemu-upgraded.log"'

# Debian's own patch to the header is part of that source version
QEMU_PKG=1:10.0.13+ds-0+deb13u1 run fresh.qemu-debian-patch trixie tools-build.sh
verdict fresh.qemu-debian-patch $? "debian/patches/plugin-header.patch applied, other-file.patch skipped" \
	eval 'hdr_of fresh.qemu-debian-patch | grep -qF "patched by Debian"'

# QEMU refuses the plugin's API version: the build stops with QEMU's reason
STUB_QEMU_REFUSE=1 expect fresh.qemu-plugin-refused "does not load libkinsn\.so.*API version 4" \
	run fresh.qemu-plugin-refused bookworm tools-build.sh

# the qemu in PATH is not the packaged one: the plugin API check still holds
STUB_QEMU_VERSION=8.0.0 expect fresh.qemu-not-packaged "qemu-system-x86_64.* 8\.0\.0" \
	run fresh.qemu-not-packaged bookworm tools-build.sh

# --- virtme-ng: the newest in range, host's suites first -----------------------------
vng_ok() {	# vng_ok NAME VERSION [CACHE-NAME]: printed that version's vng, recorded it
	local c=$tmp/c-${3:-$1}
	[ "$(cat "$tmp/$1.out")" = "$c/virtme-ng-$2/vng" ] && [ -x "$c/virtme-ng-$2/vng" ] &&
		[ "$(cat "$c/virtme-ng.version" 2> /dev/null)" = "$2" ]
}
# sid moved on from 1.41-1 to 1.42-1 (bookworm host: no virtme-ng of its own)
run fresh.vng-sid-moved-on bookworm vng-setup.sh
verdict fresh.vng-sid-moved-on $? "1.42-1 from sid, recorded in \$CACHE/virtme-ng.version" \
	vng_ok fresh.vng-sid-moved-on 1.42-1

# a trixie host: trixie's own 1.35-1 first, though sid has 1.42-1
run fresh.vng-host-suite-first trixie vng-setup.sh
verdict fresh.vng-host-suite-first $? "1.35-1 from the host's trixie" vng_ok fresh.vng-host-suite-first 1.35-1

# sid has 2.0-1 and 2.0~rc1-1: out of range, trixie's 1.35-1 instead
ARCHIVE=major run fresh.vng-range bookworm vng-setup.sh
verdict fresh.vng-range $? "1.35-1 (sid's 2.0-1 and 2.0~rc1-1 are out of range)" vng_ok fresh.vng-range 1.35-1

# nothing in range anywhere: one line
ARCHIVE=none expect fresh.vng-none-in-range "no virtme-ng >= 1\.35 and < 2~ in bookworm bookworm-updates trixie sid" \
	run fresh.vng-none-in-range bookworm vng-setup.sh

# VNG_VERSION pins one, from whichever suite has it
VNG_VERSION=1.35-1 run fresh.vng-pinned bookworm vng-setup.sh
verdict fresh.vng-pinned $? "VNG_VERSION=1.35-1 (trixie's)" vng_ok fresh.vng-pinned 1.35-1

# a pinned version that no suite has: one line
VNG_VERSION=1.40-1 expect fresh.vng-pinned-missing "virtme-ng 1\.40-1 is not in" \
	run fresh.vng-pinned-missing bookworm vng-setup.sh

# bad knobs: one line each, before any apt call
VNG_VERSION='1.41-1 x' expect fresh.vng-bad-version "VNG_VERSION=.*not a Debian version" \
	run fresh.vng-bad-version bookworm vng-setup.sh
VNG_SUITES='sid;x' expect fresh.vng-bad-suites "VNG_SUITES=.*suite names" \
	run fresh.vng-bad-suites bookworm vng-setup.sh
expect fresh.apt-sources-dir-missing "APT_SOURCES_DIR=.*not a directory" \
	run fresh.apt-sources-dir-missing no-such-host vng-setup.sh

# cached and resolved the same: reused, no apt call at all (no network)
export SHARE=fresh.vng-sid-moved-on
c=fresh.vng-cached-no-network
run "$c" bookworm vng-setup.sh
verdict "$c" $? "the cached 1.42-1, no apt-get/apt-cache call" \
	eval 'vng_ok "$c" 1.42-1 "$SHARE" && ! grep -qs "^apt-" "$tmp/$c.log"'

# the index cannot be read (offline, no lists) but a vng is cached: used, warned
rm -rf "$tmp/c-$SHARE/apt-vng"
c=fresh.vng-offline-cached
STUB_OFFLINE=1 run "$c" bookworm vng-setup.sh
verdict "$c" $? "the cached 1.42-1, with a warning" \
	eval 'vng_ok "$c" 1.42-1 "$SHARE" && grep -q "warning: cannot read the index" "$tmp/$c.err"'
unset SHARE

# the archive moved on (1.43-1) since the cached index (1.42-1), nothing
# unpacked: the download fails, the index is read again, 1.43-1 is used
c=fresh.vng-index-stale
run "$c" bookworm vng-setup.sh
rm -rf "$tmp/c-$c"/virtme-ng-* "$tmp/c-$c"/dl/*.deb
ARCHIVE=later run "$c" bookworm vng-setup.sh
verdict "$c" $? "1.43-1 after reading the index again" vng_ok "$c" 1.43-1

# --- cgroup-tools: not installed, nothing uses it --------------------------------
if sed 's/#.*//' "$TOP/scripts/deps.sh" | grep -qw 'cgroup-tools'; then
	fail fresh.no-cgroup-tools "scripts/deps.sh installs cgroup-tools"
elif grep -Eqw 'cg(create|exec|get|set|classify|delete)' "$TOP"/guest/*.sh "$TOP"/scripts/*.sh; then
	fail fresh.no-cgroup-tools "a script uses a cgroup-tools command"
else
	pass fresh.no-cgroup-tools "deps.sh does not install it; guest scripts use cgroupfs"
fi
