"""Runs the shared conformance vectors (``conformance/*.json``) on the Python
host. The format is described in ``conformance/README.md``; the Rust suite
(``tests/tests/all/vectors.rs``) and the Node host run the same files."""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from pathlib import Path, PurePosixPath
from typing import Any, Dict, List, Tuple

import agent_memory as am

REPO = Path(__file__).resolve().parents[3]
VECTORS_DIR = Path(os.environ.get("AGENT_MEMORY_VECTORS", REPO / "conformance"))
WIT_TYPES = REPO / "wit" / "types.wit"

MATCHERS = {
    "error", "message_contains", "contains", "not_contains", "starts_with", "ends_with",
    "max_bytes", "bytes", "count", "fields", "len", "each", "head",
}
GENERATORS = {"repeat", "times", "concat", "lines", "from", "to", "hex"}
_UNSET = object()


class VectorError(Exception):
    """The vector itself is malformed (not a failure of the memory)."""


def known_kinds() -> List[str]:
    return [k for k in wit_cases("error-kind") if k != "other"]


def load_cases() -> List[Tuple[str, Dict[str, Any]]]:
    """``(file, case)`` for every case of every vector file, in file order."""
    files = sorted(VECTORS_DIR.glob("*.json"))
    if not files:
        raise VectorError(f"no conformance vectors in {VECTORS_DIR}")
    cases = []
    for path in files:
        for case in json.loads(path.read_text(encoding="utf-8")):
            cases.append((path.name, case))
    return cases


def wit_cases(name: str) -> List[str]:
    """The case names of ``variant``/``enum`` ``name`` in ``wit/types.wit``,
    payloads and comments dropped, in WIT order."""
    lines = [line.strip() for line in WIT_TYPES.read_text(encoding="utf-8").splitlines()]
    heads = (f"variant {name} {{", f"enum {name} {{")
    start = next((i for i, line in enumerate(lines) if line in heads), None)
    if start is None:
        raise VectorError(f"no variant or enum {name} in {WIT_TYPES}")
    cases = []
    for line in lines[start + 1:]:
        if line == "}":
            return cases
        if line and not line.startswith("//"):
            # `%import` is the WIT escape of a keyword: the case is `import`.
            cases.append(line.rstrip(",").split("(")[0].lstrip("%"))
    raise VectorError(f"{name} in {WIT_TYPES} does not end")


# -- texts ---------------------------------------------------------------------

def is_generator(v: Any) -> bool:
    return (isinstance(v, dict) and bool(v.keys() & {"repeat", "concat", "lines", "hex"})
            and set(v) <= GENERATORS)


def is_matcher(v: Any) -> bool:
    return isinstance(v, dict) and bool(v) and set(v) <= MATCHERS


def text_bytes(v: Any) -> bytes:
    if isinstance(v, str):
        return v.encode("utf-8")
    if is_generator(v):
        if "repeat" in v:
            return text_bytes(v["repeat"]) * number(v["times"])
        if "concat" in v:
            return b"".join(text_bytes(part) for part in v["concat"])
        if "lines" in v:
            template = text(v["lines"])
            return "".join(substitute(template, i)
                           for i in range(number(v["from"]), number(v["to"]) + 1)).encode("utf-8")
        return bytes.fromhex(v["hex"])
    raise VectorError(f"not a text: {v!r}")


def text(v: Any) -> str:
    return text_bytes(v).decode("utf-8")


def substitute(template: str, i: int) -> str:
    def one(m: "re.Match[str]") -> str:
        return str(i).zfill(int(m.group(1))) if m.group(1) else str(i)
    return re.sub(r"\{i(?::0(\d+))?\}", one, template)


def number(v: Any) -> int:
    if isinstance(v, bool):
        raise VectorError(f"not a number: {v!r}")
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.isdigit():
        return int(v)
    raise VectorError(f"not a number: {v!r}")


# -- the root ------------------------------------------------------------------

def safe(root: Path, rel: str) -> Path:
    parts = PurePosixPath(rel).parts
    if not rel or any(p in ("..", ".", "/") for p in parts) or rel.startswith("/"):
        raise VectorError(f"unsafe path in a vector: {rel!r}")
    return root.joinpath(*parts)


def plant(root: Path, spec: Dict[str, Any]) -> None:
    for d in spec.get("dirs", []):
        safe(root, text(d)).mkdir(parents=True, exist_ok=True)
    for rel, content in spec.get("files", {}).items():
        path = safe(root, rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text_bytes(content))


