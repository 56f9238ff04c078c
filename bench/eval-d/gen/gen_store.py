"""Throwaway generator of the eval-d store (kept as a reference, not part of any build).

Notes and key log entries are hand-written in notes_*.py and logs_src.py; this spreads everyday
filler entries (filler_src.py) over the other working days with a fixed seed, writes the backfill
log note from seeded rows plus the hand-picked backfills, and writes MEMORY.md from memory_head.md
plus one line per note.
Run from bench/eval-d/gen into an empty ../store: python3 gen_store.py
"""
import datetime as dt
import os
import random

for part in ["notes_a.py", "notes_b.py", "notes_c.py", "notes_d.py", "notes_e.py",
             "logs_src.py", "filler_src.py"]:
    exec(open(part).read())

SLUG = "tidewater-3be31366"
ROOT = "../store"
PROJ = f"{ROOT}/projects/{SLUG}"
rng = random.Random(31415926)
QUIET_FROM = "2026-10-26"
START, END = dt.date(2026, 2, 2), dt.date(2026, 11, 20)
N_LOGS = 182

for day in KEY:
    assert dt.date.fromisoformat(day).weekday() < 5, day

RESERVED_PRS = {1987, 2214, 2519, 2760}
PR_ANCHORS = [("2026-02-02", 1950), ("2026-02-17", 1987), ("2026-05-20", 2214),
              ("2026-08-04", 2519), ("2026-11-11", 2760), ("2026-11-20", 2800)]
RESERVED_JIRA = {1290, 1302, 1310, 1350, 1432, 1488, 1503, 1517, 1574, 1611, 1633, 1650, 1679,
                 1688, 1702}
VER_NOW = {"churn-model": 14, "ltv-model": 7, "fraud-score": 22, "reco-ranker": 9,
           "demand-forecast": 3}


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
        n = mid + rng.randint(-8, 8)
        if n not in RESERVED_PRS:
            return n


def jira(day):
    base = 1260 + (dt.date.fromisoformat(day) - START).days * 440 // (END - START).days
    while True:
        n = base + rng.randint(-25, 10)
        if n not in RESERVED_JIRA:
            return f"DATA-{n}"


