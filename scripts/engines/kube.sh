#!/usr/bin/env bash
# kube.sh runs a real kube-apiserver (with its etcd) for the project's tests.
#
#   kube.sh build   build kube-apiserver and etcd from the Go module proxy
#                   through the wrapper module in scripts/engines/kube/; a no-op
#                   when the binaries match the wrapper's go.mod/go.sum
#   kube.sh start   start etcd and kube-apiserver on loopback, wait for /readyz,
#                   write two kubeconfigs and print `export VAR=value` lines
#   kube.sh stop    stop the processes this script recorded (and only those)
#   kube.sh env     print the export lines of a running instance again
#
# State lives in $GATETEST_ENGINES_DIR (default ${XDG_CACHE_HOME:-$HOME/.cache}/gate-engines):
# binaries in bin/, everything of a running instance in kube/ (logs, PIDs,
# certificates, kubeconfigs, etcd data). Each start uses fresh etcd data.
#
# Kubeconfigs it writes:
#   GATETEST_KUBECONFIG          user "gate-admin", group system:masters (everything)
#   GATETEST_KUBECONFIG_LIMITED  user "gate-tester", groups "gate:testers" and
#                                 system:authenticated; no RBAC binding exists for
#                                 it until a test creates one, so it starts with
#                                 only what system:authenticated gets by default
#                                 (discovery, self-reviews)
#
# Ports (loopback only): etcd client KUBE_ETCD_PORT (default 23790), etcd peer
# KUBE_ETCD_PORT+1, API server KUBE_APISERVER_PORT (default 26443).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
wrapper="$here/kube"
state="${GATETEST_ENGINES_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gate-engines}"
bin="$state/bin"
run="$state/kube"
etcd_port="${KUBE_ETCD_PORT:-23790}"
api_port="${KUBE_APISERVER_PORT:-26443}"
ready_timeout="${KUBE_READY_TIMEOUT:-120}"

log() { echo "kube.sh: $*" >&2; }
die() { log "$*"; exit 1; }

# stamp identifies the wrapper's dependency graph; binaries built from another
# graph are rebuilt.
stamp() { cat "$wrapper/go.mod" "$wrapper/go.sum" | sha256sum | cut -d' ' -f1; }

# lock serialises this script's commands on one state directory (two test
# runs may share it). The descriptor is closed for the engines we start, or
# they would hold the lock for their whole life.
lock() {
	mkdir -p "$state"
	exec 9>"$state/kube-$1.lock"
	flock 9
}

cmd_build() {
	local want have=""
	lock build
	want="$(stamp)"
	[[ -f "$bin/kube.stamp" ]] && have="$(cat "$bin/kube.stamp")"
	if [[ "$have" == "$want" && -x "$bin/kube-apiserver" && -x "$bin/etcd" ]]; then
		log "binaries in $bin are current"
		return 0
	fi
	mkdir -p "$bin"
	local t0=$SECONDS
	log "building etcd and kube-apiserver into $bin (first build: ~800 CPU-seconds)"
	# Same flags for both so that their shared packages build once.
	(
		cd "$wrapper"
		export CGO_ENABLED=0 GOFLAGS=-mod=readonly
		go build -trimpath -ldflags='-s -w' -o "$bin/etcd.tmp" go.etcd.io/etcd/server/v3
		go build -trimpath -ldflags='-s -w' -o "$bin/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
	)
	mv "$bin/etcd.tmp" "$bin/etcd"
	mv "$bin/kube-apiserver.tmp" "$bin/kube-apiserver"
	echo "$want" >"$bin/kube.stamp"
	log "built in $((SECONDS - t0))s: $(du -h "$bin/kube-apiserver" "$bin/etcd" | tr '\n\t' '  ')"
}

