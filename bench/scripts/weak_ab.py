# Semantic recall's cost in a search process: `agent-memory --semantic on|off search`
# as whole processes, interleaved, for a query whose words are weak evidence (ranked by
# meaning) and one whose words are strong (lexical): median wall ms (user+sys ms) per
# build and setting, then on - off. The first round warms the caches and is not counted.
# usage: python3 weak_ab.py ROUNDS STORE PROJECT CLI [CLI...]
# STORE is `agent-memory-bench semantic`'s store, target/bench-semantic/store (its
# project is /home/maya/src/tidewater), with every chunk embedded; AGENT_MEMORY_WEIGHTS
# names the weights file.
import os, statistics, subprocess, sys, time
rounds, store, project, clis = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
QUERIES = {"weak": "which cloud city do our servers run in", "strong": "billing worker retries"}
def run(cli, setting, query):
    cmd = [cli, "--semantic", setting, "--root", store, "--project", project, "search", query]
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit(f"{' '.join(cmd)} failed ({status})")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime
times = {}
for r in range(rounds + 1):
    for kind, query in QUERIES.items():
        for cli in clis if r % 2 == 0 else clis[::-1]:
            for setting in ("on", "off") if r % 2 == 0 else ("off", "on"):
                measured = run(cli, setting, query)
                if r > 0:
                    times.setdefault((cli, kind, setting), []).append(measured)
for cli in clis:
    for kind in QUERIES:
        med = {s: [statistics.median(x[i] for x in times[(cli, kind, s)]) * 1000 for i in (0, 1)] for s in ("on", "off")}
        print(f"{cli} {kind}: on {med['on'][0]:.1f} ms ({med['on'][1]:.1f}) off {med['off'][0]:.1f} ms ({med['off'][1]:.1f}) added {med['on'][0] - med['off'][0]:+.1f} ms")
print("load average:", open("/proc/loadavg").read().split()[:3])
