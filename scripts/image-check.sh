#!/usr/bin/env bash
# Builds the container image from this checkout's Dockerfile without pulling anything,
# runs it, and checks it for real:
#
#   DOCKER_HOST=unix:///path/to/docker.sock scripts/image-check.sh
#
# (GATETEST_DOCKER_HOST, the test environment's name for it, serves when DOCKER_HOST
# is unset.)
#
# 1. builds gate on this machine (CGO_ENABLED=0, for the daemon's architecture) and the
#    image from it: --build-arg BINARY=prebuilt --build-arg BASE=scratch (the Dockerfile
#    explains the variant; its final stage is the published image's);
# 2. checks the image: runs as a numeric non-root user, has the health check;
# 3. runs it with --network host and a config that binds a free loopback port, does a
#    server-list ping through it from here (gate healthcheck with the admin API off),
#    waits for the container's own HEALTHCHECK (the admin API's /healthz) to say healthy,
#    with --health-interval shortened so that takes seconds, removes the container and
#    checks the ping now fails (so the answer came from the container); then the same
#    on the daemon's bridge with the player port published (-p), when it has a bridge;
# 4. prints the image size and removes the image, by ID;
# 5. builds the Dockerfile's normal path (Go image + distroless, single arch): without
#    network it must get as far as resolving those base images, which proves the file
#    parses and its stages and arguments resolve; with network it must build.
#
# The daemon must be on this machine, in this network namespace (--network host must put
# the container where this script dials). Needs Go and a docker CLI with BuildKit: the
# buildx plugin, or a CLI older than 23 (these build with DOCKER_BUILDKIT=1); DOCKER
# chooses the CLI. Exits non-zero with one line "image-check: FAIL: ..." (the failing
# tool's last lines before it).
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo "image-check: FAIL: $*" >&2
  exit 1
}
say() { echo "image-check: $*"; }

# show prints the last lines of a tool's output, indented, before a failure line.
show() { tail -n "${2:-15}" "$1" | sed 's/^/    /' >&2; }

# pick_docker prints the first docker CLI on PATH that can use BuildKit: the legacy
# builder cannot skip the stages that would pull, nor evaluate BUILDPLATFORM.
pick_docker() {
  local c v
  for c in $(type -ap docker); do
    if "$c" buildx version >/dev/null 2>&1; then
      echo "$c"; return 0
    fi
    v=$("$c" --version 2>/dev/null | sed -nE 's/^Docker version ([0-9]+)\..*/\1/p')
    if [ -n "$v" ] && [ "$v" -lt 23 ]; then
      echo "$c"; return 0
    fi
  done
  return 1
}

# The project's test environment names its daemon GATETEST_DOCKER_HOST.
if [ -z "${DOCKER_HOST:-}" ] && [ -n "${GATETEST_DOCKER_HOST:-}" ]; then
  export DOCKER_HOST=$GATETEST_DOCKER_HOST
fi
docker=${DOCKER:-}
if [ -z "$docker" ]; then
  docker=$(pick_docker) || fail "no docker CLI with BuildKit on PATH (want the buildx plugin or a CLI older than 23, such as Debian 12's); set DOCKER to choose one"
fi
export DOCKER_BUILDKIT=1
command -v go >/dev/null || fail "go is not on PATH (the image's binary is built here)"

work=$(mktemp -d)
# The binary must sit inside the build context; a fresh directory there, removed on exit.
ctx=$(mktemp -d "$PWD/.image-check.XXXXXX")
cid="" iid=""
cleanup() {
  if [ -n "$cid" ]; then "$docker" rm -f "$cid" >/dev/null 2>&1 || true; fi
  if [ -n "$iid" ]; then "$docker" rmi -f "$iid" >/dev/null 2>&1 || true; fi
  rm -rf "$work" "$ctx"
}
trap cleanup EXIT

arch=$("$docker" version --format '{{.Server.Os}}/{{.Server.Arch}}' 2>"$work/version.log") ||
  { show "$work/version.log" 3; fail "no docker daemon answers at ${DOCKER_HOST:-the default socket}"; }
