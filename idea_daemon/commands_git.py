"""The `git_*` commands: the git panel, the graph page and `idea git …` all use these.

Each handler is a coroutine awaiting the git port (no blocking work on the loop); the
server runs every coroutine command as its own task, so a slow `git push` never holds up
the keys the same client sends meanwhile.

The repository is the caller's project root, or `path` (an absolute folder: an agent's
worktree, say). Answers are the Structs of `adapters/ipc/answers_git.py`, built from the
port's values by `idea_daemon/git_wire.py`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Coroutine
from typing import Any

import msgspec

from adapters.ipc import answers_git as ans
from adapters.ipc import commands as rpc
from adapters.ipc import params_git as git_params
from core.git.errors import GitCancelled
from core.git.graph import layout
from core.git.model import DiffTarget, Progress
from idea_daemon import git_wire as wire
from idea_daemon.client_connection import ClientConnection
from idea_daemon.command_table import command, entries
from idea_daemon.commands import caller_window
from idea_daemon.commands_workspace import _project
from idea_daemon.git_service import GitService
from idea_daemon.server import DaemonServer
from idea_daemon.service import CommandError

MAX_LOG_PAGE = 1000


def _git(server: DaemonServer) -> GitService:
    service = getattr(server, "git", None)
    if service is None:
        raise CommandError("git is not available in this daemon", "git_unavailable")
    assert isinstance(service, GitService)
    return service


def _repo(server: DaemonServer, client: ClientConnection, params: git_params.RepoParams) -> str:
    path = params.path
    if path is not None:
        if not os.path.isabs(path) or "\0" in path:
            raise CommandError("path must be an absolute folder")
        if not os.path.isdir(path):
            raise CommandError(f"{path} is not a folder")
        return os.path.normpath(path)
    return _project(server, client, params.project).root


# ─── reading ───────────────────────────────────────────────────────────────────────────


async def git_status(server: DaemonServer, client: ClientConnection,
                     params: git_params.RepoParams) -> ans.GitStatus:
    git = _git(server)
    return wire.status(await git.port.status(_repo(server, client, params)), git.port.name)


async def git_diff(server: DaemonServer, client: ClientConnection,
                   params: git_params.GitDiffParams) -> ans.GitDiff:
    if params.target == "worktree":
        target = DiffTarget.worktree()
    elif params.target == "staged":
        target = DiffTarget.staged()
    else:
        if params.new is None:
            raise CommandError("new is required with target commit")
        target = DiffTarget.commits(params.old, params.new)
    files = [wire.path_param(v, "files") for v in params.files]
    diffs = await _git(server).port.diff(_repo(server, client, params), target, files)
    return ans.GitDiff(files=[wire.file_diff(d) for d in diffs])


async def git_log(server: DaemonServer, client: ClientConnection,
                  params: git_params.GitLogParams) -> ans.GitLog:
    """A page of history with graph lanes. `lanes` is what the previous page returned, so
    pages join up without the daemon keeping any state per client."""
    limit = min(params.limit, MAX_LOG_PAGE)
    entries = await _git(server).port.log(_repo(server, client, params), params.rev,
                                          params.skip, limit)
    rows, left = layout(entries, tuple(params.lanes))
    return ans.GitLog(
        entries=[wire.log_entry(e, r) for e, r in zip(entries, rows, strict=True)],
        lanes=list(left),
        more=len(entries) == limit,
    )


async def git_branches(server: DaemonServer, client: ClientConnection,
                       params: git_params.GitBranchesParams) -> list[ans.Branch]:
    repo = _repo(server, client, params)
    found = await _git(server).port.branches(repo, params.remote)
    return [wire.branch(b) for b in found]


async def git_stash(server: DaemonServer, client: ClientConnection,
                    params: git_params.RepoParams) -> list[ans.Stash]:
    found = await _git(server).port.stash_list(_repo(server, client, params))
    return [wire.stash(s) for s in found]


async def git_worktrees(server: DaemonServer, client: ClientConnection,
                        params: git_params.RepoParams) -> list[ans.Worktree]:
    found = await _git(server).port.worktrees(_repo(server, client, params))
    return [wire.worktree(w) for w in found]


# ─── changing ──────────────────────────────────────────────────────────────────────────


def _changed(server: DaemonServer, repo: str) -> None:
    _git(server).touch_path(repo)


async def git_init(server: DaemonServer, client: ClientConnection,
                   params: git_params.RepoParams) -> ans.GitRoot:
    repo = _repo(server, client, params)
    await _git(server).port.init(repo)
    _changed(server, repo)
    return ans.GitRoot(root=repo)


async def git_stage(server: DaemonServer, client: ClientConnection,
                    params: git_params.GitPathsParams) -> ans.GitPaths:
    repo = _repo(server, client, params)
    paths = [wire.path_param(value, "paths") for value in params.paths]
    if params.unstage:
        await _git(server).port.unstage(repo, paths)
    else:
        await _git(server).port.stage(repo, paths)
    _changed(server, repo)
    return ans.GitPaths(paths=len(paths))


async def git_unstage(server: DaemonServer, client: ClientConnection,
                      params: git_params.GitPathsParams) -> ans.GitPaths:
    return await git_stage(server, client, msgspec.structs.replace(params, unstage=True))


async def git_hunk(server: DaemonServer, client: ClientConnection,
                   params: git_params.GitHunkParams) -> None:
    """Stage (or with `unstage`, unstage) hunk number `hunk` of `file`, shown as `header`."""
    repo = _repo(server, client, params)
    path = wire.path_param(params.file, "file")
    hunk, header = params.hunk, params.header
    port = _git(server).port
    if params.unstage:
        await port.unstage_hunk(repo, path, hunk, header)
    else:
        await port.stage_hunk(repo, path, hunk, header)
    _changed(server, repo)


async def git_discard(server: DaemonServer, client: ClientConnection,
                      params: git_params.GitPathsParams) -> ans.GitPaths:
    repo = _repo(server, client, params)
    paths = [wire.path_param(value, "paths") for value in params.paths]
    if not params.force:
        raise CommandError(
            f"Discarding throws away the changes to {len(paths)} file(s) for good.", "confirm"
        )
    await _git(server).port.discard(repo, paths)
    _changed(server, repo)
    return ans.GitPaths(paths=len(paths))


async def git_commit(server: DaemonServer, client: ClientConnection,
                     params: git_params.GitCommitParams) -> ans.GitCommitted:
    repo = _repo(server, client, params)
    oid = await _git(server).port.commit(repo, params.message)
    _changed(server, repo)
    return ans.GitCommitted(oid=oid)


async def git_switch(server: DaemonServer, client: ClientConnection,
                     params: git_params.GitSwitchParams) -> ans.GitSwitched:
    repo = _repo(server, client, params)
    await _git(server).port.switch(repo, params.branch, params.create)
    _changed(server, repo)
    return ans.GitSwitched(branch=params.branch)


async def git_merge(server: DaemonServer, client: ClientConnection,
                    params: git_params.GitMergeParams) -> ans.GitCommitted:
    repo = _repo(server, client, params)
    try:
        oid = await _git(server).port.merge(repo, params.branch, params.ff_only)
    finally:
        _changed(server, repo)
    return ans.GitCommitted(oid=oid)


async def git_worktree_add(server: DaemonServer, client: ClientConnection,
                           params: git_params.GitWorktreeAddParams) -> ans.Worktree:
    repo = _repo(server, client, params)
    if not os.path.isabs(params.dest):
        raise CommandError("dest must be an absolute path")
    added = await _git(server).port.worktree_add(repo, params.dest, params.branch, params.base)
    return wire.worktree(added)


async def git_worktree_remove(server: DaemonServer, client: ClientConnection,
                              params: git_params.GitWorktreeRemoveParams) -> ans.GitRemoved:
    repo = _repo(server, client, params)
    await _git(server).port.worktree_remove(repo, params.dest, params.force)
    return ans.GitRemoved(removed=params.dest)


# ─── remotes ───────────────────────────────────────────────────────────────────────────


def _progress(
    server: DaemonServer, client: ClientConnection, operation: str
) -> Callable[[Progress], None]:
    """Progress to the caller's status line, at most a few times a second."""
    window = caller_window(server, client)
    last = [0.0]

    def show(progress: Progress) -> None:
        now = time.monotonic()
        if now - last[0] < 0.25 and progress.percent not in (100, None):
            return
        last[0] = now
        server.frames.notify(window, f"git {operation}: {progress.text}")

    return show


