#!/usr/bin/env bash
# vng-setup: unpack Debian's virtme-ng .deb into the cache (no install) and
# print the path of its vng launcher.
#
# Which version: the newest virtme-ng in [VNG_MIN, VNG_BELOW) (default
# [1.35, 2~): every option scripts/boot.sh passes exists there) that Debian
# carries, looked up with apt-cache madison in a private apt index (state in
# $CACHE/apt-vng) of the host's own suites first (read from its apt sources,
# deb822 or one-line, under APT_SOURCES_DIR, default /etc/apt) and, only if
# none of them has one in range, of VNG_SUITES (default "trixie sid").
# VNG_VERSION=V pins one version.  The index is read from the network only
# when it is not cached yet, when the suites change, with VNG_REFRESH=1, or
# when the version it names can no longer be downloaded; a cached unpacked
# vng of the resolved version is reused as is.  If the index cannot be read
# but a vng is cached, that one is used, with a warning.
# The version used is logged and written to $CACHE/virtme-ng.version.
#
# Sourced (not run), it only defines the host-apt-sources helpers below,
# which scripts/tools-build.sh uses too.
declare -F apt_private > /dev/null || . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

APT_SOURCES_DIR=${APT_SOURCES_DIR:-/etc/apt}
[ -d "$APT_SOURCES_DIR" ] || die "APT_SOURCES_DIR=$APT_SOURCES_DIR: not a directory (the host's apt sources live in /etc/apt)"
# how the private index is trusted: as scripts/fetch.sh's (DEB_KEYRING, DEB_TRUSTED)
if [ "${DEB_TRUSTED:-0}" = 1 ]; then
	apt_sign=trusted=yes
else
	apt_sign=signed-by=${DEB_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
fi

# --- the host's apt sources ---------------------------------------------------
# apt_sources_entries DIR: every enabled entry of DIR's sources (the files
# lib.sh's host_mirror reads, in its order: sources.list.d/*.sources,
# sources.list, sources.list.d/*.list), one "TYPE URI SUITE" line per
# type, URI and suite; URIs without trailing slashes.
apt_sources_entries() {
	local d=$1 f
	for f in "$d"/sources.list.d/*.sources "$d"/sources.list "$d"/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		case $f in
		*.sources)
			awk '
			function flush(  nt, nu, ns, T, U, S, i, j, k) {
				if (types != "" && enabled != "no") {
					nt = split(types, T, " "); nu = split(uris, U, " "); ns = split(suites, S, " ")
					for (i = 1; i <= nt; i++) for (j = 1; j <= nu; j++) for (k = 1; k <= ns; k++)
						print T[i], U[j], S[k]
				}
				types = uris = suites = field = ""; enabled = "yes"
			}
			BEGIN { enabled = "yes" }
			/^#/ { next }
			/^[ \t]*$/ { flush(); next }
			/^[ \t]/ {	# a continuation line of the field above
				if (field == "types") types = types " " $0
				else if (field == "uris") uris = uris " " $0
				else if (field == "suites") suites = suites " " $0
				next
			}
			{
				i = index($0, ":"); field = tolower(substr($0, 1, i - 1)); v = substr($0, i + 1)
				if (field == "types") types = v
				else if (field == "uris") uris = v
				else if (field == "suites") suites = v
				else if (field == "enabled") { gsub(/[ \t]/, "", v); enabled = tolower(v) }
			}
			END { flush() }' "$f" ;;
		*)
			sed 's/#.*//' "$f" | awk '
			$1 == "deb" || $1 == "deb-src" {
				t = $1; rest = substr($0, index($0, t) + length(t))
				sub(/^[ \t]*\[[^]]*\]/, "", rest)	# [ options ]
				if (split(rest, a, " ") >= 2) print t, a[1], a[2]
			}' ;;
		esac
	done | awk '{ sub(/\/+$/, "", $2); print }'
}

# host_debian_entries DIR: "URI SUITE" of the host's Debian suites, the
# main mirror's as "mirror SUITE" (callers put $DEB_MIRROR there), then its
# security suites with their URI.  The main mirror is DIR's first http(s) or
# file URI ending in /debian, else (as lib.sh's host_mirror) its first one,
# that is not a security or ports archive.
host_debian_entries() {
	apt_sources_entries "$1" | awk '
	function sec(u, s) { return s ~ /-security$|\/updates$/ || u ~ /\/debian-security$/ }
	{ n++; U[n] = $2; S[n] = $3 }
	$2 ~ /^(https?|file):\/\// && !sec($2, $3) && $2 !~ /-ports$/ {
		if (!any) any = $2
		if (!deb && $2 ~ /\/debian$/) deb = $2
	}
	END {
		main = deb ? deb : any
		for (i = 1; i <= n; i++)
			if (U[i] == main && !sec(U[i], S[i]) && !seen["m " S[i]]++) print "mirror", S[i]
		for (i = 1; i <= n; i++)
			if (sec(U[i], S[i]) && !seen[U[i] " " S[i]]++) print U[i], S[i]
	}'
}

