#!/usr/bin/env bash
# Reproduces the multi-seed figures of docs/lite/strategies.md with `gate lite plan`:
#
#   scripts/plan-seeds.sh added [SEEDS]      backend-added: first player p50/p99 (1 and 4
#                                            replicas) and the median share of the next 100
#   scripts/plan-seeds.sh starvation [SEEDS] heterogeneous-capacity, 40 players, 1-4
#                                            replicas: runs where some backend got no player
#
# SEEDS defaults to 200 (added) and 1000 (starvation), the numbers the page reports. The
# gate binary is built from this checkout; set GATE to use another.
set -euo pipefail
cd "$(dirname "$0")/.."
gate=${GATE:-}
if [ -z "$gate" ]; then
  gate=$(mktemp -d)/gate
  go build -o "$gate" ./cmd/gate
fi
strategies="sequential random round-robin least-connections lowest-latency p2c least-loaded weighted-random gate-lowest-latency"

# column prints one column of the STRATEGY table of a scenario run, per strategy.
column() { awk -v col="$1" '/^STRATEGY/ {on=1; next} on && NF==0 {exit} on {print $1, $col}'; }

# pct prints the p-th percentile (nearest rank) of numbers on stdin, "never" sorting last.
pct() { sed 's/never/999999/' | sort -n | awk -v p="$1" '{v[NR]=$1} END {i=int((NR*p+99)/100); if (i<1) i=1; print (v[i]==999999 ? "never" : v[i])}'; }

case "${1:-}" in
added)
  seeds=${2:-200}
  tmp=$(mktemp -d)
  for r in 1 4; do
    for s in $(seq 1 "$seeds"); do
      "$gate" lite plan --scenario backend-added --seed "$s" --replicas "$r" >"$tmp/run"
      column 4 <"$tmp/run" >>"$tmp/first-$r"
      [ "$r" = 1 ] && column 5 <"$tmp/run" >>"$tmp/share"
    done
  done
  echo "| strategy | first player p50 / p99, 1 replica | p50 / p99, 4 replicas | median share of the next 100 |"
  echo "|---|---|---|---|"
  for st in $strategies; do
    f1=$(awk -v s="$st" '$1==s {print $2}' "$tmp/first-1")
    f4=$(awk -v s="$st" '$1==s {print $2}' "$tmp/first-4")
    share=$(awk -v s="$st" '$1==s {sub("%", "", $2); print $2}' "$tmp/share" | pct 50)
    echo "| $st | $(pct 50 <<<"$f1") / $(pct 99 <<<"$f1") | $(pct 50 <<<"$f4") / $(pct 99 <<<"$f4") | ${share}% |"
  done
  ;;
starvation)
  seeds=${2:-1000}
  for st in $strategies; do
    starved=0
    for s in $(seq 1 "$seeds"); do
      r=$((1 + s % 4))
      if "$gate" lite plan --scenario heterogeneous-capacity --count 40 --seed "$s" --replicas "$r" --strategy "$st" |
        awk -v s="$st" '/^PLAYERS/ {on=1; next} on && $1==s {for (i=2; i<=NF; i++) if ($i==0) z=1} END {exit !z}'; then
        starved=$((starved + 1))
      fi
    done
    echo "$st: $starved of $seeds runs left a backend without players"
  done
  ;;
*)
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac
