"""What the shared vectors cannot say: the Python surface itself (the package,
types, exceptions, handles and groups, limits, recovery, the sandbox)."""

import builtins
import datetime as dt
import gc
import os
from pathlib import Path

import pytest

import agent_memory as am
from conformance import REPO, wit_cases

PROJECT = "/home/dev/src/my-app"
NOW = "2026-05-30T09:15:00+02:00"


@pytest.fixture
def memory(tmp_path):
    with am.Memory(tmp_path / "root", PROJECT, now=NOW) as memory:
        yield memory


def test_the_installed_package_carries_its_component():
    # The suite runs against `pip install ./hosts/python`, not the source tree.
    package = Path(am.__file__).resolve().parent
    assert REPO / "hosts" / "python" / "src" not in package.parents
    assert (package / "py.typed").is_file()
    wasm = package / "agent_memory_component.wasm"
    assert wasm.is_file() and wasm.read_bytes()[:4] == b"\0asm"
    if "AGENT_MEMORY_WASM" not in os.environ:
        assert am.default_component_path() == wasm


def test_the_words_are_the_wit_cases():
    assert list(am.WRITE_TARGETS) == wit_cases("write-target")
    assert list(am.READ_SOURCES) == wit_cases("read-source")
    assert list(am.WRITE_MODES) == wit_cases("write-mode")
    # The error kinds live only in the WIT: the host maps the variant.
    assert "other" in wit_cases("error-kind")
    assert not hasattr(am, "ERROR_KINDS")


def test_errors_carry_the_wit_kind_and_a_message(memory):
    with pytest.raises(am.MemoryError) as info:
        memory.write("note", "x", name="../escape")
    assert info.value.kind == "invalid-name"
    assert "../escape" in info.value.message
    assert str(info.value) == f"invalid-name: {info.value.message}"
    # Our MemoryError is an ordinary exception, not Python's out-of-memory one.
    assert not isinstance(info.value, builtins.MemoryError)
    assert am.AgentMemoryError is am.MemoryError
    with pytest.raises(am.MemoryError) as info:
        memory.call_tool("memory_delete", {})
    assert info.value.kind == "unknown-tool"


def test_an_other_kind_arrives_by_its_name(memory, monkeypatch):
    # A newer component's kind comes as `other(name)`: the host needs no list.
    error = am._record(kind=am.Variant("other", "secret-detected"), message="a secret in MEMORY.md")
    monkeypatch.setattr(am._Group, "raw_call", lambda self, *a: am.Variant("err", error))
    with pytest.raises(am.MemoryError) as info:
        memory.write("long-term", "x")
    assert (info.value.kind, info.value.message) == ("secret-detected", "a secret in MEMORY.md")


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
    assert list(memory.root.iterdir()) == []


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
    assert [d.name for d in definitions][:3] == ["memory_write", "memory_read", "memory_search"]
    assert definitions[0].parameters["required"] == ["target", "content"]
    assert memory.compaction_heading(3) == "compaction summary (3 msgs)"
    assert memory.compaction_heading() == "compaction summary"
    assert memory.estimate_tokens("12345") == 2
    assert memory.effective_reserve(2**64 - 1, "xxxx") == 2**64 - 1


def test_what_open_resolved(memory):
    assert memory.info() == am.MemoryInfo("my-app-f5485506", "projects/my-app-f5485506", "2026-05-30")
    assert memory.project_slug == "my-app-f5485506"
    assert memory.project_dir == "projects/my-app-f5485506"
    assert memory.today == "2026-05-30"
    assert memory.guest_root == "/"
    assert memory.root.is_dir() and memory.root.is_absolute()


def test_limits_default_and_overridden(tmp_path):
    with am.Memory(tmp_path, PROJECT, now=NOW) as memory:
        limits = memory.limits()
    assert (limits.max_inject_bytes, limits.max_write_bytes, limits.max_read_bytes) == (32768, 65536, 32768)
    assert (limits.lock_lease_ms, limits.lock_wait_ms, limits.max_query_terms) == (10000, 15000, 64)
    with am.Memory(tmp_path, PROJECT, now=NOW, max_write_bytes=5, lock_lease_ms=2000, lock_wait_ms=0) as memory:
        limits = memory.limits()
        assert (limits.max_write_bytes, limits.lock_lease_ms, limits.lock_wait_ms) == (5, 2000, 0)
        assert memory.write("long-term", "0123456789").truncated_from == 10
    with pytest.raises(am.MemoryError) as info:
        am.Memory(tmp_path, PROJECT, now=NOW, lock_lease_ms=10)
    assert info.value.kind == "invalid-options"


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


# -- handles and groups ------------------------------------------------------------


def test_two_handles_on_two_roots_in_one_instance_stay_independent(tmp_path):
    a, b = am.open_group([
        am.OpenOptions(tmp_path / "a", "/src/alpha", now=NOW, max_write_bytes=4),
        am.OpenOptions(tmp_path / "b", "/src/beta", now="2026-01-02T03:04:05-08:00"),
    ])
    assert a._group is b._group  # one instance
    assert (a.guest_root, b.guest_root) == ("/memory-0", "/memory-1")
    # Own project and clock.
    assert a.info() == am.MemoryInfo("alpha-" + a.project_slug[-8:], "projects/" + a.project_slug, "2026-05-30")
    assert b.project_slug.startswith("beta-") and b.today == "2026-01-02"
    # Own limits.
    assert (a.limits().max_write_bytes, b.limits().max_write_bytes) == (4, 65536)
    assert a.write("long-term", "only in a").truncated_from == 9
    assert b.write("long-term", "only in b").truncated_from is None
    # Neither sees the other's files.
    a.write("note", "alpha secret", name="plans")
    assert b.read("note", "plans") is None
    with pytest.raises(am.MemoryError) as info:
        b.call_tool("memory_read", {"source": "note", "name": "plans"})
    assert info.value.kind == "not-found"
    assert b.search("secret").hits == [] and b.search("only").hits[0].body == "only in b"
    assert [f.path for f in b.list_files()] == ["MEMORY.md"]
    assert (tmp_path / "a" / "MEMORY.md").read_text() == "only"
    assert (tmp_path / "b" / "MEMORY.md").read_text() == "only in b"
    assert sorted(p.name for p in (tmp_path / "b").rglob("*")) == ["MEMORY.md"]


