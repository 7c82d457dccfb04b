"""`agent_worktree`, `agent_finish`, `agent_changes`: an agent's own worktree after launch
(D28). Launching in one is `agent_launch` with `worktree` (commands_agents.py)."""

from __future__ import annotations

from typing import Any

from idea_daemon import git_wire as wire
from idea_daemon.agent_worktrees import AgentWorktrees
from idea_daemon.client_connection import ClientConnection
from idea_daemon.commands_workspace import _project
from idea_daemon.errors import CommandError
from idea_daemon.server import DaemonServer

Params = dict[str, Any]


def _worktrees(server: DaemonServer) -> AgentWorktrees:
    if not isinstance(server.worktrees, AgentWorktrees):
        raise CommandError("git is not available in this daemon", "git_unavailable")
    return server.worktrees


def _agent(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    name = params.get("agent")
    if not isinstance(name, str) or not name:
        raise CommandError("agent must be an agent's name or id")
    runtime = _project(server, client, params.get("project"))
    return runtime, server.agents.agent(runtime, name)


def _record(record: Any) -> dict[str, Any]:
    return {"agent": record.agent_id, "path": record.path, "branch": record.branch,
            "base": record.base_branch, "baseOid": record.base_oid}


async def agent_worktree(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    """The agent's worktree (made if it has none, unless `forget`: drop the record)."""
    runtime, agent = _agent(server, client, params)
    trees = _worktrees(server)
    if params.get("forget"):
        await trees.forget(runtime, agent)
        return {"agent": agent.id, "forgotten": True}
    branch = params.get("branch")
    record = await trees.ensure(runtime, agent, branch if isinstance(branch, str) else None)
    return _record(record)


async def agent_finish(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    """`how`: merge (into the base branch), keep (the branch) or discard (asks)."""
    runtime, agent = _agent(server, client, params)
    status = server.agents.status(runtime)
    if any(s.agent.id == agent.id and s.state == "running" for s in status):
        raise CommandError(f"{agent.name} is running: stop it before finishing its worktree")
    how = params.get("how")
    if how not in ("merge", "keep", "discard"):
        raise CommandError("how must be merge, keep or discard")
    result = await _worktrees(server).finish(runtime, agent, how, bool(params.get("force")))
    if server.git is not None:
        server.git.touch_path(runtime.root)
    return result


async def agent_changes(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    """What the agent changed: its commits since its worktree was made, and what is not
    committed yet (staged, unstaged)."""
    runtime, agent = _agent(server, client, params)
    found = await _worktrees(server).changes(runtime, agent)
    return {
        **_record(found["record"]),
        "commits": [wire.log_entry(e) for e in found["commits"]],
        "committed": [wire.file_diff(d) for d in found["committed"]],
        "staged": [wire.file_diff(d) for d in found["staged"]],
        "unstaged": [wire.file_diff(d) for d in found["unstaged"]],
    }


COMMANDS = {
    "agent_worktree": agent_worktree,
    "agent_finish": agent_finish,
    "agent_changes": agent_changes,
}
