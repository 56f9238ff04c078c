#!/usr/bin/env bash
# CI for the non-Rust hosts and the MCP server, run as their users would get
# them: builds the component and the `agent-memory` binary, installs the
# Python package into a fresh virtualenv (`pip install ./hosts/python`) and
# runs its suite (conformance vectors, host tests, MCP end to end with the
# official `mcp` client) against the installed package; packs the Node
# package (`npm pack`), installs the tarball into a scratch project and runs
# its suite and a type check there; then checks that the README examples
# print the same in both. Fails on the first failure. Needs python3 >= 3.10
# and node >= 20.
#
# AGENT_MEMORY_VENV puts the virtualenv elsewhere than target/hosts-venv.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
started=$SECONDS
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# pytest exits 5 when it collected nothing: a missing suite must not pass.
pytest_strict() {
    local status=0
    "$@" || status=$?
    if [ "$status" -eq 5 ]; then
        echo "pytest collected no tests: the Python host suite is missing" >&2
        exit 1
    fi
    return "$status"
}

echo "== hosts: build the component and the agent-memory binary"
cargo build --workspace
test -f target/guest/wasm32-wasip2/release/agent_memory_component.wasm
test -x target/debug/agent-memory

echo "== hosts: python $(python3 --version 2>&1 | cut -d' ' -f2): fresh venv, pip install ./hosts/python"
venv=${AGENT_MEMORY_VENV:-target/hosts-venv}
rm -rf "$venv"
python3 -m venv "$venv"
pip=("$venv/bin/python" -m pip --quiet --disable-pip-version-check)
# The test tools, pinned; then the package itself, built from the source
# with the component copied in (hosts/python/setup.py).
"${pip[@]}" install -r hosts/python/requirements.txt
"${pip[@]}" install ./hosts/python
"$venv/bin/python" - <<'EOF'
import pathlib, agent_memory
package = pathlib.Path(agent_memory.__file__).parent
assert "site-packages" in package.parts, package
assert (package / "agent_memory_component.wasm").is_file() and (package / "py.typed").is_file()
weights = package / agent_memory.WEIGHTS_FILE
shipped = f"with the embedding weights ({weights.stat().st_size} bytes)" if weights.is_file() else \
    "WITHOUT the embedding weights (none in embed/weights/): semantic recall looks elsewhere or is off"
print(f"installed agent_memory at {package}, {shipped}")
EOF

echo "== hosts: pytest hosts/python (against the installed package)"
pytest_strict "$venv/bin/python" -m pytest hosts/python

echo "== hosts: node $(node --version): npm pack hosts/node, install the tarball, test it"
(
    cd hosts/node
    # Not `npm ci`: the npm registry this project can reach lacks some
    # platform-specific optional packages deep in jco's tree (for example
    # @rolldown/binding-darwin-x64@1.3.2), so the lockfile cannot list them
    # and `npm ci` refuses it as out of sync. `npm install --no-save` installs
    # exactly the lockfile's versions and never rewrites it.
    npm install --no-save --no-audit --no-fund --loglevel=error
    node -e '
        const pkg = require("./package.json");
        for (const [name, version] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
            const have = require(`./node_modules/${name}/package.json`).version;
            if (have !== version) throw new Error(`${name}: installed ${have}, pinned ${version}`);
        }'
    # `prepack` transpiles the component into gen/ first.
    npm pack --silent --pack-destination "$scratch" > "$scratch/tarball-name"
)
tarball="$scratch/$(tail -n1 "$scratch/tarball-name")"
tar -tzf "$tarball" > "$scratch/tarball-files"
for file in package/agent-memory.js package/agent-memory.d.ts package/semantic.js package/worker.js package/wasi-fs.js package/gen/agent_memory.js package/gen/agent_memory.core.wasm; do
    grep -qx "$file" "$scratch/tarball-files" || { echo "$file is missing from $tarball" >&2; exit 1; }
done
if grep -qx package/gen/all-minilm-l6-v2.int8.safetensors "$scratch/tarball-files"; then
    shipped="with the embedding weights"
else
    shipped="WITHOUT the embedding weights (none in embed/weights/): semantic recall looks elsewhere or is off"
fi
echo "packed $(basename "$tarball"): $(wc -l < "$scratch/tarball-files") files, $(du -k "$tarball" | cut -f1) KiB, $shipped"

project="$scratch/node-project"
mkdir -p "$project"
printf '{ "name": "agent-memory-ci", "private": true, "type": "module" }\n' > "$project/package.json"
cp -R hosts/node/test "$project/test"
cp hosts/node/example.js "$project/example.js"
(
    cd "$project"
    npm install --no-audit --no-fund --loglevel=error "$tarball"
    echo "== hosts: node --test (against the installed tarball)"
    AGENT_MEMORY_REPO="$repo" node --test test/*.test.js
    echo "== hosts: tsc against the installed type declarations"
    "$repo/hosts/node/node_modules/.bin/tsc" -p test/types
)

echo "== hosts: the README examples print the same in Python and Node"
"$venv/bin/python" hosts/python/example.py "$scratch/python" > "$scratch/python.out"
node "$project/example.js" "$scratch/node" > "$scratch/node.out"
diff -u "$scratch/python.out" "$scratch/node.out"
grep -q '^refused: invalid-name: ' "$scratch/python.out"
echo "examples agree ($(wc -l < "$scratch/python.out") lines)"
echo "== hosts: done in $((SECONDS - started)) s"
