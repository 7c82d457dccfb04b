"""Git values as the daemon sends them: the answer Structs of `adapters.ipc.answers_git`
(msgpack to clients, JSON for `--json`).

Paths: `path` is the name as text. A name that is not UTF-8 cannot travel as text, so it
also gets `pathHex` (its bytes in hex); a client sends back whichever it was given, and
`path_param` turns it into the port's `str` again, byte for byte.
"""

from __future__ import annotations

import os
from typing import Any

from msgspec import UNSET, UnsetType

from adapters.ipc import answers_git as answers
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


def path_value(path: str) -> tuple[str, str | UnsetType]:
    """A path as an answer's `path` and `pathHex` (UNSET for a UTF-8 name)."""
    if _utf8(path):
        return path, UNSET
    return display_path(path), os.fsencode(path).hex()


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


def _text(text: str) -> str:
    return text if _utf8(text) else text.encode("utf-8", "surrogateescape").decode(
        "utf-8", "replace"
    )


def entry(item: StatusEntry) -> answers.StatusEntry:
    path, path_hex = path_value(item.path)
    out = answers.StatusEntry(path=path, path_hex=path_hex, kind=item.kind.value)
    if item.staged is not None:
        out.staged = item.staged.value
    if item.unstaged is not None:
        out.unstaged = item.unstaged.value
    if item.conflict:
        out.conflict = item.conflict
    return out


def status(value: Status, adapter: str) -> answers.GitStatus:
    return answers.GitStatus(
        root=value.root,
        adapter=adapter,
        branch=value.branch,
        head=value.head,
        detached=value.detached,
        upstream=value.upstream,
        ahead=value.ahead,
        behind=value.behind,
        state=value.state.value,
        staged=[entry(e) for e in value.staged],
        unstaged=[entry(e) for e in value.unstaged],
        untracked=[entry(e) for e in value.untracked],
        conflicted=[entry(e) for e in value.conflicted],
    )


def _line(line: DiffLine) -> answers.DiffLine:
    return (line.kind.value, _text(line.text), line.no_newline)


def file_diff(value: FileDiff) -> answers.FileDiff:
    path, path_hex = path_value(value.path)
    return answers.FileDiff(
        path=path,
        path_hex=path_hex,
        change=value.change.value,
        binary=value.binary,
        truncated=value.truncated,
        added=value.added,
        removed=value.removed,
        hunks=[answers.Hunk(header=h.header, lines=[_line(ln) for ln in h.lines])
               for h in value.hunks],
    )


def log_entry(value: LogEntry, row: GraphRow | None = None) -> answers.LogEntry:
    out = answers.LogEntry(
        oid=value.oid,
        parents=list(value.parents),
        author=value.author.name,
        email=value.author.email,
        time=value.author.time,
        offset=value.author.offset,
        subject=value.subject,
        refs=list(value.refs),
    )
    if row is not None:
        commit_line, joint = glyphs(row)
        out.graph = answers.GraphCell(column=row.column, line=commit_line, joint=joint)
    return out


def branch(value: Branch) -> answers.Branch:
    return answers.Branch(name=value.name, oid=value.oid, current=value.current,
                          remote=value.remote, upstream=value.upstream)


def stash(value: StashEntry) -> answers.Stash:
    return answers.Stash(index=value.index, oid=value.oid, message=value.message)


def worktree(value: Worktree) -> answers.Worktree:
    return answers.Worktree(path=value.path, head=value.head, branch=value.branch,
                            bare=value.bare, locked=value.locked, prunable=value.prunable)
