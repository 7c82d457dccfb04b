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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapters.config import Delegation, SessionLimits, load_config
from adapters.emulator.backends import Backend, choose
from adapters.locations import Locations
from adapters.pty import PtyProcess, PtySpawnError
from adapters.store.agents_codec import AgentStore, PersonaStore
from adapters.store.background_store import BackgroundStore
from adapters.store.layouts_codec import LayoutStore
from adapters.store.ports import (
    AgentStorePort,
    BackgroundStorePort,
    PersonaStorePort,
    ProfileStorePort,
    TemplateStorePort,
)
from adapters.store.profiles_codec import ProfileStore
from adapters.store.project_codec import ProjectStore
from adapters.store.registry import ProjectRegistry
from adapters.store.skills_store import SkillStore
from adapters.store.templates_store import TemplateStore
from adapters.store.workspace_codec import WorkspaceStore
from core.agents.agent import Agent
from core.errors import IdeaError
from core.git.port import GitPort
from core.orchestration.tickets import Limits
from core.terminal import TerminalEmulator
from core.version import VERSION
from idea_daemon import (
    commands,
    commands_agents,
    commands_conversations,
    commands_git,
    commands_knowledge,
    commands_limits,
    commands_orchestration,
    commands_persona,
    commands_server,
    commands_skills,
    commands_terminal,
    commands_workspace,
    commands_workstate,
    commands_worktrees,
)
from idea_daemon.agent_admin import AgentAdmin
from idea_daemon.agents import AgentRuntime
from idea_daemon.command_table import Command, table
from idea_daemon.knowledge import Knowledge
from idea_daemon.orchestration.mcp_host import McpHost
from idea_daemon.orchestration.service import OrchestrationService
from idea_daemon.ports import Pty, SpawnFailed, WorkspacePorts
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.runtime_files import check_user_file
from idea_daemon.server import DaemonServer
from idea_daemon.service import WorkspaceService
from idea_daemon.session import TerminalSession
from idea_daemon.skills import SkillAdmin


def command_table() -> dict[str, Command[Any, Any]]:
    """Every command the daemon answers, by wire name (tmux's cmd_table): the typed tables
    of the command modules. The git, worktree and delegation commands are always there; a
    daemon built without those services answers them with a clear "not available"."""
    return table(
        commands.COMMANDS,
        commands_workspace.COMMANDS,
        commands_terminal.COMMANDS,
        commands_server.COMMANDS,
        commands_agents.COMMANDS,
        commands_persona.COMMANDS,
        commands_skills.COMMANDS,
        commands_conversations.COMMANDS,
        commands_knowledge.COMMANDS,
        commands_git.COMMANDS,
        commands_worktrees.COMMANDS,
        commands_orchestration.COMMANDS,
        commands_workstate.COMMANDS,
        commands_limits.COMMANDS,
    )


WatchFactory = Callable[[str, Callable[[str], None]], Any]
"""Watches a folder: (root, on_event(path)) → a watch with `start()`/`stop()`
(`adapters.watch.watch_directory`)."""


@dataclass(frozen=True, slots=True)
class ServicePorts:
    """What the git, worktree and delegation services are built on; a part left out is a
    service this daemon does not have (its commands answer a clear "not available")."""

    git: GitPort | None = None
    """The git port (`adapters.git.open_git`: the git program, else dulwich)."""
    watch: WatchFactory | None = None
    """Folder watches: the git panels' refresh, the delegation file protocol."""
    worktree_root: str = ""
    """config.toml's `worktree_root` (agents' own worktrees, D28)."""
    mcp_socket: Path | None = None
    """Where the MCP host listens; delegation (issue 8) is on when it is set."""
    delegation: Delegation | None = None
    """The user's delegation bounds (D9); None: the defaults."""