# host_suites DIR: the suites of the host's main Debian mirror, one a line
host_suites() {
	host_debian_entries "$1" | awk '$1 == "mirror" { print $2 }'
}

# apt_lines TYPE [security] < "URI SUITE" lines: sources.list lines, "mirror"
# meaning $DEB_MIRROR; security entries only with "security"
apt_lines() {
	local type=$1 sec=${2:-} uri suite
	while read -r uri suite; do
		[ "$uri" = mirror ] && uri=$DEB_MIRROR || [ "$sec" = security ] || continue
		echo "$type [$apt_sign] $uri $suite main"
	done
}

# --- choosing a version ---------------------------------------------------------
VNG_MIN=${VNG_MIN:-1.35}
VNG_BELOW=${VNG_BELOW:-2~}

# vng_pick "TIER1 SUITES" "TIER2 SUITES" < madison output: "VERSION SUITE"
# of the newest binary virtme-ng in [VNG_MIN, VNG_BELOW) from the first tier
# that has one; nothing if none has
vng_pick() {
	local tier best bsuite v s r
	local -a rows
	mapfile -t rows < <(awk -F'|' '$3 ~ / Packages[ \t]*$/ {
		v = $2; gsub(/[ \t]/, "", v); split($3, a, " "); s = a[2]; sub(/\/.*/, "", s); print v, s }')
	for tier in "$1" "$2"; do
		best='' bsuite=''
		for r in "${rows[@]}"; do
			read -r v s <<< "$r"
			case " $tier " in *" $s "*) ;; *) continue ;; esac
			if ! dpkg --compare-versions "$v" ge "$VNG_MIN" || ! dpkg --compare-versions "$v" lt "$VNG_BELOW"; then continue; fi
			if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then
				best=$v bsuite=$s
			fi
		done
		[ -n "$best" ] && { echo "$best $bsuite"; return 0; }
	done
	return 0
}

# sourced: the helpers only
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0

# --- main -------------------------------------------------------------------------
for k in VNG_VERSION VNG_MIN VNG_BELOW; do
	[ -z "${!k:-}" ] || dpkg --validate-version -- "${!k}" 2> /dev/null ||
		die "$k=${!k}: not a Debian version (e.g. 1.41-1)"
done
case ${VNG_REFRESH:-0} in 0 | 1) ;; *) die "VNG_REFRESH=$VNG_REFRESH: must be 0 or 1" ;; esac
case ${VNG_SUITES-x} in '' | *[!a-z0-9.\ -]*) die "VNG_SUITES='${VNG_SUITES-}': Debian suite names, space separated (e.g. 'trixie sid')" ;; esac
vdir() { echo "$CACHE/virtme-ng-$1"; }
cached_ok() { [ -x "$(vdir "$1")/vng" ] && grep -q "usr/bin:" "$(vdir "$1")/vng"; }
vfile=$CACHE/virtme-ng.version
mkdir -p "$CACHE/dl"

# use V: record it, print its vng, drop other unpacked versions (so that
# $CACHE/virtme-ng-*/vng, as in `make shell`, names one)
use() {
	local v=$1 d
	echo "$v" > "$vfile.$$" && mv "$vfile.$$" "$vfile"
	for d in "$CACHE"/virtme-ng-*/; do
		[ -d "$d" ] && [ "${d%/}" != "$(vdir "$v")" ] && rm -rf "${d%/}"
	done
	echo "$(vdir "$v")/vng"
	exit 0
}

# the last version used, if still unpacked: the fallback without an index
fallback() {
	local v
	[ -z "${VNG_VERSION:-}" ] || return 0
	v=$(cat "$vfile" 2>/dev/null || true)
	[ -n "$v" ] && cached_ok "$v" && { log vng "warning: $1; using the cached virtme-ng $v"; use "$v"; }
	return 0
}

dl_deb() {
	local f
	for f in "$CACHE"/dl/virtme-ng_"$1"_*.deb; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 0
}

