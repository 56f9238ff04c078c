# Ranked `call memory_search` processes on M and L, interleaved: the 3-term
# query, the zero-hit floor and the rest (the matches).
# usage: python3 growth.py CLI ROUNDS DIR   (DIR holds corpora M and L)
import subprocess, time, statistics, sys, json, os
cli, rounds, base = sys.argv[1], int(sys.argv[2]), sys.argv[3]
env = dict(os.environ, AGENT_MEMORY_CACHE_DIR=base + "/cache")
def call(root, q):
    return [cli, "--root", root, "--project", "/bench/src/kestrel-api", "--now", "2026-05-30T18:00:00+00:00",
            "call", "memory_search", json.dumps({"query": q, "mode": "ranked"})]
cases = [("M 3 terms", call(base + "/M", "Staging timeout migration")),
         ("L 3 terms", call(base + "/L", "Staging timeout migration")),
         ("M 0 hits", call(base + "/M", "xylophone")),
         ("L 0 hits", call(base + "/L", "xylophone")),
         ("M tools", [cli, "--root", base + "/M", "tools"]),
         ("L tools", [cli, "--root", base + "/L", "tools"])]
t = {n: [] for n, _ in cases}
for c in cases: subprocess.run(c[1], env=env, stdout=subprocess.DEVNULL, check=True)
for r in range(rounds):
    for i in range(len(cases)):
        n, c = cases[(r + i) % len(cases)]
        s = time.perf_counter(); subprocess.run(c, env=env, stdout=subprocess.DEVNULL, check=True); t[n].append(time.perf_counter() - s)
med = {n: statistics.median(v) * 1e3 for n, v in t.items()}
for n in med: print(f"{n}: {med[n]:.1f} ms")
print(f"growth 3 terms: {med['L 3 terms']/med['M 3 terms']:.2f}x; zero-hit floor {med['L 0 hits']/med['M 0 hits']:.2f}x; rest {(med['L 3 terms']-med['L 0 hits'])/(med['M 3 terms']-med['M 0 hits']):.2f}x ({med['M 3 terms']-med['M 0 hits']:.1f} -> {med['L 3 terms']-med['L 0 hits']:.1f} ms)")