def tree(root: Path) -> List[str]:
    out = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath, name)
            if path.is_file() and not path.is_symlink():
                out.append(path.relative_to(root).as_posix())
    return sorted(out)


# -- results as JSON -------------------------------------------------------------

def receipt(r: am.WriteReceipt) -> Dict[str, Any]:
    # As the Rust runner: the warnings are in the message too.
    b = r.budget
    budget = {"index_lines": b.index_lines, "index_max_lines": b.index_max_lines,
              "index_bytes": b.index_bytes, "index_max_bytes": b.index_max_bytes,
              "block_bytes": b.block_bytes, "block_max_bytes": b.block_max_bytes,
              "reach": b.reach, "warning": b.warning}
    return {"path": r.path, "bytes_written": r.bytes_written,
            "truncated_from": r.truncated_from, "budget": budget, "message": r.message}


def results(r: am.SearchResults) -> Dict[str, Any]:
    return {
        "terms": [{"term": t.term, "count": t.count} for t in r.terms],
        "hits": [{"path": h.path, "matched_terms": h.matched_terms, "total_hits": h.total_hits,
                  "body": h.body, "filename_only": h.filename_only, "date": h.date,
                  "is_memory_md": h.is_memory_md} for h in r.hits],
    }


def status(s: am.SemanticStatus) -> Dict[str, Any]:
    return {"on": s.on, "model": s.model, "chunks": s.chunks, "ready": s.ready,
            "why_off": s.why_off, "line": s.line}


# -- running ---------------------------------------------------------------------

class Session:
    def __init__(self, case: Dict[str, Any], root: Path, files: "Path | None" = None,
                 team: "Path | None" = None) -> None:
        self.root = root
        # The project directory of a case with `project_files` (anchors).
        self.files = files
        self.team = team
        self.project = text(case["project"])
        self.now = case["now"]
        self.caps = case.get("caps", {})
        # The case's embedding model: every open enables it. Without one,
        # semantic recall is off, as in the Rust runner, whatever weights
        # the package ships.
        self.model = safe(VECTORS_DIR, text(case["model"])) if "model" in case else None
        self.memory = self.open(self.project, self.now, self.caps)

    def open(self, project: str, now: str, caps: Dict[str, Any]) -> am.Memory:
        unknown = set(caps) - {"max_inject_bytes", "max_write_bytes", "max_read_bytes"}
        if unknown:
            raise VectorError(f"unknown caps {sorted(unknown)}")
        return am.Memory(self.root, project, now=now, project_dir=self.files, team_dir=self.team,
                         semantic=self.model is not None, weights=self.model,
                         **{k: number(v) for k, v in caps.items()})

    def close(self) -> None:
        self.memory.close()

    def execute(self, step: Dict[str, Any]) -> Any:
        """The step's result as JSON; raises :class:`am.MemoryError`."""
        op = step["op"]
        m = self.memory

        def opt(name: str) -> Any:
            v = step.get(name)
            return None if v is None else text(v)

        if op == "open":
            project = text(step["project"]) if "project" in step else self.project
            self.memory.close()
            self.memory = self.open(project, step.get("now", self.now), step.get("caps", self.caps))
            return self.memory.project_slug
        if op == "write":
            return receipt(m.write(text(step["target"]), text(step["content"]),
                                   step.get("mode") or "append", opt("name")))
        if op == "read":
            return m.read(text(step["source"]), opt("name"))
        if op == "list":
            # `stale` only when there is a mark: the seeds' shape otherwise.
            return [{"path": f.path, "bytes": f.bytes, **({"stale": f.stale} if f.stale else {})}
                    for f in m.list_files()]
        if op == "append_daily":
            return receipt(m.append_daily(text(step["heading"]), text(step["body"])))
        # The vectors pin the seeds' behaviour: literal search and the seed
        # tool set, unless a step names a mode or set.
        if op == "search":
            return results(m.search(text(step["query"]), step.get("mode") or "literal"))
        if op == "render_search":
            max_bytes = step.get("max_bytes")
            return m.render_search(m.search(text(step["query"]), step.get("mode") or "literal"),
                                   None if max_bytes is None else number(max_bytes))
        if op == "context":
            return m.context_block()
        if op == "flush":
            count = step.get("count")
            return receipt(m.flush_compaction(text(step["summary"]),
                                              None if count is None else number(count)))
        if op == "call_tool":
            arguments = step["arguments"]
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
            return m.call_tool(text(step["tool"]), arguments)
        if op == "tool_definitions":
            return [{"name": d.name, "description": d.description, "parameters": d.parameters}
                    for d in m.tool_definitions(step.get("set") or "seed")]
        if op == "usage_prompt":
            return m.usage_prompt(step.get("set") or "seed")
        if op == "effective_reserve":
            return m.effective_reserve(number(step["base"]), opt("block"))
        if op == "append_memory_block":
            return m.append_memory_block(text(step["preamble"]), opt("block"))
        if op == "estimate_tokens":
            return m.estimate_tokens(text(step["text"]))
        if op == "plant":
            plant(self.root, step)
            return None
        if op == "remove":
            safe(self.root, text(step["path"])).unlink()
            return None
        if op == "file":
            path = safe(self.root, text(step["path"]))
            return path.read_bytes().decode("utf-8", "replace") if path.exists() else None
        if op == "tree":
            return tree(self.root)
        if op == "semantic_status":
            return status(m.semantic_status())
        if op == "semantic_index":
            limit = step.get("limit")
            return status(m.index_vectors(None if limit is None else number(limit)))
        if op == "semantic_off":
            m.disable_semantic(text(step["why"]))
            return None
        if op.startswith("project_"):
            if self.files is None:
                raise VectorError(f"{op} in a case without project_files")
            if op == "project_plant":
                plant(self.files, {"files": step["files"]})
            elif op == "project_remove":
                safe(self.files, text(step["path"])).unlink()
            elif op == "project_rename":
                to = safe(self.files, text(step["to"]))
                to.parent.mkdir(parents=True, exist_ok=True)
                safe(self.files, text(step["from"])).rename(to)
            elif op == "project_touch":
                # An hour back: another mtime, the same bytes.
                path = safe(self.files, text(step["path"]))
                when = time.time() - 3600
                os.utime(path, (when, when))
            else:
                raise VectorError(f"unknown op {op!r}")
            return None
        raise VectorError(f"unknown op {op!r}")


