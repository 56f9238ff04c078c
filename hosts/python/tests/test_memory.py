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
    # Lexical search, as the tests here expect: semantic recall has its own
    # tests (test_semantic.py).
    with am.Memory(tmp_path / "root", PROJECT, now=NOW, semantic=False) as memory:
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
    assert list(am.SEARCH_MODES) == wit_cases("search-mode")
    assert list(am.TOOL_SETS) == wit_cases("tool-set")
    assert list(am.SECRET_POLICIES) == wit_cases("secret-policy")
    assert list(am.OPERATIONS) == wit_cases("operation")
    assert list(am.SCOPES) == wit_cases("scope")
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
        memory.call_tool("memory_teleport", {})
    assert info.value.kind == "unknown-tool"


def test_an_other_kind_arrives_by_its_name(memory, monkeypatch):
    # A newer component's kind comes as `other(name)`: the host needs no list.
    error = am._record(kind=am.Variant("other", "quota-exceeded"), message="MEMORY.md is over quota")
    monkeypatch.setattr(am._Group, "raw_call", lambda self, *a: am.Variant("err", error))
    with pytest.raises(am.MemoryError) as info:
        memory.write("long-term", "x")
    assert (info.value.kind, info.value.message) == ("quota-exceeded", "MEMORY.md is over quota")


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
    assert memory.read("long_term") == "- a\n"


def test_typed_results(memory):
    receipt = memory.write("note", "Tokens rotate hourly.", name="auth")
    assert receipt == am.WriteReceipt(
        path=f"{memory.project_dir}/notes/auth.md",
        bytes_written=22,
        truncated_from=None,
        warnings=[],
        budget=am.Budget(
            index_lines=0,
            index_max_lines=200,
            index_bytes=0,
            index_max_bytes=25000,
            block_bytes=0,
            block_max_bytes=32768,
            reach="not-injected",
            warning=None,
        ),
        message=f"Appended 22 bytes to {memory.project_dir}/notes/auth.md\n"
        "Budget: MEMORY.md 0/200 lines, 0/25000 bytes; context block 0/32768 bytes"
        " (notes are not in it; memory_search finds them)",
    )
    assert memory.list_files() == [am.FileInfo(receipt.path, 22)]
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
    assert (limits.history_max_versions, limits.history_max_bytes) == (50, 64 << 20)
    with am.Memory(tmp_path, PROJECT, now=NOW, max_write_bytes=5, lock_lease_ms=2000, lock_wait_ms=0,
                   history_max_versions=3, history_max_bytes=2**40) as memory:
        limits = memory.limits()
        assert (limits.max_write_bytes, limits.lock_lease_ms, limits.lock_wait_ms) == (5, 2000, 0)
        assert (limits.history_max_versions, limits.history_max_bytes) == (3, 2**40)
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
        # Lexical: by meaning, `secret` would find b's own MEMORY.md.
        am.OpenOptions(tmp_path / "b", "/src/beta", now="2026-01-02T03:04:05-08:00", semantic=False),
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
    assert b.search("secret").hits == [] and b.search("only", "literal").hits[0].body == "only in b"
    assert [f.path for f in b.list_files()] == ["MEMORY.md"]
    assert (tmp_path / "a" / "MEMORY.md").read_text() == "only\n"
    assert (tmp_path / "b" / "MEMORY.md").read_text() == "only in b\n"
    # b's files: its MEMORY.md and its own history (hidden under `.store/`),
    # where nothing of a's is.
    b_files = [p for p in (tmp_path / "b").rglob("*") if p.is_file()]
    assert sorted(p.name for p in b_files if ".store" not in p.parts) == ["MEMORY.md"]
    assert not any(b"alpha" in p.read_bytes() or b"only in a" in p.read_bytes() for p in b_files)


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
    assert memory.read("long-term") == "- kept\n"
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
    assert (receipt.bytes_written, receipt.truncated_from) == (65537, 40 << 20)


