"""Split questions_src.py 50/50 per category with random.Random(4040) (the larger half to
tune) into ../questions-tune.json and ../questions-holdout.json. Run from bench/eval-conv/gen."""
import json
import random

exec(open("questions_src.py").read())
PROJ = "projects/chats-40e6c670/daily"
rng = random.Random(4040)
out = {"tune": [], "holdout": []}
prefix = {"general": "cv-ge", "multi-hop": "cv-mh", "dates-and-time": "cv-dt"}
for cat in ["general", "multi-hop", "dates-and-time"]:
    qs = [(i, q) for i, q in enumerate(x for x in Q if x[0] == cat)]
    idx = list(range(len(qs)))
    rng.shuffle(idx)
    tune = set(idx[: (len(idx) + 1) // 2])
    for i, (c, query, rel, _) in qs:
        q = {
            "id": f"{prefix[c]}-{i + 1:02d}",
            "query": query,
            "category": c,
            "relevant": {f"{PROJ}/{d}.md": g for d, g in rel.items()},
        }
        out["tune" if i in tune else "holdout"].append(q)
for name, qs in out.items():
    with open(f"../questions-{name}.json", "w") as f:
        json.dump({"set": name, "questions": qs}, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(name, len(qs))
