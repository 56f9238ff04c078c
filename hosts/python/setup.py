"""Copies the memory component into the package when it is built.

The component is not checked in: `cargo build -p agent-memory-cli` (or any
build of the workspace) leaves it at
`target/guest/wasm32-wasip2/release/agent_memory_component.wasm`, and
`pip install ./hosts/python` (or `pip wheel ./hosts/python`) copies it from
there into the built package as `agent_memory/agent_memory_component.wasm`.
Set AGENT_MEMORY_WASM to take it from elsewhere. The source tree is not
touched.

It also compiles the component for this machine with the package's wasmtime
and engine settings (`agent_memory/_compiled.py`) and ships the result as
`agent_memory/agent_memory_component-<sha>.cwasm`, so that no process
compiles it: about a second each time otherwise. wasmtime refuses that
artifact on a machine that cannot run it (another CPU, another wasmtime),
and the package then compiles once and caches. AGENT_MEMORY_PRECOMPILE=0
skips this step.

It copies the embedding weights for semantic recall in too, beside the
component, from `embed/weights/all-minilm-l6-v2.int8.safetensors` (not
checked in either: `python3 embed/scripts/derive.py` writes it, see
docs/recall.md), or from AGENT_MEMORY_WEIGHTS_SOURCE. Without them the
package is built without, and says so on stderr; it then looks at
AGENT_MEMORY_WEIGHTS and the data directory, or reports recall off.
"""

import hashlib
import importlib.util
import os
import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
NAME = "agent_memory_component.wasm"
BUILT = HERE.parent.parent / "target" / "guest" / "wasm32-wasip2" / "release" / NAME
WEIGHTS = "all-minilm-l6-v2.int8.safetensors"
DERIVED = HERE.parent.parent / "embed" / "weights" / WEIGHTS


class BuildPyWithComponent(build_py):
    def run(self):
        source = Path(os.environ["AGENT_MEMORY_WASM"]) if os.environ.get("AGENT_MEMORY_WASM") else BUILT
        if not source.is_file():
            raise SystemExit(
                f"the memory component {source} is missing: run `cargo build -p agent-memory-cli` "
                "at the repository root first, or set AGENT_MEMORY_WASM to a built component"
            )
        super().run()
        if not self.dry_run:
            target = Path(self.build_lib) / "agent_memory" / NAME
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            # setuptools reuses its build directory: an artifact of an
            # earlier build must not ride along.
            for stale in target.parent.glob("agent_memory_component-*.cwasm"):
                stale.unlink()
            if os.environ.get("AGENT_MEMORY_PRECOMPILE") != "0":
                precompile(target)
            copy_weights(target.parent / WEIGHTS)


def copy_weights(target):
    """Ships the weights beside the component, or says why not."""
    source = Path(os.environ.get("AGENT_MEMORY_WEIGHTS_SOURCE") or DERIVED)
    if source.is_file():
        shutil.copyfile(source, target)
        print(f"packaging the embedding weights: {source} ({target.stat().st_size} bytes)", file=sys.stderr)
        return
    # A copy from an earlier build must not ride along.
    target.unlink(missing_ok=True)
    print(
        f"not packaging the embedding weights: {source} is missing (derive them with "
        "`python3 embed/scripts/derive.py`, see docs/recall.md); the package will look at "
        "AGENT_MEMORY_WEIGHTS and the data directory instead",
        file=sys.stderr,
    )


def precompile(wasm):
    """Writes the artifact of `wasm` beside it, named by the component's digest."""
    spec = importlib.util.spec_from_file_location(
        "agent_memory_compiled", HERE / "src" / "agent_memory" / "_compiled.py"
    )
    try:
        compiled = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(compiled)
    except ImportError as error:
        print(f"not precompiling the component (no wasmtime: {error})", file=sys.stderr)
        return
    data = wasm.read_bytes()
    engine = compiled.Engine(compiled.engine_config())
    artifact = compiled.Component(engine, data).serialize()
    name = compiled.packaged_name(hashlib.sha256(data).hexdigest())
    (wasm.parent / name).write_bytes(bytes(artifact))


setup(cmdclass={"build_py": BuildPyWithComponent})
