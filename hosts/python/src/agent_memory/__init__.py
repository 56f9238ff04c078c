"""Persistent Markdown memory for coding agents, from Python.

This package runs the ``agent:memory`` WebAssembly component (built from the
agent-memory repository's ``guest/``, shipped inside the package) with the
``wasmtime`` package from PyPI. An instance of the component gets only the
memory roots it serves, each preopened at a guest directory of its own: no
environment, no arguments, no network, no other files.

Example::

    import agent_memory

    with agent_memory.Memory("/tmp/agent-memory", "/home/me/src/my-app") as memory:
        memory.write("long-term", "- prefers tabs")   # WriteReceipt(path='MEMORY.md', ...)
        block = memory.context_block()                # the block for the system prompt, or None
        tools = memory.tool_definitions()             # the "full" tool set, for the model
        reply = memory.call_tool("memory_search", {"query": "tabs"})
        memory.undo()                                 # undo the write

A :class:`Memory` is a handle on one ``memory`` resource of contract 0.2
(``agent:memory/store@0.2.0``): one root, one project, its own clock,
limits, secret policy and source label. :func:`open_group` opens several in
one instance of the component.

Every change is recorded in the memory's history first: :meth:`Memory.history`
lists the versions of a file, :meth:`Memory.restore` puts one back,
:meth:`Memory.undo` undoes the last change. Text that looks like a credential is
refused (``secret_policy="block"``, the default), redacted (``"redact"``) or
stored as given (``"off"``); the policy is the host's, never the model's.

Failures:

- :class:`MemoryError`: the memory refused (a bad note name, a missing note,
  ...). ``.kind`` is the WIT ``error-kind`` in its spelling (``invalid-name``,
  ``not-found``, ...); a kind this package does not know arrives by its name
  (the WIT ``other(name)``), so newer components keep working. The class
  shadows Python's built-in ``MemoryError`` on ``from agent_memory import *``;
  prefer ``agent_memory.MemoryError`` or the alias :data:`AgentMemoryError`.
- :class:`MemoryTrap`: the component trapped, or hit the memory cap or the
  call timeout (``.limit`` says which). Its instance is dropped; the next call
  on any memory of that instance starts a fresh one and reopens the memory
  with the same options.

The component is the ``.wasm`` inside this package, unless the ``component``
argument or the ``AGENT_MEMORY_WASM`` environment variable names another.
"""

from __future__ import annotations

import gc as _gc

# Importing wasmtime-py and this package builds tens of thousands of objects
# (ctypes declarations, classes), and the cycle collector would walk them
# again and again while they are built: it is paused until the end of this
# module (about 4% of the import here), and turned back on even when the
# import fails.
_GC_WAS_ENABLED = _gc.isenabled()
_gc.disable()

import datetime as _dt  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import weakref  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union  # noqa: E402

try:
    from wasmtime import Engine, Store, WasiConfig, WasmtimeError
    from wasmtime.component import Linker, Record, ResourceAny, Variant

    from . import _compiled, _semantic
    from ._semantic import SemanticStatus
    from .roots import RootChoice, RootError, disabled_reply, resolve_root
except BaseException:
    if _GC_WAS_ENABLED:
        _gc.enable()
    raise

__all__ = [
    "resolve_root",
    "RootChoice",
    "RootError",
    "disabled_reply",
    "Memory",
    "OpenOptions",
    "Runtime",
    "open_group",
    "MemoryError",
    "AgentMemoryError",
    "MemoryTrap",
    "MemoryInfo",
    "Limits",
    "Budget",
    "WriteReceipt",
    "EditReceipt",
    "DeleteReceipt",
    "RenameReceipt",
    "Version",
    "StoredSecret",
    "PurgeReceipt",
    "SnapshotInfo",
    "FileInfo",
    "TermCount",
    "SearchHit",
    "SearchPage",
    "SearchResults",
    "ToolDefinition",
    "WRITE_TARGETS",
    "READ_SOURCES",
    "WRITE_MODES",
    "SEARCH_MODES",
    "TOOL_SETS",
    "SECRET_POLICIES",
    "SCOPES",
    "OPERATIONS",
    "TEAM_DIR_NAME",
    "DEFAULT_MAX_MEMORY_BYTES",
    "DEFAULT_CALL_TIMEOUT",
    "default_component_path",
    "SemanticStatus",
    "WEIGHTS_FILE",
]

_PACKAGE = "agent:memory"
_VERSION = "0.2.0"
# Where the project directory is preopened read-only (`-<i>` in a group), as
# the Rust host does: not a name the store uses at its root.
_GUEST_PROJECT = "/project"

#: The default cap on an instance's linear memory, as in the Rust host:
#: 256 MiB. Search reads files of up to 16 MiB; a call's arguments (a write's
#: content) are copied in whole.
DEFAULT_MAX_MEMORY_BYTES = 256 << 20

#: The default bound on one call, in seconds, as in the Rust host: longer
#: than the 15 s a write waits for another process's lock.
DEFAULT_CALL_TIMEOUT = 30.0

#: The embedding weights file's name (semantic recall), shipped in this
#: package when it was built with the weights present.
WEIGHTS_FILE = _semantic.WEIGHTS_FILE
# Why recall is off in a search made before the model is loaded: the CLI's
# words, so a search's note reads the same in every host.
_DEFERRED = "the model is loaded when a query needs it"
# The line a search reply carries where meaning would have decided and
# recall is off (`agent_memory_vocab::SEMANTIC_OFF_NOTE`): never the reason,
# which is the person's.
_OFF_NOTE = "semantic recall is off"

#: Chunks :meth:`Memory.index_vectors` embeds per call of the component:
#: about 2 s each round in wasmtime, so progress moves and no call nears
#: the call timeout.
_INDEX_ROUND = 16

#: How often the engine's epoch advances: the granularity of call timeouts.
_EPOCH_TICK = 0.01

#: The WIT ``write-target`` cases, in WIT order (tests compare with the WIT).
WRITE_TARGETS: Tuple[str, ...] = ("long-term", "scratchpad", "daily", "note")
#: The WIT ``read-source`` cases.
READ_SOURCES: Tuple[str, ...] = ("long-term", "scratchpad", "daily", "note")
#: The WIT ``write-mode`` cases.
WRITE_MODES: Tuple[str, ...] = ("append", "overwrite")
#: The WIT ``search-mode`` cases: ``ranked`` (words, relevance) and
#: ``literal`` (the seeds' substring search).
SEARCH_MODES: Tuple[str, ...] = ("ranked", "literal")
#: The WIT ``tool-set`` cases: which tool definitions a model is given.
TOOL_SETS: Tuple[str, ...] = ("seed", "full", "anthropic")
#: The WIT ``secret-policy`` cases: what a write does with a credential.
SECRET_POLICIES: Tuple[str, ...] = ("block", "redact", "off")
#: Which store an opened memory's methods act on (see ``OpenOptions.scope``).
SCOPES: Tuple[str, ...] = ("personal", "team")
#: The team directory's name in a project: ``<project root>/.agent-memory``.
TEAM_DIR_NAME = ".agent-memory"
#: The WIT ``operation`` cases: the change that replaced a recorded version.
OPERATIONS: Tuple[str, ...] = ("write", "append", "edit", "delete", "rename", "restore", "import")

# What Rust's allocator prints to stderr before it aborts, e.g. when a
# `memory.grow` past the cap failed.
_ALLOCATION_FAILED = b"memory allocation of "
# Guest stderr kept per instance, for the trap message (a panic's text).
_STDERR_KEEP = 4096


class MemoryError(Exception):  # noqa: A001 - the name the API promises
    """The memory refused an operation.

    ``kind`` is the WIT ``error-kind`` in its spelling (``invalid-name``,
    ``not-found``, ...), or for a kind the WIT names ``other(name)``, that
    name; match on it. ``message`` names the offending value or store-relative
    path and says what to do next; it is for people, not for parsing.
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message


#: Alias of :class:`MemoryError` that does not shadow the built-in.
AgentMemoryError = MemoryError


class MemoryTrap(Exception):
    """The component trapped (a bug in it) or hit a limit of its instance.

    ``operation`` is the WIT function (``store.search``); ``limit`` is
    ``"time"`` when the call ran past its timeout, ``"memory"`` when the
    component needed more linear memory than its cap, else ``None``. The
    instance is dropped; the next call on any of its memories starts a fresh
    one and reopens that memory with the same options.
    """

    def __init__(self, operation: str, message: str, limit: Optional[str] = None) -> None:
        what = {"time": "ran out of time", "memory": "ran out of memory"}.get(limit or "", "trapped")
        super().__init__(f"the memory component {what} in {operation}: {message}")
        self.operation = operation
        self.message = message
        self.limit = limit


@dataclass(frozen=True)
class MemoryInfo:
    """What a memory is open on."""

    project_slug: str
    """``<sanitized-basename>-<8 hex>``, e.g. ``my-app-1a2b3c4d``."""
    project_dir: str
    """The project's root-relative directory, ``projects/<slug>``."""
    today: str
    """Today's local date, ``YYYY-MM-DD``, at the time of the call."""


