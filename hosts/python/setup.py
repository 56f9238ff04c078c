"""Copies the memory component into the package when it is built.

The component is not checked in: `cargo build -p agent-memory-cli` (or any
build of the workspace) leaves it at
`target/guest/wasm32-wasip2/release/agent_memory_component.wasm`, and
`pip install ./hosts/python` (or `pip wheel ./hosts/python`) copies it from
there into the built package as `agent_memory/agent_memory_component.wasm`.
Set AGENT_MEMORY_WASM to take it from elsewhere. The source tree is not
touched.
"""

import os
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
NAME = "agent_memory_component.wasm"
BUILT = HERE.parent.parent / "target" / "guest" / "wasm32-wasip2" / "release" / NAME


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


setup(cmdclass={"build_py": BuildPyWithComponent})
