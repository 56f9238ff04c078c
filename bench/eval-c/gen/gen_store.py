"""Throwaway generator of the eval-c store (kept as a reference, not part of any build).

Notes and key log entries are hand-written in notes_*.py and logs_src.py; this spreads
everyday filler entries (filler_src.py) over the other working days with a fixed seed,
writes the release log note from a seeded list plus the hand-picked releases, and writes
MEMORY.md from memory_head.md plus one line per note.
Run from bench/eval-c/gen into an empty ../store: python3 gen_store.py
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
rng = random.Random(20261120)
QUIET_FROM = "2026-10-26"

# PR numbers and Sentry ids used on purpose somewhere; filler never reuses them.
RESERVED_PRS = {4388, 4412, 4455, 4602, 4655, 4710, 4733, 4741, 4790, 4812, 4821, 4856, 4877,
                4891, 4903, 4911, 4920}
RESERVED_SENTRY = {"3F2", "4K1", "2C9", "1ZD", "38B", "2WQ", "7Q", "1D7", "2H3", "31P"}

# PR numbers grow with the date, through the hand-picked ones.
PR_ANCHORS = [("2026-01-26", 4300), ("2026-03-17", 4388), ("2026-05-20", 4602),
              ("2026-09-29", 4821), ("2026-11-20", 4925)]

def pr(day):
    x = dt.date.fromisoformat(day).toordinal()
    for (d0, n0), (d1, n1) in zip(PR_ANCHORS, PR_ANCHORS[1:]):
        a, b = dt.date.fromisoformat(d0).toordinal(), dt.date.fromisoformat(d1).toordinal()
        if a <= x <= b:
            mid = n0 + (n1 - n0) * (x - a) // (b - a)
            break
    while True:
        n = mid + rng.randint(-12, 12)
        if n not in RESERVED_PRS:
            return n

def sentry():
    while True:
        s = "".join(rng.choice("0123456789ABCDEFGHJKMNPQRSTVWXYZ") for _ in range(3))
        if s not in RESERVED_SENTRY and not s.isdigit():
            return rng.choice(["MOBILE-", "BACKEND-"]) + s

# Internal build numbers are the CI counter: they grow with the date too, and never repeat a
# store build's number (mobile builds note).
BUILD_ANCHORS = [("2026-01-26", 1066), ("2026-02-04", 1071), ("2026-03-04", 1102),
                 ("2026-05-27", 1131), ("2026-07-15", 1150), ("2026-10-07", 1184),
                 ("2026-11-06", 1212), ("2026-11-20", 1220)]
STORE_BUILDS = {1071, 1102, 1108, 1131, 1137, 1140, 1150, 1156, 1163, 1184, 1191, 1207, 1212}

def interp(anchors, day):
    x = dt.date.fromisoformat(day).toordinal()
    for (d0, n0), (d1, n1) in zip(anchors, anchors[1:]):
        a, b = dt.date.fromisoformat(d0).toordinal(), dt.date.fromisoformat(d1).toordinal()
        if a <= x <= b:
            return n0 + (n1 - n0) * (x - a) // (b - a)
    raise ValueError(day)

def build(day, r):
    n = interp(BUILD_ANCHORS, day) + r % 5 - 2
    while n in STORE_BUILDS:
        n += 1
    return n

def filler_entry(day):
    pool = [f for f in FILLER if f[0] or day < QUIET_FROM]
    _, heads, bodies = rng.choice(pool)
    p, p2 = rng.sample(PEOPLE, 2)
    fill = dict(p=p, p2=p2, pr=pr(day), svc=rng.choice(SERVICES), pkg=rng.choice(PKGS),
                screen=rng.choice(SCREENS), flag=rng.choice(FLAGS), metric=rng.choice(METRICS),
                key=rng.choice(KEYS), cust=rng.choice(CUSTOMERS), n=rng.randint(3, 95),
                m=rng.randint(5, 40), sid=sentry(), test=rng.choice(TESTS), lib=rng.choice(LIBS),
                tbl=rng.choice(TABLES), rel=rng.choice(RELS), build=build(day, rng.randint(1110, 1205)))
    return rng.choice(heads).format(**fill), rng.choice(bodies).format(**fill)

# Days: every key date, then random working days until 186 logs.
start, end = dt.date(2026, 1, 26), dt.date(2026, 11, 20)
days = set(KEY)
working = [start + dt.timedelta(d) for d in range((end - start).days + 1)]
working = [d.isoformat() for d in working if d.weekday() < 5]
while len(days) < 186:
    days.add(rng.choice(working))
days = sorted(days)

os.makedirs(f"{PROJ}/notes", exist_ok=True)
os.makedirs(f"{PROJ}/daily", exist_ok=True)
for day in days:
    entries = list(KEY.get(day, []))
    used = {e[0] for e in entries}
    heads_used = set()
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

# The release log: seeded everyday releases before QUIET_FROM, then the hand-picked ones.
SUMMARIES = ["bug fixes", "dependency bumps", "logging cleanup", "faster candidate query",
             "metrics labels", "config reload fix", "error messages", "pagination fix",
             "retry tweaks", "proto field added", "small perf win", "timezone fix",
             "validation of partner payloads", "test-only changes", "memory limit tuning"]
KEY_RELEASES = {
    ("2026-03-24", "dispatch-svc/v1.36.0", "prod", "#4412", "retry jitter, max attempts 5"),
    ("2026-05-05", "dispatch-svc/v1.38.0", "prod", "", "first release through Cloud Deploy"),
    ("2026-06-09", "sync-gateway/v2.0.4", "prod", "#4655", "lww_field conflict strategy"),
    ("2026-08-21", "notify-svc/v1.12.3", "prod", "", "nil check on job.assigned (hotfix)"),
    ("2026-10-06", "dispatch-svc/v1.45.0", "prod", "", "BulkAssign partial results"),
    ("2026-10-14", "jobs-api/v3.8.0", "prod", "#4856", "pool max conn lifetime"),
    ("2026-10-20", "dispatch-svc/v1.46.0", "prod", "", "lock metrics by reason"),
    ("2026-11-02", "dispatch-svc/v1.47.0", "prod", "", "dispatch.bulk.max_jobs"),
    ("2026-11-04", "sync-gateway/v2.3.1", "staging", "", "pull page size from config"),
    ("2026-11-10", "jobs-api/v3.9.2", "prod", "", "422 lists every violation"),
    ("2026-11-12", "routing-svc/v0.30.0", "prod", "#4903", "solver time limit 1500 ms"),
    ("2026-11-16", "dispatch-svc/v1.48.0", "prod", "", "bulk assign GA"),
    ("2026-11-18", "routing-svc/v0.31.0", "staging", "", "global Maps limiter"),
}
rel_days = sorted(rng.sample([d for d in working if d < QUIET_FROM and d not in KEY], 150))
rows = []
for d in rel_days:
    rows.append([d, rng.choice(SERVICES), "prod", f"#{pr(d)}", rng.choice(SUMMARIES)])
# Versions count up per service from a base, staying below the next hand-picked release of
# that service (a patch bump when the next minor would reach it; dropped if even that would).
BASE = {"dispatch-svc": (1, 30, 0), "routing-svc": (0, 18, 0), "jobs-api": (3, 2, 0),
        "sync-gateway": (1, 14, 0), "notify-svc": (1, 8, 0), "billing-export": (0, 9, 0)}
def parse(tag):
    return tuple(int(x) for x in tag.split("/v")[1].split("."))
numbered = []
for svc, base in BASE.items():
    anchors = sorted((d, parse(t)) for d, t, *_ in KEY_RELEASES if t.startswith(svc + "/"))
    cur = base
    for row in [r for r in rows if r[1] == svc]:
        while anchors and anchors[0][0] < row[0]:
            cur = anchors.pop(0)[1]
        nxt = anchors[0][1] if anchors else None
        cand = (cur[0], cur[1] + 1, 0)
        if nxt and cand >= nxt:
            cand = (cur[0], cur[1], cur[2] + 1)
        if nxt and cand >= nxt:
            continue
        cur = cand
        numbered.append((row[0], f"{svc}/v{cand[0]}.{cand[1]}.{cand[2]}", *row[2:]))
rows = sorted(numbered + sorted(KEY_RELEASES))
log = ["Every backend release since the Cloud Deploy pipelines (and the helm ones before, from",
       "the #fl-deploys channel). One row per tag; staging-only releases say so.",
       "Older tags were shared by all services (see the 2025 backend deploy note).", ""]
month = None
for d, tag, env, prs, summary in rows:
    m = d[:7]
    if m != month:
        month = m
        log += ["", f"## {dt.date.fromisoformat(d).strftime('%B %Y')}", "",
                "| date | tag | env | PRs | summary |", "|---|---|---|---|---|"]
    log.append(f"| {d} | `{tag}` | {env} | {prs} | {summary} |")
NOTES["release-log"] = ("Backend release log", "\n".join(log))

# The pager history: seeded everyday pages before QUIET_FROM, then the hand-picked ones.
ALERTS = ["AssignJob SLO burn 2%/1h", "sync-gateway 5xx > 2%", "Cloud SQL CPU > 90% for 15m",
          "`stale-assignment-sweeper` failed 3 runs", "notify push failures > 1/s",
          "GCLB 503 rate > 1%", "billing export missing 26h", "Pub/Sub oldest unacked > 15m (`notify-outbox`)",
          "node pool `np-solver` at max", "Redis memory > 85%"]
ACTIONS = ["resolved itself in {m} min", "restarted the stuck pod", "known noise, acked",
           "scaled `np-general` by 2 nodes", "reran the CronJob by hand", "rolled back {svc}",
           "customer import spike, waited it out", "threshold raised after the handoff",
           "flag turned off, then back on next day", "Redis key scan from a debug script, killed it"]
KEY_PAGES = [
    ("2026-03-17", "14:12", "AssignJob SLO burn 2%/1h", "Kofi", "lock TTL 30s -> 5s; see the incident note"),
    ("2026-08-21", "18:35", "Pub/Sub oldest unacked > 15m (`job-events`)", "Maya", "poison message; see the incident note"),
    ("2026-10-13", "16:03", "Cloud SQL `database/up` = 0", "Dmitri", "failover; pods restarted; see the incident note"),
    ("2026-11-12", "07:04", "`stale-assignment-sweeper` failed 3 runs", "Sid", "known noise, acked"),
    ("2026-11-16", "13:20", "Pub/Sub DLQ `job-events-dlq` not empty", "Jonas", "billing-export rejects new field; replayed 11-19"),
]
ph = ["| date | time (UTC) | alert | who | what happened |", "|---|---|---|---|---|"]
pages = []
for d in sorted(rng.sample([d for d in working if d < QUIET_FROM], 170)):
    pages.append((d, f"{rng.randint(0, 23):02}:{rng.randint(0, 59):02}", rng.choice(ALERTS),
                  rng.choice(["Kofi", "Dmitri", "Maya", "Sid", "Jonas"]),
                  rng.choice(ACTIONS).format(m=rng.randint(2, 25), svc=rng.choice(SERVICES))))
for row in sorted(pages + KEY_PAGES):
    ph.append("| " + " | ".join(row) + " |")
NOTES["pager-history"] = ("Pager history 2026", "Every page of 2026 from PagerDuty (primary on call in *who*). "
    "Reviewed at the Tuesday handoff; two pages of the same alert in a week without action -> fix or delete it.\n\n"
    + "\n".join(ph))

for name, (title, body) in NOTES.items():
    open(f"{PROJ}/notes/{name}.md", "w").write(f"# {title}\n\n{body.strip()}\n")

mem = open("memory_head.md").read().rstrip() + "\n\n## Notes\n"
for name, (title, _) in NOTES.items():
    mem += f"- [{name.replace('-', ' ')}](projects/{SLUG}/notes/{name}.md) — {title}\n"
open(f"{ROOT}/MEMORY.md", "w").write(mem)
open(f"{PROJ}/SCRATCHPAD.md", "w").write(open("scratchpad.md").read())
print(len(days), "logs", len(NOTES), "notes")
