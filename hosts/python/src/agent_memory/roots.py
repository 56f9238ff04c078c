"""Which memory root to use, and whether memory is turned off: the same chain
as the Rust host library (``agent_memory::RootResolver``), checked against the
shared vectors in ``conformance/roots/resolution.json``.

The root comes from the first of: an explicit root, ``AGENT_MEMORY_DIR``
(empty counts as unset), ``"root"`` in the config file, the platform data
directory + ``agent-memory``. The config file is ``$AGENT_MEMORY_CONFIG``
(then it must exist), else ``<platform config dir>/agent-memory/config.json``;
a JSON object with the optional keys ``root`` (string) and ``disabled``
(boolean), nothing else. ``AGENT_MEMORY_DISABLE`` = ``1``/``true``/``yes``/
``on`` turns memory off, ``0``/``false``/``no``/``off`` keeps it on (and wins
over the config), anything else is an error. A host whose memory is off shows
no context block and answers every tool call with :func:`disabled_reply`.
"""

import json
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Mapping, Optional, Union

ENV_DIR = "AGENT_MEMORY_DIR"
ENV_DISABLE = "AGENT_MEMORY_DISABLE"
ENV_CONFIG = "AGENT_MEMORY_CONFIG"
_MAX_CONFIG_BYTES = 64 * 1024

PathLike = Union[str, "os.PathLike[str]"]


