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
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import islice
from typing import Any, TypeVar

from dulwich import porcelain
from dulwich.client import HTTPUnauthorized
from dulwich.errors import HangupException, NotGitRepository
from dulwich.file import FileLocked
from dulwich.index import ConflictedIndexEntry, IndexEntry, get_unstaged_changes
from dulwich.objects import Blob, Commit, ObjectID, Tag, Tree
from dulwich.porcelain import worktree as porcelain_worktree
from dulwich.refs import Ref
from dulwich.repo import Repo
from dulwich.walk import Walker

from adapters.git.common import repo_state, require_inside, split_progress, valid_ref_name
from core.git.errors import (
    BareRepository,
    CredentialsRequired,
    EmptyCommitMessage,
    GitCancelled,
    GitError,
    GitFailed,
    HunkOutOfDate,
    IndexLocked,
    InvalidName,
    MergeConflict,
    NotARepository,
    NothingToCommit,
    UnknownRevision,
    WouldLoseChanges,
)
from core.git.message import clean_message
from core.git.model import (
    FALLBACK_EMAIL,
    FALLBACK_NAME,
    Branch,
    Change,
    DiffTarget,
    EntryKind,
    FileDiff,
    LogEntry,
    Person,
    RemoteResult,
    StashEntry,
    Status,
    StatusEntry,
    Worktree,
)
from core.git.patch import apply_hunk, is_binary, make_hunks
from core.git.port import ProgressSink

T = TypeVar("T")
MAX_DIFF_BYTES = 8 * 1024 * 1024


