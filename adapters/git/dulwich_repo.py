"""The git port on dulwich (D16): used where no git program is installed.

dulwich is pure Python and blocking, so every operation runs in a worker thread
(`asyncio.to_thread`): the daemon's loop never waits on it. Network operations check a
cancel flag from their progress stream, so cancelling the awaiting task stops the transfer
at its next progress report. dulwich's exceptions become the port's errors here.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import stat
import threading
from collections.abc import Callable, Sequence
from typing import Any

from dulwich import porcelain
from dulwich.index import ConflictedIndexEntry, IndexEntry
from dulwich.objects import Blob
from dulwich.porcelain import worktree as porcelain_worktree
from dulwich.refs import Ref
from dulwich.repo import Repo

from adapters.git.common import require_inside, split_progress, valid_ref_name
from adapters.git.dulwich_read import (
    DulwichReader,
    _Cancelled,
    _fs,
    _tree_path,
)
from core.git.errors import (
    EmptyCommitMessage,
    GitFailed,
    HunkOutOfDate,
    InvalidName,
    MergeConflict,
    NothingToCommit,
    UnknownRevision,
    WouldLoseChanges,
)
from core.git.message import clean_message
from core.git.model import (
    FALLBACK_EMAIL,
    FALLBACK_NAME,
    DiffTarget,
    EntryKind,
    RemoteResult,
    Worktree,
)
from core.git.patch import apply_hunk
from core.git.port import ProgressSink


class _ProgressStream(io.RawIOBase):
    """dulwich's errstream: progress goes to the sink; a set cancel flag stops the work."""

    def __init__(self, sink: ProgressSink | None, cancel: threading.Event) -> None:
        self.feed = split_progress(sink)
        self.cancel = cancel
        self.said = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        if self.cancel.is_set():
            raise _Cancelled()
        raw = bytes(data)
        self.said.extend(raw)
        if self.feed is not None:
            self.feed(raw)
        return len(raw)


