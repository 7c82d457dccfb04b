"""`agent_worktree`, `agent_finish`, `agent_changes`: an agent's own worktree after launch
(D28). Launching in one is `agent_launch` with `worktree` (commands_agents.py)."""

from __future__ import annotations

from adapters.ipc import answers_git as ans
from adapters.ipc import params_git as git_params
from core.agents.agent import Agent
from idea_daemon import git_wire as wire
from idea_daemon.agent_worktrees import AgentWorktrees
from idea_daemon.client_connection import ClientConnection
from idea_daemon.command_table import command, entries
from idea_daemon.commands_workspace import _project
from idea_daemon.errors import CommandError
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.server import DaemonServer


def _worktrees(server: DaemonServer) -> AgentWorktrees:
    if not isinstance(server.worktrees, AgentWorktrees):
        raise CommandError("git is not available in this daemon", "git_unavailable")
    return server.worktrees


def _agent(server: DaemonServer, client: ClientConnection,
           params: git_params.WorktreeAgentParams) -> tuple[ProjectRuntime, Agent]:
    runtime = _project(server, client, params.project)
    agent: Agent = server.agents.agent(runtime, params.agent)
    return runtime, agent


async def agent_worktree(server: DaemonServer, client: ClientConnection,
                         params: git_params.AgentWorktreeParams) -> ans.AgentWorktree:
    """The agent's worktree (made if it has none, unless `forget`: drop the record)."""
    runtime, agent = _agent(server, client, params)
    trees = _worktrees(server)
    if params.forget:
        await trees.forget(runtime, agent)
        return ans.AgentWorktree(agent=agent.id, forgotten=True)
    record = await trees.ensure(runtime, agent, params.branch)
    return ans.AgentWorktree(agent=record.agent_id, path=record.path, branch=record.branch,
                             base=record.base_branch, base_oid=record.base_oid)


async def agent_finish(server: DaemonServer, client: ClientConnection,
                       params: git_params.AgentFinishParams) -> ans.AgentFinished:
    """`how`: merge (into the base branch), keep (the branch) or discard (asks)."""
    runtime, agent = _agent(server, client, params)
    status = server.agents.status(runtime)
    if any(s.agent.id == agent.id and s.state == "running" for s in status):
        raise CommandError(f"{agent.name} is running: stop it before finishing its worktree")
    result = await _worktrees(server).finish(runtime, agent, params.how, params.force)
    if server.git is not None:
        server.git.touch_path(runtime.root)
    return result


async def agent_changes(server: DaemonServer, client: ClientConnection,
                        params: git_params.WorktreeAgentParams) -> ans.AgentChanges:
    """What the agent changed: its commits since its worktree was made, and what is not
    committed yet (staged, unstaged)."""
    runtime, agent = _agent(server, client, params)
    found = await _worktrees(server).changes(runtime, agent)
    record = found.record
    return ans.AgentChanges(
        agent=record.agent_id, path=record.path, branch=record.branch,
        base=record.base_branch, base_oid=record.base_oid,
        commits=[wire.log_entry(e) for e in found.commits],
        committed=[wire.file_diff(d) for d in found.committed],
        staged=[wire.file_diff(d) for d in found.staged],
        unstaged=[wire.file_diff(d) for d in found.unstaged],
    )


COMMANDS = entries(
    command("agent_worktree", git_params.AgentWorktreeParams, ans.AgentWorktree,
            agent_worktree),
    command("agent_finish", git_params.AgentFinishParams, ans.AgentFinished, agent_finish),
    command("agent_changes", git_params.WorktreeAgentParams, ans.AgentChanges, agent_changes),
)
