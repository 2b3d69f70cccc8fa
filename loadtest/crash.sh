#!/usr/bin/env bash
# Twenty crashes under load: loadtest/crash.sh [CRASHES] [postgres://...]
#
# Runs the end-to-end load (paced saves that each complete a form, a
# signed-webhook receiver) against pads, kills pads with SIGKILL at random
# moments CRASHES times (20 by default), restarts it on the same data each
# time, then reads every save answered 2xx back through the store, with
# every value it sent, and checks that its delivery arrived at least once:
#
#   acknowledged N, lost 0, delivered N, duplicates D
#
# First on SQLite, then on PostgreSQL when a URL is given (or
# PADS_LOAD_DATABASE is set): on a new database of that server, dropped at
# the end. Exits 1 when a save was lost or not delivered. Options of the
# Go program (loadtest/crash) go in PADS_CRASH_FLAGS, e.g.
# PADS_CRASH_FLAGS="-rate 1000 -keep".
set -euo pipefail
cd "$(dirname "$0")/.."
crashes=${1:-20}
database=${2:-${PADS_LOAD_DATABASE:-}}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
export GOTOOLCHAIN=local
go build -o "$bin/pads" ./cmd/pads
go build -o "$bin/crash" ./loadtest/crash
# shellcheck disable=SC2086
"$bin/crash" -pads "$bin/pads" -crashes "$crashes" ${PADS_CRASH_FLAGS:-}
if [ -n "$database" ]; then
  # shellcheck disable=SC2086
  "$bin/crash" -pads "$bin/pads" -crashes "$crashes" -database "$database" ${PADS_CRASH_FLAGS:-}
fi
