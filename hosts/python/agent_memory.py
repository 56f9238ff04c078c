"""Persistent Markdown memory for coding agents, from Python.

This module loads the ``agent:memory`` WebAssembly component (built from this
repository's ``guest/``) with the ``wasmtime`` package from PyPI and gives it
exactly one directory, the memory root, preopened as the guest's ``/``. The
component has no environment, no arguments, no network and no other files.

Example::

    import agent_memory

    memory = agent_memory.Memory("/tmp/agent-memory", "/home/me/src/my-app")
    memory.write("long-term", "- prefers tabs")   # WriteReceipt(path='MEMORY.md', ...)
    block = memory.context_block()                # the block for the system prompt, or None
    reply = memory.call_tool("memory_search", '{"query": "tabs"}')

Every operation of the WIT ``memory``, ``tools`` and ``prompt`` interfaces is a
method. A refusal of the memory (a bad note name, a missing note, ...) raises
:class:`MemoryError` with ``.kind`` in the WIT spelling (``invalid-name``,
``not-found``, ...) and ``.message``. The class shadows Python's built-in
``MemoryError`` on ``from agent_memory import *``; prefer
``agent_memory.MemoryError`` (or the alias :data:`AgentMemoryError`). A trap of
the component raises :class:`MemoryTrap`; the instance is then dropped and the
next call starts a fresh one with the same options.

The component file is found in this order: the ``component`` argument, the
``AGENT_MEMORY_WASM`` environment variable, then the repository's build output
``target/guest/wasm32-wasip2/release/agent_memory_component.wasm`` (made by
``cargo build -p agent-memory``).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

from wasmtime import Engine, Store, WasiConfig, WasmtimeError
from wasmtime.component import Component, Linker, Record, Variant

__all__ = [
    "Memory",
    "MemoryError",
    "AgentMemoryError",
    "MemoryTrap",
    "WriteReceipt",
    "FileInfo",
    "TermCount",
    "SearchHit",
    "SearchResults",
    "ToolDefinition",
    "ERROR_KINDS",
    "default_component_path",
]

_PACKAGE = "agent:memory"
_VERSION = "0.1.0"

#: Every ``error-kind`` of the WIT, in its spelling.
ERROR_KINDS = (
    "not-open",
    "invalid-options",
    "invalid-target",
    "invalid-mode",
    "missing-name",
    "invalid-name",
    "invalid-date",
    "invalid-arguments",
    "unknown-tool",
    "not-found",
    "not-a-file",
    "busy",
    "io",
)

# The WIT enum words, and the tool words (`long_term`) people also type.
_WRITE_TARGETS = {"long-term": "long-term", "long_term": "long-term", "scratchpad": "scratchpad",
                  "daily": "daily", "note": "note"}
_READ_SOURCES = dict(_WRITE_TARGETS)
_WRITE_MODES = ("append", "overwrite")


class MemoryError(Exception):  # noqa: A001 - the name the API promises
    """The memory refused an operation.

    ``kind`` is the WIT ``error-kind`` (one of :data:`ERROR_KINDS`), for
    matching; ``message`` names the offending value or store-relative path and
    is for people, not for parsing.
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message


#: Alias of :class:`MemoryError` that does not shadow the built-in.
AgentMemoryError = MemoryError


class MemoryTrap(Exception):
    """The component trapped (a bug in it, or it ran out of resources).

    The instance is dropped; the next call on the same :class:`Memory` starts
    a fresh one with the same options.
    """

    def __init__(self, operation: str, message: str) -> None:
        super().__init__(f"the memory component trapped in {operation}: {message}")
        self.operation = operation
        self.message = message


@dataclass(frozen=True)
class WriteReceipt:
    """The outcome of a write."""

    path: str
    bytes_written: int
    truncated_from: Optional[int]
    message: str


@dataclass(frozen=True)
class FileInfo:
    """A memory file as ``list_files`` reports it."""

    path: str
    bytes: int