def test_a_ten_megabyte_query_of_single_letters_is_refused_or_answered(memory):
    memory.write("long-term", "a b c")
    distinct = " ".join(chr(0x4E00 + i % 20000) for i in range(5_000_000))
    assert len(distinct.encode()) > 10_000_000
    for mode in am.SEARCH_MODES:
        with pytest.raises(am.MemoryError) as info:
            memory.search(distinct, mode)
        assert info.value.kind == "invalid-arguments"
    with pytest.raises(am.MemoryError) as info:
        memory.call_tool("memory_search", {"query": distinct})
    assert info.value.kind == "invalid-arguments"
    # In literal mode: ranked mode still exhausts the 256 MiB cap on a query
    # of millions of words (a MemoryTrap), a bound the guest lacks so far.
    same = "a " * 5_000_000
    results = memory.search(same, "literal")
    assert results.terms == [am.TermCount("a", 1)]
    assert memory.read("long-term") == "a b c\n"


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
        assert memory.read("long-term") == "- after\n"


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



# -- history, the secret guard, search modes, tool sets ------------------------------

# The budget line of a change to a note while nothing is injected.
NOTE_BUDGET = "Budget: MEMORY.md 0/200 lines, 0/25000 bytes; context block 0/32768 bytes (notes are not in it; memory_search finds them)"

# A made-up GitHub token of the right shape (the guard's own test value).
TOKEN = "ghp_Zq8Kd0WmX3rT5yUvB7nC1eE9fG2hJ4kL6pQs"


def test_edit_delete_rename_history_restore_round_trip(tmp_path):
    with am.Memory(tmp_path, PROJECT, now=NOW, source="agent-7") as memory:
        notes = f"{memory.project_dir}/notes"
        memory.write("note", "Tokens rotate hourly.\nOwner: ops", name="auth")
        edited = memory.edit("note", "hourly", "daily", name="auth")
        assert edited == am.EditReceipt(
            path=f"{notes}/auth.md", line=1, bytes=32, warnings=[],
            budget=am.Budget(0, 200, 0, 25000, 0, 32768, "not-injected", None),
            message=f"Edited {notes}/auth.md: replaced 6 bytes at line 1 with 5 bytes\n{NOTE_BUDGET}",
        )
        renamed = memory.rename_note("auth", "infra/auth")
        assert (renamed.from_, renamed.to) == (f"{notes}/auth.md", f"{notes}/infra/auth.md")
        deleted = memory.delete_note("infra/auth")
        assert (deleted.path, deleted.existed, deleted.bytes) == (f"{notes}/infra/auth.md", True, 32)
        assert not (tmp_path / notes / "infra").exists()  # the emptied topic folder went too
        again = memory.delete_note("infra/auth")
        assert (again.existed, again.bytes) == (False, 0)
        assert memory.read("note", "infra/auth") is None

        # The old name's history: the rename replaced "daily", the edit "hourly".
        old = memory.history("note", "auth")
        assert [(v.operation, v.bytes, v.other_path) for v in old] == [
            ("rename", 32, f"{notes}/infra/auth.md"), ("edit", 33, None), ("append", None, None),
        ]
        assert all(v.source == "agent-7" and v.path == f"{notes}/auth.md" for v in old)
        assert old[0].time == dt.datetime.fromisoformat(NOW)
        assert memory.history("note", "auth", limit=1) == old[:1]
        # The new name's: created by the rename, then deleted.
        new = memory.history("note", "infra/auth")
        assert [(v.operation, v.bytes) for v in new] == [("delete", 32), ("rename", None)]
        last = memory.last_change()
        assert last == new[0]

        # Undo the delete: the note is back, and the restore is history too.
        restored = memory.restore(last.id)
        assert restored.path == f"{notes}/infra/auth.md" and restored.bytes_written == 32
        first, budget = restored.message.split("\n")
        assert first == f"Restored {notes}/infra/auth.md to version {last.id} (32 bytes)"
        assert restored.budget.reach == "not-injected"
        assert budget.endswith("(notes are not in it; memory_search finds them)")
        assert memory.read("note", "infra/auth") == "Tokens rotate daily.\nOwner: ops\n"
        assert memory.last_change().operation == "restore"
        # Back to before the edit, under the old name.
        memory.restore(old[1].id)
        assert memory.read("note", "auth") == "Tokens rotate hourly.\nOwner: ops\n"
        with pytest.raises(am.MemoryError) as info:
            memory.restore("v999")
        assert info.value.kind == "not-found"


