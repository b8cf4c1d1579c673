#!/usr/bin/env bash
# fetch: download Debian's linux-source-$KVER ($DEB_VERSION, $DEB_SUITE),
# verify it against the archive's signed index, unpack it once into the cache.
# A cached .deb is checked against the SHA256 of the index before it is
# unpacked, and downloaded again (once) if it does not match; without the
# index (no network) it is unpacked unchecked, and a corrupt one is named.
#   DEB_KEYRING   keyring that signs the index (default: Debian's archive keyring)
#   DEB_TRUSTED=1 accept an unsigned index (apt's [trusted=yes]): only for a
#                 local test repository (tests/t-fetch.sh), never for a mirror
. "$(dirname "$0")/lib.sh"

stamp=$SRC_DIR/.objstock-unpacked
if [ -f "$stamp" ]; then
	log fetch "base linux-source-$KVER $DEB_VERSION cached in $SRC_DIR"
	exit 0
fi

apt_dir=$CACHE/apt
mkdir -p "$CACHE/dl"
if [ "${DEB_TRUSTED:-0}" = 1 ]; then
	opt=trusted=yes
else
	keyring=${DEB_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
	[ -r "$keyring" ] || [ -z "${DEB_KEYRING:-}" ] || die "DEB_KEYRING: missing $keyring"
	[ -r "$keyring" ] || die "missing $keyring (apt-get install debian-archive-keyring)"
	opt=signed-by=$keyring
fi
apt_private "$apt_dir" "deb [$opt] $DEB_MIRROR $DEB_SUITE main"
pkg=linux-source-$KVER
deb=$CACHE/dl/${pkg}_${DEB_VERSION//:/%3a}_all.deb

# the index, read once per run
update_rc=
update_index() {
	if [ -z "$update_rc" ]; then
		log fetch "index of $DEB_SUITE"
		update_rc=0
		apt-get "${APT_OPTS[@]}" update > "$apt_dir/update.log" 2>&1 || update_rc=$?
	fi
	return "$update_rc"
}
# the SHA256 of $pkg $DEB_VERSION in the (signed) index apt has; empty if none
index_sha() {
	{ apt-cache "${APT_OPTS[@]}" show "$pkg=$DEB_VERSION" 2> /dev/null || true; } |
		awk '$1 == "SHA256:" { print $2; exit }'
}
sha_of() { sha256sum < "$1" | cut -d' ' -f1; }

want='' again=''
if [ -f "$deb" ]; then
	want=$(index_sha)
	if [ -z "$want" ] && update_index; then
		want=$(index_sha)
	fi
	if [ -z "$want" ]; then
		log fetch "warning: cannot check the cached $(basename "$deb"): no SHA256 for $pkg $DEB_VERSION in the $DEB_SUITE index (see $apt_dir/update.log)"
	elif [ "$(sha_of "$deb")" != "$want" ]; then
		log fetch "cached $(basename "$deb") does not match the SHA256 of the index: deleted, downloading it again"
		rm -f "$deb"
		again="the cached $deb did not match the SHA256 of the index, and downloading it again"
	fi
fi

if [ ! -f "$deb" ]; then
	if [ -z "$want" ]; then
		update_index || die "cannot read the $DEB_SUITE index from $DEB_MIRROR (see $apt_dir/update.log)"
		have=$(apt-cache "${APT_OPTS[@]}" madison "$pkg" 2>/dev/null | awk -F'|' '{gsub(/ /,"",$2); printf "%s ", $2}')
		if ! grep -qF " $DEB_VERSION " <<< " $(echo $have) "; then
			die "$pkg $DEB_VERSION is not in $DEB_SUITE; available: ${have:-none}(set DEB_VERSION=...)"
		fi
		want=$(index_sha)
	fi
	need_space "$CACHE" 2500
	log fetch "$pkg $DEB_VERSION"
	# apt-get download checks the .deb against the SHA256 in the signed index
	(cd "$CACHE/dl" && apt-get "${APT_OPTS[@]}" download "$pkg=$DEB_VERSION" > "$apt_dir/download.log" 2>&1) ||
		die "${again:-download of $pkg $DEB_VERSION} failed (see $apt_dir/download.log)"
	[ -f "$deb" ] || deb=$(ls "$CACHE/dl/${pkg}_"*.deb | head -1)
	[ -z "$want" ] || [ "$(sha_of "$deb")" = "$want" ] ||
		die "the downloaded $deb does not match the SHA256 of the $DEB_SUITE index"
fi

need_space "$CACHE" 2000
log unpack "$pkg into $SRC_DIR"
rm -rf "$SRC_DIR" "$SRC_DIR.tmp"
mkdir -p "$SRC_DIR.tmp"
unpack_log=$apt_dir/unpack.log
if ! dpkg-deb --fsys-tarfile "$deb" 2> "$unpack_log" |
	tar -x -C "$SRC_DIR.tmp" "./usr/src/$pkg.tar.xz" 2>> "$unpack_log"; then
	rm -rf "$SRC_DIR.tmp"
	[ -n "$want" ] || die "$deb is corrupt or not a $pkg package, and there is no index to check it against (no network?): delete it and run again"
	die "$deb is not a valid $pkg package (see $unpack_log)"
fi
tar -xJf "$SRC_DIR.tmp/usr/src/$pkg.tar.xz" -C "$SRC_DIR.tmp" 2>> "$unpack_log" || {
	rm -rf "$SRC_DIR.tmp"
	die "cannot unpack $pkg.tar.xz (disk full? see $unpack_log)"
}
mv "$SRC_DIR.tmp/$pkg" "$SRC_DIR"
rm -rf "$SRC_DIR.tmp"
touch "$stamp"
log unpack "done: $(make -s -C "$SRC_DIR" kernelversion 2>/dev/null)"
