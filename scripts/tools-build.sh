#!/usr/bin/env bash
# tools-build: build the benchmark's measurement tools into $CACHE/tools.
#
#   scripts/tools-build.sh
#
# Produces
#   $CACHE/tools/libkinsn.so   QEMU TCG plugin counting guest kernel instructions
#                              between two marker addresses (tools/kinsn/kinsn.c)
#   $CACHE/tools/churn         static non-PIE guest workload (tools/workloads/churn.c)
#   $CACHE/tools/markers       "start=0x... stop=0x..." for churn (also on stdout)
#
# The plugin API header (qemu-plugin.h) is not packaged on bookworm: it is taken
# from Debian's qemu source package (bookworm), fetched once with a private apt
# config (state in $CACHE/tools/apt, tarballs in $CACHE/dl) and never committed.
# Needs gcc, a static libc (libc6-dev), pkg-config and libglib2.0-dev (installed
# with apt-get if missing).  Idempotent: rebuilds only what is out of date.
. "$(dirname "$0")/lib.sh"

out=$CACHE/tools
dl=$CACHE/dl
hdr=$out/include/qemu-plugin.h
mkdir -p "$out/include" "$dl"

# --- qemu-plugin.h from Debian's qemu source package ----------------------
if [ ! -s "$hdr" ]; then
	need_space "$dl" 200
	apt_dir=$out/apt
	apt_private "$apt_dir" \
		"deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $DEB_MIRROR bookworm main"
	log tools "reading the bookworm source index"
	apt-get "${APT_OPTS[@]}" update > "$apt_dir/update.log" 2>&1 ||
		die "cannot read the bookworm source index (see $apt_dir/update.log)"
	qver=$(apt-cache "${APT_OPTS[@]}" showsrc qemu 2>/dev/null |
		awk '/^Version:/ {print $2}' | sort -V | tail -n1)
	[ -n "$qver" ] || die "no qemu source package in bookworm"
	up=${qver#*:}; up=${up%%-*}			# 7.2+dfsg
	have=$(qemu-system-x86_64 --version 2>/dev/null | awk 'NR==1 {print $4}')
	case $have in
	"${up%%+*}"|"${up%%+*}".*) ;;
	*) die "qemu source $qver does not match host qemu-system-x86_64 ${have:-(missing)}" ;;
	esac
	find_orig() {
		local f
		for f in "$dl"/qemu_"$up".orig.tar.*; do
			[ -f "$f" ] && { echo "$f"; return; }
		done
		true
	}
	orig=$(find_orig)
	if [ -z "$orig" ]; then
		log tools "fetching qemu source $qver (~23 MiB)"
		(cd "$dl" && apt-get "${APT_OPTS[@]}" source --download-only "qemu=$qver") \
			> "$apt_dir/source.log" 2>&1 ||
			die "cannot fetch qemu source $qver (see $apt_dir/source.log)"
		orig=$(find_orig)
		[ -n "$orig" ] || die "qemu $qver: no orig tarball in $dl"
	fi
	log tools "extracting qemu-plugin.h from ${orig##*/}"
	tmp=$(mktemp -d "$out/hdr.XXXXXX")
	tar --no-same-owner -xf "$orig" -C "$tmp" --wildcards --no-anchored 'include/qemu/qemu-plugin.h' ||
		{ rm -rf "$tmp"; die "no include/qemu/qemu-plugin.h in ${orig##*/}"; }
	mv "$(find "$tmp" -name qemu-plugin.h | head -n1)" "$hdr"
	rm -rf "$tmp"
	echo "$qver" > "$out/include/VERSION"
fi

# --- plugin ------------------------------------------------------------------
if ! pkg-config --exists glib-2.0 2>/dev/null; then
	log tools "libglib2.0-dev is missing: installing it with apt-get"
	DEBIAN_FRONTEND=noninteractive apt-get -q -y install libglib2.0-dev \
		> "$out/apt-install.log" 2>&1 ||
		die "cannot install libglib2.0-dev (see $out/apt-install.log)"
fi
src=$TOP/tools/kinsn/kinsn.c
so=$out/libkinsn.so
if [ ! -f "$so" ] || [ "$src" -nt "$so" ] || [ "$hdr" -nt "$so" ]; then
	log tools "building libkinsn.so"
	# shellcheck disable=SC2046
	gcc -shared -fPIC -O2 -Wall -I"$out/include" $(pkg-config --cflags glib-2.0) \
		-o "$so.tmp" "$src" $(pkg-config --libs glib-2.0) > "$out/kinsn.log" 2>&1 ||
		die "libkinsn.so does not build (see $out/kinsn.log)"
	mv "$so.tmp" "$so"
fi

# --- workload ----------------------------------------------------------------
src=$TOP/tools/workloads/churn.c
bin=$out/churn
if [ ! -f "$bin" ] || [ "$src" -nt "$bin" ]; then
	log tools "building churn"
	gcc -O2 -Wall -static -no-pie -fno-pie -o "$bin.tmp" "$src" > "$out/churn.log" 2>&1 ||
		die "churn does not build (see $out/churn.log; static libc is in libc6-dev)"
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
