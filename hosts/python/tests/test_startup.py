"""How a process starts and ends with the package: what makes it cheap
(the cycle collector paused while it imports, frozen at exit). Speed itself
is the benchmark's (``agent-memory-bench cold``); these pin the behaviour."""

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


def test_the_objects_alive_at_exit_are_frozen_before_the_shutdown_collections():
    # An exit handler registered before the import runs after the package's.
    code = (
        "import atexit, gc\n"
        "atexit.register(lambda: print(gc.get_freeze_count() > 0, flush=True))\n"
        "import agent_memory\n"
        "print(gc.get_freeze_count(), flush=True)\n"
    )
    assert run(code) == "0\nTrue\n"
