"""Where the compiled component comes from: the artifact compiled when the
package was built, else the compiled-component cache, else a compile (about
a second), saved to the cache for the next process.

The packaged artifact is ``agent_memory_component-<sha>.cwasm`` beside the
``.wasm``, ``<sha>`` the start of the SHA-256 of the component it was
compiled from; it is only used for that component. wasmtime itself refuses
an artifact of another wasmtime version, other engine settings, or CPU
features this machine lacks; then the cache is tried.

The cache is the directory the Rust host uses (``$AGENT_MEMORY_CACHE_DIR``,
empty for none, else the platform cache directory + ``agent-memory``), with
the same rules, and artifacts of its own: this package's wasmtime is not the
Rust host's, so neither could load the other's. A cached artifact is named
``{component}-{engine}-{crc}.cwasm`` and is only loaded when the component's
SHA-256 and this engine's key match the name, its CRC-32 equals the one in
the name (a torn or corrupt file is removed, never mapped as code), and on
Unix the file and its directory belong to this user and are not writable by
others. Artifacts are written to a temporary file, synced and renamed into
place. Every failure falls back to compiling.
"""

from __future__ import annotations

import hashlib
import os
import platform
import sys
import zlib
from pathlib import Path
from typing import List, Optional, Tuple

import wasmtime
from wasmtime import Config, Engine, WasmtimeError
from wasmtime.component import Component

EXTENSION = ".cwasm"
COMPONENT_HEX = 32
CHUNK = 64 * 1024


def engine_config() -> Config:
    """The one configuration the package compiles with; setup.py's
    precompiled artifact must come from the same."""
    config = Config()
    config.epoch_interruption = True
    return config


def packaged_name(sha256: str) -> str:
    """The name of the packaged artifact of the component with this SHA-256."""
    return f"agent_memory_component-{sha256[:COMPONENT_HEX]}{EXTENSION}"


def default_dir() -> Optional[Path]:
    """``$AGENT_MEMORY_CACHE_DIR`` (empty: no cache), else the platform cache
    directory + ``agent-memory``, as the Rust host picks it."""
    env = os.environ.get("AGENT_MEMORY_CACHE_DIR")
    if env is not None:
        return Path(env) if env else None
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    elif os.name == "nt":
        local = os.environ.get("LOCALAPPDATA")
        if not local:
            return None
        base = Path(local)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "agent-memory"


def _wasmtime_version() -> str:
    # From the installed distribution's directory name: importlib.metadata
    # would cost tens of milliseconds of imports on every start.
    site = Path(wasmtime.__file__).resolve().parent.parent
    try:
        names = os.listdir(site)
    except OSError:
        return "unknown"
    for name in sorted(names):
        if name.startswith("wasmtime-") and name.endswith(".dist-info"):
            return name[len("wasmtime-") : -len(".dist-info")]
    return "unknown"


def _engine_key() -> str:
    # What decides whether this package's wasmtime can load an artifact;
    # wasmtime checks it again on load (its own version, settings, CPU).
    text = f"wasmtime-py {_wasmtime_version()} {sys.platform} {platform.machine()} epoch-interruption"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _prefix(sha256: str) -> str:
    return f"{sha256[:COMPONENT_HEX]}-{_engine_key()}-"


def _named_crc(name: str, prefix: str) -> Optional[int]:
    if not (name.startswith(prefix) and name.endswith(EXTENSION)):
        return None
    crc = name[len(prefix) : -len(EXTENSION)]
    if len(crc) != 8 or any(c not in "0123456789abcdef" for c in crc):
        return None
    return int(crc, 16)


def _private(path: Path) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if os.name != "posix":
        return True
    return st.st_uid == os.geteuid() and st.st_mode & 0o022 == 0


def _checksum(path: Path) -> int:
    crc = 0
    with open(path, "rb") as file:
        while True:
            chunk = file.read(CHUNK)
            if not chunk:
                return crc
            crc = zlib.crc32(chunk, crc)


def _candidates(directory: Path, prefix: str) -> List[Tuple[Path, int]]:
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    found = []
    for name in names:
        crc = _named_crc(name, prefix)
        if crc is not None:
            found.append((directory / name, crc))
    return found


def _deserialize(engine: Engine, path: Path) -> Optional[Component]:
    try:
        return Component.deserialize_file(engine, str(path))
    except WasmtimeError:
        return None


def _load_cached(engine: Engine, directory: Path, prefix: str) -> Optional[Component]:
    if not _private(directory):
        return None
    for path, crc in _candidates(directory, prefix):
        if not _private(path):
            continue
        try:
            actual = _checksum(path)
        except OSError:
            continue
        if actual != crc:
            _remove(path)
            continue
        component = _deserialize(engine, path)
        if component is not None:
            return component
        _remove(path)
    return None


def _remove(path: Path) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def _store(directory: Path, prefix: str, serialized: bytes) -> None:
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError:
        return
    if not _private(directory):
        return
    name = f"{prefix}{zlib.crc32(serialized):08x}{EXTENSION}"
    tmp = directory / f".{os.getpid()}.{os.urandom(8).hex()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(serialized)
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, directory / name)
    except OSError:
        _remove(tmp)
        return
    for path, _ in _candidates(directory, prefix):
        if path.name != name:
            _remove(path)


def load(engine: Engine, wasm: Path, packaged: Optional[Path]) -> Tuple[Component, str]:
    """The component at ``wasm`` compiled for ``engine``, and where it came
    from: ``"packaged"``, ``"cache"`` or ``"compiled"``. ``packaged`` is the
    directory that may hold the package's artifact (only for the packaged
    ``.wasm``)."""
    data = wasm.read_bytes()
    sha256 = hashlib.sha256(data).hexdigest()
    if packaged is not None:
        artifact = packaged / packaged_name(sha256)
        if artifact.is_file():
            component = _deserialize(engine, artifact)
            if component is not None:
                return component, "packaged"
    directory = default_dir()
    prefix = _prefix(sha256)
    if directory is not None:
        component = _load_cached(engine, directory, prefix)
        if component is not None:
            return component, "cache"
    component = Component(engine, data)
    if directory is not None:
        try:
            serialized = bytes(component.serialize())
        except WasmtimeError:
            return component, "compiled"
        _store(directory, prefix, serialized)
    return component, "compiled"
