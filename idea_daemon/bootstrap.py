"""The composition root: the only place that builds concrete adapters and wires them.

`build(locations)` makes the real daemon: PTYs, JSON stores, the emulator backend the
config asks for (libghostty-vt or pyte, D26), the system clock. `assemble(ports, ...)`
wires the services from whatever ports it is given, so the unit tests
(`tests/daemon_unit/`) build the very same daemon on the fakes of `tests/fakes.py`. The
command table is assembled here too, from each command module's table: nothing registers
itself on import.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapters.config import Delegation, load_config
from adapters.emulator.backends import Backend, choose
from adapters.locations import Locations
from adapters.pty import PtyProcess, PtySpawnError
from adapters.store.agents_codec import AgentStore, PersonaStore
from adapters.store.layouts_codec import LayoutStore
from adapters.store.profiles_codec import ProfileStore
from adapters.store.project_codec import ProjectStore
from adapters.store.registry import ProjectRegistry
from adapters.store.templates_store import TemplateStore
from adapters.store.workspace_codec import WorkspaceStore
from core.errors import IdeaError
from core.orchestration.tickets import Limits
from core.terminal import TerminalEmulator
from core.version import VERSION
from idea_daemon import (
    commands,
    commands_agents,
    commands_persona,
    commands_server,
    commands_terminal,
    commands_workspace,
)
from idea_daemon.agent_admin import AgentAdmin
from idea_daemon.agents import AgentRuntime
from idea_daemon.command_table import Command, RawHandler, table, untyped
from idea_daemon.orchestration.mcp_host import McpHost
from idea_daemon.orchestration.service import OrchestrationService
from idea_daemon.ports import Pty, SpawnFailed, WorkspacePorts
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.runtime_files import check_user_file
from idea_daemon.server import DaemonServer
from idea_daemon.service import WorkspaceService


def command_table() -> dict[str, Command[Any]]:
    """Every command the daemon answers, by wire name (tmux's cmd_table): the typed tables
    of the command modules; the git and worktree modules' handlers still read raw maps."""
    return table(
        commands.COMMANDS,
        commands_workspace.COMMANDS,
        commands_terminal.COMMANDS,
        commands_server.COMMANDS,
        commands_agents.COMMANDS,
        commands_persona.COMMANDS,
    )


def _untyped(handlers: Mapping[str, RawHandler]) -> dict[str, Command[Any]]:
    return {name: untyped(name, handler) for name, handler in handlers.items()}


def _wire_git(server: DaemonServer, worktree_root: str = "") -> None:
    """The git port (the git program, else dulwich), its watcher, and its commands."""
    from adapters.git import open_git
    from adapters.watch import watch_directory
    from idea_daemon import commands_git
    from idea_daemon.git_service import GitService

    def tell(root: str, clients: set[str]) -> None:
        server.tell_changed("git", root, clients)

    server.git = git = GitService(open_git(os.environ), watch_directory, tell)
    if server.service is not None:
        server.service.hooks.agent_activity_handlers.append(git.touch_path)
    server.handlers.update(_untyped(commands_git.COMMANDS))
    # Agents in their own worktrees (D28): launches and resumes run them there.
    from idea_daemon import commands_worktrees
    from idea_daemon.agent_worktrees import AgentWorktrees

    server.worktrees = trees = AgentWorktrees(
        git.port, os.path.expanduser(worktree_root) if worktree_root else None)
    if server.agents is not None:
        server.agents.worktree_of = trees.worktree_of
    server.handlers.update(_untyped(commands_worktrees.COMMANDS))


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def now_ms(self) -> int:
        return int(time.time() * 1000)


def spawn_pty(
    argv: Sequence[str], *, cwd: str, env: Mapping[str, str], cols: int, rows: int
) -> Pty:
    """A real program on a real PTY (`adapters.pty`)."""
    try:
        return PtyProcess.spawn(argv, cwd=cwd, env=env, cols=cols, rows=rows)
    except PtySpawnError as exc:
        raise SpawnFailed(str(exc)) from exc


@dataclass(frozen=True, slots=True)
class AgentPorts:
    """The stores of the agent services."""

    agents: AgentStore
    personas: PersonaStore
    profiles: ProfileStore
    templates: TemplateStore


def real_ports(
    locations: Locations, scrollback_lines: int, backend: Backend | None = None
) -> tuple[WorkspacePorts, AgentPorts]:
    def new_id() -> str:
        return str(uuid.uuid4())

    emulator = backend or choose("pyte")

    def make_emulator(cols: int, rows: int) -> TerminalEmulator:
        return emulator.factory(cols, rows, scrollback_lines)

    workspace = WorkspacePorts(
        layouts=LayoutStore(new_id),
        projects=ProjectStore(),
        registry=ProjectRegistry(locations.data),
        workspace=WorkspaceStore(locations.data),
        spawn=spawn_pty,
        emulators=make_emulator,
        clock=SystemClock(),
        new_id=new_id,
    )
    agents = AgentPorts(
        agents=AgentStore(),
        personas=PersonaStore(),
        profiles=ProfileStore(locations.data),
        templates=TemplateStore(locations.data),
    )
    return workspace, agents


def build(locations: Locations) -> DaemonServer:
    config, problem = load_config(locations.config_file)
    backend = choose(config.emulator)
    if backend.fallback_reason is not None:
        logging.getLogger(__name__).warning("%s", backend.fallback_reason)
    ports, agent_ports = real_ports(locations, config.scrollback_lines, backend)
    server = assemble(
        ports,
        agent_ports,
        socket_path=str(locations.socket),
        base_env=os.environ,
        extra_env_names=tuple(config.refresh_env),
    )
    assert server.service is not None
    server.service.emulator_name = backend.label
    if problem is not None:
        server.service.problems.append(problem)
    if backend.fallback_reason is not None and config.emulator == "ghostty":
        server.service.problems.append(backend.fallback_reason)
    _wire_git(server, config.worktree_root)
    _wire_orchestration(server, locations, config.delegation)
    return server


def _wire_orchestration(server: DaemonServer, locations: Locations, bounds: Delegation) -> None:
    """Delegation (issue 8): the MCP host and the orchestration service, with the user's
    bounds (D9)."""
    from idea_daemon import commands_orchestration

    assert server.service is not None and server.agents is not None
    limits = Limits(
        turn_timeout=bounds.turn_timeout,
        queue_wait_cap=bounds.queue_wait_cap,
        rendezvous_timeout=bounds.rendezvous_timeout,
        queue_cap=bounds.queue_cap,
        poll_max=bounds.poll_max,
        progress_every=bounds.progress_every,
    )
    orchestration = OrchestrationService(server.service, server.agents, limits)
    orchestration.host = McpHost(locations.mcp_socket, orchestration)
    orchestration.notify = server.frames.notify
    from adapters.watch import watch_directory
    from idea_daemon.orchestration.file_protocol import FileProtocol

    orchestration.files = FileProtocol(orchestration, orchestration.file_caller, watch_directory)
    server.agents.hooks = orchestration
    server.agents.mcp_available = True
    server.orchestration = orchestration
    server.start_hooks.append(orchestration.open)
    server.stop_hooks.append(orchestration.close)
    server.handlers.update(_untyped(commands_orchestration.COMMANDS))


def assemble(
    ports: WorkspacePorts,
    agent_ports: AgentPorts,
    *,
    socket_path: str,
    base_env: Mapping[str, str],
    extra_env_names: tuple[str, ...] = (),
    version: str = VERSION,
) -> DaemonServer:
    """Wire the daemon's services from the ports it is given."""
    server = DaemonServer(version, socket_path)
    service = WorkspaceService(
        ports,
        socket_path=socket_path,
        base_env=base_env,
        listener=server.frames,
        extra_env_names=extra_env_names,
    )
    server.service = service
    agents = AgentRuntime(service, agent_ports.agents, agent_ports.personas, agent_ports.profiles)
    admin = AgentAdmin(agents, agent_ports.templates)
    # The user's profiles are read now, once, so a damaged file is reported at start (it
    # is left alone; the built-in profiles still work).
    profiles_problem = check_user_file(agents.profile_store.load,
                                       "the built-in profiles are used")
    if profiles_problem is not None:
        service.problems.append(profiles_problem)
    templates_problem = check_user_file(agent_ports.templates.load,
                                        "no template can be used until it is fixed")
    if templates_problem is not None:
        service.problems.append(templates_problem)
    server.agents, server.admin = agents, admin

    def on_project_open(runtime: ProjectRuntime) -> None:
        problem = check_user_file(lambda: agents.agent_store.load(Path(runtime.root)),
                                  "its agents cannot be launched until it is fixed")
        if problem is not None:
            runtime.problems.append(problem)
        runtime.notices = admin.drift_messages(runtime)
        try:
            resumable = [entry["agent"] for entry in agents.resumable(runtime)]
        except IdeaError:
            resumable = []
        if resumable:
            # A project reopened (or a daemon restarted) with agents that were running.
            message = (f"{runtime.name}: {', '.join(resumable)} were running — "
                       "`idea agent resume`, or Enter in their cells")
            runtime.notices.append(message)
            if server.clients:  # else the notice is shown when a client attaches
                window = service.lookups.window_of_project(runtime)
                server.frames.notify(window.id if window else None, message)

    service.hooks.open_handlers.append(on_project_open)
    server.handlers.update(command_table())
    return server