class DulwichRepository(DulwichReader):
    """`GitPort` on dulwich, each call in a worker thread."""

    async def init(self, path: str) -> None:
        def work() -> None:
            os.makedirs(path, exist_ok=True)
            branch = self._default_branch()
            with porcelain.init(path) as r:
                r.refs.set_symbolic_ref(Ref(b"HEAD"), Ref(b"refs/heads/" + branch.encode()))

        await self._call("init", path, work)

    def _default_branch(self) -> str:
        from dulwich.config import StackedConfig

        try:
            return StackedConfig.default().get((b"init",), b"defaultBranch").decode()
        except KeyError:
            return "master"

    async def stage(self, repo: str, paths: Sequence[str]) -> None:
        def work() -> None:
            with self._open(repo) as r:
                for path in paths:
                    require_inside(r.path, path)
                if paths:
                    r.get_worktree().stage([os.fsdecode(_tree_path(p)) for p in paths])

        await self._call("add", repo, work)

    async def unstage(self, repo: str, paths: Sequence[str]) -> None:
        def work() -> None:
            with self._open(repo) as r:
                for path in paths:
                    require_inside(r.path, path)
                if paths:
                    r.get_worktree().unstage([os.fsdecode(_tree_path(p)) for p in paths])

        await self._call("reset", repo, work)

    async def discard(self, repo: str, paths: Sequence[str]) -> None:
        def work() -> None:
            with self._open(repo) as r:
                root = os.path.abspath(r.path)
                entries = {e.path: e for e in self._entries(r, root)}
                index = r.open_index()
                for path in paths:
                    require_inside(root, path)
                    entry = entries.get(path)
                    full = os.path.join(root, path)
                    if entry is None:
                        continue
                    if entry.kind is EntryKind.UNTRACKED:
                        os.remove(full)
                    elif entry.kind is EntryKind.TRACKED and entry.unstaged is not None:
                        indexed = index[_tree_path(path)]
                        assert isinstance(indexed, IndexEntry)
                        _write_work_file(full, self._blob(r, indexed.sha), indexed.mode)

        await self._call("checkout", repo, work)

    async def _hunk(self, repo: str, path: str, hunk: int, header: str, staged: bool) -> None:
        target = DiffTarget.staged() if staged else DiffTarget.worktree()
        diffs = await self.diff(repo, target, [path])
        hunks = diffs[0].hunks if diffs else ()
        if not 0 <= hunk < len(hunks) or hunks[hunk].header != header:
            raise HunkOutOfDate(path)
        chosen = diffs[0].hunks[hunk]

        def work() -> None:
            with self._open(repo) as r:
                index = r.open_index()
                key = _tree_path(path)
                old = index[key] if key in index else None  # noqa: SIM401 (Index has no get)
                content = self._blob(r, old.sha) if isinstance(old, IndexEntry) else b""
                blob = Blob.from_string(apply_hunk(content, chosen, path, reverse=staged))
                r.object_store.add_object(blob)
                mode = old.mode if isinstance(old, IndexEntry) else 0o100644
                # Zero stat data: git then compares contents, never trusting a stale stat.
                index[key] = IndexEntry((0, 0), (0, 0), 0, 0, mode, 0, 0, 0, blob.id)
                index.write()

        await self._call("update-index", repo, work)

    async def stage_hunk(self, repo: str, path: str, hunk: int, header: str) -> None:
        await self._hunk(repo, path, hunk, header, staged=False)

    async def unstage_hunk(self, repo: str, path: str, hunk: int, header: str) -> None:
        await self._hunk(repo, path, hunk, header, staged=True)

    def _identity(self, r: Repo) -> bytes:
        config = r.get_config_stack()

        def value(key: bytes, envs: tuple[str, ...], fallback: str) -> str:
            for name in envs:
                if self.env.get(name):
                    return self.env[name]
            try:
                return config.get((b"user",), key).decode()
            except KeyError:
                return fallback

        name = value(b"name", ("GIT_AUTHOR_NAME",), FALLBACK_NAME)
        email = value(b"email", ("GIT_AUTHOR_EMAIL", "EMAIL"), FALLBACK_EMAIL)
        return f"{name} <{email}>".encode()

    async def commit(self, repo: str, message: str) -> str:
        text = clean_message(message)
        if not text:
            raise EmptyCommitMessage()

        def work() -> str:
            with self._open(repo) as r:
                index = r.open_index()
                if any(isinstance(e, ConflictedIndexEntry) for _, e in index.items()):
                    raise GitFailed("commit", "some files still have conflicts; resolve them")
                merging = os.path.exists(os.path.join(r.controldir(), "MERGE_HEAD"))
                if index.commit(r.object_store) == self._head_tree(r) and not merging:
                    raise NothingToCommit()
                who = self._identity(r)
                oid = porcelain.commit(r, message=text.encode(), author=who, committer=who)
                return oid.decode()

        return await self._call("commit", repo, work)

    async def branch_delete(self, repo: str, branch: str) -> str:
        problem = valid_ref_name(branch)
        if problem is not None:
            raise InvalidName("branch name", branch, problem)

        def work() -> str:
            with self._open(repo, work_tree=False) as r:
                ref = Ref(b"refs/heads/" + branch.encode())
                if ref not in r.refs:
                    raise UnknownRevision(branch)
                oid = r.refs[ref].decode()
                porcelain.branch_delete(r, branch)
                return oid

        return await self._call("branch -D", repo, work)

    async def switch(self, repo: str, branch: str, create: bool = False) -> None:
        problem = valid_ref_name(branch)
        if problem is not None:
            raise InvalidName("branch name", branch, problem)

        def work() -> None:
            with self._open(repo) as r:
                if create:
                    porcelain.switch(r, "HEAD", create=branch)
                else:
                    if Ref(b"refs/heads/" + branch.encode()) not in r.refs:
                        raise UnknownRevision(branch)
                    porcelain.switch(r, branch)

        await self._call("switch", repo, work)

    async def merge(self, repo: str, branch: str, ff_only: bool = False) -> str:
        def work() -> str:
            with self._open(repo) as r:
                theirs = self._commit(r, branch)
                _, head = self._head(r)
                if ff_only and head is not None:
                    ahead = self._count(r, head.encode(), theirs.id)
                    if ahead:
                        raise GitFailed("merge", "not possible to fast-forward")
                who = self._identity(r)
                _oid, conflicts = porcelain.merge(r, branch, author=who, committer=who)
                if conflicts:
                    raise MergeConflict(tuple(_fs(c) for c in conflicts))
                return r.refs[Ref(b"HEAD")].decode()

        return await self._call("merge", repo, work)

    async def _network(
        self, operation: str, repo: str, work: Callable[[_ProgressStream], None],
        progress: ProgressSink | None,
    ) -> RemoteResult:
        cancel = threading.Event()
        stream = _ProgressStream(progress, cancel)
        task = asyncio.ensure_future(self._call(operation, repo, lambda: work(stream)))
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            cancel.set()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await task
            raise
        said = [ln.strip() for ln in stream.said.decode("utf-8", "replace").replace("\r", "\n")
                .split("\n") if ln.strip()]
        return RemoteResult(said[-1] if said else "", tuple(said[-10:]))

    def _remote_name(self, r: Repo, remote: str | None) -> str:
        if remote is not None:
            return remote
        branch, _ = self._head(r)
        if branch:
            with contextlib.suppress(KeyError):
                return r.get_config().get((b"branch", branch.encode()), b"remote").decode()
        return "origin"

    def _kwargs(self) -> dict[str, Any]:
        return {"ssh_command": self.env.get("GIT_SSH_COMMAND") or "ssh -o BatchMode=yes"}

    async def fetch(
        self, repo: str, remote: str | None = None, progress: ProgressSink | None = None
    ) -> RemoteResult:
        def work(stream: _ProgressStream) -> None:
            with self._open(repo, work_tree=False) as r:
                porcelain.fetch(r, self._remote_name(r, remote), errstream=stream,
                                outstream=io.StringIO(), **self._kwargs())

        return await self._network("fetch", repo, work, progress)

    async def pull(
        self, repo: str, remote: str | None = None, progress: ProgressSink | None = None
    ) -> RemoteResult:
        def work(stream: _ProgressStream) -> None:
            with self._open(repo) as r:
                porcelain.pull(r, self._remote_name(r, remote), errstream=stream,
                               outstream=io.BytesIO(), ff_only=True, **self._kwargs())

        return await self._network("pull", repo, work, progress)

    async def push(
        self,
        repo: str,
        remote: str | None = None,
        branch: str | None = None,
        progress: ProgressSink | None = None,
    ) -> RemoteResult:
        def work(stream: _ProgressStream) -> None:
            with self._open(repo) as r:
                current, _ = self._head(r)
                target = branch or current
                if target is None:
                    raise GitFailed("push", "HEAD is detached; switch to a branch to push it")
                name = self._remote_name(r, remote)
                ref = b"refs/heads/" + target.encode()
                porcelain.push(r, name, [ref + b":" + ref], errstream=stream,
                               outstream=io.BytesIO(), **self._kwargs())
                if self._upstream(r, target) is None:
                    config = r.get_config()
                    config.set((b"branch", target.encode()), b"remote", name.encode())
                    config.set((b"branch", target.encode()), b"merge", ref)
                    config.write_to_path()
                    with contextlib.suppress(KeyError):
                        tracking = b"refs/remotes/" + name.encode() + b"/" + target.encode()
                        r.refs[Ref(tracking)] = r.refs[Ref(ref)]

        return await self._network("push", repo, work, progress)

    async def worktree_add(
        self, repo: str, path: str, branch: str, base: str | None = None
    ) -> Worktree:
        problem = valid_ref_name(branch)
        if problem is not None:
            raise InvalidName("branch name", branch, problem)

        def work() -> None:
            with self._open(repo, work_tree=False) as r:
                if Ref(b"refs/heads/" + branch.encode()) not in r.refs:
                    start = self._commit(r, base or "HEAD").id
                    r.refs[Ref(b"refs/heads/" + branch.encode())] = start
                porcelain_worktree.worktree_add(r, path, branch=branch)

        await self._call("worktree add", repo, work)
        real = os.path.realpath(path)
        for tree in await self.worktrees(repo):
            if os.path.realpath(tree.path) == real:
                return tree
        raise GitFailed("worktree add", f"{path} was not listed after adding it")

    async def worktree_remove(self, repo: str, path: str, force: bool = False) -> None:
        def work() -> None:
            if not force:
                entries = self._status(path).entries
                if entries:
                    raise WouldLoseChanges(
                        f"{path} has changes that are not committed ({len(entries)} files)."
                    )
            with self._open(repo, work_tree=False) as r:
                porcelain_worktree.worktree_remove(r, path, force=True)

        await self._call("worktree remove", repo, work)


def _write_work_file(full: str, content: bytes, mode: int) -> None:
    if os.path.lexists(full) and (os.path.islink(full) or not os.path.isfile(full)):
        os.remove(full)
    if stat.S_ISLNK(mode):
        os.symlink(os.fsdecode(content), full)
        return
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as handle:
        handle.write(content)
    os.chmod(full, 0o755 if mode & 0o111 else 0o644)


