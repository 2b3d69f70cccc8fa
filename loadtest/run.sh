#!/usr/bin/env bash
# Load tests of pads on this machine.
#
#   loadtest/run.sh [seconds] [connections]
#     The save path: durable saves/s and latency at 64 connections, against
#     a bare JSON handler measured in the same run. Needs wrk. With
#     PADS_LOAD_DATABASE=postgres://... pads saves to that database instead
#     of SQLite.
#   loadtest/run.sh e2e [seconds]
#     End to end, save answered -> signed webhook received: paced at
#     1,000 saves/s, paced at 4,000 saves/s, then flat out.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = e2e ]; then
  secs=${2:-15}
  bin=$(mktemp -d)
  trap 'rm -rf "$bin"' EXIT
  GOTOOLCHAIN=local go build -o "$bin/pads" ./cmd/pads
  GOTOOLCHAIN=local go build -o "$bin/e2e" ./loadtest/e2e
  "$bin/e2e" -pads "$bin/pads" -rate 1000 -duration "${secs}s"
  "$bin/e2e" -pads "$bin/pads" -rate 4000 -duration "${secs}s"
  "$bin/e2e" -pads "$bin/pads" -rate 0 -duration "${secs}s"
  exit 0
fi
secs=${1:-15}
conns=${2:-64}
command -v wrk >/dev/null || { echo "loadtest: wrk is missing (apt-get install wrk)" >&2; exit 1; }

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
export GOTOOLCHAIN=local
go build ${PADS_BUILD_TAGS:+-tags "$PADS_BUILD_TAGS"} -o "$work/pads" ./cmd/pads
go build -o "$work/bare" ./loadtest/bare

key=load-test-key-0123456789
cat > "$work/pads.yaml" <<YAML
listen: 127.0.0.1:18080
dataDir: $work/data
database: ${PADS_LOAD_DATABASE:-sqlite://$work/data/pads.db}
clients:
  - id: load
    apiKeys: [{key: $key}]
    subscription: full
    funnels: [{id: load-main}]
YAML
"$work/pads" serve --config "$work/pads.yaml" >/dev/null 2>"$work/pads.log" &
"$work/bare" --listen 127.0.0.1:18090 &
for _ in $(seq 100); do curl -sf http://127.0.0.1:18080/healthz >/dev/null && curl -s -o /dev/null http://127.0.0.1:18090/ && break; sleep 0.1; done

TOKEN=$(curl -sf -X POST http://127.0.0.1:18080/storage/authenticate -H 'Content-Type: application/json' \
  -d "{\"username\":\"load\",\"password\":\"$key\"}" | sed -E 's/.*"token":"([^"]+)".*/\1/')
export TOKEN

measure() { # name url
  echo "== $1" >&2
  wrk -t2 -c"$conns" -d"${secs}s" --latency -s loadtest/save.lua "$2" | tee "$work/$1.txt" >&2
}
measure bare http://127.0.0.1:18090
[ -n "${PADS_PROFILE:-}" ] && curl -s -o "$PADS_PROFILE" "http://127.0.0.1:6060/debug/pprof/profile?seconds=$((secs - 2))" &
measure pads http://127.0.0.1:18080
wait $(jobs -p | tail -n +3) 2>/dev/null || true

rps() { awk '/^Requests\/sec/ {print $2}' "$work/$1.txt"; }
pct() { awk -v p="$2" '$1 == p {print $2}' "$work/$1.txt"; }
non2xx() { sed -nE 's/^non2xx=([0-9]+)/\1/p' "$work/$1.txt"; }
batch=$(curl -s http://127.0.0.1:18080/metrics | awk '/^pads_save_batch_size_sum/ {s=$2} /^pads_save_batch_size_count/ {c=$2} END {if (c) printf "%.1f", s/c}')
echo
printf 'bare: %s req/s  p50 %s  p99 %s\n' "$(rps bare)" "$(pct bare 50%)" "$(pct bare 99%)"
printf 'pads: %s saves/s  p50 %s  p99 %s  non-2xx %s  mean batch %s\n' "$(rps pads)" "$(pct pads 50%)" "$(pct pads 99%)" "$(non2xx pads)" "$batch"
awk -v a="$(rps pads)" -v b="$(rps bare)" 'BEGIN {printf "ratio: %.0f%% of the bare handler (target >= 45%%)\n", 100*a/b}'
