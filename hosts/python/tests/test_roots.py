"""Root resolution and the off switch: the shared vectors
(``conformance/roots/resolution.json``), the same the Rust and Node hosts run."""

import json
from pathlib import Path

import pytest

import agent_memory as am
from conformance import VECTORS_DIR

CASES = json.loads((VECTORS_DIR / "roots" / "resolution.json").read_text(encoding="utf-8"))


def test_the_vector_file_is_whole():
    assert len(CASES) >= 20


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_root_resolution_vector(case, tmp_path):
    def fill(text):
        return text.replace("{tmp}", str(tmp_path))

    if "config" in case:
        folder = tmp_path / "config" / "agent-memory"
        folder.mkdir(parents=True)
        (folder / "config.json").write_text(case["config"], encoding="utf-8")
    for name, text in case.get("files", {}).items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    environ = {k: fill(v) for k, v in case.get("env", {}).items()}
    explicit = fill(case["explicit"]) if "explicit" in case else None
    kwargs = dict(environ=environ, home=tmp_path / "home", config_dir=tmp_path / "config", data_dir=tmp_path / "data")
    expect = case["expect"]
    if "error" in expect:
        with pytest.raises(am.RootError) as raised:
            am.resolve_root(explicit, **kwargs)
        assert raised.value.kind == expect["error"], raised.value.message
        return
    choice = am.resolve_root(explicit, **kwargs)
    assert choice.root == Path(fill(expect["root"]))
    assert choice.rule == expect["rule"]
    want_config = expect["config_file"]
    assert choice.config_file == (Path(fill(want_config)) if want_config else None)
    assert choice.disabled == (fill(expect["disabled"]) if expect["disabled"] else None)
    if "reply" in expect:
        assert am.disabled_reply(choice.disabled) == expect["reply"]


def test_the_process_environment_is_the_default(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENT_MEMORY_DIR", str(tmp_path / "from-env"))
    monkeypatch.setenv("AGENT_MEMORY_DISABLE", "1")
    monkeypatch.delenv("AGENT_MEMORY_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    choice = am.resolve_root()
    assert (choice.root, choice.rule, choice.disabled) == (tmp_path / "from-env", "env", "AGENT_MEMORY_DISABLE=1")