def test_close_releases_the_handle_and_the_rest_of_the_group_lives_on(tmp_path):
    a, b = am.open_group([am.OpenOptions(tmp_path / "a", PROJECT, now=NOW),
                          am.OpenOptions(tmp_path / "b", PROJECT, now=NOW)])
    group = a._group
    assert group.members[0].handle is not None
    a.close()
    a.close()  # idempotent
    assert a.closed and group.members[0].handle is None
    with pytest.raises(ValueError, match="closed"):
        a.read("long-term")
    assert b.write("long-term", "- b").path == "MEMORY.md"
    with b:
        pass
    assert b.closed and group.live is None


def test_a_collected_handle_is_released(tmp_path):
    a, b = am.open_group([am.OpenOptions(tmp_path / "a", PROJECT, now=NOW),
                          am.OpenOptions(tmp_path / "b", PROJECT, now=NOW)])
    group = b._group
    del a
    gc.collect()
    assert group.members[0].closed
    assert b.read("long-term") is None  # the drop ran, and b still works
    assert group.members[0].handle is None


def test_a_group_with_bad_options_opens_nothing(tmp_path):
    with pytest.raises(am.MemoryError) as info:
        am.open_group([am.OpenOptions(tmp_path / "a", PROJECT, now=NOW),
                       am.OpenOptions(tmp_path / "b", "", now=NOW)])
    assert info.value.kind == "invalid-options"


# -- limits and recovery -------------------------------------------------------------


def test_a_huge_write_hits_the_memory_cap_and_the_next_call_works(memory):
    memory.write("long-term", "- kept")
    huge = "x" * (300 << 20)  # more than the 256 MiB default cap
    with pytest.raises(am.MemoryTrap) as info:
        memory.write("long-term", huge)
    del huge
    assert info.value.limit == "memory"
    assert info.value.operation == "store.write"
    assert str(268435456) in info.value.message
    # A fresh instance, opened with the same options, serves the next call.
    assert memory.read("long-term") == "- kept"
    assert memory.today == "2026-05-30"


def test_the_cap_is_what_stops_a_huge_write(tmp_path):
    huge = "x" * (40 << 20)
    with am.Memory(tmp_path, PROJECT, now=NOW, max_memory_bytes=32 << 20) as memory:
        with pytest.raises(am.MemoryTrap) as info:
            memory.write("long-term", huge)
        assert info.value.limit == "memory"
    # Under a cap with room for it, the same write goes through (cut to the
    # write cap, as any long write).
    with am.Memory(tmp_path, PROJECT, now=NOW, max_memory_bytes=128 << 20) as memory:
        receipt = memory.write("long-term", huge)
    assert (receipt.bytes_written, receipt.truncated_from) == (65536, 40 << 20)


def test_a_ten_megabyte_query_of_single_letters_is_refused_or_answered(memory):
    memory.write("long-term", "a b c")
    distinct = " ".join(chr(0x4E00 + i % 20000) for i in range(5_000_000))
    assert len(distinct.encode()) > 10_000_000
    with pytest.raises(am.MemoryError) as info:
        memory.search(distinct)
    assert info.value.kind == "invalid-arguments"
    with pytest.raises(am.MemoryError) as info:
        memory.call_tool("memory_search", {"query": distinct})
    assert info.value.kind == "invalid-arguments"
    same = "a " * 5_000_000
    results = memory.search(same)
    assert results.terms == [am.TermCount("a", 1)]
    assert memory.read("long-term") == "a b c"


def test_a_call_past_its_timeout_is_interrupted_and_the_next_call_works(tmp_path):
    root = tmp_path / "root"
    daily = root / "projects" / "my-app-f5485506" / "daily"
    daily.mkdir(parents=True)
    line = "a " * 40 + "\n"
    for day in range(1, 9):
        (daily / f"2026-05-{day:02}.md").write_text(line * 200_000)
    # 64 distinct terms over 128 MB take seconds here; the bound is a
    # fraction of that, and still ample for the next call in a fresh instance.
    query = " ".join(["a"] + [f"t{i}" for i in range(63)])
    with am.Memory(root, PROJECT, now=NOW, call_timeout=1.0) as memory:
        with pytest.raises(am.MemoryTrap) as info:
            memory.search(query)
        assert info.value.limit == "time"
        assert "1 s" in info.value.message
        assert memory.write("long-term", "- after").path == "MEMORY.md"
        assert memory.read("long-term") == "- after"


def test_a_trap_in_one_member_reopens_the_whole_group(tmp_path):
    a, b = am.open_group([am.OpenOptions(tmp_path / "a", PROJECT, now=NOW, max_write_bytes=5),
                          am.OpenOptions(tmp_path / "b", "/src/other", now=NOW)])
    with pytest.raises(am.MemoryTrap):
        a.write("long-term", "x" * (300 << 20))
    assert a._group.live is None
    # Both reopen with their own options on their next call.
    assert b.info().project_slug.startswith("other-")
    assert a.limits().max_write_bytes == 5 and b.limits().max_write_bytes == 65536


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


def test_a_missing_component_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="agent-memory"):
        am.Memory(tmp_path, PROJECT, component=tmp_path / "nope.wasm")

