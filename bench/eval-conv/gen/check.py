"""Run from bench/eval-conv/gen after gen_store.py and split.py: every graded log exists,
every grep string is in its grade-2 log, ids are unique and the split is per category."""
import json
import os
import sys

exec(open("questions_src.py").read())
PROJ = "projects/chats-40e6c670/daily"
errors = []
for cat, query, rel, greps in Q:
    for day, grade in rel.items():
        path = f"../store/{PROJ}/{day}.md"
        if not os.path.isfile(path):
            errors.append(f"{query!r}: no log {day}")
    if sum(g == 2 for g in rel.values()) < (2 if cat == "multi-hop" else 1):
        errors.append(f"{query!r}: too few grade-2 logs for {cat}")
    for day, strings in greps.items():
        if rel.get(day) != 2:
            errors.append(f"{query!r}: grep strings for {day}, not grade 2")
            continue
        path = f"../store/{PROJ}/{day}.md"
        text = open(path).read().lower() if os.path.isfile(path) else ""
        for s in strings:
            if s.lower() not in text:
                errors.append(f"{query!r}: {s!r} not in {day}")
ids = set()
for name in ["tune", "holdout"]:
    for q in json.load(open(f"../questions-{name}.json"))["questions"]:
        if q["id"] in ids:
            errors.append(f"duplicate id {q['id']}")
        ids.add(q["id"])
if len(ids) != len(Q):
    errors.append(f"{len(ids)} questions in the JSON, {len(Q)} in questions_src.py")
print("\n".join(errors) or f"ok: {len(Q)} questions")
sys.exit(1 if errors else 0)