[ "${arch%%/*}" = linux ] || fail "the daemon runs $arch containers; the image is linux"
say "docker CLI $docker ($("$docker" --version)), daemon $arch"

# --- 1. binary and image ------------------------------------------------------------
version="image-check-$(git rev-parse --short HEAD 2>/dev/null || echo local)"
start=$(date +%s)
CGO_ENABLED=0 GOOS=linux GOARCH=${arch#*/} \
  go build -trimpath -ldflags="-s -w -X main.version=$version" -o "$ctx/gate" ./cmd/gate 2>"$work/go.log" ||
  { show "$work/go.log"; fail "go build ./cmd/gate (CGO_ENABLED=0 GOARCH=${arch#*/}) failed"; }
rel=${ctx#"$PWD"/}/gate
"$docker" build --progress=plain --iidfile "$work/iid" \
  --build-arg BINARY=prebuilt --build-arg BASE=scratch --build-arg PREBUILT="$rel" \
  --label gate.image-check=1 . >"$work/build.log" 2>&1 ||
  { show "$work/build.log"; fail "docker build (BINARY=prebuilt BASE=scratch) failed"; }
iid=$(cat "$work/iid")
say "built $iid from $rel in $(($(date +%s) - start))s (go build + docker build)"

# --- 2. what the image says about itself --------------------------------------------
user=$("$docker" image inspect --format '{{.Config.User}}' "$iid")
case "$user" in
'' | 0 | 0:* | root | root:*) fail "the image runs as root (USER is '${user}')" ;;
esac
hc=$("$docker" image inspect --format '{{if .Config.Healthcheck}}{{join .Config.Healthcheck.Test " "}}{{end}}' "$iid")
[ -n "$hc" ] || fail "the image has no HEALTHCHECK"
say "user $user, healthcheck: $hc"

# --- 3. run it ----------------------------------------------------------------------
# pick VAR sets VAR to a loopback port nobody listens on (a connect there is refused)
# and that no earlier pick chose.
taken=" "
pick() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 30000))
    case $taken in *" $p "*) continue ;; esac
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      taken="$taken$p "
      printf -v "$1" %s "$p"
      return 0
    fi
  done
  fail "no free loopback port"
}
# check_run NAME BIND ADDR [docker run options...] runs the image with a config whose
# listener is BIND inside the container, does a status ping at ADDR from here, waits for
# the container's HEALTHCHECK, then removes the container and checks the ping fails.
check_run() {
  local name=$1 bind=$2 addr=$3 health deadline got
  shift 3
  local dir="$work/$name"
  mkdir -p "$dir/etc"
  # Like the shipped config (deploy/docker/config.yml), with loopback ports. The backend
  # refuses, so the route's fallback answers pings; the admin API serves HEALTHCHECK.
  local route="    routes:
      - host: '*'
        backend: 127.0.0.1:$refused
        fallback:
          motd: image-check"
  printf 'config:\n  bind: %s\n  lite:\n    enabled: true\n%s\napi:\n  enabled: true\n  bind: 127.0.0.1:%s\n' \
    "$bind" "$route" "$api" >"$dir/etc/config.yml"
  # What this side dials, with the API off: gate healthcheck then does a status ping.
  printf 'config:\n  bind: %s\n  lite:\n    enabled: true\n%s\n' "$addr" "$route" >"$dir/ping.yml"
  # The container runs as 65532: it must be able to read the mounted directory.
  chmod 755 "$work" "$dir" "$dir/etc"
  chmod 644 "$dir/etc/config.yml"

  cid=$("$docker" run -d "$@" \
    --health-interval=1s --health-timeout=3s --health-retries=3 --health-start-period=30s \
    -v "$dir/etc:/etc/gate:ro" "$iid" 2>"$work/run.log") ||
    { show "$work/run.log"; fail "$name: docker run $* failed"; }
  say "$name: container ${cid:0:12} ($*), proxy on $bind inside, pinged at $addr"

  deadline=$(($(date +%s) + 30))
  until "$ctx/gate" healthcheck --config "$dir/ping.yml" --timeout 2s >"$work/ping.log" 2>&1; do
    if [ "$("$docker" inspect --format '{{.State.Running}}' "$cid")" != true ]; then
      logs; fail "$name: the container exited before answering a status ping at $addr"
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      show "$work/ping.log" 3; logs; fail "$name: no status ping answer from the container at $addr within 30s"
    fi
    sleep 0.2 # poll interval
  done
  say "$name: status ping through the container: $(cat "$work/ping.log")"

  got=$("$docker" exec "$cid" /usr/local/bin/gate version 2>&1) || { echo "    $got" >&2; fail "$name: docker exec gate version failed"; }
  [ "$got" = "gate version $version" ] || fail "$name: the image's binary says '$got', want 'gate version $version'"
  say "$name: in the container: $got"

  deadline=$(($(date +%s) + 60))
  while :; do
    health=$("$docker" inspect --format '{{.State.Health.Status}}' "$cid")
    [ "$health" = healthy ] && break
    if [ "$health" = unhealthy ] || [ "$(date +%s)" -ge "$deadline" ]; then
      "$docker" inspect --format '{{range .State.Health.Log}}{{.Output}}{{end}}' "$cid" | tail -n 3 | sed 's/^/    /' >&2
      fail "$name: the container's HEALTHCHECK says '$health' (want healthy within 60s)"
    fi
    sleep 0.5 # poll interval
  done
  say "$name: HEALTHCHECK healthy ($("$docker" inspect --format '{{with index .State.Health.Log 0}}{{.Output}}{{end}}' "$cid" | head -n 1))"

  "$docker" rm -f "$cid" >/dev/null || fail "$name: docker rm -f $cid failed"
  cid=""
  if "$ctx/gate" healthcheck --config "$dir/ping.yml" --timeout 2s >"$work/ping.log" 2>&1; then
    fail "$name: a status ping at $addr still answers with the container removed: something else answered"
  fi
  say "$name: container removed; the ping now fails ($(head -n 1 "$work/ping.log"))"
}

