# Old and new `agent-memory` builds against `rg -j1 -i -F -c`, whole processes,
# interleaved: median wall ms (user+sys ms) per build, then new/rg.
# usage: python3 ab_processes.py OLD_CLI NEW_CLI ROUNDS DIR
# DIR holds corpora M and M-dense (`agent-memory-bench corpus --size M [--dense]`).
import subprocess, time, statistics, sys, json, os
old, new, rounds, base = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
env = dict(os.environ, AGENT_MEMORY_CACHE_DIR=base + "/cache")
Q = {"1": "deploy", "3": "Staging timeout migration", "8": "deploy staging TIMEOUT migration cache token flaky rollback", "0": "xylophone"}
def call(cli, root, q, mode):
    return [cli, "--root", root, "--project", "/bench/src/kestrel-api", "--now", "2026-05-30T18:00:00+00:00",
            "call", "memory_search", json.dumps({"query": q, "mode": mode})]
def rg(root, q):
    pd = [d for d in os.listdir(root + "/projects")][0]
    a = ["rg", "--no-config", "-i", "-F", "-c", "-j1"]
    for t in q.split(): a += ["-e", t]
    return a + ["--", root + "/MEMORY.md", f"{root}/projects/{pd}/notes", f"{root}/projects/{pd}/daily"]
groups = []
for root, name in [(base + "/M", "M"), (base + "/M-dense", "M dense")]:
    for k in ["1", "3", "8"]:
        groups.append((f"{name} ranked {k}", [("old", call(old, root, Q[k], "ranked")), ("new", call(new, root, Q[k], "ranked")), ("rg -c", rg(root, Q[k]))]))
for k in ["0", "1", "3", "8"]:
    groups.append((f"M literal {k}", [("old", call(old, base + "/M", Q[k], "literal")), ("new", call(new, base + "/M", Q[k], "literal")), ("rg -c", rg(base + "/M", Q[k]))]))
def run(c):
    s = time.perf_counter(); p = subprocess.Popen(c, env=env, stdout=subprocess.DEVNULL)
    _, st, ru = os.wait4(p.pid, 0); w = time.perf_counter() - s
    return w, ru.ru_utime + ru.ru_stime
for g, cs in groups:
    for _, c in cs: run(c)
    wall = {n: [] for n, _ in cs}; cpu = {n: [] for n, _ in cs}
    for r in range(rounds):
        for i in range(len(cs)):
            n, c = cs[(r + i) % len(cs)]
            w, u = run(c); wall[n].append(w); cpu[n].append(u)
    m = lambda v: statistics.median(v) * 1e3
    print(f"| {g} | " + " | ".join(f"{m(wall[n]):.1f} ({m(cpu[n]):.1f})" for n, _ in cs) + f" | {m(wall['new'])/m(wall['rg -c']):.2f}x | {m(cpu['new'])/m(cpu['rg -c']):.2f}x |", flush=True)
