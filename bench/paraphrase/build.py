"""Paraphrase and recency questions for every eval set (issue 23, items 4 and 5).

Run from anywhere: `python3 bench/paraphrase/build.py`. Reads `set_<x>.py` beside this
file (one per eval set), checks every question against the set's store with plain text
tools (no search system), splits each category 50/50 with random.Random(SEED) and writes
`questions-paraphrase-{tune,holdout}.json` and `questions-recency-{tune,holdout}.json`
into the set's directory.

Checks, which fail the build:
- every graded file exists in the store and search looks at it (not the scratchpad);
- paraphrase: at most MAX_SHARED of a question's content words (stop words left out)
  occur in any of its grade-2 files, a word occurring when the file has it as a token or
  shares its first 5 letters with a token (a crude stem: `reminded` ~ `reminders`);
- recency: the one grade-2 file is the newest daily log, on or before the set's today,
  whose text matches the question's pattern (a case-insensitive regex).

`--report` prints each question's shared words.
"""

import json
import pathlib
import random
import re
import sys

SEED = 2323
MAX_SHARED = 0.34
HERE = pathlib.Path(__file__).resolve().parent
BENCH = HERE.parent
SETS = {
    "a": ("eval", "2026-11-20"),
    "b": ("eval-b", "2026-11-20"),
    "c": ("eval-c", "2026-11-20"),
    "d": ("eval-d", "2026-11-20"),
    "e": ("eval-e", "2026-12-02"),
}
STOP = set(
    """a an the of to in on at for from by with about into over after before under
    and or but if then than so as is are was were be been being am do does did done
    doing have has had having i me my we us our ours you your he she it its they them
    their this that these those there here what which who whom whose when where why how
    can could should would will shall may might must not no any some all each every
    one ones still just also only very more most much many few again ever out up down
    get got make made let lets s t don't isn't i'm we're it's what's who's
    re ve ll d""".split()
)


def tokens(text):
    return re.findall(r"[a-z0-9]+", text.lower())


def shared_words(query, text):
    have = set(tokens(text))
    stems = {t[:5] for t in have if len(t) >= 5}
    words = [w for w in tokens(query) if w not in STOP]
    shared = [w for w in words if w in have or (len(w) >= 5 and w[:5] in stems)]
    return words, shared


def project_dir(store):
    (proj,) = [p for p in (store / "projects").iterdir() if p.is_dir()]
    return proj


def full_path(proj, rel):
    return rel if rel == "MEMORY.md" else f"projects/{proj.name}/{rel}"


def check_set(letter, report):
    dirname, today = SETS[letter]
    ns = {}
    exec((HERE / f"set_{letter}.py").read_text(), ns)
    store = BENCH / dirname / "store"
    proj = project_dir(store)
    errors = []
    questions = {"paraphrase": [], "recency": []}

    def exists(rel):
        p = store / full_path(proj, rel)
        if not p.is_file() or rel.endswith("SCRATCHPAD.md"):
            errors.append(f"{letter}: `{rel}` is not a searchable file")
            return False
        return True

    for query, rel in ns["P"]:
        for path in rel:
            exists(path)
        answers = [p for p, g in rel.items() if g == 2]
        if not answers:
            errors.append(f"{letter}: {query!r} has no grade-2 file")
        worst = 0.0
        for path in answers:
            if not exists(path):
                continue
            words, shared = shared_words(query, (store / full_path(proj, path)).read_text())
            share = len(shared) / max(len(words), 1)
            worst = max(worst, share)
            if report:
                print(f"{letter} {share:.2f} {query!r} ~ {path}: {shared}")
        if worst > MAX_SHARED:
            errors.append(f"{letter}: {query!r} shares {worst:.2f} of its words with its answer")
        questions["paraphrase"].append((query, rel))

    logs = sorted((proj / "daily").glob("*.md"))
    for query, pattern, rel in ns["R"]:
        for path in rel:
            exists(path)
        answers = [p for p, g in rel.items() if g == 2]
        rx = re.compile(pattern, re.I)
        hits = [p.name for p in logs if p.stem <= today and rx.search(p.read_text())]
        newest = f"daily/{hits[-1]}" if hits else None
        if answers != [newest]:
            errors.append(f"{letter}: {query!r}: grade 2 {answers}, newest log matching /{pattern}/ is {newest}")
        if report:
            print(f"{letter} recency {query!r}: {newest} (of {len(hits)}: {hits[-3:]})")
        questions["recency"].append((query, rel))

    existing = set()
    for f in (BENCH / dirname).glob("questions-*.json"):
        if "paraphrase" in f.name or "recency" in f.name:
            continue
        existing |= {q["id"] for q in json.loads(f.read_text())["questions"]}
    for cat, items in questions.items():
        seen = set()
        for query, _ in items:
            if query in seen:
                errors.append(f"{letter}: {query!r} twice")
            seen.add(query)
    return questions, existing, proj, errors


def write_set(letter, questions, existing, proj):
    dirname, _ = SETS[letter]
    rng = random.Random(SEED)
    abbrev = {"paraphrase": "pp", "recency": "rc"}
    counts = {}
    for cat in ("paraphrase", "recency"):
        items = questions[cat]
        order = list(range(len(items)))
        rng.shuffle(order)
        tune = set(order[: (len(items) + 1) // 2])
        out = {"tune": [], "holdout": []}
        for i, (query, rel) in enumerate(items):
            qid = f"{letter}-{abbrev[cat]}-{i + 1:02}"
            assert qid not in existing, qid
            s = "tune" if i in tune else "holdout"
            relevant = {full_path(proj, p): g for p, g in rel.items()}
            out[s].append({"id": qid, "query": query, "category": cat, "relevant": relevant})
        for s, qs in out.items():
            name = f"{cat}-{s}"
            path = BENCH / dirname / f"questions-{name}.json"
            with open(path, "w") as f:
                json.dump({"set": name, "questions": qs}, f, indent=1, ensure_ascii=False)
                f.write("\n")
            counts[name] = len(qs)
    return counts


def main():
    report = "--report" in sys.argv
    only = [a for a in sys.argv[1:] if not a.startswith("--")]
    letters = only or [x for x in SETS if (HERE / f"set_{x}.py").is_file()]
    results, errors = {}, []
    for letter in letters:
        questions, existing, proj, errs = check_set(letter, report)
        results[letter] = (questions, existing, proj)
        errors += errs
    if errors:
        print("\n".join(errors), file=sys.stderr)
        sys.exit(1)
    if "--check" in sys.argv:
        return
    for letter, (questions, existing, proj) in results.items():
        print(letter, write_set(letter, questions, existing, proj))


if __name__ == "__main__":
    main()
