#!/usr/bin/env bash
# bench-compare.sh: the same workloads against a direct connection to the backend, gate
# Lite, HAProxy and nginx stream, all in one run on loopback, so that ratios mean
# something on a shared machine. Prints markdown tables (medians over REPS interleaved
# repetitions, ratios against direct from this run) and keeps the raw JSON lines.
#
#   scripts/bench-compare.sh                 # defaults below, about 12 minutes
#   REPS=7 DUR=4s scripts/bench-compare.sh   # steadier medians
#   WORKLOADS=active ACTIVE=1000x64 scripts/bench-compare.sh   # only active players
#   GATE_BEFORE=/path/to/other/gate scripts/bench-compare.sh   # a second build beside
#   MC_ROUTER=/path/to/mc-router scripts/bench-compare.sh      # mc-router beside, built
#                                                            # by you from its own source
#
# Active players (mcload active): ACTIVE lists players x frame bytes, each player
# sending RATE frames a second that the backend echoes; the table gives the proxy's CPU
# per packet (a packet is one frame in one direction through the proxy), its cores
# busy, RSS, frames delivered and lost, round trips, and the load tool's own cores. As
# root with strace installed, it also counts each proxy's system calls per packet over
# STRACE_S seconds at STRACE_N players x 64 B (strace slows the process it follows, so
# the load there is lower than the table's).
#
# Ports: BASE to BASE+8 (BASE+5 and BASE+7 are gate's and gate-before's admin APIs,
# for their goroutine counts; BASE+8 is mc-router's).
# Needs Linux, Go, jq; installs haproxy and nginx (Debian packages) when missing and
# running as root, else skips them. Every process it starts is stopped on exit by pid.
#
# On a machine that also runs other work, the kernel's autogroup scheduling shares the
# CPUs between sessions regardless of nice values, and a benchmark then measures
# whoever else is busy (stalls of seconds). As root, the script therefore runs in a
# session of its own whose scheduling group gets AUTOGROUP_NICE (default -15; empty
# to leave it alone), so other jobs yield while it runs.
set -euo pipefail

AUTOGROUP_NICE=${AUTOGROUP_NICE--15}
if [ -n "$AUTOGROUP_NICE" ] && [ -z "${BENCH_OWN_SESSION:-}" ] && [ "$(id -u)" = 0 ] &&
	[ -e /proc/self/autogroup ] && command -v setsid >/dev/null; then
	export BENCH_OWN_SESSION=1
	exec setsid -w "$0" "$@"
fi
if [ -n "${BENCH_OWN_SESSION:-}" ]; then
	echo "$AUTOGROUP_NICE" >/proc/self/autogroup 2>/dev/null || true
fi

REPS=${REPS:-3}            # interleaved repetitions of the timed workloads
DUR=${DUR:-3s}             # measured time of a throughput or status run
WARM=${WARM:-1s}           # unmeasured warm-up before it
STREAMS=${STREAMS:-8}      # parallel streams of the throughput run
CONC=${CONC:-64}           # concurrent clients of the status storm
SETUP_N=${SETUP_N:-1000}   # sequential connections of a setup-latency run
HOLD_N=${HOLD_N:-5000}     # idle sessions held per proxy
BUDGET=${BUDGET:-900}      # seconds; no new repetition starts after this
BASE=${BASE:-27100}        # first of the eight loopback ports used
WORKLOADS=${WORKLOADS:-status setup throughput active hold}
ACTIVE=${ACTIVE:-2000x64 500x1024 1000x64} # active players: players x frame bytes
export RATE=${RATE:-20}    # frames per second per active player (a game tick)
ACTIVE_DUR=${ACTIVE_DUR:-5s} # measured time of an active run
STRACE_N=${STRACE_N:-100}  # players while system calls are counted (0 skips it)
STRACE_S=${STRACE_S:-3}    # seconds system calls are counted
GATE_BEFORE=${GATE_BEFORE:-} # another gate binary, measured beside as gate-before
MC_ROUTER=${MC_ROUTER:-}     # an mc-router binary, measured beside as mc-router
OUT=${OUT:-/tmp/gate-bench}

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$OUT/bin
RESULTS=$OUT/results.jsonl
PIDS=()