def test_undo_and_write_if_unchanged_check_under_the_lock(memory):
    import hashlib

    assert memory.undo() is None
    for v in ("v1", "v2", "v3"):
        memory.write("long-term", v, mode="overwrite")
    shown = memory.last_change()
    undone = memory.undo(shown.id)
    assert undone.message.startswith(
        f"Undid the last change (write of MEMORY.md): Restored MEMORY.md to version {shown.id}"
    )
    assert memory.read("long-term") == "v2\n"
    # The change shown is no longer the last: nothing is undone.
    with pytest.raises(am.MemoryError) as info:
        memory.undo(shown.id)
    assert info.value.kind == "conflict"
    assert memory.undo().message.startswith("Undid the last change (restore of MEMORY.md)")
    assert memory.read("long-term") == "v3\n"

    base = hashlib.sha256("v3\n".encode()).hexdigest()
    receipt = memory.write_if_unchanged("long-term", "mine", base)
    assert receipt.message.startswith("Overwrote MEMORY.md with 5 bytes")
    with pytest.raises(am.MemoryError) as info:
        memory.write_if_unchanged("long-term", "theirs", base)
    assert info.value.kind == "conflict"
    assert memory.read("long-term") == "mine\n"


def test_edit_and_rename_refuse_with_the_new_kinds(memory):
    memory.write("long-term", "- a\n- b\n- a")
    with pytest.raises(am.MemoryError) as info:
        memory.edit("long-term", "- a", "- c")
    assert info.value.kind == "ambiguous" and "lines 1, 3" in info.value.message
    with pytest.raises(am.MemoryError) as info:
        memory.edit("long-term", "- z", "- c")
    assert info.value.kind == "not-found"
    memory.write("note", "one", name="one")
    memory.write("note", "two", name="two")
    with pytest.raises(am.MemoryError) as info:
        memory.rename_note("one", "two")
    assert info.value.kind == "already-exists"
    with pytest.raises(am.MemoryError) as info:
        memory.rename_note("three", "four")
    assert info.value.kind == "not-found"
    with pytest.raises(am.MemoryError) as info:
        memory.history("note", "one", limit=0)
    assert info.value.kind == "invalid-arguments"
    assert memory.read("long-term") == "- a\n- b\n- a\n"
    assert (memory.read("note", "one"), memory.read("note", "two")) == ("one\n", "two\n")


def test_read_version_gives_the_text_before_a_change_and_changes_nothing(memory):
    memory.write("note", "one\n", mode="overwrite", name="a")
    memory.write("note", "two\n", mode="overwrite", name="a")
    versions = memory.history("note", "a")
    assert [v.operation for v in versions] == ["write", "write"]
    assert memory.read_version(versions[0].id) == "one\n"
    assert memory.read_version(versions[1].id) is None  # the note did not exist then
    assert memory.history("note", "a") == versions
    assert memory.read("note", "a") == "two\n"
    for bad in ("v999", "x", ""):
        with pytest.raises(am.MemoryError) as info:
            memory.read_version(bad)
        assert info.value.kind == "not-found", bad


def test_search_top_is_the_head_of_the_whole_search(memory):
    for i in range(8):
        memory.write("note", "deploy staging\n" * (i + 1), name=f"n{i}")
    for mode in ("ranked", "literal"):
        whole = memory.search("deploy", mode)
        page = memory.search_top("deploy", 3, mode)
        assert page.total == len(whole.hits) == 8
        assert page.terms == whole.terms and page.hits == whole.hits[:3]
        assert whole.hits[0].path in memory.render_search(page)
    with pytest.raises(am.MemoryError) as info:
        memory.search_top("deploy", 0)
    assert info.value.kind == "invalid-arguments"


def test_history_limits_are_options(tmp_path):
    with am.Memory(tmp_path, PROJECT, now=NOW, history_max_versions=0) as memory:
        memory.write("long-term", "- one")
        memory.write("long-term", "- two", mode="overwrite")
        assert memory.history("long-term") == [] and memory.last_change() is None
    with am.Memory(tmp_path, PROJECT, now=NOW, history_max_versions=2) as memory:
        for i in range(4):
            memory.write("long-term", f"- {i}", mode="overwrite")
        assert [v.bytes for v in memory.history("long-term")] == [4, 4]


def test_a_secret_is_refused_under_block_the_default(tmp_path):
    with am.Memory(tmp_path, PROJECT, now=NOW) as memory:
        memory.write("long-term", "- deploys need a token")
        for write in (
            lambda: memory.write("long-term", f"- token {TOKEN}"),
            lambda: memory.edit("long-term", "a token", TOKEN),
            lambda: memory.call_tool("memory_write", {"target": "note", "name": "n", "content": TOKEN}),
        ):
            with pytest.raises(am.MemoryError) as info:
                write()
            assert info.value.kind == "secret-detected"
            assert "github-pat on line 1" in info.value.message
            assert TOKEN[4:] not in info.value.message  # never the value
        assert memory.read("long-term") == "- deploys need a token\n"
        assert memory.read("note", "n") is None
        assert memory.scan_secrets() == []


