"""Where the compiled component comes from: the packaged artifact, the
compiled-component cache, or a compile; and that the cache stays a cache."""

import os
import stat
from pathlib import Path

import pytest
import wasmtime
from wasmtime.component import Component

import agent_memory as am
from agent_memory import _compiled

TINY = "(component (core module (func (export \"f\"))))"


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.wasm"
    path.write_bytes(wasmtime.wat2wasm(TINY))
    return path


@pytest.fixture
def cache(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("AGENT_MEMORY_CACHE_DIR", str(directory))
    return directory


def engine():
    return wasmtime.Engine(_compiled.engine_config())


def artifacts(directory):
    return sorted(p for p in directory.iterdir() if p.suffix == ".cwasm")


@pytest.mark.skipif(
    os.environ.get("AGENT_MEMORY_PRECOMPILE") == "0" or "AGENT_MEMORY_WASM" in os.environ,
    reason="the package was built without its artifact, or another component is in use",
)
def test_the_installed_package_runs_its_precompiled_artifact(cache):
    runtime = am.Runtime()
    assert runtime.code_origin == "packaged"
    assert not cache.exists(), "nothing compiled, nothing cached"
    with am.Memory(cache.parent / "root", "/src/app") as memory:
        memory.write("long-term", "- works")
        assert "works" in memory.read("long-term")


def test_a_component_is_compiled_once_then_loaded_from_the_cache(tiny, cache):
    _, origin = _compiled.load(engine(), tiny, None)
    assert origin == "compiled"
    [artifact] = artifacts(cache)
    assert artifact.name.startswith(_compiled._prefix(_compiled.hashlib.sha256(tiny.read_bytes()).hexdigest()))
    assert stat.S_IMODE(artifact.stat().st_mode) == 0o600
    _, origin = _compiled.load(engine(), tiny, None)
    assert origin == "cache"


def test_a_corrupt_cached_artifact_is_removed_and_compiled_again(tiny, cache):
    _compiled.load(engine(), tiny, None)
    [artifact] = artifacts(cache)
    good = artifact.read_bytes()
    data = bytearray(good)
    data[len(data) // 2] ^= 1
    artifact.write_bytes(bytes(data))
    _, origin = _compiled.load(engine(), tiny, None)
    assert origin == "compiled", "a flipped byte is never mapped"
    assert artifacts(cache) == [artifact] and artifact.read_bytes() == good
    artifact.write_bytes(good[: len(good) // 2])
    assert _compiled.load(engine(), tiny, None)[1] == "compiled", "nor a torn file"


@pytest.mark.skipif(os.name != "posix", reason="ownership and modes are Unix")
def test_a_cache_others_can_write_is_ignored(tiny, cache):
    _compiled.load(engine(), tiny, None)
    [artifact] = artifacts(cache)
    artifact.chmod(0o666)
    assert _compiled.load(engine(), tiny, None)[1] == "compiled"
    cache.chmod(0o777)
    assert _compiled.load(engine(), tiny, None)[1] == "compiled"


def test_another_engines_artifact_is_refused(tiny, cache):
    # Compiled without epoch interruption: wasmtime refuses it, so it is
    # compiled again, and the cache then holds this engine's artifact.
    other = Component(wasmtime.Engine(wasmtime.Config()), tiny.read_bytes()).serialize()
    sha = _compiled.hashlib.sha256(tiny.read_bytes()).hexdigest()
    packaged = tiny.parent / "packaged"
    packaged.mkdir()
    (packaged / _compiled.packaged_name(sha)).write_bytes(bytes(other))
    assert _compiled.load(engine(), tiny, packaged)[1] == "compiled"
    assert _compiled.load(engine(), tiny, packaged)[1] == "cache"
    # The same artifact in the cache under a matching CRC: refused and removed.
    [artifact] = artifacts(cache)
    crc = _compiled.zlib.crc32(bytes(other))
    foreign = cache / f"{_compiled._prefix(sha)}{crc:08x}.cwasm"
    artifact.unlink()
    foreign.write_bytes(bytes(other))
    foreign.chmod(0o600)
    assert _compiled.load(engine(), tiny, None)[1] == "compiled"
    assert foreign not in artifacts(cache)


def test_a_packaged_artifact_of_another_component_is_not_used(tiny, cache, tmp_path):
    packaged = tmp_path / "packaged"
    packaged.mkdir()
    other = wasmtime.wat2wasm('(component (core module (func (export "g"))))')
    artifact = Component(engine(), other).serialize()
    sha = _compiled.hashlib.sha256(other).hexdigest()
    (packaged / _compiled.packaged_name(sha)).write_bytes(bytes(artifact))
    assert _compiled.load(engine(), tiny, packaged)[1] == "compiled"


def test_an_empty_cache_dir_setting_turns_the_cache_off(tiny, monkeypatch, tmp_path):
    monkeypatch.setenv("AGENT_MEMORY_CACHE_DIR", "")
    assert _compiled.default_dir() is None
    assert _compiled.load(engine(), tiny, None)[1] == "compiled"
    assert _compiled.load(engine(), tiny, None)[1] == "compiled"


def test_the_default_cache_is_the_rust_hosts(monkeypatch, tmp_path):
    monkeypatch.delenv("AGENT_MEMORY_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if os.name == "posix" and os.uname().sysname == "Linux":
        assert _compiled.default_dir() == Path(tmp_path / "xdg" / "agent-memory")
