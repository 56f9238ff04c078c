"""Write ../store from chat_src.py (seed 40400): MEMORY.md and one daily log per session.
Run from bench/eval-conv/gen; reproduces store/ byte for byte."""
import datetime
import os
import random

exec(open("chat_src.py").read())
STORE = "../store"
PROJ = os.path.join(STORE, "projects", "chats-40e6c670")
rng = random.Random(40400)
os.makedirs(os.path.join(PROJ, "daily"), exist_ok=True)
with open(os.path.join(STORE, "MEMORY.md"), "w") as f:
    f.write(
        "# Memory\n\n"
        "Chats between Ines and Jun, friends since university. One log per conversation in\n"
        "daily/, named by its date.\n\n"
        "- Ines: landscape architect at a small firm in Leiden.\n"
        "- Jun: nurse on a hospital ward in Utrecht, works shifts.\n"
    )
with open(os.path.join(PROJ, "SCRATCHPAD.md"), "w") as f:
    f.write("# Scratchpad\n\n- nothing yet\n")
for day in sorted(KEY):
    d = datetime.date.fromisoformat(day)
    pool = [(s, t) for since, s, t in FILLER if since <= day]
    filler = rng.sample(pool, rng.randint(14, 22))
    turns = list(filler)
    for turn in KEY[day]:
        turns.insert(rng.randint(2, len(turns) - 2), turn)
    hour, minute = rng.randint(18, 21), rng.randint(0, 59)
    lines = [f"# {d.strftime('%A')} {day}: Ines and Jun", ""]
    # Two or three entries per session, split where the chat pauses.
    cuts = sorted(rng.sample(range(4, len(turns) - 3), rng.randint(1, 2)))
    start = 0
    for cut in cuts + [len(turns)]:
        lines.append(f"### {hour:02d}:{minute:02d} — chat")
        for s, t in turns[start:cut]:
            lines.append(f"**{s}:** {t}")
        lines.append("")
        start = cut
        minute += rng.randint(10, 40)
        hour, minute = hour + minute // 60, minute % 60
    with open(os.path.join(PROJ, "daily", f"{day}.md"), "w") as f:
        f.write("\n".join(lines))
print(len(KEY), "sessions")