def _wire_git(server: DaemonServer, port: GitPort, watch: WatchFactory | None,
              worktree_root: str = "") -> None:
    """The git service (its port, its watcher), and the agents' own worktrees."""
    from idea_daemon.agent_worktrees import AgentWorktrees
    from idea_daemon.git_service import GitService

    def tell(root: str, clients: set[str]) -> None:
        server.tell_changed("git", root, clients)

    server.git = git = GitService(port, watch, tell)
    if server.service is not None:
        server.service.hooks.agent_activity_handlers.append(git.touch_path)
    # Agents in their own worktrees (D28): launches and resumes run them there.
    server.worktrees = trees = AgentWorktrees(
        git.port, os.path.expanduser(worktree_root) if worktree_root else None)
    if server.agents is not None:
        server.agents.worktree_of = trees.worktree_of


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def now_ms(self) -> int:
        return int(time.time() * 1000)


def spawn_pty(
    argv: Sequence[str], *, cwd: str, env: Mapping[str, str], cols: int, rows: int,
    nice: int = 0,
) -> Pty:
    """A real program on a real PTY (`adapters.pty`)."""
    try:
        return PtyProcess.spawn(argv, cwd=cwd, env=env, cols=cols, rows=rows, nice=nice)
    except PtySpawnError as exc:
        raise SpawnFailed(str(exc)) from exc


@dataclass(frozen=True, slots=True)
class AgentPorts:
    """The stores of the agent services (ports: `adapters.store.ports`)."""

    agents: AgentStorePort
    personas: PersonaStorePort
    profiles: ProfileStorePort
    templates: TemplateStorePort
    background: BackgroundStorePort
    """`.ideai/run/background.json`: the agents running with no cell."""
    skills: SkillStore | None = None
    """The global skills; None: `skills/` beside the templates (same data dir)."""


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
        background=BackgroundStore(),
        skills=SkillStore.global_skills(locations.data),
    )
    return workspace, agents


def real_services(locations: Locations, worktree_root: str,
                  delegation: Delegation) -> ServicePorts:
    """git (the program, else dulwich), folder watches, the MCP host's socket."""
    from adapters.git import open_git
    from adapters.watch import watch_directory

    return ServicePorts(git=open_git(os.environ), watch=watch_directory,
                        worktree_root=worktree_root, mcp_socket=locations.mcp_socket,
                        delegation=delegation)


def build(locations: Locations) -> DaemonServer:
    config, problem = load_config(locations.config_file)
    backend = choose(config.emulator)
    if backend.fallback_reason is not None:
        logging.getLogger(__name__).warning("%s", backend.fallback_reason)
    ports, agent_ports = real_ports(locations, config.scrollback_lines, backend)
    server = assemble(
        ports,
        agent_ports,
        real_services(locations, config.worktree_root, config.delegation),
        socket_path=str(locations.socket),
        base_env=os.environ,
        extra_env_names=tuple(config.refresh_env),
    )
    assert server.service is not None
    server.service.emulator_name = backend.label
    assert server.agents is not None
    server.agents.nice = config.agent_nice
    if problem is not None:
        server.service.problems.append(problem)
    if backend.fallback_reason is not None and config.emulator == "ghostty":
        server.service.problems.append(backend.fallback_reason)
    _wire_session_limits(server, config.session_limits, os.environ)
    return server


def _wire_session_limits(server: DaemonServer, settings: SessionLimits,
                         env: Mapping[str, str], readers: Sequence[Any] | None = None) -> None:
    """Session limits (issue 10): detection on the agents' screens and level-1 files, the
    held FIFO, the scheduled resume (its book under .ideai/run/), the commands."""
    from adapters.store.limits_store import LimitStore
    from idea_daemon.session_limits.clock import clock_from_env
    from idea_daemon.session_limits.resumer import Resumer
    from idea_daemon.session_limits.service import LimitSettings, SessionLimitService
    from idea_daemon.session_limits.watcher import LimitWatcher

    assert server.service is not None and server.agents is not None
    limits = SessionLimitService(
        server.service, server.agents, clock_from_env(env), LimitStore(),
        LimitSettings(resume_margin=settings.resume_margin, stall_after=settings.stall_after,
                      ask_after=settings.ask_after),
    )
    limits.notify = server.frames.notify
    if server.orchestration is not None:
        limits.orchestration = server.orchestration
        server.orchestration.limits_gate = limits
        server.orchestration.row_decorators.append(limits.monitor_row)
        turn = server.orchestration.limits.turn_timeout
        if 0 < settings.stall_after >= turn:
            # A stalled task then times out before it is seen stalled: level 3 never asks.
            logging.getLogger(__name__).warning(
                "[session_limits] stall_after (%g s) is not below [delegation] "
                "turn_timeout (%g s): a silent task times out before its agent is "
                "suspected of a usage limit", settings.stall_after, turn)
    watcher = LimitWatcher(limits, list(readers) if readers is not None else level1_readers())
    server.session_limits = limits
    server.limit_resumer = Resumer(limits, watcher)
    server.limit_watcher = watcher
    server.start_hooks.append(watcher.start)
    server.stop_hooks.append(watcher.stop)


