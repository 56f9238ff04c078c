#!/usr/bin/env python3
"""Differential test of the `memory` tool against Anthropic's reference.

Random command sequences (seeded) run through the Anthropic Python SDK's
`BetaLocalFilesystemMemoryTool` on one temp dir and through our core
(`guest/core/src/anthropic.rs`, via the `anthropic_replay` example) on
another. Every output string and error text must be equal (after a blank
line, every change of ours must add its budget line, and writes may add
near-duplicate notes before it), and so must the final files and folders of
`/memories` and of the notes folder.

Every Markdown file the store writes ends with exactly one `\n` (the
`wit/store.wit` rule; difference 10 in `anthropic.rs`), where the reference
keeps `create` and `str_replace` text as given. After each command, a
reference file that differs from ours only by that ending is given our
ending, and counted ("reference file ending settled to one newline"), so
that the next commands (their `view`, `insert_line` and `str_replace`
outputs) start from the same bytes and are compared byte for byte; any
other difference in a file still fails.

Commands whose input lies outside what the core accepts on purpose (the
differences listed in the module docs of `anthropic.rs`: other file types,
traversal spellings, names outside the note rule, too deep, `/memoriesX`)
are run through ours only, and must come back as a typed error that
changed nothing; they are counted apart, by reason.

Run:

    python3 -m venv /tmp/anthvenv && /tmp/anthvenv/bin/pip install 'anthropic>=2,<3'
    cargo build -p agent-memory-core --example anthropic_replay
    /tmp/anthvenv/bin/python tests/anthropic_diff.py \\
        --replay target/debug/examples/anthropic_replay --seed 1 --sequences 40 --length 60

Exits 1 on any disagreement, printing the first few with their seed and
step; 0 otherwise, with the counts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

# Public as `anthropic.tools.memory` in 2.x; defined in
# `anthropic.lib.tools._beta_builtin_memory_tool`.
from anthropic.lib.tools._beta_builtin_memory_tool import BetaLocalFilesystemMemoryTool
from anthropic.lib.tools._beta_functions import ToolError

FOLDERS = ["a", "b", "proj", "user prefs", "日本"]
NAMES = ["notes", "deploy", "x", "todo-list", "über_2", "a"]
LINES = [
    "use pnpm not npm",
    "- Use pnpm, not npm!",
    "deploy with make ship",
    "the staging database lives on port 5433",
    "the staging database now lives on port 5433",
    "- [ ] fix the flaky login test",
    "",
    "# Heading",
    "x",
    "tabs\there",
    "ünïcödé 日本語 text",
    "trailing spaces   ",
    "crlf line\r",
    "pnpm pnpm pnpm",
    "  indented `code` and *stars*",
]
# Hostile inputs. Those with a reason are refused by the core on purpose
# (the reference accepts them) and counted by reason; those with None the
# reference refuses too, and both texts must be equal.
HOSTILE = [
    ("/memories/../escape.md", None),
    ("/memories/a/../../escape.md", None),
    ("/memories/..", None),
    ("/etc/passwd", None),
    ("memories/a.md", None),
    ("", None),
    ("/memories/a/../b.md", "traversal"),
    ("/memories/./a.md", "traversal"),
    ("/memories/%2e%2e/x.md", "encoded traversal"),
    ("/memories/a%2fb.md", "encoded traversal"),
    ("/memories/a\\b.md", "backslash"),
    ("/memories/..\\x.md", "backslash"),
    ("/memoriesX/a.md", "/memories prefix"),
    ("/memories/x.txt", "not .md"),
    ("/memories/a/b.json", "not .md"),
    ("/memories/a/b/c/d/e.md", "too deep"),
    ("/memories/a//b.md", "empty segment"),
    ("/memories/CON.md", "note name rule"),
    ("/memories/.hidden.md", "note name rule"),
    ("/memories/a b  c.md", "note name rule"),
    ("/memories/a.b.md", "note name rule"),
]


def settled(text: str) -> str:
    """`text` as the store keeps it: its trailing line breaks (`\\n`,
    `\\r\\n`) made one `\\n`, nothing for text that is only line breaks."""
    body = text
    while body.endswith("\n"):
        body = body[:-2] if body.endswith("\r\n") else body[:-1]
    return body + "\n" if body else ""


def settle_reference(ref_root: Path, ours: dict[str, str | None], stats: Counter) -> None:
    """Give each reference file that differs from ours only by the store's
    ending rule our bytes, counting it; leave every other difference."""
    ref = tree(ref_root)
    if ref.keys() != ours.keys():
        return
    for rel, text in ref.items():
        if text is not None and text != ours[rel] and settled(text) == ours[rel]:
            (ref_root / rel).write_bytes(ours[rel].encode("utf-8"))
            stats["reference file ending settled to one newline"] += 1


def tree(root: Path) -> dict[str, str | None]:
    """Every file (its text) and folder (None) under root, relative."""
    out: dict[str, str | None] = {}
    if not root.exists():
        return out
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            out[os.path.relpath(os.path.join(dirpath, d), root) + "/"] = None
        for f in filenames:
            if f.startswith("."):
                continue  # temp files and the lock; neither side leaves any
            p = os.path.join(dirpath, f)
            out[os.path.relpath(p, root)] = Path(p).read_bytes().decode("utf-8", "replace")
    return out


class Ours:
    def __init__(self, replay: str, root: Path) -> None:
        self.proc = subprocess.Popen(
            [replay, str(root), "/home/dev/project", "--lines"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        first = json.loads(self.proc.stdout.readline())
        self.notes = root / first["notes"]

    def run(self, command: dict) -> dict:
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def reference(tool: BetaLocalFilesystemMemoryTool, command: dict) -> dict:
    try:
        return {"ok": tool.call(command)}
    except ToolError as e:
        return {"error": str(e)}
    except Exception as e:  # noqa: BLE001 - a non-tool error of the reference
        return {"exception": type(e).__name__}


class Gen:
    """Random commands, drawing paths and text from the reference's state."""

    def __init__(self, rng: random.Random, ref_root: Path) -> None:
        self.rng = rng
        self.ref_root = ref_root

    def files(self) -> list[str]:
        return sorted(k for k, v in tree(self.ref_root).items() if v is not None)

    def dirs(self) -> list[str]:
        return sorted(k[:-1] for k, v in tree(self.ref_root).items() if v is None)

    def folder(self, depth: int) -> str:
        return "/".join(self.rng.choice(FOLDERS) for _ in range(depth))

    def new_note(self) -> str:
        depth = self.rng.choice([0, 0, 1, 1, 2])
        folder = self.folder(depth)
        name = self.rng.choice(NAMES) + ".md"
        return f"/memories/{folder}/{name}" if folder else f"/memories/{name}"

    def note(self) -> str:
        files = self.files()
        if files and self.rng.random() < 0.75:
            return "/memories/" + self.rng.choice(files)
        return self.new_note()

    def dir_path(self) -> str:
        dirs = [d for d in self.dirs() if d.count("/") < 2]
        r = self.rng.random()
        if r < 0.15:
            return self.rng.choice(["/memories", "/memories/"])
        if dirs and r < 0.7:
            return "/memories/" + self.rng.choice(dirs)
        return "/memories/" + self.folder(self.rng.choice([1, 1, 2]))

    def text(self) -> str:
        lines = [self.rng.choice(LINES) for _ in range(self.rng.randint(0, 8))]
        text = "\n".join(lines)
        if self.rng.random() < 0.7:
            text += "\n"
        return text

    def old_str(self, path: str) -> str:
        p = self.ref_root / path[len("/memories/"):]
        content = p.read_text("utf-8") if p.is_file() else ""
        r = self.rng.random()
        if content and r < 0.45:
            lines = [l for l in content.split("\n") if l]
            if lines:
                return self.rng.choice(lines)
        if content and r < 0.75:
            i = self.rng.randrange(len(content))
            j = min(len(content), i + self.rng.randint(1, 30))
            return content[i:j]
        return self.rng.choice(["pnpm", "npm", "absent text", "port 5433", "\n", "x"])

    def command(self) -> tuple[dict, str | None]:
        """A command, and the reason it is ours-only (None when shared)."""
        rng = self.rng
        if rng.random() < 0.08:
            path, why = rng.choice(HOSTILE)
            cmd = rng.choice(["view", "create", "str_replace", "insert", "delete", "rename"])
            args = {
                "view": {"path": path},
                "create": {"path": path, "file_text": "x\n"},
                "str_replace": {"path": path, "old_str": "x", "new_str": "y"},
                "insert": {"path": path, "insert_line": 0, "insert_text": "x"},
                "delete": {"path": path},
                "rename": {"old_path": self.note(), "new_path": path},
            }[cmd]
            return {"command": cmd, **args}, why
        kind = rng.choices(
            ["view", "view_dir", "create", "str_replace", "insert", "delete", "delete_dir", "rename", "rename_dir"],
            weights=[14, 8, 18, 20, 12, 6, 2, 8, 3],
        )[0]
        if kind == "view":
            cmd: dict = {"command": "view", "path": self.note()}
            if rng.random() < 0.4:
                a = rng.randint(-2, 8)
                b = rng.choice([-1, -1, -3, 0, rng.randint(1, 10)])
                cmd["view_range"] = [a, b] if rng.random() < 0.9 else [a]
            return cmd, None
        if kind == "view_dir":
            return {"command": "view", "path": self.dir_path()}, None
        if kind == "create":
            return {"command": "create", "path": self.note(), "file_text": self.text()}, None
        if kind == "str_replace":
            path = self.note()
            new = rng.choice(["", "replaced", "use pnpm not npm", "two\nlines", self.text()])
            return {"command": "str_replace", "path": path, "old_str": self.old_str(path), "new_str": new}, None
        if kind == "insert":
            path = self.note()
            line = rng.choice([0, 1, 2, 3, 5, -1, 100])
            return {"command": "insert", "path": path, "insert_line": line, "insert_text": rng.choice(LINES + ["two\nlines\n\n"])}, None
        if kind == "delete":
            return {"command": "delete", "path": self.note()}, None
        if kind == "delete_dir":
            return {"command": "delete", "path": self.dir_path()}, None
        if kind == "rename":
            return {"command": "rename", "old_path": self.note(), "new_path": self.new_note() if rng.random() < 0.8 else self.note()}, None
        old = self.dir_path()
        new = "/memories/" + self.folder(rng.choice([1, 1, 2]))
        return {"command": "rename", "old_path": old, "new_path": new}, None