@dataclass(frozen=True)
class Limits:
    """Every size, time and count a memory works within (the WIT ``limits``)."""

    max_inject_bytes: int
    max_write_bytes: int
    max_read_bytes: int
    index_max_lines: int
    index_max_bytes: int
    max_search_file_bytes: int
    max_query_terms: int
    whole_file_append_max_bytes: int
    lock_lease_ms: int
    lock_wait_ms: int
    history_max_versions: int
    history_max_bytes: int


@dataclass(frozen=True)
class Budget:
    """How full the injected memory is after a change (every receipt has
    one; the WIT ``budget`` record documents the rules)."""

    index_lines: int
    """Lines of ``MEMORY.md``."""
    index_max_lines: int
    index_bytes: int
    """Bytes of ``MEMORY.md``."""
    index_max_bytes: int
    block_bytes: int
    """Bytes of the context block as :meth:`Memory.context_block` returns it
    now; 0 when there is none."""
    block_max_bytes: int
    reach: str
    """Whether what the call wrote reaches the next context block:
    ``whole``, ``partly``, ``cut`` or ``not-injected``."""
    warning: Optional[str]
    """For ``partly`` and ``cut``: what was cut, why, and what to do."""


@dataclass(frozen=True)
class WriteReceipt:
    """The outcome of a write (also of an append, a flush and a restore)."""

    path: str
    bytes_written: int
    truncated_from: Optional[int]
    warnings: List[str]
    """What the model should know: values redacted, added lines that repeat
    an earlier one. The write happened all the same."""
    budget: Budget
    """How full the injected memory is now, and whether this write reaches
    the next context block."""
    message: str
    """For the model: one line, then the warnings, one a line, then the
    budget line and its warning."""


@dataclass(frozen=True)
class EditReceipt:
    """The outcome of :meth:`Memory.edit`."""

    path: str
    line: int
    """1-based line where the replacement starts."""
    bytes: int
    """The file's size after the edit."""
    warnings: List[str]
    budget: Budget
    message: str


@dataclass(frozen=True)
class DeleteReceipt:
    """The outcome of :meth:`Memory.delete_note`."""

    path: str
    existed: bool
    """Whether there was a note to delete (deleting a missing one succeeds)."""
    bytes: int
    budget: Budget
    message: str


@dataclass(frozen=True)
class RenameReceipt:
    """The outcome of :meth:`Memory.rename_note` (the WIT ``from`` is ``from_``)."""

    from_: str
    to: str
    budget: Budget
    message: str


@dataclass(frozen=True)
class Version:
    """A recorded version of a file: what it held just before a change."""

    id: str
    """The id to :meth:`Memory.restore` it by, e.g. ``v12``."""
    path: str
    time_unix: int
    utc_offset_minutes: int
    operation: str
    """The change that replaced this version, one of :data:`OPERATIONS`."""
    bytes: Optional[int]
    """Its size; ``None`` when the file did not exist then."""
    source: str
    """The source label of the memory that made the change (may be empty)."""
    other_path: Optional[str]
    """For a rename, the path on the other side."""

    @property
    def time(self) -> _dt.datetime:
        """When the change was made, in the offset it was made in."""
        zone = _dt.timezone(_dt.timedelta(minutes=self.utc_offset_minutes))
        return _dt.datetime.fromtimestamp(self.time_unix, zone)


@dataclass(frozen=True)
class StoredSecret:
    """A secret found in a stored file by :meth:`Memory.scan_secrets`; never the value."""

    path: str
    """Of the file, or, for a secret in a name (``line`` 0), of the file or
    folder whose own name holds it."""
    line: int
    """1-based; 0 means the secret is in the name."""
    rule_id: str
    masked: str
    """At most the first 4 characters of the value, then ``…``."""
    version: Optional[str] = None
    """``None`` for the file as it is now; ``"v12"`` for a version saved in
    history."""


@dataclass(frozen=True)
class PurgeReceipt:
    """What :meth:`Memory.purge_secrets` did; all zero when no saved version
    held a secret."""

    versions: int
    """Saved versions whose content was redacted in place, ids kept."""
    secrets: int
    """Secrets redacted, each distinct saved content counted once."""
    appends_saved: int
    """Of ``versions``: appends' versions that now hold their own redacted
    copy, so they stay restorable."""


@dataclass(frozen=True)
class SnapshotInfo:
    """A snapshot of the project's personal notes in the team directory, as
    :meth:`Memory.take_snapshot` wrote or :meth:`Memory.apply_snapshot`
    applied it."""

    taken_unix: int
    utc_offset_minutes: int
    notes: int
    message: str


@dataclass(frozen=True)
class FileInfo:
    """A memory file as ``list_files`` reports it."""

    path: str
    bytes: int
    stale: List[str] = field(default_factory=list)
    """Staleness marks (``stale: src/auth.rs changed since 2026-05-01``),
    one a line; empty unless opened with ``project_dir`` and an anchored
    project file of this ``MEMORY.md`` or note changed."""


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
class SearchPage(SearchResults):
    """The best hits of a search (:meth:`Memory.search_top`), and how many
    files the whole search returns (at most 100)."""

    total: int


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


Now = Union[None, str, _dt.datetime]
PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class OpenOptions:
    """How to open one memory; see :class:`Memory` for each field.

    ``max_memory_bytes`` and ``call_timeout`` bound the instance: in a group
    the instance gets the largest of its members' values.
    """

    root: PathLike
    project: PathLike
    now: Now = None
    utc_offset_minutes: Optional[int] = None
    max_inject_bytes: Optional[int] = None
    max_write_bytes: Optional[int] = None
    max_read_bytes: Optional[int] = None
    lock_lease_ms: Optional[int] = None
    lock_wait_ms: Optional[int] = None
    history_max_versions: Optional[int] = None
    history_max_bytes: Optional[int] = None
    secret_policy: str = "block"
    source: str = ""
    max_memory_bytes: int = DEFAULT_MAX_MEMORY_BYTES
    call_timeout: float = DEFAULT_CALL_TIMEOUT
    project_dir: Optional[PathLike] = None
    team_dir: Optional[PathLike] = None
    scope: str = "personal"
    #: The review gate: the scopes whose changes made through ``call_tool``
    #: (the model's) wait for :meth:`Memory.approve` instead of being applied.
    review: Tuple[str, ...] = ()
    #: Semantic recall: ``None`` (on unless ``AGENT_MEMORY_SEMANTIC=off``),
    #: ``True`` or ``False``; see :class:`Memory`.
    semantic: Optional[bool] = None
    #: The embedding weights file; default: ``AGENT_MEMORY_WEIGHTS``, the
    #: package's own, the data directory's (see :class:`Memory`).
    weights: Optional[PathLike] = None


def default_component_path() -> Path:
    """The component used when none is given: ``AGENT_MEMORY_WASM`` if set,
    else the ``.wasm`` shipped in this package."""
    env = os.environ.get("AGENT_MEMORY_WASM")
    if env:
        return Path(env)
    return _package_dir() / "agent_memory_component.wasm"


def _package_dir() -> Path:
    # Not importlib.resources: importing it costs tens of milliseconds, and
    # wasmtime needs a real file anyway.
    return Path(__file__).resolve().parent


# -- the runtime -------------------------------------------------------------