def level1_readers() -> list[Any]:
    """The level-1 limit readers (adapters/limits/: Claude Code transcripts, Codex session
    files)."""
    from adapters.limits import builtin_readers

    return list(builtin_readers())


def _wire_orchestration(server: DaemonServer, mcp_socket: Path, bounds: Delegation,
                        watch: WatchFactory | None) -> None:
    """Delegation (issue 8): the MCP host and the orchestration service, with the user's
    bounds (D9)."""
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
    orchestration.host = McpHost(mcp_socket, orchestration)
    orchestration.host.after_echo = server.frames.echo_first.after_echo
    orchestration.knowledge = server.knowledge
    orchestration.notify = server.frames.notify
    from idea_daemon.orchestration.file_protocol import FileProtocol

    orchestration.files = FileProtocol(orchestration, orchestration.file_caller, watch)
    _wire_conversations(server, orchestration)
    _wire_live_state(server, orchestration)
    server.agents.hooks = orchestration
    server.agents.mcp_available = True
    server.orchestration = orchestration
    orchestration.skills = server.skills
    server.start_hooks.append(orchestration.open)
    server.stop_hooks.append(orchestration.close)


def _wire_conversations(server: DaemonServer, orchestration: OrchestrationService) -> None:
    """Conversations (issue 9, LOG): each pair's log, handoff, rotation and resume."""
    from idea_daemon.conversations.service import Conversations

    assert server.service is not None and server.agents is not None
    conversations = Conversations(server.service, server.agents)
    conversations.notify = server.frames.notify
    orchestration.conversations = conversations
    server.agents.conversations = conversations
    server.conversations = conversations
    server.start_hooks.append(conversations.start)
    server.stop_hooks.append(conversations.stop)


def _wire_live_state(server: DaemonServer, orchestration: OrchestrationService) -> None:
    """Live state (issue 9, LIV): `.ideai/live-state.json`, rows derived from delegations,
    the Work panel's commands; and the "refresh context" offer of running agents."""
    from adapters.store.live_state_store import LiveStateStore
    from adapters.store.md_index import INDEX_NAME, MD_DIR
    from idea_daemon.agent_launch import context_sections
    from idea_daemon.orchestration.live_state import LiveStates
    from idea_daemon.orchestration.refresh import ContextRefresh, knowledge_of
    from idea_daemon.orchestration.workstate import WorkStateService

    agents = orchestration.agents
    service = orchestration.service

    def team(runtime: ProjectRuntime) -> list[tuple[str, str]]:
        return [(agent.id, agent.name) for agent in agents.manifest(runtime).agents]

    workstate = WorkStateService(LiveStates(LiveStateStore()), team)

    def running(runtime: ProjectRuntime) -> list[tuple[Agent, TerminalSession]]:
        found = []
        for agent in agents.manifest(runtime).agents:
            session = agents.session_of_agent(runtime, agent.id)
            if session is not None and session.exit_code is None:
                found.append((agent, session))
        return found

    def split(runtime: ProjectRuntime, agent: Agent,
              material: bool) -> Callable[[], dict[str, str]]:
        # The same composition as a launch (agents._spawn → agent_launch), knowledge only:
        # the live state (memory) now, the file reads in the returned part (a worker
        # thread when the refresh re-checks; refresh.py).
        profile = agents.profile(agent.profile_id)
        mcp = agents.reaches_mcp(profile)
        state = workstate.section(runtime, agent.id, notes=not material, tools=mcp)

        def files() -> dict[str, str]:
            persona = agents.persona_store.read(Path(runtime.root), agent)
            skills = agents.skills_of(runtime, agent, profile)
            sections = context_sections(runtime, persona, skills=skills, state=state,
                                        agent_name=agent.name, mcp=mcp)
            return knowledge_of(sections)

        return files

    def compose(runtime: ProjectRuntime, agent: Agent, material: bool) -> dict[str, str]:
        return split(runtime, agent, material)()

    def shared() -> list[Path]:
        # The global skill store: a skill there may be assigned to any project's agents.
        if server.skills is None:
            return []
        store = server.skills.global_store.files.root
        return [store, store / INDEX_NAME, store / MD_DIR]

    refresh = ContextRefresh(service.projects, running, compose, service.programs.notify_scene,
                             shared, split=split)
    workstate.states.listeners.append(refresh.changed)
    orchestration.workstate = workstate
    orchestration.refresh = refresh


