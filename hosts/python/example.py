"""A short tour of the Python host.

    python hosts/python/example.py [ROOT]

Uses ROOT as the memory root (default: a new temporary directory) and a
pinned clock, so the output is the same on every run.
"""

import sys
import tempfile

import agent_memory

root = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="agent-memory-py-")
with agent_memory.Memory(root, "/home/me/src/my-app", now="2026-05-30T09:15:00+02:00") as memory:
    print(memory.write("long-term", "- The user prefers small, reviewed pull requests.").message)
    memory.write("scratchpad", "- [ ] Fix the flaky login test")
    memory.append_daily("login test", "It flakes when the staging database is cold.")

    print(memory.context_block())
    print(memory.call_tool("memory_search", {"query": "login"}))
    try:
        memory.call_tool("memory_write", {"target": "note", "name": "../escape", "content": "x"})
    except agent_memory.MemoryError as error:
        print(f"refused: {error.kind}: {error.message}")