def _remote_command(
    operation: str,
) -> Callable[[DaemonServer, ClientConnection, git_params.GitRemoteParams],
              Coroutine[Any, Any, ans.GitRemote]]:
    async def run(server: DaemonServer, client: ClientConnection,
                  params: git_params.GitRemoteParams) -> ans.GitRemote:
        repo = _repo(server, client, params)
        remote = params.remote
        git = _git(server)
        port = git.port
        show = _progress(server, client, operation)
        if operation == "push":
            work = port.push(repo, remote, params.branch, show)
        elif operation == "pull":
            work = port.pull(repo, remote, show)
        else:
            work = port.fetch(repo, remote, show)
        try:
            done = await git.cancellable(str(client.id), operation, work)
        except GitCancelled:
            server.frames.notify(caller_window(server, client), f"git {operation}: cancelled")
            raise
        _changed(server, repo)
        return ans.GitRemote(summary=done.summary, lines=list(done.updated))

    return run


async def git_cancel(server: DaemonServer, client: ClientConnection,
                     params: rpc.NoParams) -> ans.GitCancelled:
    """Stop this client's running fetch, pull or push (Esc in the git panel): each answers
    `GitCancelled`; nothing running is not an error."""
    return ans.GitCancelled(cancelled=_git(server).cancel(str(client.id)))