# Errors of ours that stand for a documented difference reached through
# state rather than through the input alone (the reference would succeed).
STATEFUL_DIFFERENCES = [
    ("more than 4 levels deep", "too deep after a folder rename"),
    ("into itself", "folder into itself"),
]


# The budget line ending every change's output (see wit/types.wit `budget`).
BUDGET_LINE = re.compile(
    r"Budget: MEMORY\.md \d+/200 lines, \d+/25000 bytes; context block \d+/\d+ bytes"
    r" \(notes are not in it; memory_search finds them\)"
)


def same_output(ours: dict, ref: dict, command: dict) -> bool:
    if "ok" in ref:
        if "ok" not in ours:
            return False
        if command["command"] == "view":
            return ours["ok"] == ref["ok"]
        # Our notes follow the reference's text after a blank line: near
        # duplicates (on the commands that add text) when there are any,
        # then always the budget line, which for notes says they are not
        # injected and never warns.
        if not ours["ok"].startswith(ref["ok"] + "\n\n"):
            return False
        notes = ours["ok"][len(ref["ok"]) + 2 :].split("\n\n")
        budget = notes.pop()
        if not BUDGET_LINE.fullmatch(budget):
            return False
        return all(
            command["command"] in ("create", "str_replace", "insert") and note.startswith("Possible duplicates")
            for note in notes
        )
    if "error" in ref:
        return ours.get("message") == ref["error"]
    return "error" in ours  # the reference raised: ours must be a typed error


