#!/usr/bin/env bash
# tools-build: build the benchmark's measurement tools into $CACHE/tools.
#
#   scripts/tools-build.sh
#
# Produces
#   $CACHE/tools/libkinsn.so   QEMU TCG plugin counting guest kernel instructions
#                              between two marker addresses (tools/kinsn/kinsn.c)
#   $CACHE/tools/libcache.so   QEMU's own cache-model plugin (contrib/plugins/cache.c
#                              of the same qemu source), the reference that
#                              scripts/kinsn-selftest.sh checks kinsn's cache=on against
#   $CACHE/tools/churn         static non-PIE guest workload (tools/workloads/churn.c)
#   $CACHE/tools/cachetest     static non-PIE guest workloads of known cache behaviour
#                              (tools/workloads/cachetest.c, for kinsn-selftest.sh)
#   $CACHE/tools/markers       "start=0x... stop=0x..." for churn (also on stdout)
#
# The plugin API header (qemu-plugin.h) is not packaged: it is taken from the
# Debian source package of exactly the host's qemu (the source version of the
# installed qemu-system-x86), fetched with a private apt config (state in
# $CACHE/tools/apt, tarballs in $CACHE/dl, never committed) whose deb-src
# lines are the host's own suites (read from its apt sources under
# APT_SOURCES_DIR, default /etc/apt: see scripts/vng-setup.sh) on $DEB_MIRROR,
# plus the host's security suites; Debian's patches to the header, if any,
# are applied.  contrib/plugins/cache.c comes from the same tarball, with
# Debian's patches to it, into $CACHE/tools/src.  Both are taken again when
# the host's qemu changes, and the plugins rebuilt; QEMU itself then loads
# each plugin once (no guest), so a plugin API version it refuses stops here,
# not in the bench.
# Needs gcc, a static libc (libc6-dev), pkg-config and libglib2.0-dev (installed
# with apt-get if missing).  Idempotent: rebuilds only what is out of date.
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/vng-setup.sh"	# the host-apt-sources helpers

out=$CACHE/tools
dl=$CACHE/dl
hdr=$out/include/qemu-plugin.h
csrc=$out/src/cache.c
mkdir -p "$out/include" "$out/src" "$dl"

# src_diff FILE [N]: only the part of a unified diff (stdin) that changes FILE
# (a path in the qemu source, e.g. include/qemu/qemu-plugin.h), its paths with
# N (default 1) leading components
src_diff() {
	awk -v file="$1" -v strip="${2:-1}" '
	function target(l,  i) {
		sub(/^\+\+\+[ \t]+/, "", l); sub(/[ \t].*/, "", l)
		for (i = 0; i < strip; i++) sub(/^[^\/]*\//, "", l)
		return l
	}
	/^--- / { held = $0; next }
	held != "" && /^\+\+\+ / { keep = target($0) == file; if (keep) print held; held = "" }
	held != "" { if (keep) print held; held = "" }
	/^(diff |Index: )/ { keep = 0 }
	keep { print }'
}

# --- qemu-plugin.h and cache.c from the Debian source package of the host's qemu
qsrc=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>/dev/null || true)
[ -n "$qsrc" ] || die "qemu-system-x86 is not installed (run scripts/deps.sh)"
up=${qsrc#*:}; up=${up%-*}			# 7.2+dfsg
have=$(qemu-system-x86_64 --version 2>/dev/null | awk 'NR==1 {print $4}' || true)
# the plugin API must be the one of the qemu that will load the plugin
case $have in
"${up%%+*}"|"${up%%+*}".*) ;;
*) die "qemu-system-x86_64 in PATH is ${have:-(missing)}, not the packaged qemu-system-x86 $qsrc" ;;
esac
# the files to take from the source (path in it, destination), if out of date
want=()
if [ ! -s "$hdr" ] || [ "$(cat "$out/include/VERSION" 2>/dev/null)" != "$qsrc" ]; then
	want+=(include/qemu/qemu-plugin.h "$hdr")
fi
if [ ! -s "$csrc" ] || [ "$(cat "$csrc.qemu" 2>/dev/null)" != "$qsrc" ]; then
	want+=(contrib/plugins/cache.c "$csrc")
