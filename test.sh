#!/usr/bin/env bash
# The test command of pads (README "Test it"): it prepares what the suites
# need where it can, runs every Go test with the race detector, and ends
# with a summary of which suites ran and which were skipped, why, and the
# fix. It installs nothing system-wide: .ci/run does that on CI, then runs
# this. With CI=true a suite skipped for a missing tool fails the run.
#
#   ./test.sh                 everything
#   ./test.sh ./internal/...  some packages (go test's patterns)
set -uo pipefail
cd "$(dirname "$0")"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
say() { echo "test.sh: $*"; }

# The npm packages the Node checks use, once per lock file.
if command -v npm >/dev/null; then
  for dir in test/node docs/receivers/node; do
    if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules" ]; then
      say "npm ci --prefix $dir"
      npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >/dev/null || say "npm ci in $dir failed: its checks will skip"
    fi
  done
fi

# PostgreSQL: PADS_TEST_POSTGRES_URL when given, else a throwaway server
# when PostgreSQL's server programs are installed (as the postgres user
# when run as root: the server refuses root), on a free 127.0.0.1 port.
if [ -z "${PADS_TEST_POSTGRES_URL:-}" ]; then
  pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$pgbin" ] || pgbin=$(dirname "$(command -v pg_ctl 2>/dev/null || echo /nonexistent/pg_ctl)")
  if [ -x "$pgbin/pg_ctl" ]; then
    as=()
    if [ "$(id -u)" = 0 ]; then
      if id postgres >/dev/null 2>&1; then as=(runuser -u postgres --); else pgbin=; fi
    fi
    if [ -n "$pgbin" ]; then
      pgdir=$(mktemp -d /tmp/pads-test-pg.XXXXXX)
      [ "$(id -u)" = 0 ] && chown postgres "$pgdir"
      trap '"${as[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -m immediate stop >/dev/null 2>&1; rm -rf "$pgdir"' EXIT
      if "${as[@]}" "$pgbin/initdb" -D "$pgdir/data" -A trust -U postgres >/dev/null 2>&1; then
        # Ports below Linux's ephemeral range, so that no client socket
        # holds the one picked; a port taken anyway is passed over.
        for port in $(shuf -i 20000-32000 -n 20); do
          (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue
          if "${as[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w \
            -o "-p $port -k $pgdir -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null 2>&1; then
            export PADS_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
            say "started a throwaway PostgreSQL on 127.0.0.1:$port"
            break
          fi
        done
      fi
      [ -n "${PADS_TEST_POSTGRES_URL:-}" ] || say "PostgreSQL did not start (see $pgdir/log): its suites will skip"
    fi
  fi
fi

[ $# -gt 0 ] || set -- ./...
# The report reads the tests' JSON: build it first, so that its own build
# is not mixed into the tests' output.
report=$(mktemp /tmp/pads-test-report.XXXXXX)
go build -o "$report" ./test/report || exit 1
# -timeout: cmd/pads alone takes 10 minutes on a loaded 2-core machine,
# go test's default bound for a package.
go test -race -timeout 45m -json "$@" 2>&1 | "$report"
status=${PIPESTATUS[1]}
rm -f "$report"
exit "$status"
