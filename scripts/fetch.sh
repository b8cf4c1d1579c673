#!/usr/bin/env bash
# fetch: download Debian's linux-source-$KVER ($DEB_VERSION, $DEB_SUITE),
# verify it against the archive's signed index, unpack it once into the cache.
. "$(dirname "$0")/lib.sh"

stamp=$SRC_DIR/.objstock-unpacked
if [ -f "$stamp" ]; then
	log fetch "base linux-source-$KVER $DEB_VERSION cached in $SRC_DIR"
	exit 0
fi

apt_dir=$CACHE/apt
mkdir -p "$CACHE/dl"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || die "missing $keyring (apt-get install debian-archive-keyring)"
apt_private "$apt_dir" "deb [signed-by=$keyring] $DEB_MIRROR $DEB_SUITE main"
pkg=linux-source-$KVER
deb=$CACHE/dl/${pkg}_${DEB_VERSION//:/%3a}_all.deb
if [ ! -f "$deb" ]; then
	log fetch "index of $DEB_SUITE from $DEB_MIRROR"
	apt-get "${APT_OPTS[@]}" update > "$apt_dir/update.log" 2>&1 ||
		die "cannot read the $DEB_SUITE index from $DEB_MIRROR (see $apt_dir/update.log)"
	have=$(apt-cache "${APT_OPTS[@]}" madison "$pkg" 2>/dev/null | awk -F'|' '{gsub(/ /,"",$2); printf "%s ", $2}')
	if ! printf ' %s ' "$have" | grep -qF " $DEB_VERSION "; then
		die "$pkg $DEB_VERSION is not in $DEB_SUITE; available: ${have:-none}(set DEB_VERSION=...)"
	fi
	need_space "$CACHE" 2500
	log fetch "$pkg $DEB_VERSION"
	# apt-get download checks the .deb against the SHA256 in the signed index
	(cd "$CACHE/dl" && apt-get "${APT_OPTS[@]}" download "$pkg=$DEB_VERSION" > "$apt_dir/download.log" 2>&1) ||
		die "download of $pkg $DEB_VERSION failed (see $apt_dir/download.log)"
	[ -f "$deb" ] || deb=$(ls "$CACHE/dl/${pkg}_"*.deb | head -1)
fi

need_space "$CACHE" 2000
log unpack "$pkg into $SRC_DIR"
rm -rf "$SRC_DIR" "$SRC_DIR.tmp"
mkdir -p "$SRC_DIR.tmp"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$SRC_DIR.tmp" ./usr/src/$pkg.tar.xz ||
	die "$deb is not a valid $pkg package"
tar -xJf "$SRC_DIR.tmp/usr/src/$pkg.tar.xz" -C "$SRC_DIR.tmp" ||
	die "cannot unpack $pkg.tar.xz (disk full?)"
mv "$SRC_DIR.tmp/$pkg" "$SRC_DIR"
rm -rf "$SRC_DIR.tmp"
touch "$stamp"
log unpack "done: $(make -s -C "$SRC_DIR" kernelversion 2>/dev/null)"
