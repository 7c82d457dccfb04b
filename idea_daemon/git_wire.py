"""Git values as the daemon sends them (msgpack to clients, JSON for `--json`).

Paths: `path` is the name as text. A name that is not UTF-8 cannot travel as text, so it
also gets `pathHex` (its bytes in hex); a client sends back whichever it was given, and
`path_param` turns it into the port's `str` again, byte for byte.
"""

from __future__ import annotations

import os
from typing import Any

from core.git.graph import GraphRow, glyphs
from core.git.model import (
    Branch,
    DiffLine,
    FileDiff,
    LogEntry,
    StashEntry,
    Status,
    StatusEntry,
    Worktree,
    display_path,
)
from idea_daemon.service import CommandError


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def path_value(path: str) -> dict[str, str]:
    if _utf8(path):
        return {"path": path}
    return {"path": display_path(path), "pathHex": os.fsencode(path).hex()}


def path_param(value: Any, key: str = "path") -> str:
    """A path a client sent: `{"path": ...}` or `{"path": ..., "pathHex": ...}`, or text."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        raw = value.get("pathHex")
        if isinstance(raw, str):
            try:
                return os.fsdecode(bytes.fromhex(raw))
            except ValueError as error:
                raise CommandError(f"{key}: pathHex is not hex") from error
        text = value.get("path")
        if isinstance(text, str):
            return text
    raise CommandError(f"{key} must be a path (text, or an object with path/pathHex)")


def paths_param(params: dict[str, Any]) -> list[str]:
    values = params.get("paths")
    if not isinstance(values, list) or not values:
        raise CommandError("paths must be a non-empty list of paths")
    return [path_param(v, "paths") for v in values]


def _text(text: str) -> str:
    return text if _utf8(text) else text.encode("utf-8", "surrogateescape").decode(
        "utf-8", "replace"
    )


def entry(item: StatusEntry) -> dict[str, Any]:
    out: dict[str, Any] = {**path_value(item.path), "kind": item.kind.value}
    if item.staged is not None:
        out["staged"] = item.staged.value
    if item.unstaged is not None:
        out["unstaged"] = item.unstaged.value
    if item.conflict:
        out["conflict"] = item.conflict
    return out


def status(value: Status, adapter: str) -> dict[str, Any]:
    return {
        "root": value.root,
        "adapter": adapter,
        "branch": value.branch,
        "head": value.head,
        "detached": value.detached,
        "upstream": value.upstream,
        "ahead": value.ahead,
        "behind": value.behind,
        "state": value.state.value,
        "staged": [entry(e) for e in value.staged],
        "unstaged": [entry(e) for e in value.unstaged],
        "untracked": [entry(e) for e in value.untracked],
        "conflicted": [entry(e) for e in value.conflicted],
    }


def _line(line: DiffLine) -> list[Any]:
    return [line.kind.value, _text(line.text), line.no_newline]


def file_diff(value: FileDiff) -> dict[str, Any]:
    return {
        **path_value(value.path),
        "change": value.change.value,
        "binary": value.binary,
        "truncated": value.truncated,
        "added": value.added,
        "removed": value.removed,
        "hunks": [
            {"header": h.header, "lines": [_line(ln) for ln in h.lines]} for h in value.hunks
        ],
    }


def log_entry(value: LogEntry, row: GraphRow | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "oid": value.oid,
        "parents": list(value.parents),
        "author": value.author.name,
        "email": value.author.email,
        "time": value.author.time,
        "offset": value.author.offset,
        "subject": value.subject,
        "refs": list(value.refs),
    }
    if row is not None:
        commit_line, joint = glyphs(row)
        out["graph"] = {"column": row.column, "line": commit_line, "joint": joint}
    return out


def branch(value: Branch) -> dict[str, Any]:
    return {"name": value.name, "oid": value.oid, "current": value.current,
            "remote": value.remote, "upstream": value.upstream}


def stash(value: StashEntry) -> dict[str, Any]:
    return {"index": value.index, "oid": value.oid, "message": value.message}


def worktree(value: Worktree) -> dict[str, Any]:
    return {"path": value.path, "head": value.head, "branch": value.branch,
            "bare": value.bare, "locked": value.locked, "prunable": value.prunable}
