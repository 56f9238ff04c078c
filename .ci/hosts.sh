#!/usr/bin/env bash
# CI for the non-Rust hosts and the MCP server: installs the pinned Python and
# Node dependencies, builds the component and the `agent-memory` binary, then
# runs the Python suite (conformance vectors, host tests, MCP end to end with
# the official `mcp` client) and the Node suite (conformance vectors, host
# tests). Fails on the first failure. Needs python3 >= 3.10 and node >= 20.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== hosts: build the component and the agent-memory binary"
cargo build -p agent-memory
test -f target/guest/wasm32-wasip2/release/agent_memory_component.wasm
test -x target/debug/agent-memory

echo "== hosts: python $(python3 --version 2>&1 | cut -d' ' -f2), pinned deps into target/hosts-venv"
venv=target/hosts-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r hosts/python/requirements.txt

echo "== hosts: pytest hosts/python"
status=0
"$venv/bin/python" -m pytest hosts/python || status=$?
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests: the Python host suite is missing" >&2
    exit 1
elif [ "$status" -ne 0 ]; then
    exit "$status"
fi

echo "== hosts: node $(node --version), pinned deps from package-lock.json, jco transpile"
(
    cd hosts/node
    # Not `npm ci`: the npm registry this project can reach lacks some
    # platform-specific optional packages deep in jco's tree (for example
    # @rolldown/binding-darwin-x64@1.3.2), so the lockfile cannot list them
    # and `npm ci` refuses it as out of sync. `npm install --no-save` installs
    # exactly the lockfile's versions and never rewrites it.
    npm install --no-save --no-audit --no-fund --loglevel=error
    node -e '
        const want = require("./package.json").dependencies;
        for (const [name, version] of Object.entries(want)) {
            const have = require(`./node_modules/${name}/package.json`).version;
            if (have !== version) throw new Error(`${name}: installed ${have}, pinned ${version}`);
        }'
    npm run --silent build
    echo "== hosts: node --test hosts/node/test"
    npm test --silent
)

echo "== hosts: the README examples print the same in Python and Node"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$venv/bin/python" hosts/python/example.py "$scratch/python" > "$scratch/python.out"
node hosts/node/example.js "$scratch/node" > "$scratch/node.out"
diff -u "$scratch/python.out" "$scratch/node.out"
grep -q '^refused: invalid-name: ' "$scratch/python.out"
echo "examples agree ($(wc -l < "$scratch/python.out") lines)"