def run_sequence(args, seed: int, stats: Counter, failures: list) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as ref_dir, tempfile.TemporaryDirectory() as our_dir:
        tool = BetaLocalFilesystemMemoryTool(base_path=ref_dir)
        ref_root = Path(ref_dir) / "memories"
        ours = Ours(args.replay, Path(our_dir))
        gen = Gen(rng, ref_root)
        try:
            for step in range(args.length):
                command, ours_only = gen.command()
                before = tree(ours.notes)
                got = ours.run(command)
                stats["commands"] += 1
                if ours_only is None and "error" in got:
                    for needle, why in STATEFUL_DIFFERENCES:
                        if needle in got["message"]:
                            ours_only = why
                if ours_only is not None:
                    stats[f"ours only: {ours_only}"] += 1
                    if "error" not in got or tree(ours.notes) != before:
                        failures.append((seed, step, command, got, "expected a typed error and no change"))
                    continue
                want = reference(tool, command)
                if "exception" in want:
                    stats[f"reference raised {want['exception']}"] += 1
                    if args.verbose:
                        print("reference raised:", json.dumps([command, got], ensure_ascii=False))
                elif "error" in want:
                    shape = want["error"]
                    for key in ("new_path", "old_path", "path"):
                        if command.get(key):
                            shape = shape.replace(command[key], "_")
                    shape = re.sub(r"`[^`]*`", "`_`", shape, flags=re.S)
                    shape = re.sub(r"-?\d+", "N", shape)
                    stats["  reference error: " + " ".join(shape.split()[:7])] += 1
                else:
                    stats[f"  reference ok: {command['command']}"] += 1
                if same_output(got, want, command):
                    stats["agree"] += 1
                    if "ok" in got and got["ok"] != want["ok"]:
                        stats["agree, with our notes appended"] += 1
                else:
                    failures.append((seed, step, command, got, want))
                if command.get("command") == "rename" and "error" in want:
                    # The one known divergence: the reference makes the
                    # destination's folders before it finds the source
                    # missing, and leaves them; a refused command here
                    # changes nothing. Its empty leftovers are taken back so
                    # the trees stay comparable.
                    ours_tree = tree(ours.notes)
                    leftovers = [k for k, v in tree(ref_root).items() if v is None and k not in ours_tree]
                    for k in sorted(leftovers, key=lambda k: -k.count("/")):
                        try:
                            (ref_root / k.rstrip("/")).rmdir()
                            stats["reference's folders of a refused rename taken back"] += 1
                        except OSError:
                            pass
                settle_reference(ref_root, tree(ours.notes), stats)
                if tree(ref_root) != tree(ours.notes):
                    failures.append((seed, step, command, tree(ref_root), tree(ours.notes)))
                    break
            view = {"command": "view", "path": "/memories"}
            if ours.run(view)["ok"] != reference(tool, view)["ok"]:
                failures.append((seed, "final", view, "", ""))
            stats["final trees equal"] += tree(ref_root) == tree(ours.notes)
        finally:
            ours.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replay", required=True, help="path to the anthropic_replay example binary")
    parser.add_argument("--seed", type=int, default=1, help="first seed; sequence i uses seed + i")
    parser.add_argument("--sequences", type=int, default=40)
    parser.add_argument("--length", type=int, default=60, help="commands per sequence")
    parser.add_argument("--verbose", action="store_true", help="show the calls where the reference raised")
    args = parser.parse_args()
    stats: Counter = Counter()
    failures: list = []
    for i in range(args.sequences):
        run_sequence(args, args.seed + i, stats, failures)
    for key in sorted(stats):
        print(f"{key}: {stats[key]}")
    shared = stats["commands"] - sum(v for k, v in stats.items() if k.startswith("ours only"))
    print(f"shared commands: {shared}, agreeing: {stats['agree']}, disagreements: {len(failures)}")
    for f in failures[:8]:
        print("DISAGREE", json.dumps(f, ensure_ascii=False, default=str)[:2000])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
