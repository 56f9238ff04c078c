"""Throwaway generator of the eval-e store (kept as a reference, not part of any build).

Notes and key log entries are hand-written in notes_*.py and logs_src.py; this spreads everyday
filler entries (filler_src.py) over the other working days with a fixed seed, and writes
MEMORY.md from memory_head.md plus one line per note.
Run from bench/eval-e/gen into an empty ../store: python3 gen_store.py
"""
import datetime as dt
import os
import random

for part in ["notes_a.py", "notes_b.py", "notes_c.py", "notes_d.py", "logs_src.py",
             "filler_src.py"]:
    exec(open(part).read())

SLUG = "lighthouse-28495fcc"
ROOT = "../store"
PROJ = f"{ROOT}/projects/{SLUG}"
rng = random.Random(20261202)
QUIET_FROM = "2026-11-16"
START, END = dt.date(2026, 3, 2), dt.date(2026, 12, 2)
TODAY = "2026-12-02"
N_LOGS = 184

for day in KEY:
    assert dt.date.fromisoformat(day).weekday() < 5, day
    assert START.isoformat() <= day <= END.isoformat(), day
for day, entries in KEY.items():
    assert len({e[0] for e in entries}) == len(entries), day
for t, _, _ in KEY[TODAY]:
    assert t < "10:15", t

RESERVED_PRS = {4388, 4955, 5012, 5140, 5161, 5188}
PR_ANCHORS = [("2026-03-02", 4120), ("2026-04-22", 4388), ("2026-07-10", 4955),
              ("2026-09-18", 5012), ("2026-11-10", 5161), ("2026-12-02", 5215)]
RESERVED_JIRA = {1874, 1963, 2010, 2045, 2062, 2101, 2131, 2152, 2200, 2219, 2255, 2291, 2301,
                 2312, 2330, 2340, 2356, 2360, 2371, 2380, 2388, 2389, 2395, 2402, 2404, 2407}
FIRST_TRAIN = dt.date(2026, 3, 10)   # 5.1.0; then a train every 14 days


def interp(anchors, day):
    x = dt.date.fromisoformat(day).toordinal()
    for (d0, n0), (d1, n1) in zip(anchors, anchors[1:]):
        a, b = dt.date.fromisoformat(d0).toordinal(), dt.date.fromisoformat(d1).toordinal()
        if a <= x <= b:
            return n0 + (n1 - n0) * (x - a) // (b - a)
    raise ValueError(day)


def pr(day):
    mid = interp(PR_ANCHORS, day)
    while True:
        n = mid + rng.randint(-12, 6)
        if n not in RESERVED_PRS:
            return n


def jira(day):
    base = 1790 + (dt.date.fromisoformat(day) - START).days * 620 // (END - START).days
    while True:
        n = base + rng.randint(-25, 8)
        if n not in RESERVED_JIRA:
            return f"LH-{n}"


def app_version(day):
    """The version of the current train on that day, with a patch and a build number."""
    d = dt.date.fromisoformat(day)
    minor = 0 if d < FIRST_TRAIN else 1 + (d - FIRST_TRAIN).days // 14
    patch = rng.choice([0, 0, 0, 1])
    build = 5_000_000 + minor * 10_000 + patch * 100 + rng.randint(1, 4)
    return f"5.{minor}.{patch}", f"5.{minor}.{patch} ({build})"


def filler_entry(day):
    pool = [f for f in FILLER if f[0] or day < QUIET_FROM]
    _, heads, bodies = rng.choice(pool)
    p, p2 = rng.sample(PEOPLE, 2)
    vshort, ver = app_version(day)
    flags = [k for k, since in FLAGS.items() if since <= day]
    fill = dict(p=p, p2=p2, pr=pr(day), pr2=pr(day), jira=jira(day), jira2=jira(day), ver=ver,
                vshort=vshort, flag=rng.choice(flags), event=rng.choice(EVENTS),
                imod=rng.choice(IMODS), amod=rng.choice(AMODS), metric=rng.choice(METRICS),
                env=rng.choice(ENVS), lane=rng.choice(LANES), route=rng.choice(ROUTES),
                lang=rng.choice(LANGS), dev=rng.choice(DEVICES), screen=rng.choice(SCREENS),
                runner=rng.choice(RUNNERS), n=rng.randint(2, 9), m=rng.randint(2, 9),
                rel=rng.choice(RELS))
    return rng.choice(heads).format(**fill), rng.choice(bodies).format(**fill)


# Days: every key date, today and yesterday, then random working days until N_LOGS logs.
working = [START + dt.timedelta(d) for d in range((END - START).days + 1)]
working = [d.isoformat() for d in working if d.weekday() < 5]
days = set(KEY) | {"2026-12-01", TODAY}
while len(days) < N_LOGS:
    days.add(rng.choice(working))
days = sorted(days)

os.makedirs(f"{PROJ}/notes", exist_ok=True)
os.makedirs(f"{PROJ}/daily", exist_ok=True)
n_entries = 0
for day in days:
    entries = list(KEY.get(day, []))
    used = {e[0] for e in entries}
    heads_used = {e[1] for e in entries}
    if day == TODAY:
        count = 0
    elif day in KEY:
        count = rng.randint(0, 2)
    else:
        count = rng.randint(2, 4)
    for _ in range(count):
        while True:
            t = f"{rng.randint(8, 18):02}:{rng.choice(range(0, 60, 5)):02}"
            if t not in used:
                break
        used.add(t)
        while True:
            h, b = filler_entry(day)
            if h not in heads_used:
                break
        heads_used.add(h)
        entries.append((t, h, b))
    entries.sort()
    n_entries += len(entries)
    text = "\n\n".join(f"### {t} — {h}\n{b.strip()}" for t, h, b in entries) + "\n"
    open(f"{PROJ}/daily/{day}.md", "w").write(text)

for name, (title, _, body) in NOTES.items():
    open(f"{PROJ}/notes/{name}.md", "w").write(f"# {title}\n\n{body.strip()}\n")

mem = open("memory_head.md").read().rstrip() + "\n"
for name, (_, desc, _) in NOTES.items():
    mem += f"- notes/{name}.md — {desc}\n"
open(f"{ROOT}/MEMORY.md", "w").write(mem)
open(f"{PROJ}/SCRATCHPAD.md", "w").write(open("scratchpad.md").read())
key_entries = sum(len(v) for v in KEY.values())
print(len(days), "logs", n_entries, "entries", key_entries, "key entries on", len(KEY), "days",
      len(NOTES), "notes")
