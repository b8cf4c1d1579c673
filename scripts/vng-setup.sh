#!/usr/bin/env bash
# vng-setup: unpack Debian's virtme-ng .deb into the cache (no install) and
# print the path of its vng launcher.
. "$(dirname "$0")/lib.sh"

VNG_VERSION=${VNG_VERSION:-1.41-1}
VNG_SUITE=${VNG_SUITE:-sid}
dir=$CACHE/virtme-ng-$VNG_VERSION
if [ ! -x "$dir/vng" ] || ! grep -q "usr/bin:" "$dir/vng"; then
	apt_dir=$CACHE/apt-$VNG_SUITE
	mkdir -p "$CACHE/dl"
	apt_private "$apt_dir" \
		"deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $DEB_MIRROR $VNG_SUITE main"
	log vng "virtme-ng $VNG_VERSION from $VNG_SUITE"
	apt-get "${APT_OPTS[@]}" update > "$apt_dir/update.log" 2>&1 ||
		die "cannot read the $VNG_SUITE index (see $apt_dir/update.log)"
	(cd "$CACHE/dl" && apt-get "${APT_OPTS[@]}" download "virtme-ng=$VNG_VERSION" > "$apt_dir/download.log" 2>&1) ||
		die "virtme-ng $VNG_VERSION is not in $VNG_SUITE (set VNG_VERSION=...)"
	rm -rf "$dir"
	mkdir -p "$dir"
	dpkg-deb -x "$CACHE"/dl/virtme-ng_"$VNG_VERSION"_*.deb "$dir/root"
	cat > "$dir/vng" <<EOS
#!/bin/sh
PATH=$dir/root/usr/bin:\$PATH PYTHONPATH=$dir/root/usr/lib/python3/dist-packages exec /usr/bin/python3 $dir/root/usr/bin/virtme-ng "\$@"
EOS
	chmod +x "$dir/vng"
fi
echo "$dir/vng"
