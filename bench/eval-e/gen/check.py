"""Run from bench/eval-e/gen after split.py. Checks the questions against the store."""
import json, os, sys
exec(open("questions_src.py").read())
STORE = "../store"
CATS = {"identifiers", "note-names", "dates-and-time", "partial-words", "common-word-floods", "general"}
errors = []
for cat, query, rel, greps in Q:
    where = f"[{cat}] {query!r}"
    if cat not in CATS:
        errors.append(f"{where}: bad category")
    if not rel or 2 not in rel.values():
        errors.append(f"{where}: no grade-2 file")
    for path, grade in rel.items():
        if grade not in (1, 2):
            errors.append(f"{where}: grade {grade} for {path}")
        if path.endswith("SCRATCHPAD.md"):
            errors.append(f"{where}: SCRATCHPAD.md graded")
        if not os.path.isfile(os.path.join(STORE, path)):
            errors.append(f"{where}: missing {path}")
        if grade == 2 and not greps.get(path):
            errors.append(f"{where}: no grep strings for grade-2 file {path}")
    for path, strings in greps.items():
        if rel.get(path) != 2:
            errors.append(f"{where}: grep strings for {path}, which is not grade 2")
            continue
        full = os.path.join(STORE, path)
        text = open(full).read().lower() if os.path.isfile(full) else ""
        for g in strings:
            if g.lower() not in text:
                errors.append(f"{where}: grep string {g!r} not in {path}")
ids, seen = set(), {}
for s in ["tune", "holdout"]:
    data = json.load(open(f"../questions-{s}.json"))
    assert data["set"] == s
    queries = set()
    for q in data["questions"]:
        if q["id"] in ids:
            errors.append(f"duplicate id {q['id']}")
        ids.add(q["id"])
        if q["query"] in queries:
            errors.append(f"duplicate query in {s}: {q['query']!r}")
        queries.add(q["query"])
        if q["category"] not in CATS:
            errors.append(f"{q['id']}: bad category")
        seen.setdefault((s, q["category"]), 0)
        seen[(s, q["category"])] += 1
if len(ids) != len(Q):
    errors.append(f"{len(ids)} questions in the sets, {len(Q)} in questions_src.py")
for c in sorted(CATS):
    for s in ["tune", "holdout"]:
        if seen.get((s, c)) != 10:
            errors.append(f"{s} {c}: {seen.get((s, c))} questions, want 10")
for (s, c), n in sorted(seen.items()):
    print(f"{s:8} {c:20} {n}")
print(len(Q), "questions")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("ok")
