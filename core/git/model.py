"""Git's state as plain frozen values, the same whichever adapter read it (D16).

Paths are `str` as Python names file paths: bytes that are not UTF-8 are kept as lone
surrogates (`os.fsdecode`'s `surrogateescape`), so a path read from git can be given back to
git unchanged. `display_path` makes one printable.

Who makes these: the adapters in `adapters/git/`. Who reads them: the daemon's git service
(which turns them into wire answers) and the pure graph layout (`core/git/graph.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Change(Enum):
    """How one side of a path differs (git's XY letters, renames read as delete + add)."""

    ADDED = "A"
    MODIFIED = "M"
    DELETED = "D"
    TYPE_CHANGED = "T"


class EntryKind(Enum):
    TRACKED = "tracked"
    UNTRACKED = "untracked"
    CONFLICTED = "conflicted"


class RepoState(Enum):
    """An operation git left half done, which the user has to finish or abort."""

    NONE = "none"
    MERGING = "merging"
    REBASING = "rebasing"
    CHERRY_PICKING = "cherry-picking"
    REVERTING = "reverting"
    BISECTING = "bisecting"


@dataclass(frozen=True, slots=True)
class StatusEntry:
    """One path that differs somewhere.

    Attributes:
        path: Relative to the work tree root, `/`-separated.
        kind: Tracked, untracked or conflicted (unmerged in the index).
        staged: HEAD → index change (None when the index matches HEAD).
        unstaged: index → work tree change (None when the file matches the index).
        conflict: For a conflicted path, git's two letters (`UU`, `AA`, `DU`, ...).
    """

    path: str
    kind: EntryKind
    staged: Change | None = None
    unstaged: Change | None = None
    conflict: str = ""


@dataclass(frozen=True, slots=True)
class Status:
    """What `git status` says of a work tree.

    Attributes:
        root: The work tree's top folder (absolute).
        branch: The checked-out branch, None when HEAD is detached.
        head: The commit HEAD names, None before the first commit.
        upstream: The branch's upstream (`origin/main`), None without one.
        ahead, behind: Commits on the branch not on the upstream, and the reverse.
        state: An operation in progress (merge, rebase, ...).
        entries: Every path that differs, sorted by path.
    """

    root: str
    branch: str | None
    head: str | None
    upstream: str | None = None
    ahead: int = 0
    behind: int = 0
    state: RepoState = RepoState.NONE
    entries: tuple[StatusEntry, ...] = ()

    @property
    def detached(self) -> bool:
        return self.branch is None and self.head is not None

    @property
    def staged(self) -> tuple[StatusEntry, ...]:
        return tuple(e for e in self.entries if e.kind is EntryKind.TRACKED and e.staged)

    @property
    def unstaged(self) -> tuple[StatusEntry, ...]:
        return tuple(e for e in self.entries if e.kind is EntryKind.TRACKED and e.unstaged)

    @property
    def untracked(self) -> tuple[StatusEntry, ...]:
        return tuple(e for e in self.entries if e.kind is EntryKind.UNTRACKED)

    @property
    def conflicted(self) -> tuple[StatusEntry, ...]:
        return tuple(e for e in self.entries if e.kind is EntryKind.CONFLICTED)

    @property
    def clean(self) -> bool:
        return not self.entries


class LineKind(Enum):
    CONTEXT = " "
    ADDED = "+"
    REMOVED = "-"


@dataclass(frozen=True, slots=True)
class DiffLine:
    """One line of a hunk, without its newline. `no_newline`: the file ends here without one."""

    kind: LineKind
    text: str
    no_newline: bool = False


@dataclass(frozen=True, slots=True)
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: tuple[DiffLine, ...]
    section: str = ""

    @property
    def header(self) -> str:
        head = f"@@ -{self.old_start},{self.old_count} +{self.new_start},{self.new_count} @@"
        return f"{head} {self.section}" if self.section else head


@dataclass(frozen=True, slots=True)
class FileDiff:
    """The changes to one file.

    Attributes:
        path: The file's path after the change (before it, for a deletion).
        old_path: The path before the change when it differs (a rename or copy).
        change: Added, deleted, modified (content or mode).
        binary: The content is not text; no hunks are given.
        hunks: The text changes, in file order.
        truncated: The diff was larger than the adapter's limit: hunks stop early.
    """

    path: str
    change: Change
    old_path: str | None = None
    binary: bool = False
    hunks: tuple[Hunk, ...] = ()
    truncated: bool = False

    @property
    def added(self) -> int:
        return sum(1 for h in self.hunks for ln in h.lines if ln.kind is LineKind.ADDED)

    @property
    def removed(self) -> int:
        return sum(1 for h in self.hunks for ln in h.lines if ln.kind is LineKind.REMOVED)


@dataclass(frozen=True, slots=True)
class DiffTarget:
    """What to compare.

    - `worktree()`: the index against the work tree (unstaged changes).
    - `staged()`: HEAD against the index.
    - `commits(a, b)`: commit `a` against commit `b`; `a` None means `b`'s first parent
      (the changes a commit made; the empty tree for a root commit).
    """

    kind: str
    old: str | None = None
    new: str | None = None

    @staticmethod
    def worktree() -> DiffTarget:
        return DiffTarget("worktree")

    @staticmethod
    def staged() -> DiffTarget:
        return DiffTarget("staged")

    @staticmethod
    def commits(old: str | None, new: str) -> DiffTarget:
        return DiffTarget("commits", old, new)


@dataclass(frozen=True, slots=True)
class Person:
    name: str
    email: str
    time: int
    """Seconds since the epoch."""
    offset: int = 0
    """The person's UTC offset, in minutes."""


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One commit of a log page; `parents` in git's order (the first is the mainline)."""

    oid: str
    parents: tuple[str, ...]
    author: Person
    subject: str
    refs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Branch:
    name: str
    oid: str
    current: bool = False
    remote: bool = False
    upstream: str | None = None


@dataclass(frozen=True, slots=True)
class StashEntry:
    index: int
    oid: str
    message: str


@dataclass(frozen=True, slots=True)
class Worktree:
    """A work tree of the repository (the main one first)."""

    path: str
    head: str | None
    branch: str | None
    bare: bool = False
    locked: bool = False
    prunable: bool = False


@dataclass(frozen=True, slots=True)
class Progress:
    """A progress line of a network operation (`Receiving objects:  45% (450/1000)`)."""

    phase: str
    percent: int | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class RemoteResult:
    """What a fetch, pull or push did, in git's words (its last lines)."""

    summary: str = ""
    updated: tuple[str, ...] = field(default=())


FALLBACK_NAME = "IdeA"
FALLBACK_EMAIL = "idea@localhost"
"""The seed's signature, used only when the user has no name or email configured (GIT-1)."""


def display_path(path: str) -> str:
    """A path fit to print: undecodable bytes as `\\xNN`, control characters escaped.

    >>> display_path("a\\udcffb")
    'a\\\\xffb'
    >>> display_path("two\\nlines")
    'two\\\\nlines'
    """
    raw = path.encode("utf-8", "surrogateescape")
    text = raw.decode("utf-8", "backslashreplace")
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode() for ch in text)