def run_case(case: Dict[str, Any]) -> None:
    """Runs one case; raises ``AssertionError`` naming the step that failed."""
    with tempfile.TemporaryDirectory(prefix="agent-memory-vector-") as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        plant(root, case)
        files = None
        if "project_files" in case:
            files = Path(tmp) / "project"
            files.mkdir()
            plant(files, {"files": case["project_files"]})
        team = None
        if "team_files" in case:
            team = Path(tmp) / "team"
            team.mkdir()
            plant(team, {"files": case["team_files"]})
        session = Session(case, root, files, team)
        try:
            for i, step in enumerate(case["steps"], 1):
                at = f"step {i} ({step['op']})"
                try:
                    outcome: Any = session.execute(step)
                    failed = None
                except am.MemoryError as e:
                    outcome, failed = _UNSET, e
                check(step.get("expect", _UNSET), outcome, failed, at)
        finally:
            session.close()
        expected = [(root, "expect_files")]
        if "expect_team_files" in case:
            assert team is not None, "`expect_team_files` without `team_files`"
            expected.append((team, "expect_team_files"))
        for base, key in expected:
            for rel, want in case.get(key, {}).items():
                path = safe(base, rel)
                at = f"{key} {rel!r}"
                if want is None:
                    assert not path.exists(), f"{at}: exists but should not"
                else:
                    assert path.is_file(), f"{at}: missing"
                    have, want_bytes = path.read_bytes(), text_bytes(want)
                    assert have == want_bytes, f"{at}:\n  expected {show(want_bytes)}\n  actual   {show(have)}"
        if "expect_tree" in case:
            match(case["expect_tree"], tree(root), "expect_tree")


def check(expect: Any, outcome: Any, failed: "am.MemoryError | None", at: str) -> None:
    error = expect.get("error") if is_matcher(expect) else None
    if failed is not None:
        assert error is not None, f"{at}: failed with {failed.kind}: {failed.message}"
        assert failed.kind == error, f"{at}: expected error {error}, got {failed.kind}: {failed.message}"
        # A kind the WIT names, or one that came as `other(name)`: never the
        # catch-all's own name.
        assert failed.kind in KNOWN_KINDS or re.fullmatch(r"[a-z]+(-[a-z]+)*", failed.kind), \
            f"{at}: {failed.kind!r} is not an error kind"
        assert failed.kind != "other", f"{at}: `other` must carry its name"
        if "message_contains" in expect:
            part = text(expect["message_contains"])
            assert part in failed.message, f"{at}: the {failed.kind} message {failed.message!r} lacks {part!r}"
        return
    assert error is None, f"{at}: expected error {error}, got success {show(outcome)}"
    if expect is not _UNSET:
        match(expect, outcome, at)


