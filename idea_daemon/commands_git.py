"""The `git_*` commands: the git panel, the graph page and `idea git …` all use these.

Each handler is a coroutine awaiting the git port (no blocking work on the loop); the
server runs every coroutine command as its own task, so a slow `git push` never holds up
the keys the same client sends meanwhile.

The repository is the caller's project root, or `path` (an absolute folder: an agent's
worktree, say). Results are plain dicts (`idea_daemon/git_wire.py`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Coroutine
from typing import Any

from core.git.errors import GitCancelled
from core.git.graph import layout
from core.git.model import DiffTarget, Progress
from idea_daemon import git_wire as wire
from idea_daemon.client_connection import ClientConnection
from idea_daemon.commands import caller_window
from idea_daemon.commands_workspace import _project
from idea_daemon.git_service import GitService
from idea_daemon.server import DaemonServer
from idea_daemon.service import CommandError

Params = dict[str, Any]
AsyncHandler = Callable[[DaemonServer, ClientConnection, Params], Coroutine[Any, Any, Any]]

MAX_LOG_PAGE = 1000


def _git(server: DaemonServer) -> GitService:
    service = getattr(server, "git", None)
    if service is None:
        raise CommandError("git is not available in this daemon", "git_unavailable")
    assert isinstance(service, GitService)
    return service


def _repo(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> str:
    path = params.get("path")
    if path is not None:
        if not isinstance(path, str) or not os.path.isabs(path) or "\0" in path:
            raise CommandError("path must be an absolute folder")
        if not os.path.isdir(path):
            raise CommandError(f"{path} is not a folder")
        return os.path.normpath(path)
    return _project(server, client, params.get("project")).root


def _text(params: dict[str, Any], key: str, required: bool = True) -> str | None:
    value = params.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise CommandError(f"{key} must be a non-empty string")
    return value


def _int(params: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = params.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise CommandError(f"{key} must be a whole number from {low} to {high}")
    return value


# ─── reading ───────────────────────────────────────────────────────────────────────────


async def git_status(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    git = _git(server)
    return wire.status(await git.port.status(_repo(server, client, params)), git.port.name)


async def git_diff(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    kind = params.get("target", "worktree")
    if kind == "worktree":
        target = DiffTarget.worktree()
    elif kind == "staged":
        target = DiffTarget.staged()
    elif kind == "commit":
        new = _text(params, "new")
        assert new is not None
        target = DiffTarget.commits(_text(params, "old", required=False), new)
    else:
        raise CommandError("target must be worktree, staged or commit")
    files = [wire.path_param(v, "files") for v in params.get("files") or []]
    diffs = await _git(server).port.diff(_repo(server, client, params), target, files)
    return {"files": [wire.file_diff(d) for d in diffs]}


async def git_log(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    """A page of history with graph lanes. `lanes` is what the previous page returned, so
    pages join up without the daemon keeping any state per client."""
    rev = _text(params, "rev", required=False)
    skip = _int(params, "skip", 0, 0, 10**9)
    limit = _int(params, "limit", 100, 1, MAX_LOG_PAGE)
    lanes = params.get("lanes") or []
    if not isinstance(lanes, list) or not all(x is None or isinstance(x, str) for x in lanes):
        raise CommandError("lanes must be the list a previous page returned")
    entries = await _git(server).port.log(_repo(server, client, params), rev, skip, limit)
    rows, left = layout(entries, tuple(lanes))
    return {
        "entries": [wire.log_entry(e, r) for e, r in zip(entries, rows, strict=True)],
        "lanes": list(left),
        "more": len(entries) == limit,
    }


async def git_branches(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    repo = _repo(server, client, params)
    found = await _git(server).port.branches(repo, bool(params.get("remote")))
    return [wire.branch(b) for b in found]


async def git_stash(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    found = await _git(server).port.stash_list(_repo(server, client, params))
    return [wire.stash(s) for s in found]


async def git_worktrees(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    found = await _git(server).port.worktrees(_repo(server, client, params))
    return [wire.worktree(w) for w in found]


# ─── changing ──────────────────────────────────────────────────────────────────────────


def _changed(server: DaemonServer, repo: str) -> None:
    _git(server).touch_path(repo)


async def git_init(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    repo = _repo(server, client, params)
    await _git(server).port.init(repo)
    _changed(server, repo)
    return {"root": repo}


async def git_stage(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    repo = _repo(server, client, params)
    paths = wire.paths_param(params)
    if params.get("unstage"):
        await _git(server).port.unstage(repo, paths)
    else:
        await _git(server).port.stage(repo, paths)
    _changed(server, repo)
    return {"paths": len(paths)}


async def git_unstage(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    return await git_stage(server, client, {**params, "unstage": True})


async def git_hunk(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    """Stage (or with `unstage`, unstage) hunk number `hunk` of `file`, shown as `header`."""
    repo = _repo(server, client, params)
    path = wire.path_param(params.get("file"), "file")
    hunk = _int(params, "hunk", 0, 0, 10**6)
    header = _text(params, "header")
    assert header is not None
    port = _git(server).port
    if params.get("unstage"):
        await port.unstage_hunk(repo, path, hunk, header)
    else:
        await port.stage_hunk(repo, path, hunk, header)
    _changed(server, repo)
    return None


async def git_discard(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    repo = _repo(server, client, params)
    paths = wire.paths_param(params)
    if not params.get("force"):
        raise CommandError(
            f"Discarding throws away the changes to {len(paths)} file(s) for good.", "confirm"
        )
    await _git(server).port.discard(repo, paths)
    _changed(server, repo)
    return {"paths": len(paths)}


async def git_commit(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    repo = _repo(server, client, params)
    message = params.get("message")
    if not isinstance(message, str):
        raise CommandError("message must be a string")
    oid = await _git(server).port.commit(repo, message)
    _changed(server, repo)
    return {"oid": oid}


async def git_switch(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    repo = _repo(server, client, params)
    branch = _text(params, "branch")
    assert branch is not None
    await _git(server).port.switch(repo, branch, bool(params.get("create")))
    _changed(server, repo)
    return {"branch": branch}


async def git_merge(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    repo = _repo(server, client, params)
    branch = _text(params, "branch")
    assert branch is not None
    try:
        oid = await _git(server).port.merge(repo, branch, bool(params.get("ffOnly")))
    finally:
        _changed(server, repo)
    return {"oid": oid}


async def git_worktree_add(
    server: DaemonServer, client: ClientConnection, params: dict[str, Any]
) -> Any:
    repo = _repo(server, client, params)
    dest = _text(params, "dest")
    branch = _text(params, "branch")
    assert dest is not None and branch is not None
    if not os.path.isabs(dest):
        raise CommandError("dest must be an absolute path")
    added = await _git(server).port.worktree_add(repo, dest, branch, _text(params, "base", False))
    return wire.worktree(added)


async def git_worktree_remove(
    server: DaemonServer, client: ClientConnection, params: dict[str, Any]
) -> Any:
    repo = _repo(server, client, params)
    dest = _text(params, "dest")
    assert dest is not None
    await _git(server).port.worktree_remove(repo, dest, bool(params.get("force")))
    return {"removed": dest}


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


def _remote_command(operation: str) -> AsyncHandler:
    async def run(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
        repo = _repo(server, client, params)
        remote = _text(params, "remote", required=False)
        git = _git(server)
        port = git.port
        show = _progress(server, client, operation)
        if operation == "push":
            work = port.push(repo, remote, _text(params, "branch", False), show)
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
        return {"summary": done.summary, "lines": list(done.updated)}

    return run


async def git_cancel(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    """Stop this client's running fetch, pull or push (Esc in the git panel): each answers
    `GitCancelled`; nothing running is not an error."""
    return {"cancelled": _git(server).cancel(str(client.id))}


# ─── watching ──────────────────────────────────────────────────────────────────────────


async def git_watch(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    """Send this client `Changed("git", root)` when the repository changes, until
    `git_unwatch` or the client goes away."""
    git = _git(server)
    root = await git.port.root(_repo(server, client, params))
    if params.get("stop"):
        git.unwatch(str(client.id), root)
        return {"root": root, "watching": False}
    return {"root": root, "watching": git.watch(root, str(client.id))}


COMMANDS: dict[str, AsyncHandler] = {
    "git_status": git_status,
    "git_diff": git_diff,
    "git_log": git_log,
    "git_branches": git_branches,
    "git_stash": git_stash,
    "git_worktrees": git_worktrees,
    "git_init": git_init,
    "git_stage": git_stage,
    "git_unstage": git_unstage,
    "git_hunk": git_hunk,
    "git_discard": git_discard,
    "git_commit": git_commit,
    "git_switch": git_switch,
    "git_merge": git_merge,
    "git_worktree_add": git_worktree_add,
    "git_worktree_remove": git_worktree_remove,
    "git_fetch": _remote_command("fetch"),
    "git_pull": _remote_command("pull"),
    "git_push": _remote_command("push"),
    "git_cancel": git_cancel,
    "git_watch": git_watch,
}
