"""`.ideai/live-state.json` on disk (FEATURES.md §3.13, LIV-3, DECISIONS D12, D13).

Runtime state, gitignored (`.ideai/.gitignore` lists it) but kept across restarts. A
missing file is an empty state. A file that cannot be decoded raises `CorruptFile` (or
`NewerVersion`) naming it, and `save` re-checks the file on disk before replacing it, so a
damaged or newer file is never overwritten — the user's bytes stay for them to look at.
Writes are atomic (temp file, fsync, rename). These calls block: the daemon runs them in
an executor.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from adapters.store.atomic import ensure_directory, read_json, replace_json, write_json_atomic
from core.errors import CorruptFile, NewerVersion
from core.live_state.model import LIVE_STATE_VERSION, LiveRow, LiveStateFile

FILE = Path(".ideai") / "live-state.json"


def live_state_path(root: str | Path) -> Path:
    return Path(root) / FILE


def decode_live_state(data: Any, source: str | Path) -> dict[str, LiveRow]:
    """The rows of a parsed `live-state.json`.

    Raises:
        NewerVersion: Written by a newer idea.
        CorruptFile: Not the expected shape (the message names the bad key).
    """
    if not isinstance(data, dict):
        raise CorruptFile(source, "the top level is not a JSON object")
    version = data.get("version", LIVE_STATE_VERSION)
    if isinstance(version, int) and not isinstance(version, bool) and version > LIVE_STATE_VERSION:
        raise NewerVersion(source, version, LIVE_STATE_VERSION)
    entries = data.get("entries", {})
    if not isinstance(entries, dict):
        raise CorruptFile(source, "entries: expected an object (agent id → row)")
    rows: dict[str, LiveRow] = {}
    for key, value in entries.items():
        try:
            rows[key] = msgspec.convert(value, LiveRow)
        except msgspec.ValidationError as error:
            raise CorruptFile(source, _located(f"entries.{key}", str(error))) from error
    return rows


def _located(at: str, message: str) -> str:
    """msgspec's "Expected `str`, got `int` - at `$.task`" as "entries.x.task: ..."."""
    detail, _, where = message.partition(" - at `$")
    return f"{at}{where.rstrip('`')}: {detail}"


def encode_live_state(rows: Mapping[str, LiveRow]) -> Any:
    """The JSON value written: `{"version": 1, "entries": {id: row}}`, ids sorted."""
    document = LiveStateFile(entries={key: rows[key] for key in sorted(rows)})
    return msgspec.to_builtins(document)


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_ino, info.st_mtime_ns, info.st_size


class LiveStateStore:
    _written: dict[Path, tuple[int, int, int] | None]
    """(inode, mtime, size) of each file as this store last wrote it (made at first save:
    subclasses need not call an __init__)."""

    def path(self, root: str | Path) -> Path:
        return live_state_path(root)

    def load(self, root: str | Path) -> dict[str, LiveRow]:
        """The rows on disk; {} when there is no file.

        Raises:
            CorruptFile, NewerVersion: The file cannot be used; it is left as it is.
            FileAccessError: The system refused the read.
        """
        path = self.path(root)
        try:
            data = read_json(path)
        except FileNotFoundError:
            return {}
        return decode_live_state(data, path)

    def save(self, root: str | Path, rows: Mapping[str, LiveRow]) -> None:
        """Replace the file with `rows`, unless the file there cannot be decoded.

        `.ideai/` is not created when missing (a project folder deleted meanwhile stays
        deleted).

        Raises:
            CorruptFile, NewerVersion: The file on disk is damaged or newer: not written.
            FileAccessError: The system refused the write.
        """
        path = self.path(root)
        ensure_directory(path.parent, parents=False)
        data = encode_live_state(rows)
        current = _stamp(path)
        written = self.__dict__.setdefault("_written", {})
        if current is not None and current == written.get(path):
            # The file is the one this store wrote last (an atomic replace makes a new
            # inode): nothing of anyone else's to protect, no need to read it back first.
            write_json_atomic(path, data)
        else:
            replace_json(path, data, lambda found: decode_live_state(found, path))
        written[path] = _stamp(path)