def version(model, day):
    left = (END - dt.date.fromisoformat(day)).days
    return max(1, VER_NOW[model] - left // 45 - rng.randint(0, 1))


def release(day):
    d = dt.date.fromisoformat(day)
    first = dt.date(2026, 2, 24)
    if d < first:
        return f"2.14.{rng.randint(1, 6)}"
    minor = (d - first).days * 8 // (dt.date(2026, 11, 18) - first).days
    return f"3.{minor}.{rng.randint(0, 4)}"


def filler_entry(day):
    pool = [f for f in FILLER if f[0] or day < QUIET_FROM]
    _, heads, bodies = rng.choice(pool)
    p, p2 = rng.sample(PEOPLE, 2)
    mlm = rng.choice(MLMODELS)
    mlm2 = rng.choice(MLMODELS[1:])
    fill = dict(p=p, p2=p2, pr=pr(day), dag=rng.choice(DAGS), model=rng.choice(MODELS),
                tbl=rng.choice(TABLES), topic=rng.choice(TOPICS), key=rng.choice(KEYS),
                metric=rng.choice(METRICS), mlm=mlm, ver=version(mlm, day), mlm2=mlm2,
                ver2=version(mlm2, day), n=rng.randint(3, 95), m=rng.randint(5, 45),
                rel=rng.choice(RELS), jira=jira(day), mod=rng.choice(MODULES),
                path=rng.choice(PATHS), env=rng.choice(ENVS), partner=rng.choice(PARTNERS),
                rv=release(day))
    return rng.choice(heads).format(**fill), rng.choice(bodies).format(**fill)


# Days: every key date, today and yesterday, then random working days until N_LOGS logs.
working = [START + dt.timedelta(d) for d in range((END - START).days + 1)]
working = [d.isoformat() for d in working if d.weekday() < 5]
days = set(KEY) | {"2026-11-19", "2026-11-20"}
while len(days) < N_LOGS:
    days.add(rng.choice(working))
days = sorted(days)

os.makedirs(f"{PROJ}/notes", exist_ok=True)
os.makedirs(f"{PROJ}/daily", exist_ok=True)
for day in days:
    entries = list(KEY.get(day, []))
    used = {e[0] for e in entries}
    heads_used = {e[1] for e in entries}
    for _ in range(rng.randint(0, 2) if day in KEY else rng.randint(2, 5)):
        while True:
            t = f"{rng.randint(8, 18):02}:{rng.randint(0, 59):02}"
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
    text = "\n\n".join(f"### {t} — {h}\n{b.strip()}" for t, h, b in entries) + "\n"
    open(f"{PROJ}/daily/{day}.md", "w").write(text)

# The backfill log: about one seeded row per week before QUIET_FROM, plus the hand-picked ones.
BF_TABLES = ["analytics.fct_payments", "analytics.dim_customers", "analytics.fct_order_items",
             "ml.customer_order_stats", "raw.payments", "analytics.dim_products",
             "ml.session_activity", "staging.int_orders_deduped", "analytics.fct_orders",
             "analytics.fct_daily_revenue"]
BF_REASONS = ["source corrections from checkout", "late partner file", "dbt model fix",
              "new column backfilled", "data quality block released", "timezone fix in a macro",
              "dedup rule change", "wrong currency rate for one day", "feature definition change",
              "partner resent a file"]
KEY_BACKFILLS = [
    ("2026-05-20", "analytics.fct_orders", "2026-05-18..2026-05-19", "2", "Maya", "DATA-1432", "40 min",
     "duplicates incident; dedup in place"),
    ("2026-08-06", "analytics.fct_daily_revenue", "2024-01-01..2024-12-31", "366", "Maya", "DATA-1503", "3 h",
     "VAT fix; failed 2026-08-04 with OOM (skew), see incident"),
    ("2026-11-04", "analytics.fct_orders", "2026-07-01..2026-09-30", "92", "Maya", "DATA-1611", "26 h",
     "currency conversion at order time; `fct_daily_revenue` re-derived"),
    ("2026-11-12", "analytics.fct_sessions", "2026-10-26..2026-11-01", "7", "Maya", "DATA-1633", "2 h 10 min per partition",
     "v2/v3 clickstream overlap counted sessions twice"),
    ("2026-11-20", "raw.refunds", "2024-01..2026-11", "35 (monthly)", "Maya", "DATA-1688", "running",
     "refunds history from a one-off export; then `stg_refunds`"),
]
rows = []
week = dt.date(2026, 5, 4)
while week.isoformat() < QUIET_FROM:
    if rng.random() < 0.8:
        d = (week + dt.timedelta(rng.randint(0, 4))).isoformat()
        if d not in {k[0] for k in KEY_BACKFILLS}:
            length = rng.randint(1, 14)
            start = dt.date.fromisoformat(d) - dt.timedelta(length + rng.randint(1, 30))
            rng_txt = f"{start.isoformat()}..{(start + dt.timedelta(length - 1)).isoformat()}"
            rows.append((d, rng.choice(BF_TABLES), rng_txt, str(length),
                         rng.choice(["Maya", "Adaeze", "Renata", "Kenji", "Signe"]), jira(d),
                         f"{rng.randint(4, 90)} min", rng.choice(BF_REASONS)))
    week += dt.timedelta(7)
bl = ["Every backfill since the Dagster runbook (April 2026), one row each, newest last. Older",
      "backfills were not logged (see the 2025 runbook). Duration is wall-clock time.", "",
      "| date | table | range | partitions | who | ticket | duration | reason |",
      "|---|---|---|---|---|---|---|---|"]
for row in sorted(rows + KEY_BACKFILLS):
    bl.append("| " + " | ".join(row) + " |")
NOTES["backfill-log"] = ("Backfill log 2026", "one row per backfill: date, table, range, ticket, duration",
                         "\n".join(bl))

for name, (title, _, body) in NOTES.items():
    open(f"{PROJ}/notes/{name}.md", "w").write(f"# {title}\n\n{body.strip()}\n")

mem = open("memory_head.md").read().rstrip() + "\n\n## Notes\n"
for name, (_, desc, _) in NOTES.items():
    mem += f"- notes/{name}.md — {desc}\n"
open(f"{ROOT}/MEMORY.md", "w").write(mem)
open(f"{PROJ}/SCRATCHPAD.md", "w").write(open("scratchpad.md").read())
print(len(days), "logs", len(NOTES), "notes")
