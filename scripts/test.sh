#!/usr/bin/env bash
# The whole test suite with the real engines its discovery tests need.
#
#   scripts/test.sh            # what README.md and .ci/run run
#   scripts/test.sh -run Kube  # extra arguments go to go test
#
# Outside: installs what the tests need (a C compiler for -race, iproute2, Debian's
# docker.io, whose docker and containerd services docker.sh puts back as they were: the
# tests use a daemon of their own), builds the Kubernetes API server and etcd once (cached under
# $GATETEST_ENGINES_DIR, default ~/.cache/gate-engines; the first build takes minutes),
# downloads the Go modules, then runs itself again inside a new network namespace.
# Debian's chromium and npm playwright-core (cached beside minecraft-protocol) drive
# the admin page in a real headless browser.
# Inside: lo comes up with the test addresses 10.9.0.1-10.9.0.40 (EndpointSlices
# refuse loopback addresses), etcd, kube-apiserver and dockerd start there, and
# `go test -race -count=1 ./...` runs with the variables that point the tests at
# them; then scripts/image-check.sh builds the container image without a pull, runs
# it and pings it. Nothing inside can reach beyond the namespace, and the engines
# stop when the run ends, leaving nothing mounted that would keep the namespace alive.
#
# It needs root (network namespaces, dockerd). Without root it runs the plain
# suite, where each engine test skips saying what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "== $*" >&2; }
# The npm package the tests' real Minecraft server and bots run on.
MINECRAFT_PROTOCOL=1.68.0
# The npm package that drives Debian's chromium for the admin page's browser test
# (playwright-core downloads no browser of its own).
PLAYWRIGHT_CORE=1.65.2

if [ "${1:-}" != "--inside" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    say "not root: no network namespace, no engines; their tests skip"
    exec go test -race -count=1 "$@" ./...
  fi
  need=()
  command -v "$(go env CC)" >/dev/null 2>&1 || need+=(gcc libc6-dev)
  command -v ip >/dev/null 2>&1 || need+=(iproute2)
  command -v unshare >/dev/null 2>&1 || need+=(util-linux)
  command -v curl >/dev/null 2>&1 || need+=(curl)
  command -v openssl >/dev/null 2>&1 || need+=(openssl)
  command -v node >/dev/null 2>&1 || need+=(nodejs)
  command -v npm >/dev/null 2>&1 || need+=(npm)
  [ -x /usr/bin/chromium ] || need+=(chromium)
  if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]}"
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${need[@]}"
  fi
  scripts/engines/docker.sh install
  say "kube-apiserver and etcd (built once, then cached)"
  scripts/engines/kube.sh build
  say "a real Minecraft server and client (npm minecraft-protocol) and a browser driver (npm playwright-core), cached"
  node_dir=${GATETEST_ENGINES_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gate-engines}/node
  has() { [ -f "$node_dir/node_modules/$1/package.json" ] && grep -q "\"version\": \"$2\"" "$node_dir/node_modules/$1/package.json"; }
  if ! has minecraft-protocol "$MINECRAFT_PROTOCOL" || ! has playwright-core "$PLAYWRIGHT_CORE"; then
    mkdir -p "$node_dir"
    npm install --prefix "$node_dir" --no-audit --no-fund --loglevel=error \
      "minecraft-protocol@$MINECRAFT_PROTOCOL" "playwright-core@$PLAYWRIGHT_CORE" >&2
  fi
  export GATETEST_NODE_MODULES=$node_dir/node_modules
  say "go modules"
  # all, not only what this module's packages build with: the embedding test
  # (cmd/gate/embed_test.go) tidies a module of its own offline, and tidy also reads
  # the tests of the packages it imports.
  go mod download all
  (cd deploy && go mod download)
  exec unshare --net -- "$0" --inside "$@"
fi
shift

ip link set lo up
addrs=()
for i in $(seq 1 40); do
  ip addr add "10.9.0.$i/32" dev lo
  addrs+=("10.9.0.$i")
done
GATETEST_LO_ADDRS=$(IFS=,; echo "${addrs[*]}")
export GATETEST_LO_ADDRS
# Modules were downloaded outside; inside there is no network to ask.
export GOPROXY=off

stop_engines() {
  scripts/engines/docker.sh stop || true
  scripts/engines/kube.sh stop || true
}
trap stop_engines EXIT
# start prints export lines; a failed start must fail the run, not leave the
# variables unset (the engine tests would then skip), so the output is taken
# first and evaluated after. One retry: a start right after another
# instance's stop has been seen to lose its API server once.
say "starting etcd and kube-apiserver"
kube_env=$(scripts/engines/kube.sh start) || {
  scripts/engines/kube.sh stop || true
  say "kube.sh start failed; once more"
  kube_env=$(scripts/engines/kube.sh start)
}
eval "$kube_env"
say "starting dockerd"
docker_env=$(scripts/engines/docker.sh start)
eval "$docker_env"
: "${GATETEST_KUBECONFIG:?kube.sh start printed no GATETEST_KUBECONFIG}" "${GATETEST_DOCKER_HOST:?docker.sh start printed no GATETEST_DOCKER_HOST}"

say "go test -race -count=1 ./... (engines: kubernetes, docker; addresses on lo: ${#addrs[@]})"
go test -race -count=1 "$@" ./...
[ $# -eq 0 ] || exit 0 # a focused run (extra go test arguments): no image check

say "deploy/ (its own module): manifests, Helm chart and RBAC against the API server"
(cd deploy && go test -race -count=1 ./...)

say "container image: built without a pull, run, pinged, healthcheck healthy"
DOCKER_HOST=$GATETEST_DOCKER_HOST scripts/image-check.sh
