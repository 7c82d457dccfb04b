"""The composition root: the only place that builds concrete adapters and wires them."""

from __future__ import annotations

import os
from pathlib import Path

from adapters.config import load_config
from adapters.emulator import PyteEmulator
from adapters.locations import Locations
from core.errors import IdeaError
from core.terminal import TerminalEmulator
from core.version import VERSION
from idea_daemon.agent_admin import AgentAdmin
from idea_daemon.agents import AgentRuntime
from idea_daemon.commands import HANDLERS
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.runtime_files import check_user_file
from idea_daemon.server import DaemonServer
from idea_daemon.service import WorkspaceService


def _wire_git(server: DaemonServer) -> None:
    """The git port (the git program, else dulwich), its watcher, and its commands."""
    from adapters.git import open_git
    from adapters.watch import watch_directory
    from idea_daemon import commands_git
    from idea_daemon.git_service import GitService

    def tell(root: str, clients: set[str]) -> None:
        server.tell_changed("git", root, clients)

    server.git = git = GitService(open_git(os.environ), watch_directory, tell)
    if server.service is not None:
        server.service.agent_activity_handlers.append(git.touch_path)
    server.handlers.update(commands_git.COMMANDS)
    server.background = server.background | commands_git.BACKGROUND


def build(locations: Locations) -> DaemonServer:
    # Importing the modules registers their commands in HANDLERS.
    import idea_daemon.commands_agents
    import idea_daemon.commands_persona
    import idea_daemon.commands_server
    import idea_daemon.commands_terminal
    import idea_daemon.commands_workspace  # noqa: F401

    config, problem = load_config(locations.config_file)

    def make_emulator(cols: int, rows: int) -> TerminalEmulator:
        return PyteEmulator(cols, rows, config.scrollback_lines)

    server = DaemonServer(VERSION, str(locations.socket))
    server.service = WorkspaceService(
        data_dir=locations.data,
        socket_path=str(locations.socket),
        emulator_factory=make_emulator,
        base_env=os.environ,
        listener=server,
        extra_env_names=tuple(config.refresh_env),
    )
    if problem is not None:
        server.service.problems.append(problem)
    agents = AgentRuntime(server.service, locations.data)
    admin = AgentAdmin(agents, locations.data)
    # The user's profiles are read now, once, so a damaged file is reported at start (it
    # is left alone; the built-in profiles still work).
    profiles_problem = check_user_file(agents.profile_store.load,
                                       "the built-in profiles are used")
    if profiles_problem is not None:
        server.service.problems.append(profiles_problem)
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
                window = server.service.window_of_project(runtime) if server.service else None
                server.notify(window.id if window else None, message)

    server.service.open_handlers.append(on_project_open)
    server.handlers = dict(HANDLERS)
    _wire_git(server)
    return server