def _knowledge(server: DaemonServer) -> Knowledge:
    """Project memory and context with their FileGuard (issue 9)."""
    agents: AgentRuntime = server.agents
    assert agents is not None

    def orchestrator_of(root: str, agent_id: str) -> bool:
        runtime = server.service.projects.get(root) if server.service else None
        if runtime is None:
            return False
        try:
            manifest = agents.manifest(runtime)
        except IdeaError:
            return False
        return any(a.id == agent_id and a.extra.get("orchestrator") is True
                   for a in manifest.agents)

    def agents_of(root: str) -> tuple[Agent, ...]:
        runtime = server.service.projects.get(root) if server.service else None
        if runtime is None:
            return ()
        return agents.manifest(runtime).agents  # a damaged agents.json: its message

    return Knowledge(orchestrator_of=orchestrator_of, agents_of=agents_of,
                     personas=agents.persona_store)


def assemble(
    ports: WorkspacePorts,
    agent_ports: AgentPorts,
    services: ServicePorts | None = None,
    *,
    socket_path: str,
    base_env: Mapping[str, str],
    extra_env_names: tuple[str, ...] = (),
    version: str = VERSION,
) -> DaemonServer:
    """Wire the daemon's services from the ports it is given: the workspace, the agents,
    and (when `services` has their ports) git, agents' worktrees and delegation."""
    server = DaemonServer(version, socket_path)
    service = WorkspaceService(
        ports,
        socket_path=socket_path,
        base_env=base_env,
        listener=server.frames,
        extra_env_names=extra_env_names,
    )
    server.service = service
    agents = AgentRuntime(service, agent_ports.agents, agent_ports.personas, agent_ports.profiles,
                          agent_ports.background)
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
    global_skills = agent_ports.skills or SkillStore.global_skills(
        agent_ports.templates.root.parent)
    skills_problem = check_user_file(global_skills.load,
                                     "global skills cannot be used until it is fixed")
    if skills_problem is not None:
        service.problems.append(skills_problem)
    server.skills = skill_admin = SkillAdmin(agents, global_skills)
    agents.skill_sections = skill_admin.sections
    server.knowledge = _knowledge(server)

    def on_project_open(runtime: ProjectRuntime) -> None:
        problem = check_user_file(lambda: agents.agent_store.load(Path(runtime.root)),
                                  "its agents cannot be launched until it is fixed")
        if problem is not None:
            runtime.problems.append(problem)
        skills = SkillStore.project_skills(Path(runtime.root))
        problem = check_user_file(skills.load, "its skills cannot be used until it is fixed")
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
    services = services or ServicePorts()
    if services.git is not None:
        _wire_git(server, services.git, services.watch, services.worktree_root)
    if services.mcp_socket is not None:
        _wire_orchestration(server, services.mcp_socket, services.delegation or Delegation(),
                            services.watch)
    return server