def test_a_secret_is_redacted_under_redact_and_found_by_the_scan_under_off(tmp_path):
    with am.Memory(tmp_path, PROJECT, now=NOW, secret_policy="redact") as memory:
        receipt = memory.write("long-term", f"- token {TOKEN}")
        assert receipt.warnings == [
            "redacted 1 secret value(s) before storing (github-pat on line 1): "
            "store where a secret lives, never the value"
        ]
        assert receipt.warnings[0] in receipt.message
        assert memory.read("long-term") == "- token [REDACTED:github-pat]\n"
    with am.Memory(tmp_path, PROJECT, now=NOW, secret_policy="off") as memory:
        receipt = memory.write("note", f"old\nkey {TOKEN}", name="legacy")
        assert receipt.warnings == []
        assert memory.scan_secrets() == [
            am.StoredSecret(f"{memory.project_dir}/notes/legacy.md", 2, "github-pat", "ghp_…"),
        ]
        # Edited out, the token is still in the version history saved ...
        memory.write("note", "old\nkey in the vault", name="legacy", mode="overwrite")
        assert memory.scan_secrets() == [
            am.StoredSecret(
                f"{memory.project_dir}/notes/legacy.md", 2, "github-pat", "ghp_…", "v3"
            ),
        ]
        # ... until a purge redacts it there, keeping the version.
        assert memory.purge_secrets() == am.PurgeReceipt(1, 1, 0)
        assert memory.scan_secrets() == []
        assert [v.id for v in memory.history("note", "legacy")] == ["v3", "v2"]


def test_bad_policy_source_mode_and_set_are_refused(memory, tmp_path):
    with pytest.raises(am.MemoryError) as info:
        am.Memory(tmp_path, PROJECT, now=NOW, secret_policy="warn")
    assert info.value.kind == "invalid-options"
    with pytest.raises(am.MemoryError) as info:
        am.Memory(tmp_path, PROJECT, now=NOW, source="agent\nsession")
    assert info.value.kind == "invalid-options"
    with pytest.raises(am.MemoryError) as info:
        memory.search("x", "fuzzy")
    assert info.value.kind == "invalid-mode"
    with pytest.raises(am.MemoryError) as info:
        memory.tool_definitions("all")
    assert info.value.kind == "invalid-arguments"


def test_search_in_both_modes(memory):
    memory.write("note", "The deployScript rotates keys.", name="ops")
    memory.write("long-term", "- rotating logs daily")
    ops = f"{memory.project_dir}/notes/ops.md"
    # Ranked matches words (stemmed), never parts of words; ranked is the default.
    ranked = memory.search("rotate")
    assert ranked == memory.search("rotate", "ranked")
    assert ranked.terms == [am.TermCount("rotate", 2)]
    assert sorted(h.path for h in ranked.hits) == ["MEMORY.md", ops]
    assert memory.search("rot").hits == []
    # Literal is the seeds' substring search.
    literal = memory.search("rotate", "literal")
    assert literal.terms == [am.TermCount("rotate", 1)]
    assert [h.path for h in literal.hits] == [ops]
    assert [h.path for h in memory.search("rot", "literal").hits] == ["MEMORY.md", ops]
    # The tool's default is ranked too, and renders as render_search does.
    assert memory.call_tool("memory_search", {"query": "rotate"}) == memory.render_search(ranked)
    assert memory.call_tool("memory_search", {"query": "rot", "mode": "literal"}) == \
        memory.render_search(memory.search("rot", "literal"))


