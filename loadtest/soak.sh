#!/usr/bin/env bash
# A long soak: loadtest/soak.sh MINUTES [postgres://...]
#
# Runs pads for MINUTES (10 by default) under paced saves with deliveries
# at 2,000 saves/s, twice the end-to-end paced run (PADS_SOAK_RATE to
# change it), and prints, per minute, pads' RSS, goroutines and open
# files, the WAL's size (on PostgreSQL the database's size), the minute's
# saves and deliveries per second and the p99 of its saves. Fails (exit 1)
# when a save is not answered 2xx, or when RSS or goroutines at the end
# exceed their value at minute 2 by more than 10%. On SQLite in a fresh
# directory, or on PostgreSQL when a URL is given (or PADS_LOAD_DATABASE
# is set): on a new database of that server, dropped at the end. With
# PADS_SOAK_RETENTION=2m the load client's bodies, deliveries and records
# expire after 2 minutes, and the size column is the whole database
# (SQLite: the file and its WAL): it should level off.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-10}
database=${2:-${PADS_LOAD_DATABASE:-}}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
export GOTOOLCHAIN=local
go build -o "$bin/pads" ./cmd/pads
go build -o "$bin/soak" ./loadtest/soak
"$bin/soak" -pads "$bin/pads" -minutes "$minutes" -rate "${PADS_SOAK_RATE:-2000}" -database "$database" -retention "${PADS_SOAK_RETENTION:-}"