# logs shows the container's output before a failure line.
logs() { "$docker" logs --tail 15 "$cid" 2>&1 | sed 's/^/    /' >&2 || true; }

player="" api="" refused="" published=""
pick player
pick api
pick refused
pick published

# Always: the host's network, so the check needs no bridge.
check_run host "127.0.0.1:$player" "127.0.0.1:$player" --network host
# With a bridge (the daemon's default network works): the README's way, the player port
# published, here on loopback only.
if "$docker" network inspect bridge >/dev/null 2>&1; then
  check_run bridge "0.0.0.0:25565" "127.0.0.1:$published" -p "127.0.0.1:$published:25565"
else
  say "bridge: skipped (the daemon has no bridge network; run dockerd with one to check -p)"
fi

# --- 4. size, then the image goes, by ID --------------------------------------------
size=$("$docker" image inspect --format '{{.Size}}' "$iid")
say "image size: $size bytes ($(awk -v s="$size" 'BEGIN {printf "%.1f", s / 1048576}') MiB, BASE=scratch; the binary is $(wc -c <"$ctx/gate") bytes)"
"$docker" rmi "$iid" >/dev/null || fail "docker rmi $iid failed"
iid=""
say "image removed"

# --- 5. the normal path -------------------------------------------------------------
# The published build: Go image, then distroless. Here it usually cannot pull; it must
# then fail resolving one of those images, and on nothing before that.
if "$docker" build --progress=plain --iidfile "$work/iid" --label gate.image-check=1 \
  --build-arg VERSION="$version" . >"$work/normal.log" 2>&1; then
  iid=$(cat "$work/iid")
  say "normal path (golang + distroless): built $iid ($("$docker" image inspect --format '{{.Size}}' "$iid") bytes)"
elif grep -qE 'load metadata for [^ ]*(golang|distroless)' "$work/normal.log" &&
  ! grep -qiE 'parse error|unknown instruction|failed to parse' "$work/normal.log"; then
  say "normal path (golang + distroless): the Dockerfile parsed, its stages resolved, and the build stopped where it needs a pull: $(grep -m1 -oE 'load metadata for [^ ]+' "$work/normal.log")"
else
  show "$work/normal.log"; fail "docker build of the normal path failed before it needed a pull"
fi
say "ok"