def test_the_three_tool_sets(memory):
    seed = ["memory_write", "memory_read", "memory_search"]
    full = seed + ["memory_edit", "memory_delete", "memory_rename", "memory_history", "memory_restore", "memory_refresh", "memory_batch", "memory_consolidate"]
    assert [d.name for d in memory.tool_definitions("seed")] == seed
    assert [d.name for d in memory.tool_definitions("full")] == full
    assert [d.name for d in memory.tool_definitions()] == full
    [anthropic] = memory.tool_definitions("anthropic")
    assert anthropic.name == "memory"
    assert anthropic.parameters["required"] == ["command"]
    prompts = {s: memory.usage_prompt(s) for s in am.TOOL_SETS}
    assert memory.usage_prompt() == prompts["full"]
    assert len(set(prompts.values())) == 3
    assert "memory_edit" in prompts["full"] and "memory_edit" not in prompts["seed"]
    assert "/memories" in prompts["anthropic"] and "memory_write" not in prompts["anthropic"]
    # Every tool runs whatever set the model was given.
    memory.call_tool("memory", {"command": "create", "path": "/memories/plan.md", "file_text": "- ship"})
    assert memory.read("note", "plan") == "- ship\n"


def test_a_team_dir_gives_team_scope_and_snapshots(tmp_path):
    team = tmp_path / "repo" / am.TEAM_DIR_NAME
    with am.Memory(tmp_path / "alice", PROJECT, now=NOW, team_dir=team) as alice:
        alice.write("note", "Run make ship.\n", name="deploy")
        reply = alice.call_tool("memory_write", {"target": "long_term", "content": "- shared", "scope": "team"})
        assert reply == "Appended 9 bytes to team:MEMORY.md\nBudget: team MEMORY.md 1/200 lines, 9/25000 bytes; team section of the context block 133/32768 bytes"
        info = alice.take_snapshot()
        assert (info.notes, info.utc_offset_minutes) == (1, 120)
    assert (team / "MEMORY.md").read_text() == "- shared\n"
    assert (team / "snapshot" / "notes" / "deploy.md").read_text() == "Run make ship.\n"
    assert "MEMORY.md merge=union" in (team / ".gitattributes").read_text()
    with am.Memory(tmp_path / "bob", PROJECT, now=NOW, team_dir=team, scope="team") as bob:
        assert bob.write("note", "shared note\n", name="ops").path == "team:notes/ops.md"
        with pytest.raises(am.MemoryError) as info:
            bob.write("scratchpad", "- [ ] mine")
        assert info.value.kind == "invalid-target"
        assert bob.apply_snapshot().notes == 1
    with am.Memory(tmp_path / "carol", PROJECT, now=NOW) as carol:
        with pytest.raises(am.MemoryError) as info:
            carol.call_tool("memory_read", {"source": "list", "scope": "team"})
        assert info.value.kind == "no-team-dir"


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="symbolic links")
def test_a_team_dir_that_is_a_symbolic_link_is_refused_naming_it(tmp_path):
    # The team directory is preopened read-write: a link there (to another
    # folder, to `/`, or dangling) would give its target the team's files.
    project = tmp_path / "repo"
    project.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    dangling = tmp_path / "not-yet"
    link = project / am.TEAM_DIR_NAME
    for target in (elsewhere, Path("/"), dangling):
        link.symlink_to(target)
        for given in (link, f"{link}/."):
            with pytest.raises(am.MemoryError) as info:
                am.Memory(tmp_path / "root", PROJECT, now=NOW, team_dir=given)
            assert info.value.kind == "invalid-options"
            assert f"`{link}`" in info.value.message
            assert "symbolic link" in info.value.message
            assert "replace the link with a real folder" in info.value.message
        link.unlink()
    assert not dangling.exists()
    assert list(elsewhere.iterdir()) == []
    # A real folder (created when missing) is the team directory.
    with am.Memory(tmp_path / "root", PROJECT, now=NOW, team_dir=link, scope="team") as memory:
        memory.write("note", "hi", name="x")
    assert (link / "notes" / "x.md").read_text() == "hi\n"


def test_the_review_gate_queues_the_models_write_until_approved(tmp_path):
    with am.Memory(tmp_path / "root", PROJECT, now=NOW, review=("personal",)) as memory:
        reply = memory.call_tool("memory_write", {"target": "long_term", "content": "Push to main."})
        assert reply.startswith("Queued for review as p1")
        assert memory.context_block() is None
        [pending] = memory.pending_changes()
        assert (pending["id"], pending["tool"], pending["scope"]) == ("p1", "memory_write", "personal")
        assert "+Push to main." in pending["diff"]
        assert memory.approve("p1").startswith("Appended")
        assert "Push to main." in memory.context_block()
        with pytest.raises(am.MemoryError) as info:
            memory.reject("p1")
        assert info.value.kind == "invalid-arguments"
        assert memory.clear("long_term") == ["MEMORY.md"]
        assert memory.context_block() is None