fi
find_src() {	# find_src orig|debian: the tarball of $qsrc in $dl
	local f
	for f in "$dl"/qemu_"$([ "$1" = orig ] && echo "$up.orig" || echo "${qsrc#*:}.debian")".tar.*; do
		[ -f "$f" ] && { echo "$f"; return; }
	done
	true
}
if [ ${#want[@]} -gt 0 ]; then
	need_space "$dl" 200
	orig=$(find_src orig) deb=$(find_src debian)
	# the tarballs of this version are in $dl already: no index to read
	if [ -z "$orig" ] || [ -z "$deb" ]; then
		apt_dir=$out/apt
		entries=$(host_debian_entries "$APT_SOURCES_DIR")
		[ -n "$entries" ] ||
			die "no Debian suite in the apt sources under $APT_SOURCES_DIR (sources.list, sources.list.d/)"
		suites=$(awk '{print $2}' <<< "$entries" | paste -sd' ')
		apt_private "$apt_dir" "$(apt_lines deb-src security <<< "$entries")"
		log tools "reading the source index of $suites"
		upd=0
		apt-get "${APT_OPTS[@]}" update > "$apt_dir/update.log" 2>&1 || upd=$?
		if ! apt-cache "${APT_OPTS[@]}" showsrc qemu 2>/dev/null | grep -x "Version: $qsrc" > /dev/null; then
			[ "$upd" = 0 ] || die "cannot read the source index of $suites (see $apt_dir/update.log)"
			die "no source package for the host's qemu $qsrc in $suites (upgrade qemu-system-x86 to a version they carry)"
		fi
		[ "$upd" = 0 ] || log tools "warning: part of the source index failed (see $apt_dir/update.log)"
		log tools "fetching qemu source $qsrc (25-40 MiB)"
		(cd "$dl" && apt-get "${APT_OPTS[@]}" source --download-only "qemu=$qsrc") \
			> "$apt_dir/source.log" 2>&1 ||
			die "cannot fetch qemu source $qsrc (see $apt_dir/source.log)"
		orig=$(find_src orig) deb=$(find_src debian)
		[ -n "$orig" ] || die "qemu $qsrc: no orig tarball in $dl"
	fi
	tmp=$(mktemp -d "$out/src.XXXXXX")
	names=() pats=()
	for ((i = 0; i < ${#want[@]}; i += 2)); do
		names+=("${want[i]##*/}") pats+=("${want[i]}")
	done
	log tools "extracting ${names[*]} from ${orig##*/}"
	tar --no-same-owner -xf "$orig" -C "$tmp" --wildcards --no-anchored "${pats[@]}" ||
		{ rm -rf "$tmp"; die "no ${pats[*]} in ${orig##*/}"; }
	# Debian's patches (debian/patches/series, in order)
	{ [ -n "$deb" ] && tar -xOf "$deb" debian/patches/series > "$tmp/series" 2>/dev/null; } ||
		: > "$tmp/series"
	for ((i = 0; i < ${#want[@]}; i += 2)); do
		rel=${want[i]} dest=${want[i + 1]} name=${want[i]##*/}
		# the copy of the source's top directory (the shortest such path)
		f=$(find "$tmp" -path "*/$rel" | awk '{ print length($0), $0 }' | sort -n | head -n1 | cut -d' ' -f2-)
		[ -n "$f" ] || { rm -rf "$tmp"; die "no $rel in ${orig##*/}"; }
		while read -r p opt; do
			case $p in ''|'#'*) continue ;; esac
			case $opt in -p[0-9]*) pl=${opt#-p}; pl=${pl%% *} ;; *) pl=1 ;; esac
			tar -xOf "$deb" "debian/patches/$p" 2>/dev/null | src_diff "$rel" "$pl" > "$tmp/p.diff" || true
			[ -s "$tmp/p.diff" ] || continue
			log tools "applying Debian's $p to $name"
			patch -s -p"$pl" -d "${f%/"$rel"}" < "$tmp/p.diff" > "$tmp/patch.log" 2>&1 ||
				{ rm -rf "$tmp"; die "Debian's $p does not apply to $name of ${orig##*/}"; }
		done < "$tmp/series"
		mv "$f" "$dest"
		touch "$dest"			# newer than the plugin built on the old one
		case $rel in
		*/qemu-plugin.h) echo "$qsrc" > "$out/include/VERSION" ;;
		*) echo "$qsrc" > "$dest.qemu" ;;
		esac
	done
	rm -rf "$tmp"
	# the sources of other qemu versions are no longer needed
	for f in "$dl"/qemu_*; do
		[ -f "$f" ] && [ "$f" != "$orig" ] && [ "$f" != "$deb" ] && rm -f "$f"
	done
fi
qapi=$(awk '$1 == "#define" && $2 == "QEMU_PLUGIN_VERSION" {print $3}' "$hdr")

# --- plugin ------------------------------------------------------------------
if ! pkg-config --exists glib-2.0 2>/dev/null; then
	log tools "libglib2.0-dev is missing: installing it with apt-get"
	DEBIAN_FRONTEND=noninteractive apt-get -q -y install libglib2.0-dev \
		> "$out/apt-install.log" 2>&1 ||
		die "cannot install libglib2.0-dev (see $out/apt-install.log)"
fi
# plugin NAME SRC WHAT LOAD-ARGS: build $out/NAME.so from SRC against the
# header of $qsrc, when SRC changed or the header is another qemu's, and let
# QEMU load it into a machine that never runs (its own check of the plugin
# API version, and the plugin's install with LOAD-ARGS)
plugin() {
	local name=$1 c=$2 what=$3 args=$4 so=$out/$1.so
	if [ -f "$so" ] && [ ! "$c" -nt "$so" ] && [ ! "$hdr" -nt "$so" ] &&
		[ "$(cat "$so.qemu" 2> /dev/null)" = "$qsrc" ]; then
		return 0
	fi
	log tools "building $name.so$what"
	# shellcheck disable=SC2046
	gcc -shared -fPIC -O2 -Wall -I"$out/include" $(pkg-config --cflags glib-2.0) \
		-o "$so.tmp" "$c" $(pkg-config --libs glib-2.0) > "$out/$name.log" 2>&1 ||
		die "$name.so does not build from $(basename "$c") against qemu-plugin.h of $qsrc (see $out/$name.log)"
	if ! echo quit | timeout 60 qemu-system-x86_64 -M none -display none -nodefaults -S \
		-monitor stdio -plugin "$so.tmp$args" > /dev/null 2> "$out/$name-load.log"; then
		rm -f "$so.tmp"
		why=$(grep -m1 'Could not load' "$out/$name-load.log" || head -n1 "$out/$name-load.log")
		die "qemu-system-x86_64 $have does not load $name.so built on the plugin API ${qapi:-?} of $qsrc: ${why##*: } (see $out/$name-load.log)"
	fi
	mv "$so.tmp" "$so"
	echo "$qsrc" > "$so.qemu"
}
plugin libkinsn "$TOP/tools/kinsn/kinsn.c" "" ",start=0x1000,stop=0x2000"
# QEMU's cache plugin, the reference of kinsn-selftest.sh's cross-check
plugin libcache "$csrc" " (contrib/plugins/cache.c of $qsrc)" ""

# --- workload ----------------------------------------------------------------
src=$TOP/tools/workloads/churn.c
bin=$out/churn
if [ ! -f "$bin" ] || [ "$src" -nt "$bin" ]; then
	log tools "building churn"
	gcc -O2 -Wall -static -no-pie -fno-pie -o "$bin.tmp" "$src" -luring > "$out/churn.log" 2>&1 ||
		die "churn does not build (see $out/churn.log; static libc is in libc6-dev, liburing.a in liburing-dev)"
	mv "$bin.tmp" "$bin"
fi

# --- marker addresses --------------------------------------------------------
start=$(nm "$bin" | awk '$3 == "bench_start" && $2 ~ /^[Tt]$/ {print $1}')
stop=$(nm "$bin" | awk '$3 == "bench_stop" && $2 ~ /^[Tt]$/ {print $1}')
if [ -z "$start" ] || [ -z "$stop" ] || [ "$start" = "$stop" ]; then
	die "churn lacks distinct bench_start/bench_stop symbols"
fi
printf 'start=0x%x stop=0x%x\n' "$((16#$start))" "$((16#$stop))" > "$out/markers.tmp"
mv "$out/markers.tmp" "$out/markers"
cat "$out/markers"

# --- the workloads of kinsn-selftest.sh ------------------------------------------
src=$TOP/tools/workloads/cachetest.c
bin=$out/cachetest
if [ ! -f "$bin" ] || [ "$src" -nt "$bin" ]; then
	log tools "building cachetest"
	gcc -O2 -Wall -static -no-pie -fno-pie -o "$bin.tmp" "$src" > "$out/cachetest.log" 2>&1 ||
		die "cachetest does not build (see $out/cachetest.log; static libc is in libc6-dev)"
	start=$(nm "$bin.tmp" | awk '$3 == "bench_start" && $2 ~ /^[Tt]$/ {print $1}')
	stop=$(nm "$bin.tmp" | awk '$3 == "bench_stop" && $2 ~ /^[Tt]$/ {print $1}')
	if [ -z "$start" ] || [ -z "$stop" ] || [ "$start" = "$stop" ]; then
		rm -f "$bin.tmp"
		die "cachetest lacks distinct bench_start/bench_stop symbols"
	fi
	mv "$bin.tmp" "$bin"
fi