log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
}
trap cleanup EXIT

[ "$(uname -s)" = Linux ] || die "Linux only (/proc sampling, splice)"
command -v go >/dev/null || die "go not found"
command -v jq >/dev/null || die "jq not found"

install_peers() {
	local missing=()
	command -v haproxy >/dev/null || missing+=(haproxy)
	if ! command -v nginx >/dev/null || [ ! -e /usr/lib/nginx/modules/ngx_stream_module.so ]; then
		missing+=(nginx-light libnginx-mod-stream)
	fi
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		log "not root: cannot install ${missing[*]}; those peers are skipped"
		return 0
	fi
	log "installing ${missing[*]} from Debian packages"
	apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

B=$BASE G=$((BASE + 1)) GP=$((BASE + 2)) H=$((BASE + 3)) N=$((BASE + 4)) GA=$((BASE + 5))
GB=$((BASE + 6)) GBA=$((BASE + 7)) MR=$((BASE + 8))
for p in $B $G $GP $H $N $GA $GB $GBA $MR; do
	port_free "$p" || die "port $p is in use; set BASE"
done

install_peers
mkdir -p "$BIN" "$OUT/nginx"
: >"$RESULTS"
log "building gate and mcload"
(cd "$ROOT" && go build -o "$BIN/gate" ./cmd/gate && go build -o "$BIN/mcload" ./tools/mcload)
MC=$BIN/mcload
has() { [[ " $WORKLOADS " == *" $1 "* ]]; }
[ -z "$GATE_BEFORE" ] || cp "$GATE_BEFORE" "$BIN/gate-before"
[ -z "$MC_ROUTER" ] || cp "$MC_ROUTER" "$BIN/mc-router"

cat >"$OUT/gate.yml" <<EOF
config:
  bind: 127.0.0.1:$G
  lite:
    enabled: true
    routes:
      - host: '*'
        backend: 127.0.0.1:$B
api:                  # for go_goroutines in the idle test
  enabled: true
  bind: 127.0.0.1:$GA
  publicMetrics: true
EOF
cat >"$OUT/gate-before.yml" <<EOF
config:
  bind: 127.0.0.1:$GB
  lite:
    enabled: true
    routes:
      - host: '*'
        backend: 127.0.0.1:$B
api:
  enabled: true
  bind: 127.0.0.1:$GBA
  publicMetrics: true
EOF
cat >"$OUT/gate-passthrough.yml" <<EOF
config:
  bind: 127.0.0.1:$GP
  lite:
    enabled: true
    routes:
      - host: '*'
        backend: 127.0.0.1:$B
        cachePingTTL: -1s   # every status ping goes to the backend
EOF
cat >"$OUT/haproxy.cfg" <<EOF
global
    maxconn 9500
    nbthread 2
defaults
    mode tcp
    maxconn 9500
    timeout connect 5s
    timeout client 1h
    timeout server 1h
frontend mc
    bind 127.0.0.1:$H
    default_backend mc
backend mc
    server b1 127.0.0.1:$B
EOF
cat >"$OUT/nginx/nginx.conf" <<EOF
load_module /usr/lib/nginx/modules/ngx_stream_module.so;
worker_processes 2;
worker_rlimit_nofile 19500;
error_log $OUT/nginx/error.log warn;
pid $OUT/nginx/nginx.pid;
events { worker_connections 19000; }
stream {
    server {
        listen 127.0.0.1:$N;
        proxy_pass 127.0.0.1:$B;
    }
}
EOF

# Targets: label -> port. PROC[label] holds the pids sampled for it.
declare -A PORT=([direct]=$B [gate]=$G [gate-passthrough]=$GP [haproxy]=$H [nginx]=$N [gate-before]=$GB [mc-router]=$MR)
declare -A PROC=()
declare -A LAUNCHED=()

# start LABEL: (re)starts a proxy and waits until a status ping gets through it.
start() {
	local label=$1 pid
	stop_target "$label"
	case $label in
	gate-before)
		"$BIN/gate-before" --config "$OUT/$label.yml" >"$OUT/$label.log" 2>&1 &
		pid=$! PROC[$label]=$pid ;;
	gate | gate-passthrough)
		"$BIN/gate" --config "$OUT/$label.yml" >"$OUT/$label.log" 2>&1 &
		pid=$! PROC[$label]=$pid ;;
	mc-router)
		# Its default admits one connection a second; the workloads open thousands.
		"$BIN/mc-router" -port "$MR" -default "127.0.0.1:$B" -connection-rate-limit 1000000 \
			>"$OUT/mc-router.log" 2>&1 &
		pid=$! PROC[$label]=$pid ;;
	haproxy)
		haproxy -db -f "$OUT/haproxy.cfg" >"$OUT/haproxy.log" 2>&1 &
		pid=$! PROC[$label]=$pid ;;
	nginx)
		nginx -p "$OUT/nginx" -c "$OUT/nginx/nginx.conf" -e "$OUT/nginx/error.log" -g 'daemon off;' &
		pid=$! ;;
	esac
	PIDS+=("$pid")
	LAUNCHED[$label]=$pid
	wait_ready "$label"
	if [ "$label" = nginx ]; then
		# Sample the workers (they hold the connections); the master if none shows.
		PROC[$label]=$(pgrep -d, -P "$pid" || echo "$pid")
	fi
}