# ─── watching ──────────────────────────────────────────────────────────────────────────


async def git_watch(server: DaemonServer, client: ClientConnection,
                    params: git_params.GitWatchParams) -> ans.GitWatching:
    """Send this client `Changed("git", root)` when the repository changes, until
    `git_unwatch` or the client goes away."""
    git = _git(server)
    root = await git.port.root(_repo(server, client, params))
    if params.stop:
        git.unwatch(str(client.id), root)
        return ans.GitWatching(root=root, watching=False)
    return ans.GitWatching(root=root, watching=git.watch(root, str(client.id)))


COMMANDS = entries(
    command("git_status", git_params.RepoParams,
            ans.GitStatus, git_status),
    command("git_diff", git_params.GitDiffParams,
            ans.GitDiff, git_diff),
    command("git_log", git_params.GitLogParams,
            ans.GitLog, git_log),
    command("git_branches", git_params.GitBranchesParams,
            list[ans.Branch], git_branches),
    command("git_stash", git_params.RepoParams,
            list[ans.Stash], git_stash),
    command("git_worktrees", git_params.RepoParams,
            list[ans.Worktree], git_worktrees),
    command("git_init", git_params.RepoParams,
            ans.GitRoot, git_init),
    command("git_stage", git_params.GitPathsParams,
            ans.GitPaths, git_stage),
    command("git_unstage", git_params.GitPathsParams,
            ans.GitPaths, git_unstage),
    command("git_hunk", git_params.GitHunkParams,
            rpc.Nothing, git_hunk),
    command("git_discard", git_params.GitPathsParams,
            ans.GitPaths, git_discard),
    command("git_commit", git_params.GitCommitParams,
            ans.GitCommitted, git_commit),
    command("git_switch", git_params.GitSwitchParams,
            ans.GitSwitched, git_switch),
    command("git_merge", git_params.GitMergeParams,
            ans.GitCommitted, git_merge),
    command("git_worktree_add", git_params.GitWorktreeAddParams,
            ans.Worktree, git_worktree_add),
    command("git_worktree_remove", git_params.GitWorktreeRemoveParams,
            ans.GitRemoved, git_worktree_remove),
    command("git_fetch", git_params.GitRemoteParams,
            ans.GitRemote, _remote_command("fetch")),
    command("git_pull", git_params.GitRemoteParams,
            ans.GitRemote, _remote_command("pull")),
    command("git_push", git_params.GitRemoteParams,
            ans.GitRemote, _remote_command("push")),
    command("git_cancel", rpc.NoParams,
            ans.GitCancelled, git_cancel),
    command("git_watch", git_params.GitWatchParams,
            ans.GitWatching, git_watch),
)