def match(expect: Any, actual: Any, at: str) -> None:
    if is_generator(expect):
        want = text(expect)
        assert actual == want, f"{at}:\n  expected {show(want)}\n  actual   {show(actual)}"
    elif is_matcher(expect):
        for key, arg in expect.items():
            apply(key, arg, actual, f"{at} [{key}]")
    elif isinstance(expect, dict):
        assert isinstance(actual, dict), f"{at}: expected an object, got {show(actual)}"
        assert sorted(expect) == sorted(actual), \
            f"{at}: keys differ: expected {sorted(expect)}, actual {sorted(actual)}"
        for key, want in expect.items():
            match(want, actual[key], f"{at}.{key}")
    elif isinstance(expect, list):
        assert isinstance(actual, list), f"{at}: expected a list, got {show(actual)}"
        assert len(expect) == len(actual), \
            f"{at}: expected {len(expect)} items, got {len(actual)}: {show(actual)}"
        for i, (want, have) in enumerate(zip(expect, actual)):
            match(want, have, f"{at}[{i}]")
    elif isinstance(expect, str) and isinstance(actual, int) and not isinstance(actual, bool):
        assert expect == str(actual), f"{at}: expected {expect}, actual {actual}"
    else:
        assert type(expect) is type(actual) and expect == actual, \
            f"{at}:\n  expected {show(expect)}\n  actual   {show(actual)}"


def apply(key: str, arg: Any, actual: Any, at: str) -> None:
    def texts(v: Any) -> List[str]:
        return [text(x) for x in v] if isinstance(v, list) else [text(v)]

    def string() -> str:
        assert isinstance(actual, str), f"{at}: expected a text, got {show(actual)}"
        return actual

    def items() -> list:
        assert isinstance(actual, list), f"{at}: expected a list, got {show(actual)}"
        return actual

    if key in ("error", "message_contains"):
        raise AssertionError(f"{at}: an error matcher on a success")
    if key == "contains":
        for part in texts(arg):
            assert part in string(), f"{at}: missing {show(part)} in {show(actual)}"
    elif key == "not_contains":
        for part in texts(arg):
            assert part not in string(), f"{at}: unexpected {show(part)} in {show(actual)}"
    elif key == "starts_with":
        assert string().startswith(text(arg)), f"{at}: no prefix {show(text(arg))} in {show(actual)}"
    elif key == "ends_with":
        assert string().endswith(text(arg)), f"{at}: no suffix {show(text(arg))} in {show(actual)}"
    elif key == "max_bytes":
        size = len(string().encode("utf-8"))
        assert size <= number(arg), f"{at}: {size} bytes, more than {arg}"
    elif key == "bytes":
        size = len(string().encode("utf-8"))
        assert size == number(arg), f"{at}: {size} bytes, not {arg}"
    elif key == "count":
        for part, want in arg.items():
            have = string().count(part)
            assert have == number(want), f"{at}: {have} x {show(part)}, not {want}, in {show(actual)}"
    elif key == "fields":
        assert isinstance(actual, dict), f"{at}: expected an object, got {show(actual)}"
        for name, want in arg.items():
            assert name in actual, f"{at}: no field {name!r} in {show(actual)}"
            match(want, actual[name], f"{at}.{name}")
    elif key == "len":
        assert len(items()) == number(arg), f"{at}: {len(actual)} items, not {arg}: {show(actual)}"
    elif key == "each":
        for i, item in enumerate(items()):
            match(arg, item, f"{at}[{i}]")
    elif key == "head":
        assert len(items()) >= len(arg), f"{at}: fewer than {len(arg)} items: {show(actual)}"
        for i, (want, have) in enumerate(zip(arg, actual)):
            match(want, have, f"{at}[{i}]")
    else:
        raise VectorError(f"{at}: unknown matcher {key!r}")


def show(v: Any, keep: int = 300) -> str:
    s = v.decode("utf-8", "replace") if isinstance(v, bytes) else v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    if len(s) <= 2 * keep:
        return repr(s)
    return f"{s[:keep]!r} …({len(s.encode('utf-8'))} bytes)… {s[-keep:]!r}"


KNOWN_KINDS = frozenset(known_kinds())