stop_target() {
	local pid=${LAUNCHED[$1]:-}
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	unset "LAUNCHED[$1]"
	local i=0
	while ! port_free "${PORT[$1]}" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}

wait_ready() {
	local i out
	for i in $(seq 1 100); do
		if out=$("$MC" setup -addr "127.0.0.1:${PORT[$1]}" -n 1 -warmup 0 2>/dev/null) &&
			[ "$(jq -r .errors <<<"$out")" = 0 ]; then
			return 0
		fi
		sleep 0.1
	done
	die "$1 did not become ready on port ${PORT[$1]}"
}

# run LABEL REP MODE ARGS...: one mcload run; its JSON line gets label and rep added.
run() {
	local label=$1 rep=$2 mode=$3
	shift 3
	local pid=${PROC[$label]:-}
	local line
	if ! line=$(timeout 120 "$MC" "$mode" -addr "127.0.0.1:${PORT[$label]}" -label "$label" ${pid:+-pid "$pid"} "$@"); then
		log "$label $mode failed"
		return 0
	fi
	jq -c --argjson rep "$rep" '. + {rep: $rep}' <<<"$line" >>"$RESULTS"
}

# summarize FILE: markdown tables from the JSON lines (medians over repetitions).
summarize() {
	jq -rs --arg order "${TARGETS[*]}" --arg streams "$STREAMS" --arg conc "$CONC" '
	def median: sort | if length == 0 then null
		elif length % 2 == 1 then .[(length - 1) / 2]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	def med(sel; f): [.[] | select(sel) | f | select(. != null)] | median;
	def pad(n): if n > 0 then ("0" * n) + . else . end;
	def fmt(d): if . == null then "-" else
		((. * pow(10; d)) | round | tostring | pad(d + 1 - length)) as $s
		| if d == 0 then $s else $s[0:($s | length) - d] + "." + $s[($s | length) - d:] end end;
	def ratio(a; b): if a == null or b == null or b == 0 then null else a / b end;
	def withratio(v; base; d): if v == null then "-" else "\(v | fmt(d)) (\(ratio(v; base) | fmt(2))x)" end;
	. as $all
	| ($order | split(" ")) as $targets
	| def m(t; mode; f): $all | med(.label == t and .mode == mode; f);
	  def ms(t; intent; f): $all | med(.label == t and .mode == "setup" and .intent == intent; f);
	  def hold(t; f): $all | med(.label == t and .mode == "hold"; f);
	  m("direct"; "throughput"; .mb_per_s) as $dT
	| m("direct"; "status"; .ops_per_s) as $dS
	| m("gate-passthrough"; "status"; .ops_per_s) as $pS
	| "| target | \($ENV.STREAMS // "8")-stream MB/s (vs direct) | CPU s per GB | status pings/s c=\($ENV.CONC // "64") (vs direct) | status p50 / p99 ms | CPU us per ping | setup p50 status / login ms | KiB / fds per idle session |",
	  "|---|---|---|---|---|---|---|---|",
	  ($targets[] as $t
	   | m($t; "throughput"; .mb_per_s) as $tp
	   | m($t; "status"; .ops_per_s) as $st
	   | "| \($t) | \(withratio($tp; $dT; 0)) | \(m($t; "throughput"; .cpu_s_per_gb) | fmt(2)) | \(withratio($st; $dS; 0)) | \(m($t; "status"; .p50_ms) | fmt(2)) / \(m($t; "status"; .p99_ms) | fmt(2)) | \(m($t; "status"; .cpu_us_per_op) | fmt(1)) | \(ms($t; "status"; .p50_ms) | fmt(3)) / \(ms($t; "login"; .p50_ms) | fmt(3)) | \(hold($t; .kib_per_session) | fmt(1)) / \(hold($t; .fds_per_session) | fmt(2)) |"),
	  "",
	  "Status with the cache on vs the pass-through relay (gate, cachePingTTL -1): \(ratio(m("gate"; "status"; .ops_per_s); $pS) | fmt(2))x.",
	  "Repetitions: \([$all[] | select(.mode != "hold") | .rep] | max // 0); idle sessions held per proxy: \($all | med(.mode == "hold"; .sessions) | fmt(0)); gate goroutines per idle session: \(hold("gate"; .goroutines_per_session) | fmt(3)).",
	  "Failed operations: \([$targets[] as $t | "\($t) \([$all[] | select(.label == $t) | .errors] | add // 0)"] | join(", ")).",
	  "",
	  "Active players (\($ENV.RATE // "20") frames/s each, echoed; a packet is one frame in one direction through the proxy; medians):",
	  "",
	  "| workload | target | CPU us per packet | cores busy | RSS MiB | delivered / lost frames | round trip p50 / p99 / max ms | load tool cores |",
	  "|---|---|---|---|---|---|---|---|",
	  ([$all[] | select(.mode == "active") | "\(.players)x\(.frame_bytes)"] | unique | sort_by(split("x") | map(tonumber)) | reverse | .[]) as $w
	  | ($w | split("x") | map(tonumber)) as [$np, $sz]
	  | $targets[] as $t
	  | [$all[] | select(.mode == "active" and .label == $t and .players == $np and .frame_bytes == $sz)] as $rs
	  | select($rs | length > 0)
	  | def am(f): $rs | med(true; f);
	    "| \($np) x \($sz) B | \($t) | \(am(.cpu_us_per_packet) | fmt(2)) | \(am(.cores_busy) | fmt(2)) | \(am(.rss_kib / 1024) | fmt(1)) | \(am(.delivered) | fmt(0)) / \(am(.lost) | fmt(0)) | \(am(.p50_ms) | fmt(2)) / \(am(.p99_ms) | fmt(2)) / \(am(.max_ms) | fmt(1)) | \(am(.load_cores_busy) | fmt(2)) |"
	' "$1"
}

log "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), scheduling group: $(cat /proc/self/autogroup 2>/dev/null || echo -)"
"$MC" backend -listen "127.0.0.1:$B" >"$OUT/backend.log" 2>&1 &
PIDS+=($!)
PROC[direct]=""
wait_ready direct

TARGETS=(direct gate gate-passthrough)
[ -z "$GATE_BEFORE" ] || TARGETS+=(gate-before)
[ -z "$MC_ROUTER" ] || TARGETS+=(mc-router)
command -v haproxy >/dev/null && TARGETS+=(haproxy)
command -v nginx >/dev/null && [ -e /usr/lib/nginx/modules/ngx_stream_module.so ] && TARGETS+=(nginx)
for t in "${TARGETS[@]}"; do
	[ "$t" = direct ] || start "$t"
done

START=$SECONDS
for rep in $(seq 1 "$REPS"); do
	if [ $((SECONDS - START)) -gt "$BUDGET" ]; then
		log "time budget spent after $((rep - 1)) repetitions"
		break
	fi
	# Rotate the order each repetition so no target always runs first or last.
	order=("${TARGETS[@]:rep % ${#TARGETS[@]}}" "${TARGETS[@]:0:rep % ${#TARGETS[@]}}")
	for t in "${order[@]}"; do
		log "rep $rep/$REPS: $t"
		has status && run "$t" "$rep" status -c "$CONC" -d "$DUR" -warmup "$WARM"
		has setup && run "$t" "$rep" setup -intent status -n "$SETUP_N"
		[ "$t" = gate-passthrough ] && continue
		has throughput && run "$t" "$rep" throughput -streams "$STREAMS" -d "$DUR" -warmup "$WARM"
		has setup && run "$t" "$rep" setup -intent login -n "$SETUP_N"
		if has active; then
			for w in $ACTIVE; do
				run "$t" "$rep" active -n "${w%x*}" -size "${w#*x}" -rate "$RATE" -d "$ACTIVE_DUR" -warmup "$WARM"
			done
		fi
	done
done

# System calls per packet: strace -c over a window of an active run, per proxy.
count_syscalls() {
	local t=$1 p args=()
	for p in ${PROC[$1]//,/ }; do args+=(-p "$p"); done
	"$MC" active -addr "127.0.0.1:${PORT[$t]}" -n "$STRACE_N" -size 64 -rate "$RATE" -warmup 3s \
		-d "$((STRACE_S + 1))s" -label "$t" >"$OUT/strace-$t.json" &
	local mc=$!
	sleep 2.5 # the logins are in, the frames flowing
	timeout -s INT "$STRACE_S" strace -c -f -o "$OUT/strace-$t.txt" "${args[@]}" 2>/dev/null || true
	wait "$mc" || true
	# strace -c's table, per packet: 2 packets per frame, RATE frames a second a player.
	awk -v t="$t" -v pk="$((2 * STRACE_N * RATE * STRACE_S))" '
		$1 ~ /^[0-9.]+$/ && NF >= 5 && $NF != "total" { calls[$NF] = $4; sum += $4 }
		END {
			line = ""
			for (c in calls) if (calls[c] / pk >= 0.005) line = line sprintf(" %s %.2f,", c, calls[c] / pk)
			printf "%s: %.2f system calls per packet:%s\n", t, sum / pk, line
		}' "$OUT/strace-$t.txt"
}
if has active && [ "$STRACE_N" -gt 0 ] && [ "$(id -u)" = 0 ] && command -v strace >/dev/null; then
	: >"$OUT/syscalls.txt"
	for t in "${TARGETS[@]}"; do
		case $t in direct | gate-passthrough) continue ;; esac
		log "counting system calls: $t"
		count_syscalls "$t" >>"$OUT/syscalls.txt"
	done
fi

# Idle sessions: each proxy fresh, so its baseline is not inflated by earlier runs.
for t in "${TARGETS[@]}"; do
	has hold || break
	case $t in direct | gate-passthrough) continue ;; esac
	log "hold $HOLD_N idle sessions: $t"
	start "$t"
	metrics=()
	[ "$t" = gate ] && metrics=(-metrics "http://127.0.0.1:$GA/metrics")
	[ "$t" = gate-before ] && metrics=(-metrics "http://127.0.0.1:$GBA/metrics")
	run "$t" 1 hold -n "$HOLD_N" "${metrics[@]}"
done
log "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

summarize "$RESULTS" | tee "$OUT/summary.md"
if [ -s "$OUT/syscalls.txt" ]; then
	{
		echo
		echo "System calls per packet (strace -c -f; $STRACE_N players x 64 B x $RATE/s; ${STRACE_S} s):"
		echo
		sed 's/^/    /' "$OUT/syscalls.txt"
	} | tee -a "$OUT/summary.md"
fi
log "raw results: $RESULTS; tables: $OUT/summary.md"
