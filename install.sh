#!/bin/sh
# Installs the gate binary of a release for this machine, after checking it against the
# release's published .sha256 file. POSIX sh; needs curl or wget, and sha256sum, shasum
# or openssl. `sh install.sh --help` lists the options.
set -eu

# The repository whose releases this installs. The release workflow writes the real one
# here in the copy it attaches to each release.
repo=minekube/gate

# Platforms the release workflow builds (.github/workflows/release.yml).
platforms="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64"

usage() {
  cat <<EOF
Usage: sh install.sh [--version V] [--dir DIR] [--base-url URL] [--os OS --arch ARCH]

Downloads gate_<version>_<os>_<arch> (.exe on windows) from a release, checks it against
gate_<version>_<os>_<arch>.sha256 beside it, and installs it as DIR/gate (gate.exe).

  --version V     release tag, e.g. v1.2.0 (default: the latest release)
  --dir DIR       where to install (default: /usr/local/bin when writable, otherwise
                  \$HOME/.local/bin; nothing runs as root)
  --base-url URL  where the releases are (default: https://github.com/$repo/releases),
                  laid out as GitHub's:
                    URL/download/<version>/<asset>   the binaries and .sha256 files
                    URL/latest                       redirects to URL/tag/<version>
  --os OS, --arch ARCH
                  install for this platform instead of the one uname reports
                  (also GATE_INSTALL_OS, GATE_INSTALL_ARCH); releases have:
                  $platforms

Environment: GATE_INSTALL_FETCHER=curl|wget picks the download tool (default: curl
when present, else wget).
EOF
}

die() {
  echo "install.sh: $*" >&2
  exit 1
}

version="" dir="" base="https://github.com/$repo/releases"
os=${GATE_INSTALL_OS:-} arch=${GATE_INSTALL_ARCH:-}
while [ $# -gt 0 ]; do
  case $1 in
  -h | --help) usage; exit 0 ;;
  --version | --dir | --base-url | --os | --arch)
    [ $# -ge 2 ] || die "$1 needs a value (see --help)"
    case $1 in
    --version) version=$2 ;;
    --dir) dir=$2 ;;
    --base-url) base=${2%/} ;;
    --os) os=$2 ;;
    --arch) arch=$2 ;;
    esac
    shift 2 ;;
  *) die "unknown argument $1 (see --help)" ;;
  esac
done

# --- platform -------------------------------------------------------------------------
if [ -z "$os" ]; then
  case $(uname -s) in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW* | MSYS* | CYGWIN* | Windows_NT) os=windows ;;
  *) os=$(uname -s) ;;
  esac
fi
if [ -z "$arch" ]; then
  case $(uname -m) in
  x86_64 | amd64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) arch=$(uname -m) ;;
  esac
fi
case " $platforms " in
*" $os/$arch "*) ;;
*) die "unsupported platform $os/$arch: releases have $platforms" ;;
esac

# --- tools ----------------------------------------------------------------------------
fetcher=${GATE_INSTALL_FETCHER:-}
if [ -z "$fetcher" ]; then
  if command -v curl >/dev/null 2>&1; then fetcher=curl
  elif command -v wget >/dev/null 2>&1; then fetcher=wget
  else die "needs curl or wget to download"
  fi
fi
case $fetcher in
curl | wget) command -v "$fetcher" >/dev/null 2>&1 || die "GATE_INSTALL_FETCHER=$fetcher: $fetcher is not installed" ;;
*) die "GATE_INSTALL_FETCHER=$fetcher: want curl or wget" ;;
esac

if command -v sha256sum >/dev/null 2>&1; then sha256() { sha256sum "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then sha256() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
elif command -v openssl >/dev/null 2>&1; then sha256() { openssl dgst -sha256 "$1" | sed 's/.*= *//'; }
else die "needs sha256sum, shasum or openssl to check the download"
fi

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t gate-install)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# fetch URL FILE downloads URL to FILE, or dies naming the URL and the HTTP status.
fetch() {
  if [ "$fetcher" = curl ]; then
    code=$(curl -sSL -o "$2" -w '%{http_code}' "$1" 2>"$tmp/err") || code=""
  else
    wget -S -O "$2" "$1" 2>"$tmp/err" || true
    code=$(sed -n 's/^ *HTTP\/[0-9.]* \([0-9]*\).*/\1/p' "$tmp/err" | tail -n 1)
  fi
  case $code in
  200) ;;
  '' | 000) die "cannot download $1: $(tail -n 1 "$tmp/err")" ;;
  *) die "cannot download $1: HTTP $code" ;;
  esac
}

# location URL prints where URL redirects to (its first Location), or nothing.
location() {
  if [ "$fetcher" = curl ]; then
    curl -sS -o /dev/null -w '%{redirect_url}' "$1" 2>/dev/null || true
  else
    # Follows the redirect (BusyBox wget has no --max-redirect) and keeps the first hop's.
    wget -S -O /dev/null "$1" 2>&1 | sed -n 's/^ *[Ll]ocation: *//p' | head -n 1 | tr -d '\r'
  fi
}

# --- version --------------------------------------------------------------------------
if [ -z "$version" ]; then
  loc=$(location "$base/latest")
  case $loc in
  */tag/?*) version=${loc##*/tag/} ;;
  *) die "cannot find the latest release: $base/latest does not redirect to $base/tag/<version>${loc:+ (it redirects to $loc)}" ;;
  esac
fi
case $version in
v*) ;;
*) version=v$version ;; # release tags are v-prefixed; accept 1.2.0 for v1.2.0
esac

# --- download, check, install ---------------------------------------------------------
exe=""
if [ "$os" = windows ]; then exe=.exe; fi
asset="gate_${version}_${os}_${arch}${exe}"
url="$base/download/$version/$asset"
fetch "$url" "$tmp/$asset"
fetch "$url.sha256" "$tmp/$asset.sha256"
want=$(cut -d ' ' -f 1 <"$tmp/$asset.sha256" | head -n 1)
got=$(sha256 "$tmp/$asset")
[ "$got" = "$want" ] || die "checksum mismatch for $asset: its sha256 is $got, $asset.sha256 says ${want:-nothing}"

if [ -z "$dir" ]; then
  if [ -d /usr/local/bin ] && [ -w /usr/local/bin ]; then dir=/usr/local/bin
  else
    [ -n "${HOME:-}" ] || die "HOME is not set and /usr/local/bin is not writable: pass --dir"
    dir=$HOME/.local/bin
  fi
fi
mkdir -p "$dir" 2>/dev/null || die "cannot create $dir (pass --dir)"
[ -w "$dir" ] || die "cannot write to $dir (pass --dir, or run with the rights to write there)"
chmod 755 "$tmp/$asset"
# Copy beside the target and rename, so a running gate is replaced, not overwritten.
cp "$tmp/$asset" "$dir/.gate.new$exe" 2>/dev/null || die "cannot write to $dir"
mv -f "$dir/.gate.new$exe" "$dir/gate$exe" || die "cannot replace $dir/gate$exe"
echo "installed gate $version ($os/$arch) as $dir/gate$exe"
case ":${PATH:-}:" in
*":$dir:"*) ;;
*) echo "note: $dir is not on your PATH" ;;
esac
