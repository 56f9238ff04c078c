"""What the shared vectors cannot say: the Python surface itself (types,
exceptions, argument checking, the sandbox as seen from Python, recovery)."""

import builtins
import datetime as dt
import os

import pytest
from wasmtime import WasmtimeError

import agent_memory as am

PROJECT = "/home/dev/src/my-app"
NOW = "2026-05-30T09:15:00+02:00"


@pytest.fixture
def memory(tmp_path):
    return am.Memory(tmp_path / "root", PROJECT, now=NOW)


def test_errors_carry_the_wit_kind_and_a_message(memory):
    with pytest.raises(am.MemoryError) as info:
        memory.write("note", "x", name="../escape")
    assert info.value.kind == "invalid-name"
    assert "../escape" in info.value.message
    assert info.value.kind in am.ERROR_KINDS
    # Our MemoryError is an ordinary exception, not Python's out-of-memory one.
    assert not isinstance(info.value, builtins.MemoryError)
    assert am.AgentMemoryError is am.MemoryError


def test_a_bad_target_source_or_mode_raises_before_the_component(memory):
    with pytest.raises(am.MemoryError) as info:
        memory.write("longterm", "x")
    assert info.value.kind == "invalid-target"
    with pytest.raises(am.MemoryError) as info:
        memory.write("long-term", "x", mode="prepend")
    assert info.value.kind == "invalid-mode"
    with pytest.raises(am.MemoryError) as info:
        memory.read("list")
    assert info.value.kind == "invalid-target"
    assert list((memory.root).iterdir()) == []


def test_the_tool_words_work_as_targets_too(memory):
    assert memory.write("long_term", "- a").path == "MEMORY.md"
    assert memory.read("long_term") == "- a"


def test_typed_results(memory):
    receipt = memory.write("note", "Tokens rotate hourly.", name="auth")
    assert receipt == am.WriteReceipt(
        path=f"{memory.project_dir}/notes/auth.md",
        bytes_written=21,
        truncated_from=None,
        message=f"Appended 21 bytes to {memory.project_dir}/notes/auth.md",
    )
    assert memory.list_files() == [am.FileInfo(receipt.path, 21)]
    results = memory.search("rotate")
    assert results.terms == [am.TermCount("rotate", 1)]
    assert [h.path for h in results.hits] == [receipt.path]
    rendered = memory.render_search(results, 4096)
    assert rendered.startswith("Searched 1 term: rotate(1)")
    assert memory.render_search(results) == memory.call_tool("memory_search", {"query": "rotate"})
    definitions = memory.tool_definitions()
    assert [d.name for d in definitions] == ["memory_write", "memory_read", "memory_search"]
    assert definitions[0].parameters["required"] == ["target", "content"]
    assert memory.compaction_heading(3) == "compaction summary (3 msgs)"
    assert memory.compaction_heading() == "compaction summary"


def test_what_open_resolved(memory):
    assert memory.project_slug == "my-app-f5485506"
    assert memory.project_dir == "projects/my-app-f5485506"
    assert memory.today == "2026-05-30"
    assert memory.root.is_dir() and memory.root.is_absolute()


def test_now_as_an_aware_datetime(tmp_path):
    west = dt.timezone(dt.timedelta(hours=-7))
    memory = am.Memory(tmp_path, PROJECT, now=dt.datetime(2026, 5, 29, 16, 30, tzinfo=west))
    assert memory.today == "2026-05-29"
    assert memory.append_daily("west", "x").path.endswith("/daily/2026-05-29.md")
    # An explicit offset wins over the datetime's.
    memory = am.Memory(tmp_path, PROJECT, now=dt.datetime(2026, 5, 29, 16, 30, tzinfo=west),
                       utc_offset_minutes=120)
    assert memory.today == "2026-05-30"


def test_now_must_carry_an_offset(tmp_path):
    with pytest.raises(ValueError, match="UTC offset"):
        am.Memory(tmp_path, PROJECT, now=dt.datetime(2026, 5, 30, 9, 15))
    with pytest.raises(ValueError, match="RFC 3339"):
        am.Memory(tmp_path, PROJECT, now="yesterday")


def test_the_system_clock_by_default(tmp_path):
    memory = am.Memory(tmp_path, PROJECT)
    assert memory.today == dt.datetime.now().astimezone().date().isoformat()


def test_invalid_options_raise_memory_error(tmp_path):
    with pytest.raises(am.MemoryError) as info:
        am.Memory(tmp_path, "")
    assert info.value.kind == "invalid-options"
    with pytest.raises(am.MemoryError) as info:
        am.Memory(tmp_path, PROJECT, utc_offset_minutes=24 * 60)
    assert info.value.kind == "invalid-options"


def test_one_root_per_instance(tmp_path):
    a = am.Memory(tmp_path / "a", PROJECT, now=NOW)
    b = am.Memory(tmp_path / "b", PROJECT, now=NOW)
    a.write("long-term", "only in a")
    assert b.read("long-term") is None
    assert (tmp_path / "a" / "MEMORY.md").read_text() == "only in a"
    assert not (tmp_path / "b" / "MEMORY.md").exists()


def test_a_symlink_out_of_the_root_leaks_nothing(tmp_path, memory):
    outside = tmp_path / "outside.md"
    outside.write_text("top secret")
    notes = memory.root / memory.project_dir / "notes"
    notes.mkdir(parents=True)
    os.symlink(outside, notes / "leak.md")
    with pytest.raises(am.MemoryError) as info:
        memory.read("note", "leak")
    assert info.value.kind == "not-a-file"
    with pytest.raises(am.MemoryError):
        memory.write("note", "overwritten", mode="overwrite", name="leak")
    assert outside.read_text() == "top secret"
    assert memory.search("secret").hits == []


def test_a_trap_is_reported_and_the_next_call_starts_afresh(memory, monkeypatch):
    memory.write("long-term", "- kept on disk")
    real = memory._func

    class Trapping:
        def __init__(self, func):
            self.func = func

        def __call__(self, store, *args):
            raise WasmtimeError("wasm trap: wasm `unreachable` instruction executed")

    monkeypatch.setattr(memory, "_func", lambda interface, name: Trapping(real(interface, name)))
    with pytest.raises(am.MemoryTrap) as info:
        memory.read("long-term")
    assert info.value.operation == "memory.read"
    assert "unreachable" in info.value.message
    monkeypatch.undo()
    # A fresh instance, opened with the same options, serves the next call.
    assert memory.read("long-term") == "- kept on disk"
    assert memory.today == "2026-05-30"


def test_a_missing_component_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="cargo build -p agent-memory"):
        am.Memory(tmp_path, PROJECT, component=tmp_path / "nope.wasm")