# alive reports whether the process recorded in the PID file still runs the
# binary we started (a recycled PID must not be mistaken for ours).
alive() {
	local pidfile="$run/$1.pid" pid
	[[ -f "$pidfile" ]] || return 1
	pid="$(cat "$pidfile")"
	[[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
	local exe
	exe="$(readlink "/proc/$pid/exe" 2>/dev/null)" || return 1
	# A binary rebuilt under a running process reads "... (deleted)".
	[[ "${exe% (deleted)}" == "$(realpath "$bin/$1")" ]]
}

stop_one() {
	local name="$1" pid i
	if alive "$name"; then
		pid="$(cat "$run/$name.pid")"
		kill "$pid" 2>/dev/null || true
		for ((i = 0; i < 100; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			log "$name (pid $pid) ignored SIGTERM for 10s; sending SIGKILL"
			kill -9 "$pid" 2>/dev/null || true
		fi
	fi
	rm -f "$run/$name.pid"
}

stop_all() {
	stop_one kube-apiserver
	stop_one etcd
}

cmd_stop() {
	lock run
	stop_all
}

# healthy asks the API server's /readyz with the admin token.
healthy() {
	[[ -f "$run/admin.token" ]] || return 1
	curl -fsS --max-time 2 --cacert "$run/certs/apiserver.crt" \
		-H "Authorization: Bearer $(cat "$run/admin.token")" \
		"https://127.0.0.1:$api_port/readyz" >/dev/null 2>&1
}

cmd_env() {
	if ! alive etcd || ! alive kube-apiserver || [[ ! -f "$run/admin.kubeconfig" || ! -f "$run/limited.kubeconfig" ]]; then
		die "not running: run $0 start"
	fi
	echo "export GATETEST_KUBECONFIG=$run/admin.kubeconfig"
	echo "export GATETEST_KUBECONFIG_LIMITED=$run/limited.kubeconfig"
}

# kubeconfig writes a kubeconfig for one static token.
kubeconfig() {
	local file="$1" user="$2" token="$3" ca
	ca="$(base64 -w0 <"$run/certs/apiserver.crt")"
	(
		umask 077
		cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: gate-test
  cluster:
    server: https://127.0.0.1:$api_port
    certificate-authority-data: $ca
users:
- name: $user
  user:
    token: $token
contexts:
- name: $user@gate-test
  context:
    cluster: gate-test
    user: $user
current-context: $user@gate-test
EOF
	)
}

# wait_for polls a condition until it holds or the deadline passes; a process
# that died meanwhile ends the wait early.
wait_for() {
	local what="$1" proc="$2" deadline=$((SECONDS + ready_timeout))
	shift 2
	until "$@"; do
		alive "$proc" || die "$proc exited while waiting for $what; see $run/$proc.log: $(tail -n 5 "$run/$proc.log")"
		((SECONDS < deadline)) || die "$what not ready within ${ready_timeout}s; see $run/$proc.log"
		sleep 0.2
	done
}

etcd_healthy() {
	curl -fsS --max-time 2 "http://127.0.0.1:$etcd_port/health" 2>/dev/null | grep -q '"health":"true"'
}

# netns names the network namespace a process (default: this shell) is in.
netns() { readlink "/proc/${1:-self}/ns/net"; }

cmd_start() {
	[[ -x "$bin/kube-apiserver" && -x "$bin/etcd" ]] || die "no binaries in $bin: run $0 build"
	lock run
	local name
	for name in etcd kube-apiserver; do
		# Its loopback is not ours: restarting it here would pull it from
		# under whoever uses it there.
		if alive "$name" && [[ "$(netns "$(cat "$run/$name.pid")")" != "$(netns)" ]]; then
			die "$name (pid $(cat "$run/$name.pid")) runs in another network namespace; stop it there ($0 stop) or use another GATETEST_ENGINES_DIR"
		fi
	done
	if alive etcd && alive kube-apiserver && healthy; then
		cmd_env
		return 0
	fi
	stop_all
	mkdir -p "$run/certs"
	chmod 700 "$run"
	local t0=$SECONDS
	rm -rf "$run/etcd"
	rm -f "$run/certs/apiserver.crt" "$run/certs/apiserver.key" "$run/admin.kubeconfig" "$run/limited.kubeconfig"

	# Service-account keys survive restarts: tokens a test kept stay valid.
	if [[ ! -f "$run/sa.key" ]]; then
		openssl genrsa -out "$run/sa.key" 2048 2>/dev/null
		openssl rsa -in "$run/sa.key" -pubout -out "$run/sa.pub" 2>/dev/null
	fi
	local admin limited
	admin="$(openssl rand -hex 24)"
	limited="$(openssl rand -hex 24)"
	echo "$admin" >"$run/admin.token"
	{
		echo "$admin,gate-admin,gate-admin,\"system:masters\""
		echo "$limited,gate-tester,gate-tester,\"gate:testers\""
	} >"$run/tokens.csv"

	setsid "$bin/etcd" \
		--name gate-test \
		--data-dir "$run/etcd" \
		--listen-client-urls "http://127.0.0.1:$etcd_port" \
		--advertise-client-urls "http://127.0.0.1:$etcd_port" \
		--listen-peer-urls "http://127.0.0.1:$((etcd_port + 1))" \
		--initial-advertise-peer-urls "http://127.0.0.1:$((etcd_port + 1))" \
		--initial-cluster "gate-test=http://127.0.0.1:$((etcd_port + 1))" \
		--unsafe-no-fsync \
		</dev/null >"$run/etcd.log" 2>&1 9>&- &
	echo $! >"$run/etcd.pid"
	wait_for etcd etcd etcd_healthy

	# --advertise-address is explicit: inside a network namespace with only
	# lo there is no default route to guess an address from.
	setsid "$bin/kube-apiserver" \
		--etcd-servers "http://127.0.0.1:$etcd_port" \
		--bind-address 127.0.0.1 \
		--advertise-address 127.0.0.1 \
		--secure-port "$api_port" \
		--cert-dir "$run/certs" \
		--token-auth-file "$run/tokens.csv" \
		--authorization-mode RBAC \
		--service-account-issuer https://kubernetes.default.svc \
		--service-account-key-file "$run/sa.pub" \
		--service-account-signing-key-file "$run/sa.key" \
		--service-cluster-ip-range 10.96.0.0/16 \
		--endpoint-reconciler-type none \
		--profiling=false \
		</dev/null >"$run/kube-apiserver.log" 2>&1 9>&- &
	echo $! >"$run/kube-apiserver.pid"
	wait_for "kube-apiserver serving cert" kube-apiserver test -s "$run/certs/apiserver.crt"
	wait_for "kube-apiserver /readyz" kube-apiserver healthy

	kubeconfig "$run/admin.kubeconfig" gate-admin "$admin"
	kubeconfig "$run/limited.kubeconfig" gate-tester "$limited"
	log "ready in $((SECONDS - t0))s (logs in $run)"
	cmd_env
}

case "${1:-}" in
build) cmd_build ;;
start) cmd_start ;;
stop) cmd_stop ;;
env) cmd_env ;;
*) echo "usage: $0 build|start|stop|env" >&2; exit 2 ;;
esac