@dataclass(frozen=True)
class TermCount:
    """How many lines matched one query term across all files."""

    term: str
    count: int


@dataclass(frozen=True)
class SearchHit:
    """One file's worth of search results."""

    path: str
    matched_terms: List[str]
    total_hits: int
    body: str
    filename_only: bool
    date: Optional[str]
    is_memory_md: bool


@dataclass(frozen=True)
class SearchResults:
    """Ranked search results; pass them to :meth:`Memory.render_search`."""

    terms: List[TermCount]
    hits: List[SearchHit]


@dataclass(frozen=True)
class ToolDefinition:
    """A model tool: name, description and JSON Schema of its arguments."""

    name: str
    description: str
    parameters_schema: str

    @property
    def parameters(self) -> Dict[str, Any]:
        """The JSON Schema, parsed."""
        return json.loads(self.parameters_schema)


def default_component_path() -> Path:
    """Where the component is looked for when no path is given."""
    env = os.environ.get("AGENT_MEMORY_WASM")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parent.parent.parent
    return repo / "target" / "guest" / "wasm32-wasip2" / "release" / "agent_memory_component.wasm"


class _Runtime:
    """One engine, one compiled component and one linker per component file."""

    _cache: Dict[Path, "_Runtime"] = {}
    _lock = threading.Lock()

    def __init__(self, path: Path) -> None:
        self.engine = Engine()
        self.component = Component.from_file(self.engine, str(path))
        self.linker = Linker(self.engine)
        self.linker.add_wasip2()

    @classmethod
    def get(cls, path: Path) -> "_Runtime":
        path = path.resolve()
        with cls._lock:
            runtime = cls._cache.get(path)
            if runtime is None:
                if not path.is_file():
                    raise FileNotFoundError(
                        f"the memory component `{path}` does not exist; "
                        "build it with `cargo build -p agent-memory` or set AGENT_MEMORY_WASM"
                    )
                runtime = cls._cache[path] = _Runtime(path)
            return runtime


def _record(**fields: Any) -> Record:
    # The component API reads record fields by their WIT (kebab-case) names.
    record = Record()
    for name, value in fields.items():
        setattr(record, name.replace("_", "-"), value)
    return record


def _get(record: Any, name: str) -> Any:
    return getattr(record, name.replace("_", "-"))


def _parse_now(now: Union[None, str, _dt.datetime]) -> Optional[_dt.datetime]:
    if now is None:
        return None
    if isinstance(now, str):
        text = now.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            now = _dt.datetime.fromisoformat(text)
        except ValueError as e:
            raise ValueError(f"`now` {now!r} is not RFC 3339 (e.g. 2026-05-30T09:15:00+02:00): {e}") from None
    if not isinstance(now, _dt.datetime):
        raise TypeError(f"`now` must be a datetime or an RFC 3339 string, not {type(now).__name__}")
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("`now` must carry a UTC offset (an aware datetime)")
    return now


