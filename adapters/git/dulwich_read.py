"""Reading a repository with dulwich (D16's fallback where no git program exists): status,
diffs, log pages, branches, stash and worktrees. Blocking dulwich calls run in a worker
thread (`_call`); dulwich's errors become the port's (`_errors`). The writing half and the
network operations are `adapters/git/dulwich_repo.py`, which builds on this class.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import islice
from typing import Any, TypeVar

from dulwich import porcelain
from dulwich.client import HTTPUnauthorized
from dulwich.errors import HangupException, NotGitRepository
from dulwich.file import FileLocked
from dulwich.index import ConflictedIndexEntry, IndexEntry, get_unstaged_changes
from dulwich.objects import Blob, Commit, ObjectID, Tag
from dulwich.porcelain import worktree as porcelain_worktree
from dulwich.refs import Ref
from dulwich.repo import Repo
from dulwich.walk import Walker

from adapters.git.common import repo_state, require_inside
from core.git.errors import (
    BareRepository,
    CredentialsRequired,
    GitCancelled,
    GitError,
    GitFailed,
    IndexLocked,
    NotARepository,
    UnknownRevision,
    WouldLoseChanges,
)
from core.git.model import (
    Branch,
    Change,
    DiffTarget,
    EntryKind,
    FileDiff,
    LogEntry,
    Person,
    StashEntry,
    Status,
    StatusEntry,
    Worktree,
)
from core.git.patch import is_binary, make_hunks

T = TypeVar("T")
MAX_DIFF_BYTES = 8 * 1024 * 1024


def _fs(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _tree_path(path: str) -> bytes:
    return path.encode("utf-8", "surrogateescape")


class _Cancelled(Exception):
    pass


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

class DulwichReader:
    """The reading half of the dulwich adapter."""

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


def _file_diff(path: str, change: Change, old: bytes, new: bytes, budget: list[int]) -> FileDiff:
    if is_binary(old) or is_binary(new):
        return FileDiff(path, change, binary=True)
    if budget[0] <= 0:
        return FileDiff(path, change, truncated=True)
    budget[0] -= len(old) + len(new)
    return FileDiff(path, change, hunks=make_hunks(old, new), truncated=budget[0] < 0)


