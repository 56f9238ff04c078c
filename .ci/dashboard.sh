#!/usr/bin/env bash
# CI for the dashboard (`agent-memory serve`) in a real browser: installs
# Debian's chromium (apt) and playwright-core (npm ci; it downloads no
# browser), builds the binary, runs cli/tests/dashboard with node's test
# runner. Screenshots of every scenario land in target/dashboard/.
#
# DASHBOARD_BENCH=1 also generates corpus M (target/bench-corpus/M) and
# prints the benchmark line: overview first load and search update latency,
# measured in the browser (use a release build: AGENT_MEMORY_BIN=...).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

echo "== dashboard: chromium"
if [ ! -x /usr/bin/chromium ]; then
    sudo_if() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
    sudo_if apt-get update -qq
    DEBIAN_FRONTEND=noninteractive sudo_if apt-get install -y -qq chromium >/dev/null
fi
/usr/bin/chromium --version

echo "== dashboard: playwright-core (no browser download)"
(cd cli/tests/dashboard && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent)

echo "== dashboard: build"
if [ -z "${AGENT_MEMORY_BIN:-}" ]; then
    cargo build -p agent-memory-cli
    AGENT_MEMORY_BIN=target/debug/agent-memory
fi
AGENT_MEMORY_BIN=$(realpath "$AGENT_MEMORY_BIN")
export AGENT_MEMORY_BIN

if [ "${DASHBOARD_BENCH:-0}" = 1 ]; then
    echo "== dashboard: corpus M"
    cargo build -p agent-memory-bench
    corpus=target/bench-corpus/M
    target/debug/agent-memory-bench corpus --size M --out "$corpus"
    export DASHBOARD_BENCH_ROOT="$PWD/$corpus"
    export DASHBOARD_BENCH_PROJECT=/bench/src/kestrel-api
    export DASHBOARD_BENCH_NOW=2026-05-30T18:00:00+00:00
fi

echo "== dashboard: browser scenarios"
node --test --test-concurrency=1 cli/tests/dashboard/dashboard.test.mjs
echo "== dashboard: done in $((SECONDS - started)) s; screenshots in target/dashboard/"
