"""The git port (D16): what idea asks of git, whichever adapter answers.

Two adapters implement it (`adapters/git/`): one runs the git program (asyncio subprocesses,
porcelain v2, never a shell, never a prompt), one uses dulwich in an executor where git is
missing. One contract test suite (`tests/adapters/git/`) runs against both on real
repositories.

Every method is a coroutine that does not block its event loop. `repo` is any folder inside
a work tree (or a bare repository where that makes sense); paths given to and returned by the
port are relative to the work tree's root. Errors are `core.git.errors.GitError`s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from core.git.model import (
    Branch,
    DiffTarget,
    FileDiff,
    LogEntry,
    Progress,
    RemoteResult,
    StashEntry,
    Status,
    Worktree,
)

ProgressSink = Callable[[Progress], None]


class GitPort(Protocol):
    """Git operations on a repository named by path.

    Network operations (`fetch`, `pull`, `push`) report progress to `progress` as it comes
    and can be cancelled (cancel the awaiting task: the work stops and `GitCancelled` is
    raised). They use the user's own credentials (credential helpers, ssh agent) and fail
    with `CredentialsRequired` instead of waiting on a prompt.
    """

    name: str
    """`"git"` or `"dulwich"`: shown by `idea git status` and in logs."""

    async def init(self, path: str) -> None:
        """Make `path` (created if missing) a repository with a work tree."""

    async def root(self, repo: str) -> str:
        """The work tree root containing `repo`; NotARepository / BareRepository."""

    async def status(self, repo: str) -> Status:
        """Branch, upstream, ahead/behind, the operation in progress, and every changed
        path (untracked files listed one by one, renames as delete + add)."""

    async def diff(
        self, repo: str, target: DiffTarget, paths: Sequence[str] = ()
    ) -> tuple[FileDiff, ...]:
        """The changes `target` names, optionally only for `paths`."""

    async def stage(self, repo: str, paths: Sequence[str]) -> None:
        """Put the work tree's version of `paths` in the index (deleted files too)."""

    async def unstage(self, repo: str, paths: Sequence[str]) -> None:
        """Put HEAD's version of `paths` back in the index (the work tree is untouched)."""

    async def stage_hunk(self, repo: str, path: str, hunk: int, header: str) -> None:
        """Stage one hunk (by index) of `path`'s unstaged diff. `header` is the hunk's
        header as shown; HunkOutOfDate if the diff changed since."""

    async def unstage_hunk(self, repo: str, path: str, hunk: int, header: str) -> None:
        """Unstage one hunk of `path`'s staged diff (same rules as `stage_hunk`)."""

    async def discard(self, repo: str, paths: Sequence[str]) -> None:
        """Throw away unstaged changes: tracked files back to the index's version,
        untracked files deleted. The caller asks the user first."""

    async def commit(self, repo: str, message: str) -> str:
        """Commit the index; returns the new commit's id. The user's identity is used;
        `IdeA <idea@localhost>` only when they have none (GIT-1)."""

    async def branches(self, repo: str, remote: bool = False) -> tuple[Branch, ...]:
        """Local branches (and remote-tracking ones with `remote`), sorted by name."""

    async def branch_delete(self, repo: str, branch: str) -> str:
        """Delete `branch` (merged or not: the caller keeps a backup); returns the commit it
        pointed to, which `git branch NAME OID` restores."""

    async def switch(self, repo: str, branch: str, create: bool = False) -> None:
        """Check out `branch` (made at HEAD first with `create`). Refuses, changing
        nothing, when local changes would be overwritten (WouldLoseChanges)."""

    async def log(
        self, repo: str, rev: str | None = None, skip: int = 0, limit: int = 100
    ) -> tuple[LogEntry, ...]:
        """One page of history from `rev` (HEAD; `--all` with rev "--all"), children before
        parents (date order), `skip` commits in. Never reads more than the page needs."""

    async def stash_list(self, repo: str) -> tuple[StashEntry, ...]:
        """The stash, newest first."""

    async def fetch(
        self, repo: str, remote: str | None = None, progress: ProgressSink | None = None
    ) -> RemoteResult:
        """Fetch `remote` (the branch's, else origin)."""

    async def pull(
        self, repo: str, remote: str | None = None, progress: ProgressSink | None = None
    ) -> RemoteResult:
        """Fetch, then fast-forward the current branch (never a merge commit unasked)."""

    async def push(
        self,
        repo: str,
        remote: str | None = None,
        branch: str | None = None,
        progress: ProgressSink | None = None,
    ) -> RemoteResult:
        """Push `branch` (the current one) to `remote`, setting its upstream if unset."""

    async def worktrees(self, repo: str) -> tuple[Worktree, ...]:
        """Every work tree of the repository, the main one first."""

    async def worktree_add(
        self, repo: str, path: str, branch: str, base: str | None = None
    ) -> Worktree:
        """A new work tree at `path` on a new branch `branch` made at `base` (HEAD), or on
        the existing `branch` when it exists and is checked out nowhere."""

    async def worktree_remove(self, repo: str, path: str, force: bool = False) -> None:
        """Remove the work tree at `path` (its branch stays). Without `force`, refuses when
        it has uncommitted changes (WouldLoseChanges)."""

    async def merge(self, repo: str, branch: str, ff_only: bool = False) -> str:
        """Merge `branch` into the current branch (fast-forward when possible, else a merge
        commit); returns the new HEAD. MergeConflict leaves the merge in progress."""