class Runtime:
    """One engine and the compiled component: compile once, open many.

    The packaged component comes with its machine code, compiled when the
    package was built; any other component, or that code on a machine or
    wasmtime that cannot run it, is compiled (a second or so) and kept in
    the compiled-component cache for the next process
    (``$AGENT_MEMORY_CACHE_DIR``, empty for none, else the platform cache
    directory + ``agent-memory``). ``code_origin`` says which happened:
    ``"packaged"``, ``"cache"`` or ``"compiled"``. :meth:`shared` keeps one
    runtime per component file for the process. The engine interrupts calls
    by epoch: a daemon thread advances it every 10 ms while the runtime lives.
    """

    _shared: Dict[Path, "Runtime"] = {}
    _shared_lock = threading.Lock()

    def __init__(self, component: Optional[PathLike] = None) -> None:
        path = Path(component) if component is not None else default_component_path()
        if not path.is_file():
            raise FileNotFoundError(
                f"the memory component `{path}` does not exist; reinstall the agent-memory "
                "package, or build it with `cargo build -p agent-memory-cli` and set AGENT_MEMORY_WASM"
            )
        self.path = path.resolve()
        self.engine = Engine(_compiled.engine_config())
        packaged = _package_dir()
        own = packaged if self.path.parent == packaged else None
        self.component, self.code_origin = _compiled.load(self.engine, self.path, own)
        self.linker = Linker(self.engine)
        self.linker.add_wasip2()
        _start_epoch_ticker(self.engine)

    @classmethod
    def shared(cls, component: Optional[PathLike] = None) -> "Runtime":
        """The process-wide runtime for ``component`` (default: the packaged one)."""
        path = (Path(component) if component is not None else default_component_path()).resolve()
        with cls._shared_lock:
            runtime = cls._shared.get(path)
            if runtime is None:
                runtime = cls._shared[path] = Runtime(path)
            return runtime

    def open(self, options: OpenOptions) -> "Memory":
        """Opens one memory in an instance of its own (its root is the guest's ``/``)."""
        return self.open_group([options])[0]

    def open_group(self, options: Sequence[OpenOptions]) -> List["Memory"]:
        """Opens several memories in one instance, in the order given.

        Each root is preopened at a guest directory of its own
        (``/memory-0``, ``/memory-1``, ...) and each memory reads and writes
        only its own root. The memories share the instance's fate: a trap or
        a limit in one restarts it, and every memory of the group reopens on
        its next call.

        :raises MemoryError: ``invalid-options`` for the first memory whose
            options the component refuses (none stays open then).
        """
        if not options:
            raise ValueError("open_group needs at least one OpenOptions")
        group = _Group(self, list(options))
        memories = []
        try:
            for index in range(len(group.members)):
                memory = Memory.__new__(Memory)
                memory._attach(group, index)
                memories.append(memory)
        except BaseException:
            for memory in memories:
                memory.close()
            raise
        return memories


def open_group(options: Sequence[OpenOptions], *, component: Optional[PathLike] = None) -> List["Memory"]:
    """Opens several memories in one instance of the component; see
    :meth:`Runtime.open_group`."""
    return Runtime.shared(component).open_group(options)


def _start_epoch_ticker(engine: Engine) -> None:
    ref = weakref.ref(engine)

    def tick() -> None:
        while True:
            time.sleep(_EPOCH_TICK)
            live = ref()
            if live is None:
                return
            live.increment_epoch()
            del live

    threading.Thread(target=tick, name="agent-memory-epoch", daemon=True).start()


# -- WIT values ----------------------------------------------------------------


def _record(**fields: Any) -> Record:
    # The component API reads record fields by their WIT (kebab-case) names.
    record = Record()
    for name, value in fields.items():
        setattr(record, name.replace("_", "-"), value)
    return record


def _get(record: Any, name: str) -> Any:
    return getattr(record, name.replace("_", "-"))


def _fields(record: Any, cls: Any) -> Any:
    return cls(**{f: _get(record, f) for f in cls.__dataclass_fields__})


def _budget(record: Any) -> Budget:
    # An enum lifts as its case name (`not-injected`).
    return _fields(_get(record, "budget"), Budget)


def _write_receipt(record: Any) -> WriteReceipt:
    return WriteReceipt(
        path=_get(record, "path"),
        bytes_written=_get(record, "bytes_written"),
        truncated_from=_get(record, "truncated_from"),
        warnings=list(_get(record, "warnings")),
        budget=_budget(record),
        message=_get(record, "message"),
    )


def _terms(results: Any) -> List[TermCount]:
    return [_fields(t, TermCount) for t in _get(results, "terms")]


def _hits(results: Any) -> List[SearchHit]:
    return [SearchHit(**{f: _get(h, f) for f in SearchHit.__dataclass_fields__}) for h in _get(results, "hits")]


def _status(record: Any) -> SemanticStatus:
    return _fields(record, SemanticStatus)


def _results_need_model(results: Any) -> bool:
    """Whether ranked results made without the model may differ from a
    loaded model's: meaning decides only when the lexical evidence is weak,
    and with the component's fusion settings that needs a query word that no
    file holds (the rule the CLI defers by). Also, to be safe, no hits at
    all, or a best hit that holds no query word."""
    terms = _get(results, "terms")
    if any(_get(t, "count") == 0 for t in terms):
        return True
    hits = _get(results, "hits")
    if not hits:
        return True
    matched = [m.lower() for m in _get(hits[0], "matched-terms")]
    words = [_get(t, "term").lower() for t in terms]
    return not any(m == w or w in m or (len(m) >= 4 and w.startswith(m)) for w in words for m in matched)


def _reply_needs_model(reply: Any) -> bool:
    """Whether a ``memory_search`` reply made without the model says meaning
    would have decided: its second line is :data:`_OFF_NOTE` (asked only of a
    reply made while the model was deferred, the one reason it was off)."""
    lines = reply.split("\n", 2) if isinstance(reply, str) else []
    return len(lines) > 1 and lines[1] == _OFF_NOTE


def _version(record: Any) -> Version:
    # An enum lifts as its case name (`%import` as plain `import`).
    return _fields(record, Version)


def _error_kind(kind: Any) -> str:
    # `error-kind` is a variant: a case without payload, or `other(name)`.
    if isinstance(kind, Variant):
        return kind.payload if kind.tag == "other" else kind.tag
    return str(kind)


def _parse_now(now: Now) -> Optional[_dt.datetime]:
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