# unpack V from $CACHE/dl (downloading it if absent); non-zero if not there
unpack() {
	local v=$1 d deb
	d=$(vdir "$v")
	deb=$(dl_deb "$v")
	if [ -z "$deb" ]; then
		(cd "$CACHE/dl" && apt-get "${APT_OPTS[@]}" download "virtme-ng=$v") > "$apt_dir/download.log" 2>&1 || return 1
		deb=$(dl_deb "$v")
		[ -n "$deb" ] || return 1
	fi
	rm -rf "$d"
	mkdir -p "$d"
	dpkg-deb -x "$deb" "$d/root" || { rm -rf "$d"; die "cannot unpack ${deb##*/}"; }
	cat > "$d/vng" <<EOS
#!/bin/sh
PATH=$d/root/usr/bin:\$PATH PYTHONPATH=$d/root/usr/lib/python3/dist-packages exec /usr/bin/python3 $d/root/usr/bin/virtme-ng "\$@"
EOS
	chmod +x "$d/vng"
}

if [ -n "${VNG_VERSION:-}" ] && cached_ok "$VNG_VERSION"; then
	log vng "virtme-ng $VNG_VERSION (VNG_VERSION, cached)"
	use "$VNG_VERSION"
fi

# the private index: the host's suites, then VNG_SUITES
mapfile -t hs < <(host_suites "$APT_SOURCES_DIR")
read -ra fb <<< "${VNG_SUITES:-trixie sid}"
suites=()
for s in "${hs[@]}" "${fb[@]}"; do
	case " ${suites[*]} " in *" $s "*) ;; *) suites+=("$s") ;; esac
done
apt_dir=$CACHE/apt-vng
lines=$(for s in "${suites[@]}"; do echo "mirror $s"; done | apt_lines deb)
stale=
[ "$(cat "$apt_dir/etc/sources.list" 2>/dev/null)" = "$lines" ] || stale=1
apt_private "$apt_dir" "$lines"
ls "$apt_dir"/state/lists/*_Packages* > /dev/null 2>&1 || stale=1
[ "${VNG_REFRESH:-0}" = 1 ] && stale=1
update() {
	log vng "reading the virtme-ng index of ${suites[*]}"
	rm -f "$apt_dir/madison.txt"
	apt-get "${APT_OPTS[@]}" update > "$apt_dir/update.log" 2>&1 && return 0
	fallback "cannot read the index of ${suites[*]} (see $apt_dir/update.log)"
	die "cannot read the index of ${suites[*]} (see $apt_dir/update.log)"
}
[ -z "$stale" ] || update

if [ -n "${VNG_VERSION:-}" ]; then
	ver=$VNG_VERSION
	if ! unpack "$ver"; then
		# read a cached index again, once
		if [ -n "$stale" ] || ! { update && unpack "$ver"; }; then
			die "virtme-ng $ver is not in ${suites[*]} (set VNG_VERSION=... to one that is, or unset it)"
		fi
	fi
	log vng "virtme-ng $ver (VNG_VERSION)"
	use "$ver"
fi

# the index's virtme-ng rows, kept until the next update (apt-cache takes
# seconds over these lists, and boot.sh asks at every boot)
madison() {
	local m=$apt_dir/madison.txt
	if [ ! -s "$m" ]; then
		apt-cache "${APT_OPTS[@]}" madison virtme-ng > "$m.$$" 2> /dev/null || true
		mv "$m.$$" "$m"
	fi
	cat "$m"
}
resolve() {
	local pick
	pick=$(madison | vng_pick "${hs[*]}" "${fb[*]}")
	if [ -z "$pick" ]; then
		fallback "no virtme-ng >= $VNG_MIN and < $VNG_BELOW in ${suites[*]}"
		die "no virtme-ng >= $VNG_MIN and < $VNG_BELOW in ${suites[*]} (set VNG_VERSION=... to pin one, or VNG_SUITES=...)"
	fi
	read -r ver from <<< "$pick"
}
resolve
if cached_ok "$ver"; then
	log vng "virtme-ng $ver (newest >= $VNG_MIN and < $VNG_BELOW, from $from; cached)"
	use "$ver"
fi
if ! unpack "$ver"; then
	# an index older than the archive: read it again, once
	if [ -z "$stale" ]; then
		update
		resolve
		cached_ok "$ver" || unpack "$ver" || {
			fallback "cannot download virtme-ng $ver (see $apt_dir/download.log)"
			die "cannot download virtme-ng $ver from $from (see $apt_dir/download.log)"
		}
	else
		fallback "cannot download virtme-ng $ver (see $apt_dir/download.log)"
		die "cannot download virtme-ng $ver from $from (see $apt_dir/download.log)"
	fi
fi
log vng "virtme-ng $ver (newest >= $VNG_MIN and < $VNG_BELOW, from $from)"
use "$ver"
