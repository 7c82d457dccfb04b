"""The git port on the git program (D16): what idea uses wherever `git` is installed.

Each operation is one or a few `git` processes through `GitRunner` (asyncio, no shell),
reading the machine formats (`--porcelain=v2 -z`, `--raw -z`, NUL-separated log formats) so
that no path or message can be misread. Hunk staging goes through the pure `core.git.patch`
(the index's blob, patched, written back with `update-index -z --index-info`).
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Mapping, Sequence

from adapters.git import parse
from adapters.git.common import repo_state, require_inside, split_progress, valid_ref_name
from adapters.git.runner import GitRunner, classify
from core.git.errors import (
    BareRepository,
    EmptyCommitMessage,
    GitFailed,
    MergeConflict,
    NothingToCommit,
    UnknownRevision,
)
from core.git.model import (
    FALLBACK_EMAIL,
    FALLBACK_NAME,
    Branch,
    DiffTarget,
    EntryKind,
    FileDiff,
    LogEntry,
    RemoteResult,
    StashEntry,
    Status,
    Worktree,
)
from core.git.patch import apply_hunk
from core.git.port import ProgressSink

MAX_DIFF_BYTES = 8 * 1024 * 1024
"""A diff larger than this is cut (the file's diff says `truncated`): a viewer cannot show
more, and reading a 1 GiB generated file into the daemon would hurt every client."""

_DIFF_FLAGS = ("--raw", "-p", "-z", "--no-renames", "--no-color", "--no-ext-diff",
               "--no-textconv", "--submodule=short")


class GitCliRepository:
    """`GitPort` on the git program."""

    name = "git"

    def __init__(self, executable: str, env: Mapping[str, str]) -> None:
        self.runner = GitRunner(executable, env)
        self._roots: dict[str, tuple[str, str]] = {}

    # ─── locating ──────────────────────────────────────────────────────────────────────

    async def _locate(self, repo: str, work_tree: bool = True) -> tuple[str, str]:
        """(work tree root, git dir) of `repo`, cached (checked to still exist). A bare
        repository is refused, or without `work_tree` given as (git dir, git dir)."""
        cached = self._roots.get(repo)
        if cached is not None and os.path.exists(cached[1]):
            return cached
        done = await self.runner.run(
            repo,
            ["rev-parse", "--is-bare-repository", "--absolute-git-dir", "--show-toplevel"],
            operation="status",
            check=False,
        )
        lines = parse.fs(done.out).split("\n")
        if done.code != 0 and len(lines) >= 2 and lines[0] in ("true", "false"):
            if work_tree:
                raise BareRepository(repo)
            return lines[1], lines[1]
        if done.code != 0:
            raise classify("status", repo, done.err)
        found = (lines[2], lines[1])
        self._roots[repo] = found
        return found

    async def root(self, repo: str) -> str:
        return (await self._locate(repo))[0]

    async def _git(self, repo: str, args: Sequence[str], operation: str, **kw: object) -> bytes:
        root, _ = await self._locate(repo, work_tree=False)
        done = await self.runner.run(root, args, operation=operation, **kw)  # type: ignore[arg-type]
        return done.out

    # ─── reading ───────────────────────────────────────────────────────────────────────

    async def init(self, path: str) -> None:
        await asyncio.to_thread(os.makedirs, path, exist_ok=True)
        await self.runner.run(path, ["init", "-q"], operation="init")

    async def status(self, repo: str) -> Status:
        root, git_dir = await self._locate(repo)
        done = await self.runner.run(
            root,
            ["status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all",
             "--no-renames", "--ignore-submodules=dirty"],
            operation="status",
            extra_env={"GIT_OPTIONAL_LOCKS": "0"},
        )
        header, entries = parse.status_v2(done.out)
        state = await asyncio.to_thread(repo_state, git_dir)
        return Status(root, header.branch, header.oid, header.upstream, header.ahead,
                      header.behind, state, entries)

    async def diff(
        self, repo: str, target: DiffTarget, paths: Sequence[str] = ()
    ) -> tuple[FileDiff, ...]:
        root, _ = await self._locate(repo)
        for path in paths:
            require_inside(root, path)
        if target.kind == "worktree":
            args = ["diff", *_DIFF_FLAGS]
        elif target.kind == "staged":
            args = ["diff", "--cached", *_DIFF_FLAGS]
        else:
            assert target.new is not None
            new = await self._resolve(root, target.new)
            if target.old is None:
                args = ["diff-tree", "-r", "--root", "--no-commit-id",
                        "--diff-merges=first-parent", *_DIFF_FLAGS, new]
            else:
                args = ["diff", *_DIFF_FLAGS, await self._resolve(root, target.old), new]
        done = await self.runner.run(
            root, [*args, "--", *paths], operation="diff", max_out=MAX_DIFF_BYTES
        )
        return parse.raw_and_patch(done.out, truncated=len(done.out) >= MAX_DIFF_BYTES)

    async def _resolve(self, root: str, rev: str) -> str:
        if rev.startswith("-"):
            raise UnknownRevision(rev)
        done = await self.runner.run(
            root, ["rev-parse", "--verify", "-q", "--end-of-options", rev + "^{commit}"],
            operation="rev-parse", check=False,
        )
        if done.code != 0:
            raise UnknownRevision(rev)
        return done.out.decode().strip()

    async def log(
        self, repo: str, rev: str | None = None, skip: int = 0, limit: int = 100
    ) -> tuple[LogEntry, ...]:
        root, _ = await self._locate(repo, work_tree=False)
        head = await self.runner.run(root, ["rev-parse", "-q", "--verify", "HEAD"],
                                     operation="log", check=False)
        if rev is None and head.code != 0:
            return ()  # no commit yet
        if rev == "--all":
            where = ["--all"]
        else:
            where = ["--end-of-options", await self._resolve(root, rev or "HEAD")]
        out = await self._git(
            root,
            ["log", "--date-order", "-z", f"--format={parse.LOG_FORMAT}", "--decorate=short",
             f"--skip={max(0, skip)}", f"--max-count={max(0, limit)}", *where],
            "log",
        )
        return parse.log_records(out)

    async def branches(self, repo: str, remote: bool = False) -> tuple[Branch, ...]:
        where = ["refs/heads", "refs/remotes"] if remote else ["refs/heads"]
        out = await self._git(repo, ["for-each-ref", f"--format={parse.REF_FORMAT}", *where],
                              "branch")
        return parse.refs(out)

    async def stash_list(self, repo: str) -> tuple[StashEntry, ...]:
        out = await self._git(repo, ["stash", "list", "-z", "--format=%H%x00%gs"], "stash")
        return parse.stash(out)

    async def worktrees(self, repo: str) -> tuple[Worktree, ...]:
        done = await self.runner.run(repo, ["worktree", "list", "--porcelain", "-z"],
                                     operation="worktree")
        return parse.worktrees(done.out)

    # ─── changing the index and work tree ──────────────────────────────────────────────

    def _pathspec(self, root: str, paths: Sequence[str]) -> bytes:
        for path in paths:
            require_inside(root, path)
        return b"".join(os.fsencode(p) + b"\0" for p in paths)

    async def stage(self, repo: str, paths: Sequence[str]) -> None:
        root, _ = await self._locate(repo)
        if paths:
            await self.runner.run(
                root, ["add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"],
                operation="add", stdin=self._pathspec(root, paths),
            )

    async def unstage(self, repo: str, paths: Sequence[str]) -> None:
        root, _ = await self._locate(repo)
        if not paths:
            return
        spec = self._pathspec(root, paths)
        head = await self.runner.run(root, ["rev-parse", "-q", "--verify", "HEAD"],
                                     operation="reset", check=False)
        if head.code != 0:  # before the first commit: there is no HEAD to go back to
            await self.runner.run(
                root, ["rm", "--cached", "-q", "-r", "--pathspec-from-file=-",
                       "--pathspec-file-nul"], operation="reset", stdin=spec)
            return
        await self.runner.run(
            root, ["reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul"],
            operation="reset", stdin=spec,
        )

    async def discard(self, repo: str, paths: Sequence[str]) -> None:
        root, _ = await self._locate(repo)
        if not paths:
            return
        status = await self.status(root)
        kinds = {e.path: e for e in status.entries}
        tracked = [p for p in paths if p in kinds and kinds[p].kind is EntryKind.TRACKED]
        untracked = [p for p in paths if p in kinds and kinds[p].kind is EntryKind.UNTRACKED]
        if tracked:
            await self.runner.run(
                root, ["checkout", "-q", "--pathspec-from-file=-", "--pathspec-file-nul"],
                operation="checkout", stdin=self._pathspec(root, tracked),
            )
        if untracked:
            await self.runner.run(root, ["clean", "-f", "-q", "--", *untracked],
                                  operation="clean")

    async def _index_blob(self, root: str, path: str) -> tuple[str, bytes]:
        """(mode, content) of `path` in the index."""
        out = (await self.runner.run(root, ["ls-files", "-s", "-z", "--", path],
                                     operation="ls-files")).out
        if not out:
            return "100644", b""
        mode, oid = out.split(b" ")[:2]
        blob = await self.runner.run(root, ["cat-file", "blob", oid.decode()],
                                     operation="cat-file")
        return mode.decode(), blob.out

    async def _hunk(self, repo: str, path: str, hunk: int, header: str, staged: bool) -> None:
        root, _ = await self._locate(repo)
        target = DiffTarget.staged() if staged else DiffTarget.worktree()
        diffs = await self.diff(root, target, [path])
        from core.git.errors import HunkOutOfDate

        hunks = diffs[0].hunks if diffs else ()
        if not 0 <= hunk < len(hunks) or hunks[hunk].header != header:
            raise HunkOutOfDate(path)
        mode, content = await self._index_blob(root, path)
        patched = apply_hunk(content, diffs[0].hunks[hunk], path, reverse=staged)
        oid = (await self.runner.run(root, ["hash-object", "-w", "--stdin"],
                                     operation="hash-object", stdin=patched)).out.strip()
        info = f"{mode} ".encode() + oid + b"\t" + os.fsencode(path) + b"\0"
        await self.runner.run(root, ["update-index", "-z", "--add", "--index-info"],
                              operation="update-index", stdin=info)

    async def stage_hunk(self, repo: str, path: str, hunk: int, header: str) -> None:
        await self._hunk(repo, path, hunk, header, staged=False)

    async def unstage_hunk(self, repo: str, path: str, hunk: int, header: str) -> None:
        await self._hunk(repo, path, hunk, header, staged=True)

    # ─── history ───────────────────────────────────────────────────────────────────────

    async def _identity(self, root: str) -> list[str]:
        """`-c user.name=… -c user.email=…` for what the user has not configured."""
        extra = []
        env = self.runner.env
        for key, fallback, names in (
            ("user.name", FALLBACK_NAME, ("GIT_AUTHOR_NAME",)),
            ("user.email", FALLBACK_EMAIL, ("GIT_AUTHOR_EMAIL", "EMAIL")),
        ):
            if any(env.get(n) for n in names):
                continue
            done = await self.runner.run(root, ["config", "--get", key], operation="config",
                                         check=False)
            if done.code != 0 or not done.out.strip():
                extra += ["-c", f"{key}={fallback}"]
        return extra

    async def commit(self, repo: str, message: str) -> str:
        if not message.strip():
            raise EmptyCommitMessage()
        root, _ = await self._locate(repo)
        identity = await self._identity(root)
        done = await self.runner.run(
            root, [*identity, "commit", "-q", "--cleanup=strip", "-F", "-"],
            operation="commit", stdin=message.encode(), check=False,
        )
        if done.code != 0:
            said = done.err + parse.text(done.out)
            if "nothing to commit" in said or "no changes added" in said or "nothing added" in said:
                raise NothingToCommit()
            raise classify("commit", root, said)
        head = await self.runner.run(root, ["rev-parse", "HEAD"], operation="commit")
        return head.out.decode().strip()

    async def branch_delete(self, repo: str, branch: str) -> str:
        root, _ = await self._locate(repo, work_tree=False)
        await self._check_branch_name(root, branch)
        oid = await self._resolve(root, f"refs/heads/{branch}")
        await self.runner.run(root, ["branch", "-q", "-D", branch], operation="branch -D")
        return oid

    async def switch(self, repo: str, branch: str, create: bool = False) -> None:
        root, _ = await self._locate(repo)
        await self._check_branch_name(root, branch)
        args = ["switch", "-q", "-c", branch] if create else ["switch", "-q", branch]
        await self.runner.run(root, args, operation="switch")

    async def _check_branch_name(self, root: str, branch: str) -> None:
        from core.git.errors import InvalidName

        problem = valid_ref_name(branch)
        if problem is None:
            done = await self.runner.run(root, ["check-ref-format", "--branch", branch],
                                         operation="switch", check=False)
            problem = None if done.code == 0 else "git does not accept it as a branch name"
        if problem is not None:
            raise InvalidName("branch name", branch, problem)

    async def merge(self, repo: str, branch: str, ff_only: bool = False) -> str:
        root, _ = await self._locate(repo)
        await self._resolve(root, branch)
        identity = await self._identity(root)
        args = [*identity, "merge", "-q", "--no-edit", "--ff-only" if ff_only else "--ff",
                "--end-of-options", branch]
        done = await self.runner.run(root, args, operation="merge", check=False)
        if done.code != 0:
            status = await self.status(root)
            if status.conflicted:
                raise MergeConflict(tuple(e.path for e in status.conflicted))
            raise classify("merge", root, done.err + parse.text(done.out))
        head = await self.runner.run(root, ["rev-parse", "HEAD"], operation="merge")
        return head.out.decode().strip()

    # ─── remotes ───────────────────────────────────────────────────────────────────────

    async def _remote(self, root: str, remote: str | None) -> str:
        if remote is not None:
            if remote.startswith("-"):
                raise GitFailed("fetch", f"{remote!r} is not a remote name")
            return remote
        status = await self.status(root)
        if status.branch:
            key = f"branch.{status.branch}.remote"
            done = await self.runner.run(root, ["config", "--get", key], operation="fetch",
                                         check=False)
            if done.code == 0 and done.out.strip():
                return done.out.decode().strip()
        return "origin"

    async def _network(
        self, root: str, args: list[str], operation: str, progress: ProgressSink | None
    ) -> RemoteResult:
        feed = split_progress(progress)
        done = await self.runner.run(root, args, operation=operation, stderr_sink=feed)
        said = [ln for ln in re.split(r"[\r\n]", done.err) if ln.strip()]
        return RemoteResult(said[-1].strip() if said else "", tuple(said[-10:]))

    async def fetch(
        self, repo: str, remote: str | None = None, progress: ProgressSink | None = None
    ) -> RemoteResult:
        root, _ = await self._locate(repo)
        name = await self._remote(root, remote)
        return await self._network(root, ["fetch", "--progress", "--prune", name], "fetch",
                                   progress)

    async def pull(
        self, repo: str, remote: str | None = None, progress: ProgressSink | None = None
    ) -> RemoteResult:
        root, _ = await self._locate(repo)
        name = await self._remote(root, remote)
        return await self._network(root, ["pull", "--progress", "--ff-only", name], "pull",
                                   progress)

    async def push(
        self,
        repo: str,
        remote: str | None = None,
        branch: str | None = None,
        progress: ProgressSink | None = None,
    ) -> RemoteResult:
        root, _ = await self._locate(repo)
        name = await self._remote(root, remote)
        status = await self.status(root)
        target = branch or status.branch
        if target is None:
            raise GitFailed("push", "HEAD is detached; switch to a branch to push it")
        await self._check_branch_name(root, target)
        upstream = [] if status.upstream and branch is None else ["-u"]
        return await self._network(
            root, ["push", "--progress", *upstream, name, f"refs/heads/{target}"], "push",
            progress,
        )

    # ─── worktrees ─────────────────────────────────────────────────────────────────────

    async def worktree_add(
        self, repo: str, path: str, branch: str, base: str | None = None
    ) -> Worktree:
        root, _ = await self._locate(repo)
        await self._check_branch_name(root, branch)
        exists = await self.runner.run(
            root, ["rev-parse", "-q", "--verify", f"refs/heads/{branch}"], operation="worktree",
            check=False,
        )
        if exists.code == 0:
            args = ["worktree", "add", "-q", "--", path, branch]
        else:
            start = await self._resolve(root, base or "HEAD")
            args = ["worktree", "add", "-q", "-b", branch, "--", path, start]
        await self.runner.run(root, args, operation="worktree add")
        real = os.path.realpath(path)
        for tree in await self.worktrees(root):
            if os.path.realpath(tree.path) == real:
                return tree
        raise GitFailed("worktree add", f"{path} was not listed after adding it")

    async def worktree_remove(self, repo: str, path: str, force: bool = False) -> None:
        root, _ = await self._locate(repo)
        args = ["worktree", "remove", *(["--force"] if force else []), "--", path]
        await self.runner.run(root, args, operation="worktree remove")
        self._roots = {k: v for k, v in self._roots.items() if v[0] != path}