def _local_offset_minutes() -> int:
    offset = _dt.datetime.now().astimezone().utcoffset() or _dt.timedelta(0)
    return int(offset.total_seconds() // 60)


def _word(word: str, choices: Tuple[str, ...], kind: str, what: str) -> str:
    # The WIT words (`long-term`) and the tool words (`long_term`) both work.
    if isinstance(word, str):
        wit = word.replace("_", "-")
        if wit in choices:
            return wit
    raise MemoryError(kind, f"unknown {what} `{word}`; expected one of {', '.join(choices)}")


# -- a group: the memories of one instance ------------------------------------------


@dataclass
class _Member:
    options: OpenOptions
    root: Path
    guest_root: str
    project: str
    fixed_unix_seconds: Optional[int]
    offset: int
    follows_system_zone: bool
    secret_policy: str
    project_dir: Optional[Path] = None
    guest_project: Optional[str] = None
    team: Optional[Path] = None
    guest_team: Optional[str] = None
    scope: str = "personal"
    review: Tuple[str, ...] = ()
    semantic: _semantic.Choice = _semantic.Choice(None, "turned off by the host")
    # Whether the handle open now was given its semantic setting (`enable`
    # happens at the first search that needs the model, `disable` at open).
    semantic_applied: bool = False
    # The handle open now was told `disable(_DEFERRED)`: the model is not
    # loaded yet, and a search that needs it loads it and runs again.
    semantic_deferred: bool = False
    handle: Optional[ResourceAny] = None
    closed: bool = False


@dataclass
class _Live:
    store: Store
    instance: Any
    funcs: Dict[Tuple[str, str], Any] = field(default_factory=dict)
    stderr: bytearray = field(default_factory=bytearray)
    # The embedding model, loaded once per instance at the first search that
    # needs it and enabled on each memory of the instance.
    model: Optional[ResourceAny] = None


def _prepare_team_dir(team: Path) -> Path:
    """The team directory resolved, created (with its parents) when missing.

    It is preopened read-write, so it must be a real folder where it is
    named: a symbolic link (to another folder, to ``/``, or dangling) would
    give its target the team's files, and is refused with ``invalid-options``
    naming the link. Links among its parents are followed, as for any path.
    """

    def linked() -> MemoryError:
        try:
            target = f" (to `{os.readlink(team)}`)"
        except OSError:
            target = ""
        return MemoryError(
            "invalid-options",
            f"the team directory `{team}` is a symbolic link{target}; the team directory must be "
            "a real folder inside the project: replace the link with a real folder",
        )

    if team.name in ("", ".."):
        raise MemoryError(
            "invalid-options",
            f"the team directory `{team}` does not end in a folder name; give the project's `.agent-memory` folder",
        )
    # pathlib drops a trailing `.`, so `link/.` is looked at as `link`.
    if team.is_symlink():
        raise linked()
    team.mkdir(parents=True, exist_ok=True)
    resolved = team.resolve(strict=True)
    # Made a link meanwhile, or something else that leads elsewhere (`..`,
    # a junction): it must resolve to its folder joined with its name.
    if resolved != team.parent.resolve(strict=True) / team.name:
        if team.is_symlink():
            raise linked()
        raise MemoryError(
            "invalid-options",
            f"the team directory `{team}` leads to `{resolved}`, outside the folder that holds it; "
            "replace it with a real folder",
        )
    return resolved


class _Group:
    """The memories that share one instance, and the instance while it lives."""

    def __init__(self, runtime: Runtime, options: List[OpenOptions]) -> None:
        self.runtime = runtime
        self.lock = threading.RLock()
        self.busy = False
        self.live: Optional[_Live] = None
        single = len(options) == 1
        self.members = [
            self._member(o, "/" if single else f"/memory-{i}", _GUEST_PROJECT if single else f"{_GUEST_PROJECT}-{i}")
            for i, o in enumerate(options)
        ]
        self.check_one_model()
        self.max_memory_bytes = max(o.max_memory_bytes for o in options)
        self.call_timeout = max(o.call_timeout for o in options)

    @staticmethod
    def _member(o: OpenOptions, guest_root: str, guest_project: str) -> _Member:
        project_dir = None
        if o.project_dir is not None:
            project_dir = Path(o.project_dir).resolve()
            if not project_dir.is_dir():
                raise ValueError(
                    f"the project directory `{o.project_dir}` is not a directory; pass the project's root folder"
                )
        root = Path(o.root)
        root.mkdir(parents=True, exist_ok=True)
        team = None
        if o.team_dir is not None:
            team = _prepare_team_dir(Path(o.team_dir))
            if team == root.resolve(strict=True):
                raise MemoryError("invalid-options", f"the team directory `{team}` is the memory root; give the project's `.agent-memory` folder")
        pinned = _parse_now(o.now)
        if o.utc_offset_minutes is not None:
            offset, follows = int(o.utc_offset_minutes), False
        elif pinned is not None:
            offset, follows = int(pinned.utcoffset().total_seconds() // 60), False
        else:
            offset, follows = _local_offset_minutes(), True
        return _Member(
            options=o,
            root=root.resolve(strict=True),
            guest_root=guest_root,
            project=os.fspath(o.project),
            fixed_unix_seconds=None if pinned is None else int(pinned.timestamp()),
            offset=offset,
            follows_system_zone=follows,
            secret_policy=_word(o.secret_policy, SECRET_POLICIES, "invalid-options", "secret policy"),
            project_dir=project_dir,
            guest_project=None if project_dir is None else guest_project,
            team=team,
            # Beside the root, never the root itself.
            guest_team=None if team is None else ("/agent-memory-team" if guest_root == "/" else f"{guest_root}-team"),
            scope=_word(o.scope, SCOPES, "invalid-options", "scope"),
            review=tuple(_word(w, SCOPES, "invalid-options", "review scope") for w in o.review),
            semantic=_semantic.choose(o.semantic, o.weights, _package_dir()),
        )

    # -- the instance --

    def ensure_live(self) -> _Live:
        if self.live is not None:
            return self.live
        for member in self.members:
            member.handle = None
        store = Store(self.runtime.engine)
        # Linear memory past the cap fails to grow; Rust code then aborts.
        store.set_limits(memory_size=self.max_memory_bytes)
        self._arm(store)
        stderr = bytearray()

        def keep(chunk: bytes) -> None:
            stderr.extend(chunk)
            del stderr[:-_STDERR_KEEP]

        wasi = WasiConfig()
        # Each root read-write at its guest path; no env, no args, and stderr
        # only into a buffer that explains a trap.
        for member in self.members:
            wasi.preopen_dir(str(member.root), member.guest_root)
            # The project only for hashing (staleness anchors): read-only, so
            # nothing the guest does can write there.
            if member.project_dir is not None and member.guest_project is not None:
                wasi.preopen_dir(str(member.project_dir), member.guest_project, fs_mutable=False)
            if member.team is not None and member.guest_team is not None:
                wasi.preopen_dir(str(member.team), member.guest_team)
        wasi.stderr_custom = keep
        # The weights reach the component as its stdin, which wasmtime reads
        # natively: wasmtime-py copies a `list<u8>` argument byte by byte
        # (minutes for 25 MB), and the guest sees this one file, read-only.
        weights = self._weights()
        if weights is not None:
            try:
                wasi.stdin_file = str(weights)
            except WasmtimeError as e:
                self._semantic_off(weights, f"the weights file `{weights}` cannot be opened: {e}")
        store.set_wasi(wasi)
        try:
            instance = self.runtime.linker.instantiate(store, self.runtime.component)
        except WasmtimeError as e:
            raise self._failure("instantiate", e, stderr) from None
        self.live = _Live(store, instance, stderr=stderr)
        return self.live

    def _arm(self, store: Store) -> None:
        ticks = int(self.call_timeout / _EPOCH_TICK) + 1
        store.set_epoch_deadline(max(ticks, 1))

    def _failure(self, operation: str, error: WasmtimeError, stderr: bytearray, args: Sequence[Any] = ()) -> MemoryTrap:
        text = str(error)
        first = text.strip().splitlines()[-1].strip() if text.strip() else text
        if "interrupt" in text:
            return MemoryTrap(operation, f"the call ran longer than {self.call_timeout:g} s ({first})", "time")
        # The memory cap shows in one of two ways: the component's allocator
        # says so on stderr, or an argument could never fit (its UTF-8 is at
        # least as many bytes as it has characters) and copying it in failed
        # before the component could say anything.
        too_big = sum(len(a) for a in args if isinstance(a, str)) >= self.max_memory_bytes
        if too_big or _ALLOCATION_FAILED in stderr:
            return MemoryTrap(operation, f"linear memory is capped at {self.max_memory_bytes} bytes ({first})", "memory")
        if stderr:
            text = f"{text}\ncomponent stderr: {bytes(stderr).decode('utf-8', 'replace').strip()}"
        return MemoryTrap(operation, text)

    def _func(self, live: _Live, interface: str, name: str) -> Any:
        key = (interface, name)
        func = live.funcs.get(key)
        if func is None:
            export = f"{_PACKAGE}/{interface}@{_VERSION}"
            index = live.instance.get_export_index(live.store, export)
            if index is None:
                raise RuntimeError(f"the component does not export `{export}`: is it contract {_VERSION}?")
            func_index = live.instance.get_export_index(live.store, name, index)
            func = None if func_index is None else live.instance.get_func(live.store, func_index)
            if func is None:
                raise RuntimeError(f"the component does not export `{export}#{name}`")
            live.funcs[key] = func
        return func

    def raw_call(self, interface: str, name: str, *args: Any) -> Any:
        """Calls a function of the live instance; a trap drops the instance."""
        live = self.ensure_live()
        func = self._func(live, interface, name)
        live.stderr.clear()
        self._arm(live.store)
        try:
            value = func(live.store, *args)
            func.post_return(live.store)
        except WasmtimeError as e:
            self._drop_instance()
            # `[method]memory.write` is reported as `store.write`.
            raise self._failure(f"{interface}.{name.split('.')[-1].split(']')[-1]}", e, live.stderr, args) from None
        return value

    def _drop_instance(self) -> None:
        self.live = None
        for member in self.members:
            member.handle = None

    def result(self, interface: str, name: str, *args: Any) -> Any:
        """Calls a function returning ``result<T, error>``: T, or raises."""
        value = self.raw_call(interface, name, *args)
        # When T and `error` lift to distinct Python types the result comes
        # back bare (T, or the error record); otherwise as a tagged Variant.
        if isinstance(value, Variant) and value.tag in ("ok", "err"):
            if value.tag == "ok":
                return value.payload
            value = value.payload
        elif not (isinstance(value, Record) and hasattr(value, "kind") and hasattr(value, "message")):
            return value
        raise MemoryError(_error_kind(_get(value, "kind")), _get(value, "message"))

    # -- handles --

    def handle(self, index: int) -> ResourceAny:
        """The live handle of member ``index``, opening it (again) if needed,
        with the current local offset when it follows the system's."""
        member = self.members[index]
        if member.closed:
            raise ValueError(f"the memory on `{member.root}` is closed")
        if member.handle is None:
            if member.follows_system_zone:
                member.offset = _local_offset_minutes()
            options = _record(
                root=member.guest_root,
                project=member.project,
                clock=self._clock(member),
                limits=_record(
                    max_inject_bytes=member.options.max_inject_bytes,
                    max_write_bytes=member.options.max_write_bytes,
                    max_read_bytes=member.options.max_read_bytes,
                    lock_lease_ms=member.options.lock_lease_ms,
                    lock_wait_ms=member.options.lock_wait_ms,
                    history_max_versions=member.options.history_max_versions,
                    history_max_bytes=member.options.history_max_bytes,
                ),
                secret_policy=member.secret_policy,
                source=member.options.source,
                project_dir=member.guest_project,
                team_dir=member.guest_team,
                scope=member.scope,
                review=list(member.review),
            )
            member.handle = self.result("store", "[static]memory.open", options)
            member.semantic_applied = False
            member.semantic_deferred = False
            if member.semantic.weights is None:
                if member.semantic.why_off is not None:
                    self.raw_call("semantic", "disable", member.handle, member.semantic.why_off)
                member.semantic_applied = True
        elif member.follows_system_zone:
            offset = _local_offset_minutes()
            if offset != member.offset:
                member.offset = offset
                self.result("store", "[method]memory.set-clock", member.handle, self._clock(member))
        assert member.handle is not None
        return member.handle

    @staticmethod
    def _clock(member: _Member) -> Record:
        return _record(utc_offset_minutes=member.offset, fixed_unix_seconds=member.fixed_unix_seconds)

    def method(
        self, index: int, name: str, *args: Any, semantic: bool = False, needs_model: Optional[Callable[[Any], bool]] = None
    ) -> Any:
        """Calls a method of member ``index``; with ``semantic``, its
        semantic recall is set up first (the model loaded, if on). With
        ``needs_model`` too, the model is not loaded for the call unless it
        is already: the call runs with recall off for :data:`_DEFERRED`, and
        when ``needs_model(answer)`` says meaning would have decided (a query
        word in no file), the model is loaded and the call made again, so
        the answer is the one a loaded model gives."""

        def call() -> Any:
            deferred = False
            if semantic:
                deferred = needs_model is not None and self.defer_semantic(index)
                if not deferred:
                    self.ensure_semantic(index)
            value = self.result("store", f"[method]memory.{name}", self.handle(index), *args)
            if deferred and needs_model is not None and needs_model(value):
                self.ensure_semantic(index)
                value = self.result("store", f"[method]memory.{name}", self.handle(index), *args)
            return value

        return self._entered(call)

    def semantic_call(self, index: int, name: str, *args: Any) -> Any:
        """Calls ``semantic.<name>(memory, ...)`` for member ``index``, its
        semantic recall set up first."""

        def call() -> Any:
            self.ensure_semantic(index)
            return self.raw_call("semantic", name, self.handle(index), *args)

        return self._entered(call)

    # -- semantic recall --

    def _weights(self) -> Optional[Path]:
        """The weights file of the memories that have recall on (one per
        group, checked at open)."""
        return next((m.semantic.weights for m in self.members if m.semantic.weights is not None), None)

    def check_one_model(self) -> None:
        paths = {m.semantic.weights for m in self.members if m.semantic.weights is not None}
        if len(paths) > 1:
            raise MemoryError(
                "invalid-options",
                "the memories of one group share one embedding model, but they were given "
                f"{', '.join(sorted(f'`{p}`' for p in paths))}; give them the same weights, or open them apart",
            )

    def _semantic_off(self, weights: Path, why: str) -> None:
        """Turns recall off, saying why, for every memory that would load
        ``weights``: at once where a handle is open, else when it opens."""
        for member in self.members:
            if member.semantic.weights == weights:
                member.semantic = _semantic.Choice(None, why)
                member.semantic_applied = False
                member.semantic_deferred = False
                if member.handle is not None and self.live is not None and not member.closed:
                    self.raw_call("semantic", "disable", member.handle, why)
                    member.semantic_applied = True

    def disable_semantic(self, index: int, why: str) -> None:
        def call() -> None:
            member = self.members[index]
            member.semantic = _semantic.Choice(None, why)
            self.raw_call("semantic", "disable", self.handle(index), why)
            member.semantic_applied = True
            member.semantic_deferred = False

        self._entered(call)

    def defer_semantic(self, index: int) -> bool:
        """Puts off loading the model for a search of member ``index``:
        true when the model is not loaded in this instance and recall is to
        be on, the memory then being told why it is off for now
        (:data:`_DEFERRED`); false when the setting is already applied or
        the model is there to enable at no cost."""
        member = self.members[index]
        handle = self.handle(index)
        if member.semantic_applied:
            return False
        weights = member.semantic.weights
        live = self.ensure_live()
        if weights is None or live.model is not None or _semantic.refused(weights) is not None:
            return False
        if not member.semantic_deferred:
            self.raw_call("semantic", "disable", handle, _DEFERRED)
            member.semantic_deferred = True
        return True

    def ensure_semantic(self, index: int) -> None:
        """Gives member ``index`` its semantic setting before a call that
        uses it: the model is loaded in this instance the first time (about
        a second) and enabled on the memory. A weights file the component
        refuses, or a load that traps, turns recall off with the reason;
        nothing is raised for it."""
        member = self.members[index]
        handle = self.handle(index)
        if member.semantic_applied:
            return
        weights = member.semantic.weights
        assert weights is not None
        why = _semantic.refused(weights)
        live = self.ensure_live()
        if why is None and live.model is None:
            try:
                live.model = self.result("semantic", "[static]model.load-stdin")
            except MemoryError as e:
                why = f"the weights file `{weights}` was refused: {e.message}"
                if e.kind == "invalid-options":
                    _semantic.remember_refused(weights, why)
            except MemoryTrap as e:
                why = f"loading the weights file `{weights}` failed: {e}"
        if why is not None:
            self._semantic_off(weights, why)
            # A trap dropped the instance: the handle opens again, off.
            self.handle(index)
            return
        self.raw_call("semantic", "enable", handle, live.model)
        member.semantic_applied = True
        member.semantic_deferred = False

    def plain_method(self, index: int, name: str, *args: Any) -> Any:
        return self._entered(lambda: self.raw_call("store", f"[method]memory.{name}", self.handle(index), *args))

    def free(self, interface: str, name: str, *args: Any) -> Any:
        return self._entered(lambda: self.raw_call(interface, name, *args))

    def _entered(self, call: Callable[[], Any]) -> Any:
        with self.lock:
            self._release_closed()
            self.busy = True
            try:
                return call()
            finally:
                self.busy = False

    def close(self, index: int, *, from_finalizer: bool = False) -> None:
        """Drops member ``index``'s handle. A finalizer may run in the middle
        of a call of this thread (between a call and its post-return), so
        from there the drop waits for the next call unless the instance is
        idle."""
        member = self.members[index]
        if member.closed:
            return
        member.closed = True
        if from_finalizer and (self.busy or not self.lock.acquire(blocking=False)):
            return
        if from_finalizer:
            self.lock.release()
        with self.lock:
            self._release_closed()

    def _release_closed(self) -> None:
        live = self.live
        for member in self.members:
            if member.closed and member.handle is not None:
                handle, member.handle = member.handle, None
                if live is None:
                    continue
                self._arm(live.store)
                try:
                    handle.drop(live.store)
                except WasmtimeError:
                    # A trap in the destructor poisons the instance like any other.
                    self._drop_instance()
                    live = None
        if all(m.closed for m in self.members):
            self.live = None


# -- the public handle -------------------------------------------------------------


class Memory:
    """An open memory: one root, one project, in a sandboxed instance of the
    component. A handle on the WIT ``memory`` resource.

    ``Memory(root, project, ...)`` opens it in an instance of its own, where
    its root is the guest's ``/``; :func:`open_group` opens several in one
    instance.

    :param root: the memory directory; created if missing. The component sees
        only this directory.
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
    :param lock_lease_ms: age at which another writer's lock counts as
        abandoned (default 10000, at least 1000).
    :param lock_wait_ms: how long a write waits for the lock before ``busy``
        (default 15000).
    :param history_max_versions: versions of each file kept in history
        (default 50; 0 turns history off).
    :param history_max_bytes: bytes of history in all, the oldest versions
        pruned first (default 64 MiB).
    :param secret_policy: what every path that stores text does with what
        looks like a credential: ``"block"`` (default; ``secret-detected``,
        nothing written), ``"redact"`` (each value stored as
        ``[REDACTED:<rule-id>]``, the receipt warns) or ``"off"``.
    :param source: who writes through this memory (an agent, a session),
        recorded with every change in history; at most 128 bytes, no line
        break or control character; empty for none.
    :param max_memory_bytes: cap of the instance's linear memory (default
        256 MiB); a call that needs more raises :class:`MemoryTrap` with
        ``limit == "memory"``.
    :param call_timeout: bound of one call in seconds (default 30); a call
        still running then raises :class:`MemoryTrap` with ``limit == "time"``.
    :param project_dir: the project's files, for staleness anchors: preopened
        READ-ONLY at a guest directory of its own and only ever hashed. A
        note or ``MEMORY.md`` that names a project file (``src/auth.rs``,
        ``src/auth.rs:42``) anchors it when written; reads, listings, search
        hits and the context block then mark it ``stale: src/auth.rs changed
        since <date>`` once it changes. Default: none, no anchoring.
    :param team_dir: the project's team memory, normally
        ``<project root>/.agent-memory`` (created if missing): Markdown
        shared through git, preopened read-write as a second directory.
        Tools then take ``"scope": "team"``, the context block gets a team
        section and search covers it. It must be a real folder: a symbolic
        link there raises ``invalid-options`` naming it.
    :param scope: ``"personal"`` (default) or ``"team"`` (needs
        ``team_dir``): which store the typed methods act on.
    :param semantic: semantic recall (ranked search also finds the file that
        says it in other words; docs/recall.md). ``None`` (default): on,
        unless ``AGENT_MEMORY_SEMANTIC=off``; ``True``: on whatever the
        environment says; ``False``: no model is given (as for a Rust host
        that never enables it: the status says ``the host gave no embedding
        model`` and searches carry no note; :meth:`disable_semantic` says
        why instead). It is off, and
        :meth:`semantic_status` says why, when no weights file is found or
        the component refuses it; nothing fails for that. The model is
        loaded once per instance, shared by the memories of a group, when a
        query needs it: at the first ranked search or ``memory_search`` call
        with a word that no file holds (where meaning decides; the search
        runs again with the model, so it answers as a loaded model does),
        or at :meth:`semantic_status` / :meth:`index_vectors`. Writes, reads
        and searches whose words are all in some file never load it.
    :param weights: the embedding weights file (all-MiniLM-L6-v2 int8, from
        ``embed/scripts/derive.py``). Default: ``AGENT_MEMORY_WEIGHTS`` if
        set, else the file shipped in this package, else
        ``<platform data dir>/agent-memory-models/all-minilm-l6-v2.int8.safetensors``.
        The memories of a group must use the same file.
    :param component: path of the ``.wasm`` (default: the packaged one).
    :raises MemoryError: ``invalid-options`` for an empty project, an offset
        out of range, limits out of range, an unknown secret policy, a bad
        source label, a team directory that is a symbolic link or an
        ``AGENT_MEMORY_SEMANTIC`` that is neither on nor off.

    Close a memory with :meth:`close` or a ``with`` block; one that is
    garbage-collected unclosed releases its handle then. A ``Memory`` may be
    used from several threads (calls into one instance take turns). Several
    memories, in one process or many, may share a root: the component
    serializes writes with a lock file.
    """

    _group: _Group
    _index: int
    _info: MemoryInfo

    def __init__(
        self,
        root: PathLike,
        project: PathLike,
        now: Now = None,
        utc_offset_minutes: Optional[int] = None,
        *,
        max_inject_bytes: Optional[int] = None,
        max_write_bytes: Optional[int] = None,
        max_read_bytes: Optional[int] = None,
        lock_lease_ms: Optional[int] = None,
        lock_wait_ms: Optional[int] = None,
        history_max_versions: Optional[int] = None,
        history_max_bytes: Optional[int] = None,
        secret_policy: str = "block",
        source: str = "",
        max_memory_bytes: int = DEFAULT_MAX_MEMORY_BYTES,
        call_timeout: float = DEFAULT_CALL_TIMEOUT,
        project_dir: Optional[PathLike] = None,
        team_dir: Optional[PathLike] = None,
        scope: str = "personal",
        review: Tuple[str, ...] = (),
        semantic: Optional[bool] = None,
        weights: Optional[PathLike] = None,
        component: Optional[PathLike] = None,
    ) -> None:
        options = OpenOptions(
            root=root,
            project=project,
            now=now,
            utc_offset_minutes=utc_offset_minutes,
            max_inject_bytes=max_inject_bytes,
            max_write_bytes=max_write_bytes,
            max_read_bytes=max_read_bytes,
            lock_lease_ms=lock_lease_ms,
            lock_wait_ms=lock_wait_ms,
            history_max_versions=history_max_versions,
            history_max_bytes=history_max_bytes,
            secret_policy=secret_policy,
            source=source,
            max_memory_bytes=max_memory_bytes,
            call_timeout=call_timeout,
            project_dir=project_dir,
            team_dir=team_dir,
            scope=scope,
            review=tuple(review),
            semantic=semantic,
            weights=weights,
        )
        self._attach(_Group(Runtime.shared(component), [options]), 0)

    def _attach(self, group: _Group, index: int) -> None:
        self._group, self._index = group, index
        self._info = self.info()

    # -- lifecycle ---------------------------------------------------------

    def close(self) -> None:
        """Releases the handle in the component (its resource is dropped).
        Idempotent; any later operation raises ``ValueError``."""
        group = getattr(self, "_group", None)
        if group is not None:
            group.close(self._index)

    def _finalize(self) -> None:
        group = getattr(self, "_group", None)
        if group is not None:
            group.close(self._index, from_finalizer=True)

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran."""
        return self._group.members[self._index].closed

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        # Best effort: at interpreter exit the runtime may already be gone.
        try:
            self._finalize()
        except Exception:  # noqa: BLE001
            pass

    def _method(self, name: str, *args: Any) -> Any:
        return self._group.method(self._index, name, *args)

    # -- what the memory is open on ----------------------------------------

    @property
    def root(self) -> Path:
        """The memory root (resolved): the only directory of the host this memory sees."""
        return self._group.members[self._index].root

    @property
    def guest_root(self) -> str:
        """Where the root is preopened in the instance: ``/``, or ``/memory-N`` in a group."""
        return self._group.members[self._index].guest_root

    @property
    def project(self) -> str:
        """The project path as given."""
        return self._group.members[self._index].project

    @property
    def project_slug(self) -> str:
        """``<sanitized-basename>-<8 hex>``, e.g. ``my-app-1a2b3c4d``."""
        return self._info.project_slug

    @property
    def project_dir(self) -> str:
        """The project's root-relative directory, ``projects/<slug>``."""
        return self._info.project_dir

    @property
    def today(self) -> str:
        """Today's local date (``YYYY-MM-DD``), asked of the component now."""
        return self.info().today

    def info(self) -> MemoryInfo:
        """The project slug and directory, and today's local date."""
        return _fields(self._group.plain_method(self._index, "info"), MemoryInfo)

    def limits(self) -> Limits:
        """The limits in force: the defaults or the overrides this memory was opened with."""
        return _fields(self._group.plain_method(self._index, "limits"), Limits)

    # -- memory ------------------------------------------------------------

    def write(self, target: str, content: str, mode: str = "append", name: Optional[str] = None) -> WriteReceipt:
        """Stores ``content`` in ``long-term`` (MEMORY.md), ``scratchpad``,
        ``daily`` (today's log) or ``note`` (needs ``name``); the tool words
        (``long_term``) work too.

        ``append`` adds a newline first when the file lacks one; ``overwrite``
        replaces the file atomically. Content over the write cap is cut at a
        UTF-8 boundary and the receipt says so. The previous content is
        recorded in history first; the content passes the secret policy.

        :raises MemoryError: ``invalid-target``, ``invalid-mode``,
            ``missing-name``, ``invalid-name``, ``secret-detected``,
            ``not-a-file``, ``busy``, ``io``.
        """
        target = _word(target, WRITE_TARGETS, "invalid-target", "write target")
        mode = _word(mode, WRITE_MODES, "invalid-mode", "write mode")
        return _write_receipt(self._method("write", target, content, mode, name))

    def write_if_unchanged(
        self, target: str, content: str, base_sha256: str, name: Optional[str] = None
    ) -> WriteReceipt:
        """:meth:`write` with ``overwrite``, only while the file still holds
        the text an editor started from: its bytes must hash to
        ``base_sha256`` (``hashlib.sha256(base.encode()).hexdigest()``; a
        missing file hashes as ``""``). The check and the write are one
        change under the store's lock.

        :raises MemoryError: ``conflict`` (the file changed since; nothing
            was written), ``invalid-arguments`` (not 64 lowercase hex
            digits), then the errors of :meth:`write`.
        """
        target = _word(target, WRITE_TARGETS, "invalid-target", "write target")
        return _write_receipt(self._method("write-if-unchanged", target, content, name, base_sha256))

    def read(self, source: str, name: Optional[str] = None) -> Optional[str]:
        """A memory file's text (capped, with a marker when cut), or ``None``
        when it does not exist. ``daily`` takes ``name`` = ``YYYY-MM-DD``
        (default today); ``note`` needs ``name``.

        :raises MemoryError: ``invalid-target``, ``missing-name``,
            ``invalid-name``, ``invalid-date``, ``not-a-file``, ``io``.
        """
        source = _word(source, READ_SOURCES, "invalid-target", "read source")
        return self._method("read", source, name)

    def list_files(self) -> List[FileInfo]:
        """Every ``.md`` file this project can see, sorted by path."""
        return [
            FileInfo(path=_get(f, "path"), bytes=_get(f, "bytes"), stale=list(_get(f, "stale")))
            for f in self._method("list-files")
        ]

    def append_daily(self, heading: str, body: str) -> WriteReceipt:
        """Appends ``### HH:MM — heading`` and the trimmed body to today's log.

        :raises MemoryError: ``invalid-arguments`` for an empty or multi-line heading.
        """
        return _write_receipt(self._method("append-daily", heading, body))

    def search(self, query: str, mode: str = "ranked") -> SearchResults:
        """Searches MEMORY.md, the project's notes and daily logs (ranked: its
        scratchpad too).

        ``mode`` is ``ranked`` (words, not substrings: identifiers split,
        light stemming, relevance with names and headings weighted, time
        words such as ``yesterday`` restricting daily logs) or ``literal``
        (the seeds' case-insensitive substring search). Both report per-term
        counts and render the same way.

        :raises MemoryError: ``invalid-mode`` for another mode,
            ``invalid-arguments`` for more distinct terms than
            ``limits().max_query_terms``.
        """
        mode = _word(mode, SEARCH_MODES, "invalid-mode", "search mode")
        results = self._group.method(
            self._index, "search", query, mode, semantic=mode == "ranked", needs_model=_results_need_model
        )
        return SearchResults(terms=_terms(results), hits=_hits(results))

    def search_top(self, query: str, limit: int, mode: str = "ranked") -> SearchPage:
        """:meth:`search`, its best ``limit`` hits only, and ``total``: how
        many files the whole search returns (at most 100). A ranked search
        then re-reads only the files of the hits it returns. Pass the page
        to :meth:`render_search` like any results.

        :raises MemoryError: ``invalid-arguments`` (``limit`` 0, too many
            terms), ``invalid-mode``.
        """
        mode = _word(mode, SEARCH_MODES, "invalid-mode", "search mode")
        page = self._group.method(
            self._index, "search-top", query, mode, limit, semantic=mode == "ranked", needs_model=_results_need_model
        )
        return SearchPage(terms=_terms(page), hits=_hits(page), total=_get(page, "total"))

    def render_search(self, results: SearchResults, max_bytes: Optional[int] = None) -> str:
        """Renders results for a model, never longer than ``max_bytes``
        (default: the read cap)."""
        record = _record(
            terms=[_record(term=t.term, count=t.count) for t in results.terms],
            hits=[_record(**{f: getattr(h, f) for f in SearchHit.__dataclass_fields__}) for h in results.hits],
        )
        return self._group.plain_method(self._index, "render-search", record, max_bytes)

    def edit(self, target: str, old_text: str, new_text: str, name: Optional[str] = None) -> EditReceipt:
        """Replaces the one occurrence of ``old_text`` in a file with
        ``new_text`` (may be empty), atomically. ``name`` is the note name
        for ``note`` and the date (``YYYY-MM-DD``, default today) for
        ``daily``. The new text passes the secret policy.

        :raises MemoryError: ``invalid-arguments`` (empty ``old_text``, a too
            long ``new_text``), ``not-found`` (no such file, or ``old_text``
            not in it), ``ambiguous`` (more than one occurrence; the message
            lists the lines), ``secret-detected``, the name and date errors
            of :meth:`read`, ``not-a-file``, ``busy``, ``io``. On any error
            the file is unchanged.
        """
        target = _word(target, WRITE_TARGETS, "invalid-target", "edit target")
        record = self._method("edit", target, name, old_text, new_text)
        return EditReceipt(
            path=_get(record, "path"),
            line=_get(record, "line"),
            bytes=_get(record, "bytes"),
            warnings=list(_get(record, "warnings")),
            budget=_budget(record),
            message=_get(record, "message"),
        )

    def delete_note(self, name: str) -> DeleteReceipt:
        """Deletes a note (nested names allowed); its history stays, so
        :meth:`restore` can bring it back. A missing note is a success whose
        receipt says nothing was there. A topic folder left empty is removed.

        :raises MemoryError: ``missing-name``, ``invalid-name``,
            ``not-a-file``, ``busy``, ``io``.
        """
        record = self._method("delete-note", name)
        return DeleteReceipt(
            path=_get(record, "path"),
            existed=_get(record, "existed"),
            bytes=_get(record, "bytes"),
            budget=_budget(record),
            message=_get(record, "message"),
        )

    def rename_note(self, name: str, new_name: str) -> RenameReceipt:
        """Moves a note to a new name, creating and removing topic folders
        as needed.

        :raises MemoryError: ``not-found`` (no such note), ``already-exists``
            (the new name is taken), ``invalid-name``, ``not-a-file``,
            ``busy``, ``io``; the store is unchanged on any error.
        """
        record = self._method("rename-note", name, new_name)
        return RenameReceipt(
            from_=getattr(record, "from"), to=record.to, budget=_budget(record), message=record.message
        )

    def history(self, source: str, name: Optional[str] = None, limit: Optional[int] = None) -> List[Version]:
        """The recorded versions of one file, newest first, at most ``limit``
        (all when ``None``). ``source`` and ``name`` as in :meth:`read`. A
        deleted note's history stays; ``MEMORY.md``'s is shared by every
        project.

        :raises MemoryError: ``invalid-arguments`` (``limit`` 0), the name
            and date errors of :meth:`read`.
        """
        source = _word(source, READ_SOURCES, "invalid-target", "history source")
        return [_version(v) for v in self._method("history", source, name, limit)]

    def restore(self, version: str) -> WriteReceipt:
        """Puts a file back to a version from :meth:`history` (e.g. ``v12``):
        a deleted note is recreated; a version from before the file existed
        deletes it. The restore is recorded too, so it can be undone.

        :raises MemoryError: ``not-found`` (an unknown, pruned or unreadable
            id, or another project's), ``busy``, ``io``.
        """
        return _write_receipt(self._method("restore", version))

    def read_version(self, version: str) -> Optional[str]:
        """The text a file held at a recorded version (an id from
        :meth:`history` or :meth:`last_change`): what it held just before
        that change, or ``None`` when the file did not exist then. Reads
        only.

        :raises MemoryError: ``not-found`` (a malformed, unknown, pruned or
            another project's id).
        """
        return self._method("read-version", version)

    def consolidation_plan(self) -> str:
        """The consolidation plan for the agent's own model: what needs
        tidying, with instructions to answer with one ``memory_batch`` whose
        reason is ``consolidation``. Changes nothing.

        :raises MemoryError: ``not-found`` for an empty memory.
        """
        return self._method("consolidation-plan")

    def pending_changes(self) -> List[Dict[str, Any]]:
        """The model's tool calls waiting for review (``review=...``), oldest
        first: dicts with ``id``, ``time_unix``, ``utc_offset_minutes``,
        ``source``, ``scope``, ``tool``, ``arguments`` and ``diff`` (what it
        would change now)."""
        keys = ("id", "time_unix", "utc_offset_minutes", "source", "scope", "tool", "arguments", "diff")
        return [
            {key: _get(p, key) for key in keys}
            for p in self._method("pending-changes")
        ]

    def approve(self, id: str) -> str:
        """Applies the queued call ``id`` (checked again); returns the tool's
        answer. That it is still pending, its change and the decision are
        one step under the store's lock: of two approvals at once one
        applies it, the other finds it decided.

        :raises MemoryError: ``not-found`` (never queued),
            ``invalid-arguments`` (already decided), or the call's own error
            (it then stays queued).
        """
        return self._method("approve", id)

    def reject(self, id: str) -> str:
        """Drops the queued call ``id`` and its text."""
        return self._method("reject", id)

    def clear(self, what: str = "project") -> List[str]:
        """Removes memory files as one change that :meth:`undo` brings
        back: ``project`` (scratchpad, logs,
        notes), ``long_term`` (``MEMORY.md``) or ``all``. Returns the paths
        removed."""
        target = _word(what, ("project", "long-term", "all"), "invalid-target", "clear target")
        return list(_get(self._method("clear", target), "removed"))

    def last_change(self) -> Optional[Version]:
        """The most recent change this project can see (its files and
        ``MEMORY.md``), or ``None``: what :meth:`undo` would undo."""
        version = self._method("last-change")
        return None if version is None else _version(version)

    def undo(self, expected: Optional[str] = None) -> Optional[WriteReceipt]:
        """Undoes the most recent change this project can see: finds it and
        restores its version under the store's lock, as one change, so two
        undos at once end as one after the other would. With ``expected``
        (an id from :meth:`last_change`) it undoes only while that is still
        the last change. ``None`` when nothing was recorded.

        :raises MemoryError: ``conflict`` (``expected`` is no longer the
            last change; nothing was changed), ``not-found`` (``expected``
            is not a version id), then the errors of :meth:`restore`.
        """
        receipt = self._method("undo", expected)
        return None if receipt is None else _write_receipt(receipt)

    def scan_secrets(self) -> List[StoredSecret]:
        """Secrets already stored anywhere under the root (``MEMORY.md`` and
        every project's files, then every version saved in history, its
        ``version`` naming it), by the rules of the write guard, in path
        order; a secret in a file or folder name has ``line`` 0: an audit of
        a store written before the guard or with it ``off``. Never the
        values.

        :raises MemoryError: ``io`` when the root cannot be listed.
        """
        return [_fields(s, StoredSecret) for s in self._method("scan-secrets")]

    def purge_secrets(self) -> PurgeReceipt:
        """Redacts every secret in every version saved in history, in place
        (ids kept, the purge recorded), so no byte of it is left under the
        store's ``.store/``. Live files and names are not changed.

        :raises MemoryError: ``busy``, ``io``.
        """
        return _fields(self._method("purge-secrets"), PurgeReceipt)

    def take_snapshot(self) -> SnapshotInfo:
        """Copies the project's personal notes into the team directory's
        ``snapshot/`` (replacing the previous one) with a ``TAKEN`` time.

        :raises MemoryError: ``no-team-dir``, ``secret-detected`` (nothing
            written), ``busy``, ``io``.
        """
        return _fields(self._method("take-snapshot"), SnapshotInfo)

    def apply_snapshot(self) -> SnapshotInfo:
        """Applies the team snapshot to the project's notes, recorded in
        history as imports.

        :raises MemoryError: ``no-team-dir``, ``not-found`` (no snapshot),
            ``conflict`` (nothing applied), ``busy``, ``io``.
        """
        return _fields(self._method("apply-snapshot"), SnapshotInfo)

    def context_block(self) -> Optional[str]:
        """The ``<memory>`` block for the system prompt, or ``None`` when
        there is nothing to show."""
        return self._method("context-block")

    def flush_compaction(self, summary: str, message_count: Optional[int] = None) -> WriteReceipt:
        """Saves a compaction summary to today's log under
        ``compaction summary (N msgs)``."""
        return _write_receipt(self._method("flush-compaction", summary, message_count))

    def call_tool(self, name: str, arguments: Union[str, Dict[str, Any]]) -> str:
        """Runs a model's tool call on this memory; ``arguments`` is its JSON
        text (a dict is serialized). Returns the text for the model. The name
        is passed through: tools the component adds need no change here.

        Every tool runs whatever set :meth:`tool_definitions` gave the
        model: ``memory_write``, ``memory_read``, ``memory_search`` (``mode``
        ``ranked``, the default, or ``literal``), ``memory_edit``,
        ``memory_delete``, ``memory_rename``, ``memory_history``,
        ``memory_restore``, ``memory_refresh``, and ``memory`` (Anthropic's memory tool, its
        paths under ``/memories`` mapped onto this project's notes).

        :raises MemoryError: ``unknown-tool``, ``invalid-arguments``,
            ``invalid-target``, ``invalid-mode``, ``not-found``, and the errors
            of the operation.
        """
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments)
        return self._group.method(
            self._index, "call-tool", name, arguments, semantic=name == "memory_search", needs_model=_reply_needs_model
        )

    # -- semantic recall -----------------------------------------------------

    def disable_semantic(self, why: str = "turned off by the host") -> None:
        """Turns semantic recall off for this memory, saying why: ranked
        search is then exactly lexical, and :meth:`semantic_status` and the
        searches where meaning would have decided report ``why``. It stays
        off until the memory is opened again."""
        self._group.disable_semantic(self._index, why)

    def semantic_status(self) -> SemanticStatus:
        """Whether semantic recall is on, with which model and how far
        indexing is, or why it is off; ``.line`` is the line
        ``agent-memory status`` prints. Loads the model when recall is on
        and it is not loaded yet; reads the files that changed, embeds
        nothing."""
        return _status(self._group.semantic_call(self._index, "get-status"))

    def index_vectors(
        self, limit: Optional[int] = None, progress: Optional[Callable[[SemanticStatus], None]] = None
    ) -> SemanticStatus:
        """Embeds the chunks that have no vector yet, at most ``limit`` of
        them (all when ``None``), and saves them under the root's
        ``.store/vectors/``. It runs in rounds of 16 chunks (about 2 s each),
        calling ``progress`` with the status after each round. Returns the
        status; with recall off, at once. Stops early when a round saved
        nothing (another process held the store's lock): call it again.

        A search catches up at most 16 missing chunks and answers
        lexically while more are missing, so a store wants this once.
        """
        status = self.semantic_status()
        left = limit
        while status.on and status.ready < status.chunks and (left is None or left > 0):
            round_ = _INDEX_ROUND if left is None else min(_INDEX_ROUND, left)
            before = status.ready
            status = _status(self._group.semantic_call(self._index, "index", round_))
            if left is not None:
                left -= round_
            if progress is not None:
                progress(status)
            if status.ready == before:
                break
        return status

    # -- tools and prompt helpers (pure; run in this memory's instance) ------

    def tool_definitions(self, set: str = "full") -> List[ToolDefinition]:  # noqa: A002 - the WIT name
        """The model tools of ``set``, with JSON Schema: ``seed``
        (``memory_write``, ``memory_read``, ``memory_search``), ``full`` (the
        seed's and ``memory_edit``, ``memory_delete``, ``memory_rename``,
        ``memory_history``, ``memory_restore``, ``memory_refresh``) or
        ``anthropic`` (only
        ``memory``, Anthropic's client-side memory tool).

        :raises MemoryError: ``invalid-arguments`` for another set.
        """
        set = _word(set, TOOL_SETS, "invalid-arguments", "tool set")
        return [_fields(d, ToolDefinition) for d in self._group.free("tools", "tool-definitions", set)]

    def usage_prompt(self, set: str = "full") -> str:  # noqa: A002 - the WIT name
        """Text for the system prompt that tells a model how to use the
        tools of ``set`` (see :meth:`tool_definitions`)."""
        set = _word(set, TOOL_SETS, "invalid-arguments", "tool set")
        return self._group.free("tools", "usage-prompt", set)

    def estimate_tokens(self, text: str) -> int:
        """One token per 4 bytes of UTF-8, rounded up."""
        return self._group.free("prompt", "estimate-tokens", text)

    def effective_reserve(self, base: int, block: Optional[str] = None) -> int:
        """``base + estimate_tokens(block)``, saturating at 2**64 - 1."""
        return self._group.free("prompt", "effective-reserve", base, block)

    def append_memory_block(self, preamble: str, block: Optional[str] = None) -> str:
        """``preamble + "\\n\\n---\\n\\n" + block``; the preamble alone for
        ``None`` or an empty block."""
        return self._group.free("prompt", "append-memory-block", preamble, block)

    def compaction_heading(self, message_count: Optional[int] = None) -> str:
        """``compaction summary (N msgs)``, or ``compaction summary``."""
        return self._group.free("prompt", "compaction-heading", message_count)

    def __repr__(self) -> str:
        state = " closed" if self.closed else ""
        return f"<Memory root={str(self.root)!r} project={self.project!r} slug={self.project_slug!r}{state}>"


if _GC_WAS_ENABLED:
    _gc.enable()
