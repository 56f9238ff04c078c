"""Throwaway generator of the eval-b store (kept as a reference, not part of any build).

Notes and key log entries are hand-written in notes_src.py and logs_src.py; this
spreads everyday filler entries over the working days with a fixed seed.
Run from bench/eval-b/gen: python3 gen_store.py
"""
import datetime as dt
import os
import random

exec(open("notes_src.py").read())
exec(open("logs_src.py").read())

SLUG = "tidewater-3be31366"
ROOT = "../store"
PROJ = f"{ROOT}/projects/{SLUG}"
rng = random.Random(20261120)

# Ticket numbers used on purpose somewhere; filler never reuses them.
RESERVED = {1042, 1187, 1266, 1290, 1311, 1340, 1355, 1377, 1390, 1398, 1402, 1405, 1412, 1421, 1101, 1102}
PEOPLE = ["Aisha", "Bogdan", "Chiara", "Tomasz", "Nkechi", "Ines", "Ravi"]
MODELS = ["stg_shopify_products", "int_sessions", "dim_products", "stg_stripe_charges",
          "int_order_items", "dim_accounts", "stg_hubspot_deals", "int_refunds"]
FILLER = [
    ("Fixed a failing test", "Fixed the failing test in `{mod}` schema tests: a `not_null` on a column that is null for refunds. The test now excludes them."),
    ("Code review", "Reviewed {p}'s PR for {t}. Left a few comments on naming; approved after the fix."),
    ("Standup", "Standup: {p} is on {t}, I am on {t2}. Nothing blocked."),
    ("dbt model cleanup", "Cleaned up `{mod}`: removed two unused columns and added descriptions. `dbt build -s {mod}` passed."),
    ("Pipeline check", "Checked the nightly pipeline run; all models built, {n} tests passed, 0 warnings."),
    ("Dashboard tweak", "Small dashboard fix for {t}: the tooltip showed the wrong unit. Deployed with the next build."),
    ("Data question from support", "Support asked why an account's numbers differ from Shopify. Timezone of the shop vs UTC, as usual. Answered in the ticket {t}."),
    ("Query performance", "A slow query on the admin page: added an index on `(account_id, created_at)` in a PR for {t}."),
    ("Renovate PRs", "Merged {n} Renovate patch PRs after CI went green."),
    ("Flaky CI run", "CI failed on an unrelated test, re-ran it and it passed. Same as last week."),
    ("Pairing", "Paired with {p} on {t} for an hour. We fixed the issue in the data model together."),
    ("Docs", "Updated the docs for {t}; the example in the README was out of date since a few days ago."),
    ("Sprint planning", "Planning: took {t} and {t2} for this sprint. {p} owns the rest of the data work."),
    ("Investigated a data issue", "Numbers in `{mod}` looked off for one account; the source data was right, the issue was a filter in the dashboard. Closed {t}."),
    ("Small fix", "Small fix in the Django admin for {t}: the list filter crashed on empty values. Test added."),
    ("Meeting", "Sync with {p} about the roadmap. Nothing decided yet; more next week."),
    ("Tests", "Added tests for `{mod}` and the export serializer; coverage of the module up to {n}%."),
    ("Cleanup", "Deleted stale branches and closed old tickets. {t} was already fixed, closed it."),
    ("Customer call", "Call with a customer about missing data yesterday; it was their connector, not us. Noted in {t}."),
    ("Model run", "Ran the models for the dev schema again after {p}'s change; the run took {n} min."),
    ("Check-in with {p}", "Weekly 1:1 with {p}. Talked about the data model docs and the on-call load."),
    ("Fixed lint", "Fixed ruff warnings in the tests folder; the CI lint step is stricter since the update."),
    ("Read up", "Read about the new dbt features; nothing we need right now. Maybe for {t} later."),
    ("Deploy of a small change", "Deployed a small change for {t} to staging. Will check it tomorrow."),
]

def ticket():
    while True:
        n = rng.randint(1000, 1450)
        if n not in RESERVED:
            return f"DATA-{n}"

def filler_entry():
    head, body = rng.choice(FILLER)
    p = rng.choice(PEOPLE)
    fill = dict(p=p, t=ticket(), t2=ticket(), mod=rng.choice(MODELS), n=rng.randint(5, 95))
    return head.format(**fill), body.format(**fill)

# Days: every key date, then random working days until 100 logs.
start, end = dt.date(2026, 3, 30), dt.date(2026, 11, 20)
days = set(KEY)
working = [start + dt.timedelta(d) for d in range((end - start).days + 1)]
working = [d.isoformat() for d in working if d.weekday() < 5]
while len(days) < 100:
    days.add(rng.choice(working))
days = sorted(days)

os.makedirs(f"{PROJ}/notes", exist_ok=True)
os.makedirs(f"{PROJ}/daily", exist_ok=True)
for day in days:
    entries = list(KEY.get(day, []))
    used = {e[0] for e in entries}
    for _ in range(rng.randint(1, 3) if day in KEY else rng.randint(2, 4)):
        while True:
            t = f"{rng.randint(8, 18):02}:{rng.choice(range(0, 60, 1)):02}"
            if t not in used:
                break
        used.add(t)
        h, b = filler_entry()
        entries.append((t, h, b))
    entries.sort()
    text = "\n\n".join(f"### {t} — {h}\n{b.strip()}" for t, h, b in entries) + "\n"
    open(f"{PROJ}/daily/{day}.md", "w").write(text)

for name, (title, body) in NOTES.items():
    open(f"{PROJ}/notes/{name}.md", "w").write(f"# {title}\n\n{body.strip()}\n")

mem = open("memory_head.md").read().rstrip() + "\n\n## Notes\n"
for name, (title, _) in NOTES.items():
    mem += f"- [{name.replace('-', ' ')}](projects/{SLUG}/notes/{name}.md) — {title}\n"
open(f"{ROOT}/MEMORY.md", "w").write(mem)
open(f"{PROJ}/SCRATCHPAD.md", "w").write(open("scratchpad.md").read())
print(len(days), "logs", len(NOTES), "notes")