def _fs(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _tree_path(path: str) -> bytes:
    return path.encode("utf-8", "surrogateescape")


class _Cancelled(Exception):
    pass


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


@contextlib.contextmanager
def _errors(operation: str, where: str) -> Iterator[None]:
    try:
        yield
    except GitError:
        raise
    except NotGitRepository as error:
        raise NotARepository(where) from error
    except FileLocked as error:
        locked = str(getattr(error, "filename", "index"))
        raise IndexLocked(locked if locked.endswith(".lock") else locked + ".lock") from error
    except HTTPUnauthorized as error:
        raise CredentialsRequired(operation, str(error)) from error
    except HangupException as error:
        raise CredentialsRequired(operation, str(error) or "the remote hung up") from error
    except porcelain.CheckoutError as error:
        raise WouldLoseChanges(str(error)) from error
    except _Cancelled as error:
        raise GitCancelled(operation) from error
    except (KeyError, ValueError, OSError, porcelain.Error, Exception) as error:
        raise GitFailed(operation, f"{type(error).__name__}: {error}") from error


class DulwichRepository:
    """`GitPort` on dulwich, each call in a worker thread."""

    name = "dulwich"

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = dict(env)

    async def _call(self, operation: str, where: str, work: Callable[[], T]) -> T:
        def guarded() -> T:
            with _errors(operation, where):
                return work()

        return await asyncio.to_thread(guarded)

    def _open(self, repo: str, work_tree: bool = True) -> Repo:
        if not os.path.isdir(repo):
            raise NotARepository(repo)
        try:
            opened = Repo.discover(repo)
        except NotGitRepository as error:
            raise NotARepository(repo) from error
        if work_tree and opened.bare:
            opened.close()
            raise BareRepository(repo)
        return opened

    # ─── reading ───────────────────────────────────────────────────────────────────────

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

    async def root(self, repo: str) -> str:
        def work() -> str:
            with self._open(repo) as r:
                return os.path.abspath(r.path)

        return await self._call("status", repo, work)

    async def status(self, repo: str) -> Status:
        return await self._call("status", repo, lambda: self._status(repo))

    def _head(self, r: Repo) -> tuple[str | None, str | None]:
        """(branch, head oid)."""
        target = r.refs.get_symrefs().get(Ref(b"HEAD"))
        branch = _fs(target).removeprefix("refs/heads/") if target else None
        try:
            head: str | None = r.refs[Ref(b"HEAD")].decode()
        except KeyError:
            head = None
        return branch, head

    def _upstream(self, r: Repo, branch: str) -> tuple[str, bytes] | None:
        config = r.get_config()
        try:
            remote = config.get((b"branch", branch.encode()), b"remote")
            merge = config.get((b"branch", branch.encode()), b"merge")
        except KeyError:
            return None
        short = merge.removeprefix(b"refs/heads/")
        if remote == b".":
            return _fs(short), b"refs/heads/" + short
        return _fs(remote + b"/" + short), b"refs/remotes/" + remote + b"/" + short

    def _count(self, r: Repo, include: bytes, exclude: bytes) -> int:
        walk = Walker(r.object_store, [ObjectID(include)], exclude=[ObjectID(exclude)])
        return sum(1 for _ in walk)

    def _status(self, repo: str) -> Status:
        with self._open(repo) as r:
            root = os.path.abspath(r.path)
            branch, head = self._head(r)
            upstream, ahead, behind = None, 0, 0
            if branch is not None and head is not None:
                found = self._upstream(r, branch)
                if found is not None:
                    upstream = found[0]
                    with contextlib.suppress(KeyError):
                        theirs = r.refs[Ref(found[1])]
                        ahead = self._count(r, head.encode(), theirs)
                        behind = self._count(r, theirs, head.encode())
            entries = self._entries(r, root)
            state = repo_state(r.controldir())
        return Status(root, branch, head, upstream, ahead, behind, state, entries)

    def _entries(self, r: Repo, root: str) -> tuple[StatusEntry, ...]:
        index = r.open_index()
        conflicts = {
            _fs(key): entry for key, entry in index.items()
            if isinstance(entry, ConflictedIndexEntry)
        }
        found: dict[str, StatusEntry] = {}
        for name, entry in conflicts.items():
            ours, theirs = entry.this is not None, entry.other is not None
            if ours and theirs:
                letters = "UU" if entry.ancestor is not None else "AA"
            else:
                letters = "UD" if ours else "DU"
            found[name] = StatusEntry(name, EntryKind.CONFLICTED, conflict=letters)
        # porcelain.status's parts, without its path conversion (which fails on a name
        # that is not UTF-8): tree paths stay bytes, decoded here with surrogateescape.
        changes = porcelain.get_tree_changes(r, index)
        staged: dict[str, Change] = {}
        for key, change in (("add", Change.ADDED), ("delete", Change.DELETED),
                            ("modify", Change.MODIFIED)):
            for raw in changes.get(key, []):
                staged[_fs(raw) if isinstance(raw, bytes) else raw] = change
        normalizer = r.get_blob_normalizer()
        unstaged: dict[str, Change] = {}
        for raw in get_unstaged_changes(
            index, r.path, normalizer.checkin_normalize if normalizer else None
        ):
            path = _fs(raw)
            unstaged[path] = (
                Change.MODIFIED if os.path.lexists(os.path.join(root, os.fsdecode(raw)))
                else Change.DELETED
            )
        untracked = porcelain.get_untracked_paths(
            r.path, r.path, index, exclude_ignored=True, untracked_files="all", repo=r
        )
        for path in set(staged) | set(unstaged):
            if path not in found:
                found[path] = StatusEntry(path, EntryKind.TRACKED, staged.get(path),
                                          unstaged.get(path))
        for untracked_name in untracked:
            path = untracked_name.rstrip("/")
            if path not in found:
                found[path] = StatusEntry(path, EntryKind.UNTRACKED)
        return tuple(found[p] for p in sorted(found))

    # ─── diffs ─────────────────────────────────────────────────────────────────────────

    async def diff(
        self, repo: str, target: DiffTarget, paths: Sequence[str] = ()
    ) -> tuple[FileDiff, ...]:
        return await self._call("diff", repo, lambda: self._diff(repo, target, paths))

    def _blob(self, r: Repo, oid: bytes | None) -> bytes:
        if oid is None:
            return b""
        obj = r.object_store[ObjectID(oid)]
        return obj.data if isinstance(obj, Blob) else b""

    def _commit(self, r: Repo, rev: str) -> Commit:
        if rev.startswith("-"):
            raise UnknownRevision(rev)
        try:
            obj = porcelain.parse_commit(r, rev) if hasattr(porcelain, "parse_commit") else None
        except (KeyError, ValueError) as error:
            raise UnknownRevision(rev) from error
        if obj is None:
            from dulwich.objectspec import parse_commit

            try:
                obj = parse_commit(r, rev.encode())
            except (KeyError, ValueError) as error:
                raise UnknownRevision(rev) from error
        return obj

    def _head_tree(self, r: Repo) -> bytes | None:
        try:
            head = r[b"HEAD"]
        except KeyError:
            return None
        assert isinstance(head, Commit)
        return bytes(head.tree)

    def _diff(self, repo: str, target: DiffTarget, paths: Sequence[str]) -> tuple[FileDiff, ...]:
        with self._open(repo) as r:
            root = os.path.abspath(r.path)
            for path in paths:
                require_inside(root, path)
            wanted = set(paths)
            pairs: list[tuple[str, Change, bytes, bytes]] = []
            budget = [MAX_DIFF_BYTES]
            if target.kind == "commits":
                assert target.new is not None
                new = self._commit(r, target.new)
                if target.old is None:
                    old_tree = r[new.parents[0]].tree if new.parents else None  # type: ignore[attr-defined]
                else:
                    old_tree = self._commit(r, target.old).tree
                for (old_path, new_path), _, (old_oid, new_oid) in r.object_store.tree_changes(
                    old_tree, new.tree
                ):
                    path = _fs(new_path or old_path or b"")
                    if wanted and path not in wanted:
                        continue
                    change = (Change.ADDED if old_path is None else Change.DELETED
                              if new_path is None else Change.MODIFIED)
                    pairs.append((path, change, self._blob(r, old_oid), self._blob(r, new_oid)))
            else:
                index = r.open_index()
                entries = self._entries(r, root)
                if target.kind == "staged":
                    tree = self._head_tree(r)
                    for entry in entries:
                        if entry.kind is not EntryKind.TRACKED or entry.staged is None:
                            continue
                        if wanted and entry.path not in wanted:
                            continue
                        old = b""
                        if tree is not None:
                            with contextlib.suppress(KeyError):
                                _, oid = r[tree].lookup_path(  # type: ignore[attr-defined]
                                    r.object_store.__getitem__, _tree_path(entry.path))
                                old = self._blob(r, oid)
                        new_blob = b""
                        if entry.staged is not Change.DELETED:
                            new_blob = self._blob(r, _sha(index, entry.path))
                        pairs.append((entry.path, entry.staged, old, new_blob))
                else:
                    for entry in entries:
                        if entry.kind is not EntryKind.TRACKED or entry.unstaged is None:
                            continue
                        if wanted and entry.path not in wanted:
                            continue
                        old = self._blob(r, _sha(index, entry.path))
                        new_blob = b""
                        if entry.unstaged is not Change.DELETED:
                            new_blob = _read_work_file(os.path.join(root, entry.path))
                        pairs.append((entry.path, entry.unstaged, old, new_blob))
            return tuple(_file_diff(path, change, old, new, budget)
                         for path, change, old, new in sorted(pairs, key=lambda p: p[0]))

    # ─── index and work tree ───────────────────────────────────────────────────────────

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

    # ─── history ───────────────────────────────────────────────────────────────────────

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

    async def branches(self, repo: str, remote: bool = False) -> tuple[Branch, ...]:
        def work() -> tuple[Branch, ...]:
            with self._open(repo, work_tree=False) as r:
                current, _ = self._head(r)
                found = []
                for name in r.refs.keys(base=Ref(b"refs/heads/")):
                    short = _fs(name)
                    up = self._upstream(r, short)
                    found.append(Branch(short, r.refs[Ref(b"refs/heads/" + name)].decode(),
                                        short == current, False, up[0] if up else None))
                if remote:
                    for name in r.refs.keys(base=Ref(b"refs/remotes/")):
                        if name.endswith(b"/HEAD"):
                            continue
                        oid = r.refs[Ref(b"refs/remotes/" + name)].decode()
                        found.append(Branch(_fs(name), oid,
                                            False, True))
                return tuple(sorted(found, key=lambda b: (b.remote, b.name)))

        return await self._call("branch", repo, work)

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

    async def log(
        self, repo: str, rev: str | None = None, skip: int = 0, limit: int = 100
    ) -> tuple[LogEntry, ...]:
        def work() -> tuple[LogEntry, ...]:
            with self._open(repo, work_tree=False) as r:
                decorations = self._decorations(r)
                if rev == "--all":
                    include = list({self._peel(r, oid) for oid in r.get_refs().values()} - {None})
                elif rev is None:
                    try:
                        include = [r.refs[Ref(b"HEAD")]]
                    except KeyError:
                        return ()
                else:
                    include = [self._commit(r, rev).id]
                if not include:
                    return ()
                walker = Walker(r.object_store, include)  # type: ignore[arg-type]
                return tuple(
                    _entry(item.commit, decorations.get(item.commit.id, ()))
                    for item in islice(walker, max(0, skip), max(0, skip) + max(0, limit))
                )

        return await self._call("log", repo, work)

    def _peel(self, r: Repo, oid: bytes) -> bytes | None:
        obj = r.object_store[ObjectID(oid)]
        while isinstance(obj, Tag):
            obj = r.object_store[obj.object[1]]
        return obj.id if isinstance(obj, Commit) else None

    def _decorations(self, r: Repo) -> dict[bytes, tuple[str, ...]]:
        found: dict[bytes, list[str]] = {}
        branch, head = self._head(r)
        if head is not None:
            found.setdefault(head.encode(), []).append(f"HEAD -> {branch}" if branch else "HEAD")
        for name, oid in sorted(r.get_refs().items()):
            if name == b"HEAD":
                continue
            peeled = self._peel(r, oid)
            if peeled is None:
                continue
            text = _fs(name)
            if text.startswith("refs/heads/"):
                short = text.removeprefix("refs/heads/")
                if short == branch:
                    continue
            elif text.startswith("refs/remotes/"):
                short = text.removeprefix("refs/remotes/")
            elif text.startswith("refs/tags/"):
                short = "tag: " + text.removeprefix("refs/tags/")
            else:
                continue
            found.setdefault(peeled, []).append(short)
        return {oid: tuple(names) for oid, names in found.items()}

    async def stash_list(self, repo: str) -> tuple[StashEntry, ...]:
        def work() -> tuple[StashEntry, ...]:
            from dulwich.stash import Stash

            with self._open(repo) as r:
                entries = Stash.from_repo(r).stashes()
                return tuple(
                    StashEntry(i, e.new_sha.decode(), e.message.decode("utf-8", "replace"))
                    for i, e in enumerate(entries)
                )

        return await self._call("stash", repo, work)

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

    # ─── remotes ───────────────────────────────────────────────────────────────────────

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

    # ─── worktrees ─────────────────────────────────────────────────────────────────────

    async def worktrees(self, repo: str) -> tuple[Worktree, ...]:
        def work() -> tuple[Worktree, ...]:
            with self._open(repo, work_tree=False) as r:
                main = Repo(r.commondir()) if r.commondir() != r.controldir() else None
                source = main or r
                try:
                    infos = porcelain_worktree.worktree_list(source)
                finally:
                    if main is not None:
                        main.close()
                return tuple(
                    Worktree(
                        path=os.fsdecode(info.path),
                        head=info.head.decode() if info.head else None,
                        branch=(_fs(info.branch).removeprefix("refs/heads/")
                                if info.branch else None),
                        bare=info.bare,
                        locked=info.locked,
                        prunable=info.prunable,
                    )
                    for info in infos
                )

        return await self._call("worktree", repo, work)

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


def _sha(index: Any, path: str) -> bytes:
    entry = index[_tree_path(path)]
    return bytes(entry.sha) if isinstance(entry, IndexEntry) else b""


def _entry(commit: Commit, refs: tuple[str, ...]) -> LogEntry:
    name, _, email = commit.author.decode("utf-8", "replace").rpartition(" <")
    return LogEntry(
        oid=commit.id.decode(),
        parents=tuple(p.decode() for p in commit.parents),
        author=Person(name, email.rstrip(">"), commit.author_time, commit.author_timezone // 60),
        subject=commit.message.decode("utf-8", "replace").split("\n", 1)[0],
        refs=refs,
    )


def _read_work_file(full: str) -> bytes:
    if os.path.islink(full):
        return os.fsencode(os.readlink(full))
    with open(full, "rb") as handle:
        return handle.read()


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


def _file_diff(path: str, change: Change, old: bytes, new: bytes, budget: list[int]) -> FileDiff:
    if is_binary(old) or is_binary(new):
        return FileDiff(path, change, binary=True)
    if budget[0] <= 0:
        return FileDiff(path, change, truncated=True)
    budget[0] -= len(old) + len(new)
    return FileDiff(path, change, hunks=make_hunks(old, new), truncated=budget[0] < 0)


__all__ = ["DulwichRepository", "Tree"]