class RootError(Exception):
    """The chain failed. ``kind`` is one of ``not-absolute``,
    ``filesystem-root``, ``nul``, ``not-a-directory``, ``no-home``,
    ``config``, ``switch``; the message names the value and where it came
    from."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclass(frozen=True)
class RootChoice:
    """The outcome of the chain."""

    root: Path
    """The memory root: absolute, ``~`` expanded, not a filesystem root."""
    rule: str
    """Which rule chose it: ``explicit``, ``env``, ``config`` or ``default``."""
    config_file: Optional[Path]
    """The config file that was read, when one exists."""
    disabled: Optional[str]
    """Why memory is off (``AGENT_MEMORY_DISABLE=1``, ``"disabled": true in
    <file>``), or ``None`` when it is on."""


def disabled_reply(reason: str) -> str:
    """The text every tool call gets while memory is off."""
    return (
        f"Memory is turned off ({reason}): nothing was read or written. "
        "Carry on without memory; do not retry memory tools in this session."
    )


def _platform_dirs(home: Optional[Path]) -> "tuple[Optional[Path], Optional[Path]]":
    """(config dir, data dir) as the Rust `dirs` crate picks them."""
    if sys.platform == "win32":
        appdata = os.environ.get("APPDATA")
        base = Path(appdata) if appdata else None
        return base, base
    if home is None:
        return None, None
    if sys.platform == "darwin":
        base = home / "Library" / "Application Support"
        return base, base

    def xdg(var: str, fallback: Path) -> Path:
        value = os.environ.get(var)
        return Path(value) if value and os.path.isabs(value) else fallback

    return xdg("XDG_CONFIG_HOME", home / ".config"), xdg("XDG_DATA_HOME", home / ".local" / "share")


def resolve_root(
    explicit: Optional[PathLike] = None,
    *,
    environ: Optional[Mapping[str, str]] = None,
    home: Optional[PathLike] = None,
    config_dir: Optional[PathLike] = None,
    data_dir: Optional[PathLike] = None,
) -> RootChoice:
    """Runs the chain. By default it reads this process's environment, home
    and platform directories; pass ``environ``, ``home``, ``config_dir`` and
    ``data_dir`` to decide them yourself (all four, for a reproducible
    answer). Raises :class:`RootError`."""
    env = os.environ if environ is None else environ
    home_path = Path(home) if home is not None else (Path.home() if environ is None else None)
    if config_dir is None and data_dir is None and environ is None:
        cfg, data = _platform_dirs(home_path)
    else:
        cfg = Path(config_dir) if config_dir is not None else None
        data = Path(data_dir) if data_dir is not None else None

    config_file, config = _read_config(env, home_path, cfg)
    switch = env.get(ENV_DISABLE) or None
    if switch is not None:
        disabled = f"{ENV_DISABLE}={switch}" if _switch(switch) else None
    elif config_file is not None and config.get("disabled") is True:
        disabled = f'"disabled": true in {config_file}'
    else:
        disabled = None

    if explicit is not None:
        raw, rule, source = os.fspath(explicit), "explicit", "--root"
    elif env.get(ENV_DIR):
        raw, rule, source = env[ENV_DIR], "env", ENV_DIR
    elif "root" in config:
        raw, rule, source = config["root"], "config", "the config file"
    elif data is not None:
        raw, rule, source = str(data / "agent-memory"), "default", "the platform data directory"
    else:
        raise RootError(
            "no-home",
            "cannot choose a memory root: this system has no data directory (no home directory); "
            f"set {ENV_DIR} or pass --root",
        )
    return RootChoice(_validate(raw, source, home_path), rule, config_file, disabled)


def _switch(value: str) -> bool:
    word = value.strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    raise RootError(
        "switch",
        f"{ENV_DISABLE}=`{value}` is not understood; set it to 1 to turn memory off, "
        "or 0 (or unset it) to keep it on",
    )


def _read_config(env: Mapping[str, str], home: Optional[Path], cfg: Optional[Path]) -> "tuple[Optional[Path], dict]":
    named = env.get(ENV_CONFIG) or None
    if named is not None:
        path, required = _expand(named, ENV_CONFIG, home, "config file"), True
    elif cfg is not None:
        path, required = cfg / "agent-memory" / "config.json", False
    else:
        return None, {}

    def fail(why: str) -> RootError:
        return RootError("config", f"cannot use the config file `{path}`: {why}")

    try:
        info = path.stat()
    except FileNotFoundError:
        if required:
            raise fail(f"it does not exist (named by {ENV_CONFIG})") from None
        return None, {}
    except OSError as e:
        raise fail(f"cannot read it ({e})") from None
    if not stat.S_ISREG(info.st_mode):
        raise fail("it is not a regular file")
    if info.st_size > _MAX_CONFIG_BYTES:
        raise fail(f"it is {info.st_size} bytes, over the {_MAX_CONFIG_BYTES}-byte cap")
    try:
        text = path.read_bytes()[: _MAX_CONFIG_BYTES + 1].decode("utf-8")
    except UnicodeDecodeError:
        raise fail("it is not valid UTF-8") from None
    try:
        value = json.loads(text)
    except ValueError as e:
        raise fail(f"it is not valid JSON ({e})") from None
    if not isinstance(value, dict):
        raise fail('it must be a JSON object such as {"root": "~/memory"}')
    for key, item in value.items():
        if key == "root" and not isinstance(item, str):
            raise fail('"root" must be a string')
        if key == "disabled" and not isinstance(item, bool):
            raise fail('"disabled" must be true or false')
        if key not in ("root", "disabled"):
            raise fail(f'unknown key "{key}"; the keys are "root" and "disabled"')
    return path, value


def _expand(raw: str, source: str, home: Optional[Path], what: str) -> Path:
    def fail(kind: str, why: str) -> RootError:
        return RootError(kind, f"the {what} `{raw}` (from {source}) {why}")

    if "\0" in raw:
        raise fail("nul", "contains a NUL character; give a plain absolute path")
    parts = PurePath(raw).parts
    if parts and parts[0] == "~":
        if home is None:
            raise fail("no-home", "starts with `~` but there is no home directory; give an absolute path")
        path = home.joinpath(*parts[1:])
    else:
        path = Path(raw)
    if not raw or not path.is_absolute():
        raise fail(
            "not-absolute",
            "is not an absolute path (`~/…` is expanded; `~user` is not); "
            "give a full path such as /home/me/.local/share/agent-memory",
        )
    return path


def _validate(raw: str, source: str, home: Optional[Path]) -> Path:
    path = _expand(raw, source, home, "memory root")

    def fail(kind: str, why: str) -> RootError:
        return RootError(kind, f"the memory root `{raw}` (from {source}) {why}")

    depth = 0
    for part in PurePath(path).parts[1:]:
        if part == "..":
            depth = max(depth - 1, 0)
        elif part != ".":
            depth += 1
    if depth == 0:
        raise fail(
            "filesystem-root",
            "is a filesystem root; memory needs a directory of its own, such as /srv/agent-memory",
        )
    if path.exists() and not path.is_dir():
        raise fail("not-a-directory", "exists and is not a directory; pick a directory, or move that file away")
    return path
