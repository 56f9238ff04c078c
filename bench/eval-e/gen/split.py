"""Run from bench/eval-e/gen. Split questions_src.py 50/50 per category with a fixed seed into
the tune and holdout sets."""
import json, random
exec(open("questions_src.py").read())
rng = random.Random(7291)
abbrev = {"identifiers": "id", "note-names": "nn", "dates-and-time": "dt", "partial-words": "pw",
          "common-word-floods": "cw", "general": "ge"}
sets = {"tune": [], "holdout": []}
bycat = {}
for cat, query, rel, _greps in Q:
    bycat.setdefault(cat, []).append((query, rel))
for cat, items in bycat.items():
    ids = [f"e-{abbrev[cat]}-{i+1:02}" for i in range(len(items))]
    order = list(range(len(items)))
    rng.shuffle(order)
    tune = set(order[: (len(items) + 1) // 2])
    for i, (query, rel) in enumerate(items):
        s = "tune" if i in tune else "holdout"
        sets[s].append({"id": ids[i], "query": query, "category": cat, "relevant": rel})
for s, qs in sets.items():
    with open(f"../questions-{s}.json", "w") as f:
        json.dump({"set": s, "questions": qs}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(s, len(qs))
