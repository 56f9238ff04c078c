"""How a process starts with the package: the cycle collector is paused
while it imports and left as it was found. Speed itself is the benchmark's
(``agent-memory-bench cold``); these pin the behaviour. The package leaves
the interpreter's shutdown alone: freezing wasmtime-py's objects at exit
saved about 70 ms a process, but it would also skip the finalizers of the
embedding application's own cyclic garbage."""

import subprocess
import sys


def run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_import_leaves_the_cycle_collector_as_it_found_it():
    assert run("import gc, agent_memory; print(gc.isenabled())") == "True\n"
    assert run("import gc; gc.disable(); import agent_memory; print(gc.isenabled())") == "False\n"


def test_a_failed_import_turns_the_cycle_collector_back_on():
    code = (
        "import gc, sys\n"
        "sys.modules['wasmtime'] = None  # as if wasmtime were not installed\n"
        "try:\n"
        "    import agent_memory\n"
        "except ImportError:\n"
        "    print(gc.isenabled())\n"
    )
    assert run(code) == "True\n"



def test_the_package_leaves_the_shutdown_alone():
    code = (
        "import atexit, gc\n"
        "atexit.register(lambda: print(gc.get_freeze_count(), flush=True))\n"
        "import agent_memory\n"
    )
    assert run(code) == "0\n"
