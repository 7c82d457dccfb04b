"""Answers of the `git_*` commands and of an agent's worktree (`agent_worktree`,
`agent_finish`, `agent_changes`), as msgspec Structs (see `adapters.ipc.answers`).

The wire shape is the one the git panel, the graph page and `idea git … --json` always
read: camelCase names, keys that do not apply left out (a status entry without an unstaged
change has no `unstaged`), a diff line as the array `[kind, text, no_newline]`. A path that
is not UTF-8 travels as its display text with `pathHex` (its bytes in hex) beside it; a
client sends back whichever it was given.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from adapters.ipc.params import Answer

# ─── reading ───────────────────────────────────────────────────────────────────────────


class StatusEntry(Answer, kw_only=True):
    path: str
    path_hex: str | UnsetType = msgspec.field(default=UNSET, name="pathHex")
    kind: str
    """tracked, untracked or conflicted."""
    staged: str | UnsetType = UNSET
    """git's letter of the HEAD → index change (M, A, D, ...), when there is one."""
    unstaged: str | UnsetType = UNSET
    conflict: str | UnsetType = UNSET
    """A conflicted path's two letters (UU, AA, ...)."""


class GitStatus(Answer, kw_only=True):
    root: str
    adapter: str
    """The git port's name (which implementation answered)."""
    branch: str | None
    head: str | None
    detached: bool
    upstream: str | None
    ahead: int
    behind: int
    state: str
    """An operation left half done (merge, rebase, ...) or none."""
    staged: list[StatusEntry]
    unstaged: list[StatusEntry]
    untracked: list[StatusEntry]
    conflicted: list[StatusEntry]


DiffLine = tuple[str, str, bool]
"""`[kind, text, no_newline]`: kind is " ", "+" or "-"."""


class Hunk(Answer, kw_only=True):
    header: str
    lines: list[DiffLine]


class FileDiff(Answer, kw_only=True):
    path: str
    path_hex: str | UnsetType = msgspec.field(default=UNSET, name="pathHex")
    change: str
    binary: bool
    truncated: bool
    added: int
    removed: int
    hunks: list[Hunk]


class GitDiff(Answer, kw_only=True):
    files: list[FileDiff]


class GraphCell(Answer, kw_only=True):
    """Where a commit sits in the graph: its lane and the two text lines drawing it."""

    column: int
    line: str
    joint: str


class LogEntry(Answer, kw_only=True):
    oid: str
    parents: list[str]
    author: str
    email: str
    time: int
    """Seconds since the epoch."""
    offset: int
    """The author's UTC offset, in minutes."""
    subject: str
    refs: list[str]
    graph: GraphCell | UnsetType = UNSET
    """In `git_log` (not in an agent's changes)."""


class GitLog(Answer, kw_only=True):
    entries: list[LogEntry]
    lanes: list[str | None]
    """The lanes left open, given back for the next page (pages join up without state in
    the daemon); None is a free lane."""
    more: bool


class Branch(Answer, kw_only=True):
    name: str
    oid: str
    current: bool
    remote: bool
    upstream: str | None


class Stash(Answer, kw_only=True):
    index: int
    oid: str
    message: str


class Worktree(Answer, kw_only=True):
    path: str
    head: str | None
    branch: str | None
    bare: bool
    locked: bool
    prunable: bool


# ─── changing ──────────────────────────────────────────────────────────────────────────


class GitRoot(Answer, kw_only=True):
    """`git_init`: the repository made."""

    root: str


class GitPaths(Answer, kw_only=True):
    """`git_stage|unstage|discard`: how many paths."""

    paths: int


class GitCommitted(Answer, kw_only=True):
    """`git_commit|merge`: the new commit."""

    oid: str


class GitSwitched(Answer, kw_only=True):
    branch: str


class GitRemoved(Answer, kw_only=True):
    removed: str
    """The worktree's folder."""


class GitRemote(Answer, kw_only=True):
    """`git_fetch|pull|push`."""

    summary: str
    lines: list[str]


class GitCancelled(Answer, kw_only=True):
    cancelled: int
    """How many fetches, pulls and pushes of this client were stopped."""


class GitWatching(Answer, kw_only=True):
    root: str
    watching: bool


# ─── an agent's worktree ───────────────────────────────────────────────────────────────


class AgentWorktree(Answer, kw_only=True):
    """`agent_worktree`: the record; with `forget`, only `agent` (its id) and
    `forgotten`."""

    agent: str
    """The agent's id."""
    path: str | UnsetType = UNSET
    branch: str | UnsetType = UNSET
    base: str | UnsetType | None = UNSET
    """The branch it was made from (merged into by `agent_finish merge`)."""
    base_oid: str | UnsetType | None = msgspec.field(default=UNSET, name="baseOid")
    forgotten: bool | UnsetType = UNSET


class RecordedWorktree(Answer, kw_only=True):
    """An agent's recorded worktree as `ls` lists it: whether its folder is still there,
    and a `problem` when the record is refused (a record file that cannot be read is one
    entry with only its `problem`)."""

    agent: str | UnsetType = UNSET
    """The agent's id."""
    path: str | UnsetType = UNSET
    branch: str | UnsetType = UNSET
    base: str | UnsetType | None = UNSET
    missing: bool | UnsetType = UNSET
    problem: str | UnsetType = UNSET


class AgentFinished(Answer, kw_only=True):
    """`agent_finish`: merged (`merged`, `into`, `oid`), kept (`kept`) or discarded
    (`discarded`, `backup`, `tip`), each naming the agent's branch."""

    merged: str | UnsetType = UNSET
    into: str | UnsetType | None = UNSET
    oid: str | UnsetType = UNSET
    kept: str | UnsetType = UNSET
    discarded: str | UnsetType = UNSET
    backup: str | UnsetType = UNSET
    """The folder where the uncommitted files were copied."""
    tip: str | UnsetType = UNSET
    """The branch's last commit (to get it back with `git branch NAME TIP`)."""


class AgentChanges(Answer, kw_only=True):
    """`agent_changes`: the worktree's record, its commits since it was made and what is
    not committed yet."""

    agent: str
    path: str
    branch: str
    base: str | None
    base_oid: str | None = msgspec.field(name="baseOid")
    commits: list[LogEntry]
    committed: list[FileDiff]
    staged: list[FileDiff]
    unstaged: list[FileDiff]
