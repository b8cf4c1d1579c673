# shellcheck shell=bash
# Common helpers for the objstock scripts.  Sourced, never run.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${CACHE:-$TOP/build}
case $CACHE in /*) ;; *) CACHE=$TOP/$CACHE ;; esac
KVER=${KVER:-7.3}
DEB_VERSION=${DEB_VERSION:-7.3.4-1~bpo13+1}
DEB_SUITE=${DEB_SUITE:-trixie-backports}
export CACHE KVER DEB_VERSION DEB_SUITE DEB_MIRROR TOP

: "${T0:=$(date +%s)}"
export T0

# progress line: "[  12s] stage: message"
log() {
	local stage=$1; shift
	printf '[%5ss] %-9s %s\n' "$(( $(date +%s) - T0 ))" "$stage:" "$*" >&2
}

# one-line error, non-zero exit
die() {
	printf 'objstock: error: %s\n' "$*" >&2
	exit 1
}

# host_mirror: the Debian mirror the host's own apt sources use (deb822
# .sources or one-line .list), so a machine behind a local mirror or proxy
# just works.  DEB_MIRROR overrides it.
host_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		case $f in
		*.sources)
			awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' "$f" ;;
		*)
			sed -n 's/^[[:space:]]*deb\(-src\)\{0,1\}[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]*\)\{0,1\}\([^[:space:]]*\).*/\3/p' "$f" ;;
		esac
	done | grep -E '^(https?|file)://' | grep -Ev -- '-security/?$|/debian-security|-ports/?$' | head -n1 | sed 's:/*$::'
}
if [ -z "${DEB_MIRROR:-}" ]; then
	DEB_MIRROR=$(host_mirror)
	[ -n "$DEB_MIRROR" ] || die "cannot find a Debian mirror in /etc/apt/sources* (set DEB_MIRROR=...)"
fi

# need_space DIR MIB: refuse to start a stage that would fill the disk
need_space() {
	local dir=$1 mib=$2 avail
	mkdir -p "$dir"
	avail=$(df -Pm "$dir" | awk 'NR==2 {print $4}')
	[ "$avail" -ge "$mib" ] ||
		die "only ${avail} MiB free under $dir, need ${mib} MiB (move the cache with CACHE=...)"
}

# where an unpacked base lives, and its git tree
SRC_DIR=$CACHE/src/linux-$DEB_VERSION
TREE=${TREE:-$CACHE/tree}

# The kconfig fragments of every kernel we build, base or patched, test or
# bench: one config, so ccache shares all but what the series changes.
# With "series", add what the series itself introduces (config/series.config:
# its own KUnit suites), which only the `make check` kernel gets.
#   fragments TREE [series]
fragments() {
	echo "$TOP/config/base.config"
	echo "$1/tools/testing/selftests/cgroup/config"
	echo "$TOP/config/kunit.config"
	if [ "${2:-}" = series ] && [ -s "$TOP/config/series.config" ]; then
		echo "$TOP/config/series.config"
	fi
}

# A private apt in DIR with one sources.list LINE: the system's sources,
# preferences and state stay untouched.  Sets APT_OPTS for apt-get/apt-cache.
#   apt_private DIR LINE
apt_private() {
	local dir=$1
	mkdir -p "$dir"/etc/preferences.d "$dir"/state/lists/partial "$dir"/cache/archives/partial
	echo "$2" > "$dir/etc/sources.list"
	APT_OPTS=(-q
		-o Dir::Etc::SourceList="$dir/etc/sources.list"
		-o Dir::Etc::SourceParts=/dev/null
		-o Dir::Etc::Preferences=/dev/null
		-o Dir::Etc::PreferencesParts="$dir/etc/preferences.d"
		-o Dir::State="$dir/state"
		-o Dir::Cache="$dir/cache"
		-o APT::Architecture=amd64
		-o Acquire::Languages=none
		-o APT::Sandbox::User=root)
}
