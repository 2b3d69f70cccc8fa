#!/usr/bin/env bash
# Load tests of pads on this machine.
#
#   loadtest/run.sh [seconds] [connections]
#     The save path: durable saves/s and latency at 64 connections, against
#     a bare JSON handler measured in the same run, in turns
#     (PADS_LOAD_ROUNDS rounds, 5 by default), and the CPU each spends per
#     request. Needs wrk. With PADS_LOAD_DATABASE=postgres://... pads saves
#     to that database instead of SQLite. With PADS_PROFILE=FILE (and
#     PADS_BUILD_TAGS=pprof) one round runs and FILE gets pads' CPU profile.
#     With PADS_LOAD_MODE=update the saves update 10,000 records (each
#     one's first save creates it) instead of each creating a record.
#     With PADS_LOAD_FILL=N the database first gets N records of the
#     load's client (loadtest/fill), to measure pads on grown tables.
#   loadtest/run.sh e2e [seconds]
#     End to end, save answered -> signed webhook received: paced at
#     1,000 saves/s, paced at 4,000 saves/s, then flat out. With
#     PADS_LOAD_DATABASE=postgres://... on that database, and with
#     PADS_LOAD_PROCESSES=N that many pads processes on it, sent to in turn.
#   loadtest/run.sh backlog [seconds] [pending]
#     A destination down for a day: end to end as above, paced at 1,000
#     saves/s and then flat out, each run once with PENDING (1,000,000 by
#     default) deliveries first queued for another client's destination
#     that answers 500, their retries due over the next day, and once with
#     the same records and deliveries delivered instead (a database of the
#     same size, nothing waiting); in turns, three rounds
#     (PADS_LOAD_ROUNDS). With PADS_LOAD_DATABASE=postgres://... on fresh
#     databases of that server.
#   loadtest/run.sh sweep [seconds] [expired]
#     The retention sweep's cost: end to end as above, paced at 1,000
#     saves/s, each run beside EXPIRED (1,000,000 by default) delivered
#     deliveries of another client, once with that client's retention at
#     1m (the sweep removes them, and their events, while the load runs)
#     and once with the default retention (nothing expires); in turns,
#     PADS_LOAD_ROUNDS rounds (2). With PADS_LOAD_DATABASE=postgres://...
#     on fresh databases of that server.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = sweep ]; then
  secs=${2:-60}
  expired=${3:-1000000}
  bin=$(mktemp -d)
  trap 'rm -rf "$bin"' EXIT
  GOTOOLCHAIN=local go build -o "$bin/pads" ./cmd/pads
  GOTOOLCHAIN=local go build -o "$bin/e2e" ./loadtest/e2e
  opts=(-pads "$bin/pads" -duration "${secs}s" -database "${PADS_LOAD_DATABASE:-}" -fresh -rate 1000 -history "$expired")
  for r in $(seq "${PADS_LOAD_ROUNDS:-2}"); do
    echo "== round $r, beside $expired delivered deliveries, nothing expired"
    "$bin/e2e" "${opts[@]}"
    echo "== round $r, beside $expired delivered deliveries expired: the sweep removes them"
    "$bin/e2e" "${opts[@]}" -expire
  done
  exit 0
fi
if [ "${1:-}" = backlog ]; then
  secs=${2:-20}
  pending=${3:-1000000}
  bin=$(mktemp -d)
  trap 'rm -rf "$bin"' EXIT
  GOTOOLCHAIN=local go build -o "$bin/pads" ./cmd/pads
  GOTOOLCHAIN=local go build -o "$bin/e2e" ./loadtest/e2e
  # The warm-up lets pads try first the retries that fell due while the
  # backlog was queued: a burst no steady state has.
  opts=(-pads "$bin/pads" -duration "${secs}s" -database "${PADS_LOAD_DATABASE:-}" -fresh -warmup 10s)
  for r in $(seq "${PADS_LOAD_ROUNDS:-3}"); do
    for rate in 1000 0; do
      echo "== round $r, rate $rate, without a backlog ($pending delivered)"
      "$bin/e2e" "${opts[@]}" -rate "$rate" -history "$pending"
      echo "== round $r, rate $rate, beside $pending pending for a destination that is down"
      "$bin/e2e" "${opts[@]}" -rate "$rate" -backlog "$pending"
    done
  done
  exit 0