def _local_offset_minutes(at: Optional[_dt.datetime] = None) -> int:
    at = at or _dt.datetime.now()
    offset = at.astimezone().utcoffset() or _dt.timedelta(0)
    return int(offset.total_seconds() // 60)


def _enum(word: str, table: Dict[str, str], kind: str, what: str) -> str:
    if isinstance(word, str) and word in table:
        return table[word]
    choices = ", ".join(sorted(set(table.values())))
    raise MemoryError(kind, f"unknown {what} `{word}`; expected one of {choices}")


class Memory:
    """One memory root opened for one project: a sandboxed instance of the component.

    :param root: the memory directory; created if missing. The component sees
        only this directory (as ``/``).
    :param project: the project path (e.g. the repository's git root); only
        hashed into the project's storage slug, never touched.
    :param now: pin "now" (an aware ``datetime`` or an RFC 3339 string); its
        offset becomes the local UTC offset. Default: the system clock.
    :param utc_offset_minutes: the local offset, east positive. Default: the
        offset of ``now``, else the system's local offset, re-read before every
        operation so dates follow daylight saving time.
    :param max_inject_bytes: cap of the context block (default 32768).
    :param max_write_bytes: per-write content cap (default 65536).
    :param max_read_bytes: cap of reads and rendered search (default 32768).
    :param component: path of the ``.wasm`` (see the module docs).
    :raises MemoryError: ``invalid-options`` for an empty project, an offset
        out of range or caps that are too small.

    A ``Memory`` is not thread-safe; use one per thread, or a lock. Several
    instances, in one process or many, may share a root: the component
    serializes writes with a lock file.
    """

    def __init__(
        self,
        root: Union[str, os.PathLike],
        project: Union[str, os.PathLike],
        now: Union[None, str, _dt.datetime] = None,
        utc_offset_minutes: Optional[int] = None,
        *,
        max_inject_bytes: Optional[int] = None,
        max_write_bytes: Optional[int] = None,
        max_read_bytes: Optional[int] = None,
        component: Union[None, str, os.PathLike] = None,
    ) -> None:
        root_path = Path(root)
        root_path.mkdir(parents=True, exist_ok=True)
        self._root = root_path.resolve(strict=True)
        self._project = os.fspath(project)
        pinned = _parse_now(now)
        self._fixed_unix_seconds = None if pinned is None else int(pinned.timestamp())
        if utc_offset_minutes is not None:
            self._offset, self._follow_system_zone = int(utc_offset_minutes), False
        elif pinned is not None:
            self._offset, self._follow_system_zone = int(pinned.utcoffset().total_seconds() // 60), False
        else:
            self._offset, self._follow_system_zone = _local_offset_minutes(), True
        self._caps = _record(
            max_inject_bytes=max_inject_bytes,
            max_write_bytes=max_write_bytes,
            max_read_bytes=max_read_bytes,
        )
        self._runtime = _Runtime.get(Path(component) if component else default_component_path())
        self._store: Optional[Store] = None
        self._funcs: Dict[Tuple[str, str], Any] = {}
        self._opened: Any = None
        self._start()

    # -- lifecycle ---------------------------------------------------------

    def _start(self) -> None:
        store = Store(self._runtime.engine)
        wasi = WasiConfig()
        # Only the memory root, read-write, as the guest's `/`: no env, no args.
        wasi.preopen_dir(str(self._root), "/")
        store.set_wasi(wasi)
        instance = self._runtime.linker.instantiate(store, self._runtime.component)
        self._store, self._instance, self._funcs = store, instance, {}
        if self._follow_system_zone:
            self._offset = _local_offset_minutes()
        options = _record(project=self._project, clock=self._clock(), caps=self._caps)
        self._opened = self._result("memory", "open", options, check_clock=False)

    def _clock(self) -> Record:
        return _record(utc_offset_minutes=self._offset, fixed_unix_seconds=self._fixed_unix_seconds)

    def _func(self, interface: str, name: str) -> Any:
        key = (interface, name)
        func = self._funcs.get(key)
        if func is None:
            export = f"{_PACKAGE}/{interface}@{_VERSION}"
            index = self._instance.get_export_index(self._store, export)
            if index is None:
                raise RuntimeError(f"the component does not export `{export}`")
            func_index = self._instance.get_export_index(self._store, name, index)
            func = None if func_index is None else self._instance.get_func(self._store, func_index)
            if func is None:
                raise RuntimeError(f"the component does not export `{export}#{name}`")
            self._funcs[key] = func
        return func

    def _call(self, interface: str, name: str, *args: Any, check_clock: bool = True) -> Any:
        if self._store is None:
            self._start()
        elif check_clock and self._follow_system_zone and interface == "memory":
            offset = _local_offset_minutes()
            if offset != self._offset:
                self._offset = offset
                self._result("memory", "set-clock", self._clock(), check_clock=False)
        func = self._func(interface, name)
        try:
            value = func(self._store, *args)
            func.post_return(self._store)
        except WasmtimeError as trap:
            # A trap poisons the instance: drop it, start afresh on the next call.
            self._store, self._instance, self._funcs = None, None, {}
            raise MemoryTrap(f"{interface}.{name}", str(trap)) from None
        return value

    def _result(self, interface: str, name: str, *args: Any, check_clock: bool = True) -> Any:
        """Calls a function returning ``result<T, error>``: T, or raises."""
        value = self._call(interface, name, *args, check_clock=check_clock)
        # When T and `error` lift to distinct Python types the result comes
        # back bare (T, or the error record); otherwise as a tagged Variant.
        if isinstance(value, Variant) and value.tag in ("ok", "err"):
            if value.tag == "ok":
                return value.payload
            value = value.payload
        elif not isinstance(value, Record):
            return value
        raise MemoryError(_get(value, "kind"), _get(value, "message"))

    # -- what `open` resolved ----------------------------------------------

    @property
    def root(self) -> Path:
        """The memory root (resolved): the only directory the component sees."""
        return self._root

    @property
    def project(self) -> str:
        """The project path as given."""
        return self._project

    @property
    def project_slug(self) -> str:
        """``<sanitized-basename>-<8 hex>``, e.g. ``my-app-1a2b3c4d``."""
        return _get(self._opened, "project_slug")

    @property
    def project_dir(self) -> str:
        """The project's store-relative directory, ``projects/<slug>``."""
        return _get(self._opened, "project_dir")

    @property
    def today(self) -> str:
        """Today's local date (``YYYY-MM-DD``) when the instance was opened."""
        return _get(self._opened, "today")

    # -- memory ------------------------------------------------------------

    def write(self, target: str, content: str, mode: str = "append", name: Optional[str] = None) -> WriteReceipt:
        """Stores ``content`` in ``long-term`` (MEMORY.md), ``scratchpad``,
        ``daily`` (today's log) or ``note`` (needs ``name``).

        ``append`` adds a newline first when the file lacks one; ``overwrite``
        replaces the file atomically. Content over the write cap is cut at a
        UTF-8 boundary and the receipt says so.

        :raises MemoryError: ``invalid-target``, ``invalid-mode``,
            ``missing-name``, ``invalid-name``, ``not-a-file``, ``busy``, ``io``.
        """
        target = _enum(target, _WRITE_TARGETS, "invalid-target", "write target")
        if mode not in _WRITE_MODES:
            raise MemoryError("invalid-mode", f"unknown write mode `{mode}`; expected append or overwrite")
        return _receipt(self._result("memory", "write", target, content, mode, name))

    def read(self, source: str, name: Optional[str] = None) -> Optional[str]:
        """A memory file's text (capped, with a marker when cut), or ``None``
        when it does not exist. ``daily`` takes ``name`` = ``YYYY-MM-DD``
        (default today); ``note`` needs ``name``.

        :raises MemoryError: ``invalid-target``, ``missing-name``,
            ``invalid-name``, ``invalid-date``, ``not-a-file``, ``io``.
        """
        source = _enum(source, _READ_SOURCES, "invalid-target", "read source")
        return self._result("memory", "read", source, name)

    def list_files(self) -> List[FileInfo]:
        """Every ``.md`` file this project can see, sorted by path."""
        return [FileInfo(_get(f, "path"), _get(f, "bytes")) for f in self._result("memory", "list-files")]

    def append_daily(self, heading: str, body: str) -> WriteReceipt:
        """Appends ``### HH:MM — heading`` and the trimmed body to today's log.

        :raises MemoryError: ``invalid-arguments`` for an empty or multi-line heading.
        """
        return _receipt(self._result("memory", "append-daily", heading, body))

    def search(self, query: str) -> SearchResults:
        """Keyword search over MEMORY.md, the project's notes and daily logs."""
        results = self._result("memory", "search", query)
        return SearchResults(
            terms=[TermCount(_get(t, "term"), _get(t, "count")) for t in _get(results, "terms")],
            hits=[
                SearchHit(
                    path=_get(h, "path"),
                    matched_terms=list(_get(h, "matched_terms")),
                    total_hits=_get(h, "total_hits"),
                    body=_get(h, "body"),
                    filename_only=_get(h, "filename_only"),
                    date=_get(h, "date"),
                    is_memory_md=_get(h, "is_memory_md"),
                )
                for h in _get(results, "hits")
            ],
        )

    def render_search(self, results: SearchResults, max_bytes: Optional[int] = None) -> str:
        """Renders results for a model, never longer than ``max_bytes``
        (default: the read cap)."""
        record = _record(
            terms=[_record(term=t.term, count=t.count) for t in results.terms],
            hits=[
                _record(
                    path=h.path,
                    matched_terms=list(h.matched_terms),
                    total_hits=h.total_hits,
                    body=h.body,
                    filename_only=h.filename_only,
                    date=h.date,
                    is_memory_md=h.is_memory_md,
                )
                for h in results.hits
            ],
        )
        return self._call("memory", "render-search", record, max_bytes)

    def context_block(self) -> Optional[str]:
        """The ``<memory>`` block for the system prompt, or ``None`` when
        there is nothing to show."""
        return self._result("memory", "context-block")

    def flush_compaction(self, summary: str, message_count: Optional[int] = None) -> WriteReceipt:
        """Saves a compaction summary to today's log under
        ``compaction summary (N msgs)``."""
        return _receipt(self._result("memory", "flush-compaction", summary, message_count))

    # -- tools ---------------------------------------------------------------

    def tool_definitions(self) -> List[ToolDefinition]:
        """``memory_write``, ``memory_read`` and ``memory_search`` with JSON Schema."""
        return [
            ToolDefinition(_get(d, "name"), _get(d, "description"), _get(d, "parameters_schema"))
            for d in self._call("tools", "tool-definitions")
        ]

    def usage_prompt(self) -> str:
        """Text for the system prompt that tells the model how to use the tools."""
        return self._call("tools", "usage-prompt")

    def call_tool(self, name: str, arguments: Union[str, Dict[str, Any]]) -> str:
        """Runs a model's tool call; ``arguments`` is its JSON text (a dict is
        serialized). Returns the text for the model.

        :raises MemoryError: ``unknown-tool``, ``invalid-arguments``,
            ``invalid-target``, ``invalid-mode``, ``not-found``, and the errors
            of the operation.
        """
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments)
        return self._result("tools", "call-tool", name, arguments)

    # -- prompt helpers ------------------------------------------------------

    def estimate_tokens(self, text: str) -> int:
        """One token per 4 bytes of UTF-8, rounded up."""
        return self._call("prompt", "estimate-tokens", text)

    def effective_reserve(self, base: int, block: Optional[str] = None) -> int:
        """``base + estimate_tokens(block)``, saturating at 2**64 - 1."""
        return self._call("prompt", "effective-reserve", base, block)

    def append_memory_block(self, preamble: str, block: Optional[str] = None) -> str:
        """``preamble + "\\n\\n---\\n\\n" + block``; the preamble alone for
        ``None`` or an empty block."""
        return self._call("prompt", "append-memory-block", preamble, block)

    def compaction_heading(self, message_count: Optional[int] = None) -> str:
        """``compaction summary (N msgs)``, or ``compaction summary``."""
        return self._call("prompt", "compaction-heading", message_count)

    def __repr__(self) -> str:
        return f"Memory(root={str(self._root)!r}, project={self._project!r}, slug={self.project_slug!r})"


def _receipt(record: Any) -> WriteReceipt:
    return WriteReceipt(
        path=_get(record, "path"),
        bytes_written=_get(record, "bytes_written"),
        truncated_from=_get(record, "truncated_from"),
        message=_get(record, "message"),
    )
