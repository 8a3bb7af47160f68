#!/usr/bin/env bash
# upgrade-load.sh: live sessions through consecutive upgrades, measured with the repo's own
# load tool. It builds gate and tools/mcload, starts mcload's backend and gate in front of
# it, runs `mcload active` (players sending sequence-stamped frames at a game's rate, every
# echo checked byte for byte and in order), and meanwhile upgrades gate UPGRADES times by
# SIGUSR2, each time to the binary on disk. It prints one line per upgrade (how long the old
# process took to exit, the descriptors of the new one) and mcload's JSON result: frames
# sent, delivered, lost and mismatched, errors (a reset is one), round-trip percentiles.
#
#   scripts/upgrade-load.sh                  # 500 players, 10 upgrades, 3 s apart
#   PLAYERS=5000 RATE=0.2 UPGRADES=1 scripts/upgrade-load.sh   # mostly idle players
#
# Ports: BASE (backend) and BASE+1 (gate), loopback only. Needs Linux and Go. Every process
# it starts is stopped on exit by pid.
set -euo pipefail
cd "$(dirname "$0")/.."

PLAYERS=${PLAYERS:-500}
RATE=${RATE:-20}
UPGRADES=${UPGRADES:-10}
EVERY=${EVERY:-3}
BASE=${BASE:-25700}

work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	[ -n "${gate_pid:-}" ] && kill "$gate_pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/gate" ./cmd/gate
go build -o "$work/mcload" ./tools/mcload

cat >"$work/config.yml" <<YAML
config:
  bind: 127.0.0.1:$((BASE + 1))
  lite:
    enabled: true
    routes:
      - host: '*'
        backend: 127.0.0.1:$BASE
YAML

"$work/mcload" backend -listen "127.0.0.1:$BASE" >"$work/backend.log" 2>&1 &
pids+=($!)
"$work/gate" --config "$work/config.yml" >"$work/gate.log" 2>&1 &
gate_pid=$!

# waitlog waits up to 10 s for a line of gate's log matching $1 from line $2 on.
waitlog() {
	for _ in $(seq 100); do
		if tail -n +"$2" "$work/gate.log" | grep -q "$1"; then return 0; fi
		sleep 0.1
	done
	echo "upgrade-load: no '$1' in gate's log (kept as ${TMPDIR:-/tmp}/upgrade-load-gate.log):" >&2
	grep -v 'session ended' "$work/gate.log" | tail -n 20 >&2
	cp "$work/gate.log" "${TMPDIR:-/tmp}/upgrade-load-gate.log"
	exit 1
}
waitlog 'msg="\{0,1\}listening' 1

fds() { ls "/proc/$1/fd" | wc -l; }
secs=$((UPGRADES * EVERY + 4))
"$work/mcload" active -addr "127.0.0.1:$((BASE + 1))" -n "$PLAYERS" -rate "$RATE" -d "${secs}s" -warmup 2s >"$work/active.json" &
load_pid=$!
pids+=("$load_pid")
sleep 4 # logins and warm-up; the upgrades fall inside the measured window
echo "gate pid $gate_pid, $(fds "$gate_pid") descriptors with $PLAYERS players"

for i in $(seq "$UPGRADES"); do
	start=$(date +%s%N)
	# The command signals gate and returns once that process has exited (not as a
	# zombie), or fails after its timeout.
	"$work/gate" lite upgrade --pid "$gate_pid" --timeout 10s >/dev/null
	gone=$((($(date +%s%N) - start) / 1000000))
	new=$(grep 'the new process is ready' "$work/gate.log" | tail -1 | sed -E 's/.*[ ,"]pid"?[=:]([0-9]+).*/\1/')
	if [ -z "$new" ] || [ "$new" = "$gate_pid" ]; then
		echo "upgrade-load: upgrade $i named no new process" >&2
		exit 1
	fi
	gate_pid=$new
	echo "upgrade $i: old process gone ${gone} ms after the signal; new pid $gate_pid, $(fds "$gate_pid") descriptors"
	sleep "$EVERY"
done

wait "$load_pid"
cat "$work/active.json"
