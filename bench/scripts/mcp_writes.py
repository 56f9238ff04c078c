#!/usr/bin/env python3
"""Time `memory_write` calls through `agent-memory mcp`, as an agent runtime
makes them: one server process, semantic recall on (the model loaded into
the component), each write a new note whose one chunk is embedded and whose
vector is saved before the call returns.

    python3 bench/scripts/mcp_writes.py PROJECT WRITES CLI ROOT [CLI ROOT ...]

Each CLI starts a server on its own ROOT (written to: give each a scratch
copy of the same store) and makes WRITES writes; the rounds are
interleaved (one write of each server in turn), so they see the same
machine. Prints the median, best and worst wall time of a call for each
CLI, and its vectors files' sizes after.
"""

import json
import os
import statistics
import subprocess
import sys
import time


class Server:
    def __init__(self, cli, root, project):
        self.proc = subprocess.Popen(
            [cli, "--root", root, "--project", project, "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.next_id = 0
        self.request("initialize", {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "mcp_writes", "version": "0"},
        })
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit(f"the server ended: {self.proc.wait()}")
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                if "error" in reply or reply.get("result", {}).get("isError"):
                    raise SystemExit(f"{method} failed: {reply}")
                return reply["result"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def main():
    args = sys.argv[1:]
    if len(args) < 4 or len(args) % 2:
        raise SystemExit(__doc__)
    project, writes = args[0], int(args[1])
    pairs = list(zip(args[2::2], args[3::2]))
    servers = [Server(cli, root, project) for cli, root in pairs]
    times = [[] for _ in pairs]
    for i in range(writes):
        for k, server in enumerate(servers):
            text = (f"Write {i}: the nightly backup of the billing database "
                    "moved to the second region.")
            start = time.perf_counter()
            server.request("tools/call", {
                "name": "memory_write",
                "arguments": {"target": "note", "name": f"mcp-write-{i}", "content": text},
            })
            times[k].append(time.perf_counter() - start)
    for server in servers:
        server.close()
    for (cli, root), t in zip(pairs, times):
        ms = [x * 1000 for x in t]
        print(f"{cli} on {root}: median {statistics.median(ms):.1f} ms, "
              f"best {min(ms):.1f}, worst {max(ms):.1f} ({len(ms)} writes)")
        vectors = os.path.join(root, ".store", "vectors")
        for name in sorted(os.listdir(vectors)) if os.path.isdir(vectors) else []:
            print(f"  {name}: {os.path.getsize(os.path.join(vectors, name))} bytes")


if __name__ == "__main__":
    main()