fi
if [ "${1:-}" = e2e ]; then
  secs=${2:-15}
  bin=$(mktemp -d)
  trap 'rm -rf "$bin"' EXIT
  GOTOOLCHAIN=local go build -o "$bin/pads" ./cmd/pads
  GOTOOLCHAIN=local go build -o "$bin/e2e" ./loadtest/e2e
  opts=(-pads "$bin/pads" -duration "${secs}s" -database "${PADS_LOAD_DATABASE:-}" -processes "${PADS_LOAD_PROCESSES:-1}")
  "$bin/e2e" "${opts[@]}" -rate 1000
  "$bin/e2e" "${opts[@]}" -rate 4000
  "$bin/e2e" "${opts[@]}" -rate 0
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
database=${PADS_LOAD_DATABASE:-sqlite://$work/data/pads.db}
if [ -n "${PADS_LOAD_FILL:-}" ]; then
  go run ./loadtest/fill -database "$database" -records "$PADS_LOAD_FILL" -client load >&2
fi

key=load-test-key-0123456789
cat > "$work/pads.yaml" <<YAML
listen: 127.0.0.1:18080
dataDir: $work/data
database: $database
clients:
  - id: load
    apiKeys: [{key: $key}]
    limits: {savesPerSecond: 1000000}   # measure pads, not the client's save limit
    subscription: full
    funnels: [{id: load-main}]
YAML
"$work/pads" serve --config "$work/pads.yaml" >/dev/null 2>"$work/pads.log" &
pads_pid=$!
"$work/bare" --listen 127.0.0.1:18090 &
bare_pid=$!
for _ in $(seq 100); do curl -sf http://127.0.0.1:18080/healthz >/dev/null && curl -s -o /dev/null http://127.0.0.1:18090/ && break; sleep 0.1; done

TOKEN=$(curl -sf -X POST http://127.0.0.1:18080/storage/authenticate -H 'Content-Type: application/json' \
  -d "{\"username\":\"load\",\"password\":\"$key\"}" | sed -E 's/.*"token":"([^"]+)".*/\1/')
export TOKEN

# The two are measured in turns, rounds times, so that a change in the
# machine's speed (it is shared) weighs on both alike.
rounds=${PADS_LOAD_ROUNDS:-5}
[ -n "${PADS_PROFILE:-}" ] && rounds=1
slice=$(( secs / rounds > 2 ? secs / rounds : 2 ))
# totals FILE...: the requests and seconds of the wrk runs that wrote FILEs.
totals() { awk '/^requests=/ {split($1, a, "="); split($2, b, "="); r += a[2]; d += b[2] / 1e6} END {print r, d}' "$@"; }
measure() { # name round url
  wrk -t2 -c"$conns" -d"${slice}s" -s loadtest/save.lua "$3" > "$work/$1.$2.txt"
  totals "$work/$1.$2.txt" | awk -v n="$1" '{printf "%s: %.0f/s\n", n, $1 / $2}' >&2
}
cputime() { awk '{print $14, $15}' "/proc/$1/stat"; } # user, system (ticks)
cpu_user=0 cpu_sys=0 cpu_bare=0
for r in $(seq "$rounds"); do
  read -r u0 s0 < <(cputime "$bare_pid")
  measure bare "$r" http://127.0.0.1:18090
  read -r u1 s1 < <(cputime "$bare_pid")
  cpu_bare=$((cpu_bare + u1 - u0 + s1 - s0))
  if [ -n "${PADS_PROFILE:-}" ]; then
    curl -s -o "$PADS_PROFILE" "http://127.0.0.1:6060/debug/pprof/profile?seconds=$((slice - 2))" &
    profiler=$!
  fi
  read -r u0 s0 < <(cputime "$pads_pid")
  measure pads "$r" http://127.0.0.1:18080
  read -r u1 s1 < <(cputime "$pads_pid")
  cpu_user=$((cpu_user + u1 - u0)) cpu_sys=$((cpu_sys + s1 - s0))
done
[ -n "${profiler:-}" ] && wait "$profiler"

# rate, p50, p99 and non-2xx answers of all the rounds of one: the
# percentiles from every round's latencies, each weighed by its count.
summary() {
  local files=("$work/$1".*.txt)
  totals "${files[@]}" | awk '{printf "%.0f ", $1 / $2}'
  awk '/^requests=/ {split($1, a, "="); w = a[2] / 1000} /^q / {print $2, w}' "${files[@]}" | sort -n |
    awk '{t += $2; v[NR] = $1; c[NR] = t} END {for (i = 1; i <= NR; i++) {if (!p50 && c[i] >= t * 0.5) p50 = v[i]; if (!p99 && c[i] >= t * 0.99) p99 = v[i]}
      printf "%.2fms %.2fms ", p50 / 1000, p99 / 1000}'
  awk -F= '/^non2xx=/ {s += $2} END {print s + 0}' "${files[@]}"
}
read -r bare_rps bare_p50 bare_p99 _ < <(summary bare)
read -r pads_rps pads_p50 pads_p99 pads_bad < <(summary pads)
count() { totals "$work/$1".*.txt | awk '{print $1}'; }
batch=$(curl -s http://127.0.0.1:18080/metrics | awk '/^pads_save_batch_size_sum/ {s=$2} /^pads_save_batch_size_count/ {c=$2} END {if (c) printf "%.1f", s/c}')
echo
printf 'bare: %s req/s  p50 %s  p99 %s\n' "$bare_rps" "$bare_p50" "$bare_p99"
printf 'pads: %s saves/s  p50 %s  p99 %s  non-2xx %s  mean batch %s\n' "$pads_rps" "$pads_p50" "$pads_p99" "$pads_bad" "$batch"
# pads' own CPU time (user and system) per save: what a change to the save
# path moves, though it too varies with the machine's load.
awk -v u="$cpu_user" -v s="$cpu_sys" -v n="$(count pads)" -v b="$cpu_bare" -v nb="$(count bare)" -v hz="$(getconf CLK_TCK)" \
  'BEGIN {printf "pads CPU: %.0f us per save (user %.0f, system %.0f); bare: %.0f us per request\n", 1e6*(u+s)/hz/n, 1e6*u/hz/n, 1e6*s/hz/n, 1e6*b/hz/nb}'
awk -v a="$pads_rps" -v b="$bare_rps" 'BEGIN {printf "ratio: %.0f%% of the bare handler (target >= 45%%)\n", 100*a/b}'
