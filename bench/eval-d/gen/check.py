"""Run from bench/eval-d/gen after split.py. Checks the questions against the store."""
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
    texts = []
    for path, grade in rel.items():
        if grade not in (1, 2):
            errors.append(f"{where}: grade {grade} for {path}")
        if path.endswith("SCRATCHPAD.md"):
            errors.append(f"{where}: SCRATCHPAD.md graded")
        full = os.path.join(STORE, path)
        if not os.path.isfile(full):
            errors.append(f"{where}: missing {path}")
        else:
            texts.append(open(full).read().lower())
    for g in greps:
        if not any(g.lower() in t for t in texts):
            errors.append(f"{where}: grep string {g!r} not in any graded file")
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
for (s, c), n in sorted(seen.items()):
    print(f"{s:8} {c:20} {n}")
print(len(Q), "questions")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("ok")
