#!/usr/bin/env bash
# t-fetch: scripts/fetch.sh against a local file:// apt repository holding a
# tiny fake linux-source-7.3 .deb (dpkg-deb, dpkg-scanpackages; an unsigned
# Release, so DEB_TRUSTED=1): no network, a fraction of a second a case.
. "$(dirname "$0")/lib.sh"

export DEB_SUITE=objstock-test DEB_TRUSTED=1 DEB_VERSION=7.3.4-1~bpo13+1
repo=$tmp/repo
export DEB_MIRROR=file://$repo
pkg=linux-source-7.3
debname=${pkg}_${DEB_VERSION}_all.deb

# the package: usr/src/linux-source-7.3.tar.xz with a Makefile that knows its version
mkdir -p "$tmp/pkg/DEBIAN" "$tmp/pkg/usr/src" "$tmp/ksrc/$pkg/mm"
printf 'kernelversion:\n\t@echo 7.3.4\n' > "$tmp/ksrc/$pkg/Makefile"
echo '/* memcontrol.c stand-in */' > "$tmp/ksrc/$pkg/mm/memcontrol.c"
tar -cJf "$tmp/pkg/usr/src/$pkg.tar.xz" -C "$tmp/ksrc" "$pkg"
printf '%s\n' "Package: $pkg" "Version: $DEB_VERSION" 'Architecture: all' \
	'Maintainer: Objstock Harness <harness@localhost>' 'Description: a stand-in for the kernel source' \
	> "$tmp/pkg/DEBIAN/control"
mkdir -p "$repo/pool" "$repo/dists/$DEB_SUITE/main/binary-amd64"
dpkg-deb -Zxz --build "$tmp/pkg" "$repo/pool/$debname" > /dev/null
good_sha=$(sha256sum < "$repo/pool/$debname" | cut -d' ' -f1)
(cd "$repo" && dpkg-scanpackages -m pool /dev/null 2> /dev/null) > "$repo/dists/$DEB_SUITE/main/binary-amd64/Packages"
idx=main/binary-amd64/Packages
printf '%s\n' "Suite: $DEB_SUITE" "Codename: $DEB_SUITE" "Date: $(date -R -u)" 'Architectures: amd64' \
	'Components: main' 'SHA256:' " $(sha256sum < "$repo/dists/$DEB_SUITE/$idx" | cut -d' ' -f1) $(stat -c %s "$repo/dists/$DEB_SUITE/$idx") $idx" \
	> "$repo/dists/$DEB_SUITE/Release"

n=0
new_cache() { n=$((n + 1)); CACHE=$tmp/cache$n; export CACHE; }
fetch() { "$TOP/scripts/fetch.sh"; }
src() { echo "$CACHE/src/linux-$DEB_VERSION"; }
corrupt() { truncate -s 600 "$CACHE/dl/$debname"; }
# quiet NAME FILE: stderr holds only progress and objstock lines (no dpkg/tar noise)
quiet() {
	local noise
	noise=$(grep -Ev '^\[ *[0-9]+s\] |^objstock: error: ' "$2" | head -1)
	if [ -n "$noise" ]; then fail "$1" "noise on stderr: $noise"; else pass "$1" "no noise on stderr"; fi
}

# ported from tests/harness.sh: a version the archive does not have
new_cache
expect missing-base 'linux-source-7\.3 0\.0-0 is not in objstock-test; available: 7\.3\.4-1~bpo13\+1' \
	env DEB_VERSION=0.0-0 "$TOP/scripts/fetch.sh"

new_cache
check fetch-local 'downloads, checks and unpacks the .deb' bash -c \
	'"$1/scripts/fetch.sh" && [ -f "$2/Makefile" ] && [ -f "$2/.objstock-unpacked" ]' _ "$TOP" "$(src)"

# a corrupt cached .deb, the index readable: downloaded again, unpacked
new_cache
mkdir -p "$CACHE/dl" && cp "$repo/pool/$debname" "$CACHE/dl/" && corrupt
check corrupt-deb-redownload 'the corrupt cached .deb is downloaded again and unpacked' bash -c \
	'"$1/scripts/fetch.sh" 2> "$4" && [ -f "$2/Makefile" ] &&
	 [ "$(sha256sum < "$CACHE/dl/$3" | cut -d" " -f1)" = "$5" ]' _ "$TOP" "$(src)" "$debname" "$tmp/redl.err" "$good_sha"
quiet corrupt-deb-redownload-quiet "$tmp/redl.err"

# a corrupt cached .deb, an index from before, the archive gone: one line
rm -rf "$(src)" && corrupt
mv "$repo" "$repo.off"
expect corrupt-deb-offline-index 'the cached .*/dl/linux-source-7\.3_.*\.deb did not match the SHA256 of the index, and downloading it again failed' \
	"$TOP/scripts/fetch.sh"
quiet corrupt-deb-offline-index-quiet "$tmp/corrupt-deb-offline-index.err"

# a corrupt cached .deb, no index at all (no network): one line naming the file
new_cache
mkdir -p "$CACHE/dl" && cp "$repo.off/pool/$debname" "$CACHE/dl/" && corrupt
expect corrupt-deb-no-index "$CACHE/dl/${debname//+/\\+} is corrupt .*delete it" "$TOP/scripts/fetch.sh"
quiet corrupt-deb-no-index-quiet "$tmp/corrupt-deb-no-index.err"

# a good cached .deb, no network: unpacked all the same (with a warning)
new_cache
mkdir -p "$CACHE/dl" && cp "$repo.off/pool/$debname" "$CACHE/dl/"
check offline-cached-deb 'a good cached .deb unpacks without the index' bash -c \
	'"$1/scripts/fetch.sh" 2> /dev/null && [ -f "$2/Makefile" ]' _ "$TOP" "$(src)"
mv "$repo.off" "$repo"

new_cache
expect keyring-missing 'DEB_KEYRING: missing /nonexistent/keyring\.gpg' \
	env DEB_TRUSTED=0 DEB_KEYRING=/nonexistent/keyring.gpg "$TOP/scripts/fetch.sh"
