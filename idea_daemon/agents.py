"""Agents in the daemon: launch, stop, restart, hot-swap, resume (FEATURES.md PRF-8, AGT-4..6,
SWP-1..4).

A launch follows the seed's pipeline: resolve the agent and its profile, read the persona,
apply the singleton rule (one live session per agent), prepare `.ideai/run/<agent-id>/`,
compose the context (D7), deliver it by the profile's strategy without touching the user's
files (D19), and spawn the CLI in a PTY with the environment of D22 — in a cell (a new
split, or a chosen cell whose idle shell it replaces) or in the background (no cell).

Leaves record `agent`, `agentWasRunning` and `conversationId` (layouts.json) and background
agents are recorded in `.ideai/run/background.json`, so that after a restart the daemon can
offer to resume what was running, with the profile's resume arguments when it has them.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from adapters.store.ports import (
    AgentStorePort,
    BackgroundStorePort,
    PersonaStorePort,
    ProfileStorePort,
)
from adapters.store.profiles_codec import decode_profile
from core.agents.agent import Agent, AgentManifest, find_agent
from core.agents.context import ContextSections
from core.agents.errors import AgentAlreadyRunning, ProfileNotFound
from core.agents.profile import (
    AgentProfile,
    SessionMode,
    Stdin,
    find_profile,
)
from core.agents.singleton import BACKGROUND, InCell, LaunchAction, Location, decide_launch
from core.agents.skills import SkillSections
from core.errors import IdeaError, StoreError
from core.ids import is_safe_id
from core.layout import ops
from core.layout.model import Direction, iter_leaves
from idea_daemon.agent_delivery import deliver_stdin
from idea_daemon.agent_launch import LaunchKnowledge, prepare_launch, read_knowledge
from idea_daemon.agent_records import AgentRecords
from idea_daemon.agent_resume import resumable, resume
from idea_daemon.agent_status import AgentStatus
from idea_daemon.errors import CommandError, ConfirmationNeeded
from idea_daemon.lookups import BACKGROUND_CELL_PREFIX, CellRef
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.session import TerminalSession
from idea_daemon.session_discovery import DiscoveryRule, watch_for_session

if TYPE_CHECKING:
    from idea_daemon.service import WorkspaceService

log = logging.getLogger(__name__)

CONTEXT_FILE = "context.md"


class LaunchHooks(Protocol):
    """What the orchestration service adds to a launch (D7 section, MCP config, D11)."""

    def context_section(
        self, runtime: ProjectRuntime, agent: Agent, profile: AgentProfile
    ) -> str: ...

    def mcp_config(
        self, runtime: ProjectRuntime, agent: Agent, profile: AgentProfile, run_dir: Path
    ) -> Path | None: ...

    def state_section(
        self, runtime: ProjectRuntime, agent: Agent, profile: AgentProfile
    ) -> str | None: ...

    def launched(self, runtime: ProjectRuntime, agent: Agent, session: TerminalSession,
                 sections: ContextSections, *, resumed: bool = False) -> None: ...


class ConversationHooks(Protocol):
    """What conversations add to a launch (`idea_daemon.conversations.service`)."""

    def resume_section(self, runtime: ProjectRuntime, agent: Agent) -> str | None: ...

    def resumable_id(
        self, runtime: ProjectRuntime, agent: Agent, profile: AgentProfile
    ) -> str | None: ...

    def conversation_started(
        self, runtime: ProjectRuntime, agent: Agent, profile: AgentProfile, resumable: str
    ) -> None: ...

    def resuming(self, runtime: ProjectRuntime) -> None: ...


class AgentRuntime:
    """The agent operations of one daemon. Created by the composition root."""

    def __init__(
        self,
        service: WorkspaceService,
        agent_store: AgentStorePort,
        persona_store: PersonaStorePort,
        profile_store: ProfileStorePort,
        background_store: BackgroundStorePort,
    ) -> None:
        self.service = service
        self.records = AgentRecords(service, background_store)
        self.agent_store = agent_store
        self.persona_store = persona_store
        self.profile_store = profile_store
        self.mcp_available = False
        self.nice = 0
        """Steps below the daemon's CPU priority agents run at (config `agent_nice`)."""
        # (runtime, agent id) → (folder, branch) of the agent's own worktree, or None (set
        # by the composition root when git is available; idea_daemon/agent_worktrees.py).
        self.worktree_of: Callable[[ProjectRuntime, str], tuple[str, str] | None] | None = None
        self.hooks: LaunchHooks | None = None
        """Set by the composition root: the orchestration service's part of a launch."""
        self.skill_sections: Callable[[ProjectRuntime, Agent, bool], SkillSections] | None = None
        """Set by the composition root: an agent's assigned skills (SKL-4)."""
        self.conversations: ConversationHooks | None = None
        """Set by the composition root: `# Conversation resume`, resumable ids (LOG-2/4)."""
        self.profiles_problem: str | None = None
        self._manifests: dict[str, tuple[tuple[int, ...], AgentManifest]] = {}
        self._profiles: tuple[tuple[int, ...], list[AgentProfile], str | None] | None = None
        self._builtins: tuple[AgentProfile, ...] | None = None
        service.hooks.exit_handlers.append(self._on_agent_exit)
        service.hooks.agent_cell_message = self._cell_message

    # ─── lookups ─────────────────────────────────────────────────────────────────────

    def manifest(self, runtime: ProjectRuntime) -> AgentManifest:
        """The project's agents, decoded again only when the file changed on disk.

        Every delegation looks its target up by name, and panels poll states: decoding
        agents.json each time cost a millisecond a lookup. The cache is keyed by what an
        atomic rewrite (a new inode) or an edit in place (size, mtime) changes.
        """
        root = Path(runtime.root)
        path = self.agent_store.path(root)
        try:
            found = path.stat()
            key: tuple[int, ...] | None = (
                found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns
            )
        except OSError:
            key = None  # absent, or unreadable: load() says which
        cached = self._manifests.get(runtime.root)
        if key is not None and cached is not None and cached[0] == key:
            return cached[1]
        try:
            manifest = self.agent_store.load(root)
        except StoreError as exc:
            self._manifests.pop(runtime.root, None)
            raise CommandError(exc.message, "corrupt") from exc
        if key is not None:
            self._manifests[runtime.root] = (key, manifest)
        return manifest

    def save_manifest(self, runtime: ProjectRuntime, manifest: AgentManifest) -> None:
        # Our own write: never trust a cache key across it (an inode can be reused).
        self._manifests.pop(runtime.root, None)
        try:
            self.agent_store.save(Path(runtime.root), manifest)
        finally:
            self._manifests.pop(runtime.root, None)

    def agent(self, runtime: ProjectRuntime, name: str) -> Agent:
        return find_agent(self.manifest(runtime), name)

    def profiles(self) -> list[AgentProfile]:
        """Configured profiles, then the built-in catalogue for ids not configured (D6).

        Decoded again only when profiles.json changed on disk (keyed like `manifest`), and
        the catalogue once: a delegation, a launch's team section and the context refresh
        look profiles up per agent, and decoding them all each time (shlex, deep copies,
        validation) cost the loop ~5 ms a lookup.
        """
        key = self._profiles_key()
        cached = self._profiles
        if key is not None and cached is not None and cached[0] == key:
            configured, self.profiles_problem = cached[1], cached[2]
        else:
            configured = []
            self.profiles_problem = None
            if self.profile_store.exists():
                try:
                    configured = self.profile_store.load()
                except StoreError as exc:
                    # Built-in profiles still work; a profile only the file held is reported
                    # with the file's problem (see `profile`).
                    self.profiles_problem = exc.message
                    log.error("profiles: %s", exc.message)
            self._profiles = None if key is None else (key, configured, self.profiles_problem)
        known = {profile.id for profile in configured}
        builtins = [profile for profile in self._builtin_profiles() if profile.id not in known]
        return [*configured, *builtins]

    def _profiles_key(self) -> tuple[int, ...] | None:
        """What a rewrite of profiles.json changes; () when it does not exist, None when it
        cannot be looked at (never cached then)."""
        path = getattr(self.profile_store, "path", None)
        if not isinstance(path, Path):
            return None
        try:
            found = path.stat()
        except FileNotFoundError:
            return ()
        except OSError:
            return None
        return (found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)

    def _builtin_profiles(self) -> tuple[AgentProfile, ...]:
        if self._builtins is None:
            from adapters.agents.catalogue import builtin_profiles

            self._builtins = tuple(
                decode_profile(data, "built-in catalogue", f"[{index}]")
                for index, data in enumerate(builtin_profiles())
            )
        return self._builtins

    def profile(self, profile_id: str) -> AgentProfile:
        found = find_profile(self.profiles(), profile_id)
        if found is None:
            if self.profiles_problem is not None:
                raise CommandError(
                    f"no profile {profile_id!r} can be read: {self.profiles_problem}", "corrupt"
                )
            raise ProfileNotFound(profile_id)
        return found

    def live(self, runtime: ProjectRuntime) -> dict[str, Location]:
        """Where each running agent of a project is: a cell or the background."""
        found: dict[str, Location] = {}
        cells = self._agent_cells(runtime)
        for session in self.service.sessions.values():
            if session.agent_id is None or not session.running:
                continue
            if session.project_root != runtime.root:
                continue
            cell = cells.get(session.id)
            found[session.agent_id] = InCell(cell) if cell else BACKGROUND
        return found

    def _agent_cells(self, runtime: ProjectRuntime) -> dict[str, str]:
        """Session id → cell id, for every cell of the project that holds a session."""
        return {
            leaf.session: leaf.id
            for layout in runtime.layouts.layouts
            for leaf in iter_leaves(layout.tree.root)
            if leaf.session
        }

    def session_of_agent(self, runtime: ProjectRuntime, agent_id: str) -> TerminalSession | None:
        for session in self.service.sessions.values():
            if (
                session.agent_id == agent_id
                and session.project_root == runtime.root
                and session.running
            ):
                return session
        return None

    def status(self, runtime: ProjectRuntime) -> list[AgentStatus]:
        manifest = self.manifest(runtime)
        cells = self._agent_cells(runtime)
        background = self.records.load_background(runtime)
        statuses = []
        for agent in manifest.agents:
            session = self._latest_session(runtime, agent.id)
            cell = cells.get(session.id) if session else None
            if session is not None and session.running:
                statuses.append(
                    AgentStatus(
                        agent,
                        "running",
                        cell,
                        cell is None,
                        conversation_id=session.conversation_id,
                    )
                )
            elif session is not None and session.error:
                statuses.append(AgentStatus(agent, "failed", cell, error=session.error))
            elif session is not None:
                statuses.append(AgentStatus(agent, "exited", cell, exit_code=session.exit_code))
            elif self.records.was_running(runtime, agent.id, background):
                statuses.append(
                    AgentStatus(agent, "resumable", self.records.agent_leaf(runtime, agent.id))
                )
            else:
                leaf = self.records.agent_leaf(runtime, agent.id)
                statuses.append(AgentStatus(agent, "stopped", leaf))
        return statuses

    def _latest_session(self, runtime: ProjectRuntime, agent_id: str) -> TerminalSession | None:
        found = [
            s
            for s in self.service.sessions.values()
            if s.agent_id == agent_id and s.project_root == runtime.root
        ]
        running = [s for s in found if s.running]
        candidates = running or found
        return candidates[-1] if candidates else None

    # ─── launching ───────────────────────────────────────────────────────────────────

    def launch(
        self,
        runtime: ProjectRuntime,
        name: str,
        *,
        where: str,
        cell: CellRef | None = None,
        direction: Direction = Direction.ROW,
        resume: bool = False,
        force: bool = False,
        move: bool = False,
        knowledge: LaunchKnowledge | None = None,
    ) -> AgentStatus:
        """Launch (or re-attach) an agent.

        Args:
            where: "split" (a new cell next to `cell`), "cell" (in `cell`) or "background".
            resume: Continue the recorded conversation when the profile can.
            move: The agent runs in another cell: show it in `cell` instead ("move it
                here"); its former cell gets a shell.
            knowledge: What the launch reads from files, already read off the loop
                (`launch_async`); read here when None or no longer this agent's.
        """
        agent = self.agent(runtime, name)
        profile = self.profile(agent.profile_id)
        if knowledge is not None and (knowledge.agent_id, knowledge.profile_id, knowledge.mcp) \
                != (agent.id, profile.id, self._reaches_mcp(profile)):
            knowledge = None  # the agent changed while it was read: read it again
        persona = (knowledge.persona if knowledge is not None
                   else self.persona_store.read(Path(runtime.root), agent))
        target: Location = BACKGROUND
        if where == "cell":
            assert cell is not None
            target = InCell(cell.leaf.id)
        decision = decide_launch(
            self.live(runtime),
            agent.id,
            target if where != "split" else InCell("(new split)"),
            move=move,
        )
        if decision.action is LaunchAction.REFUSE_ALREADY_RUNNING:
            location = decision.location
            where_now = self._describe_location(runtime, location)
            error = AgentAlreadyRunning(agent.name, where_now)
            raise CommandError(
                f"{error.message} (`idea select -t {where_now}`)", "AGENT_ALREADY_RUNNING"
            )
        if decision.action is LaunchAction.REATTACH:
            session = self.session_of_agent(runtime, agent.id)
            assert session is not None
            already_there = decision.previous == decision.location
            if isinstance(decision.location, InCell) and cell is not None and not already_there:
                if isinstance(decision.previous, InCell):
                    self._vacate(runtime, decision.previous.cell_id)
                self._show_in_cell(runtime, cell, session, force)
            return self._status_of(runtime, agent.id)
        conversation_id, mode = self._conversation(runtime, agent, profile, resume)
        if where == "split":
            assert cell is not None
            new_ids = self.service.cells.split(cell, direction, agent=agent.id)
            cell = self.service.lookups.find_cell(new_ids[-1])
        elif where == "cell":
            assert cell is not None
            self._free_cell(cell, force)
            cell = self.service.lookups.find_cell(cell.leaf.id)
        if knowledge is None:
            knowledge = self._read_knowledge(runtime, agent, profile, persona)
        session = self._spawn(runtime, agent, profile, knowledge, conversation_id, mode,
                              cell)
        if cell is not None:
            self._bind(runtime, cell, session, conversation_id)
        else:
            self.records.record_background(runtime, agent, conversation_id, running=True)
        self.service.programs.notify_scene()
        return self._status_of(runtime, agent.id)

    def _conversation(
        self, runtime: ProjectRuntime, agent: Agent, profile: AgentProfile, resume: bool
    ) -> tuple[str | None, SessionMode]:
        templates = profile.session
        if templates is None:
            return None, SessionMode.NONE
        recorded = self.records.recorded_conversation(runtime, agent.id)
        if resume and not recorded and self.conversations is not None:
            # The cell lost it (a profile swap forgets it): this profile's own last session.
            recorded = self.conversations.resumable_id(runtime, agent, profile)
        if resume and recorded and templates.resume_supported:
            return recorded, SessionMode.RESUME
        if templates.id_known_at_launch:
            return str(uuid.uuid4()), SessionMode.START
        return None, SessionMode.NONE

    async def launch_async(self, runtime: ProjectRuntime, name: str,
                           **options: Any) -> AgentStatus:
        """`launch`, its file reads (persona, skills, handoffs, project context, memory)
        done in an executor thread first: the loop goes on meanwhile."""
        agent = self.agent(runtime, name)
        knowledge = await self.knowledge_for(runtime, agent)
        return self.launch(runtime, agent.id, knowledge=knowledge, **options)

    async def knowledge_for(self, runtime: ProjectRuntime, agent: Agent) -> LaunchKnowledge:
        """The agent's launch knowledge, read in an executor thread."""
        profile = self.profile(agent.profile_id)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, self._read_knowledge, runtime, agent, profile,
                                          None)

    def _read_knowledge(self, runtime: ProjectRuntime, agent: Agent, profile: AgentProfile,
                        persona: str | None) -> LaunchKnowledge:
        """Blocking: on the loop for `launch`, in an executor for `launch_async`."""
        if persona is None:
            persona = self.persona_store.read(Path(runtime.root), agent)
        conversations = self.conversations
        return read_knowledge(
            runtime, agent, profile.id, persona, mcp=self._reaches_mcp(profile),
            skills=lambda: self.skills_of(runtime, agent, profile),
            resume=lambda: (conversations.resume_section(runtime, agent)
                            if conversations is not None else None),
        )

    def _spawn(
        self,
        runtime: ProjectRuntime,
        agent: Agent,
        profile: AgentProfile,
        knowledge: LaunchKnowledge,
        conversation_id: str | None,
        mode: SessionMode,
        cell: CellRef | None,
    ) -> TerminalSession:
        cell_id = cell.leaf.id if cell is not None else f"{BACKGROUND_CELL_PREFIX}{agent.id}"
        tree = self.worktree_of(runtime, agent.id) if self.worktree_of else None
        work_root = tree[0] if tree else None
        launch = prepare_launch(
            runtime,
            agent,
            profile,
            knowledge.persona,
            conversation_id,
            mode,
            base_env=self.service.programs.cell_env(cell_id),
            with_mcp=self.mcp_available,
            work_root=work_root,
            orchestration=(
                self.hooks.context_section(runtime, agent, profile) if self.hooks else None
            ),
            skills=knowledge.skills,
            mcp_config=(
                (lambda run_dir: hooks.mcp_config(runtime, agent, profile, run_dir))
                if (hooks := self.hooks) is not None
                else None
            ),
            resume=knowledge.resume,
            state=self.hooks.state_section(runtime, agent, profile) if self.hooks else None,
            knowledge=knowledge,
        )
        cols, rows = self._size_for(runtime, cell)
        session = self.service.programs.spawn_program(
            replace(launch.spec, nice=self.nice), cols, rows, agent_id=agent.id,
            agent_name=agent.name,
        )
        session.project_root = runtime.root
        session.conversation_id = conversation_id
        session.profile_id = profile.id
        session.work_branch = tree[1] if tree else None
        if session.error is not None:
            session.error = (
                f"{session.error} — agent {agent.name} uses profile "
                f"{profile.name!r}: install `{profile.command}` or change the "
                f"agent's profile (`idea agent set-profile {agent.name} ...`) "
                f"or edit the profile (`idea profile edit {profile.id}`)"
            )
        else:
            if conversation_id is not None and self.conversations is not None:
                self.conversations.conversation_started(runtime, agent, profile, conversation_id)
            if self.hooks is not None:
                self.hooks.launched(runtime, agent, session, launch.sections,
                                    resumed=mode is SessionMode.RESUME)
            if isinstance(profile.context_injection, Stdin):
                deliver_stdin(session, launch.content, profile)
            if (
                profile.session is not None
                and mode is not SessionMode.RESUME
                and not profile.session.id_known_at_launch
            ):
                self._discover_conversation(runtime, agent, profile, session, dict(launch.spec.env))
        log.info("agent %s launched: %s in %s", agent.name, launch.spec.argv[0], launch.spec.cwd)
        return session

    def skills_of(
        self, runtime: ProjectRuntime, agent: Agent, profile: AgentProfile
    ) -> SkillSections | None:
        """The skill sections of the agent's composed context (a launch, a refresh)."""
        if self.skill_sections is None:
            return None
        return self.skill_sections(runtime, agent, self._reaches_mcp(profile))

    def reaches_mcp(self, profile: AgentProfile) -> bool:
        """Whether an agent of this profile gets idea's MCP server (its launch and its
        refreshed context say how to read shared knowledge accordingly)."""
        return self._reaches_mcp(profile)

    def _reaches_mcp(self, profile: AgentProfile) -> bool:
        """Whether an agent of this profile gets idea's MCP server (PRF-9 surface)."""
        return self.mcp_available and self.hooks is not None and profile.mcp is not None

    def _discover_conversation(
        self,
        runtime: ProjectRuntime,
        agent: Agent,
        profile: AgentProfile,
        session: TerminalSession,
        env: dict[str, str],
    ) -> None:
        """For CLIs that pick their own id (Codex): find it once it exists (D20)."""
        assert profile.session is not None
        rule = DiscoveryRule.from_profile_extra(profile.session.extra)
        if rule is None:
            return

        def claimed() -> set[str]:
            return {s.conversation_id for s in self.service.sessions.values() if s.conversation_id}

        def found(conversation_id: str) -> None:
            if not is_safe_id(conversation_id):
                # layouts.json would no longer load, and argv would carry it: not recorded.
                log.warning("agent %s: discovered conversation id %r refused",
                            agent.name, conversation_id[:80])
                return
            session.conversation_id = conversation_id
            self.records.record_conversation(runtime, agent.id, conversation_id)
            if self.conversations is not None:
                self.conversations.conversation_started(runtime, agent, profile, conversation_id)
            log.info("agent %s: conversation %s discovered", agent.name, conversation_id)

        watch_for_session(rule, env, time.time() - 1.0, claimed, lambda: session.running, found)

    def _size_for(self, runtime: ProjectRuntime, cell: CellRef | None) -> tuple[int, int]:
        if cell is None:
            width, height = self.service.lookups.size_of(None)
            return width, max(1, height - 1)
        geometry = self.service.lookups.page_geometry(runtime, cell.layout_id)
        rect = geometry.cells.get(cell.leaf.id)
        if rect is None:
            return 80, 24
        return rect.content.width, rect.content.height

    def _free_cell(self, cell: CellRef, force: bool) -> None:
        session = self.service.lookups.session_of(cell)
        if session is not None and session.running:
            busy = session.busy_command()
            if busy and not force:
                raise ConfirmationNeeded(f"the cell runs {busy}: replace it with the agent?")
        if session is not None:
            self.service.programs.end_session(session)
        runtime = cell.runtime
        leaf = replace(
            cell.leaf, session=None, agent=None, agent_was_running=False, conversation_id=None
        )
        runtime.set_tree(cell.layout_id, ops.replace_leaf(cell.tree, cell.leaf.id, leaf))

    def _bind(
        self,
        runtime: ProjectRuntime,
        cell: CellRef,
        session: TerminalSession,
        conversation_id: str | None,
    ) -> None:
        current = self.service.lookups.find_cell(cell.leaf.id)
        leaf = replace(
            current.leaf,
            session=session.id,
            agent=session.agent_id,
            agent_was_running=session.running,
            conversation_id=conversation_id,
        )
        runtime.set_tree(cell.layout_id, ops.replace_leaf(current.tree, cell.leaf.id, leaf))
        self.service.programs.adopt_session(runtime, cell.layout_id, session.id)
        self.service.persistence.save_layouts(runtime)

    def _vacate(self, runtime: ProjectRuntime, cell_id: str) -> None:
        """A cell an agent moved away from: an ordinary cell again (a shell starts)."""
        ref = self.service.lookups.find_cell(cell_id)
        if ref.leaf.session is not None:
            # The session moves on with its agent: not an orphan of this page.
            self.service.programs.release_session(runtime, ref.layout_id, ref.leaf.session)
        leaf = replace(
            ref.leaf, session=None, agent=None, agent_was_running=False, conversation_id=None
        )
        runtime.set_tree(ref.layout_id, ops.replace_leaf(ref.tree, cell_id, leaf))
        self.service.programs.resync_page(runtime, ref.layout_id)

    def _show_in_cell(
        self, runtime: ProjectRuntime, cell: CellRef, session: TerminalSession, force: bool
    ) -> None:
        """Bring a background agent into a cell without respawning it (AGT-4)."""
        self._free_cell(cell, force)
        current = self.service.lookups.find_cell(cell.leaf.id)
        self._bind(runtime, current, session, session.conversation_id)
        self.records.forget_background(runtime, session.agent_id or "")
        self.service.programs.resize_project(runtime)
        self.service.programs.notify_scene()

    def _describe_location(self, runtime: ProjectRuntime, location: Location) -> str:
        if isinstance(location, InCell):
            for layout in runtime.layouts.layouts:
                for index, leaf in enumerate(iter_leaves(layout.tree.root)):
                    if leaf.id == location.cell_id:
                        return f"{runtime.name}:{layout.name}.{index}"
            return f"%{location.cell_id}"
        return "the background"

    def _status_of(self, runtime: ProjectRuntime, agent_id: str) -> AgentStatus:
        return next(s for s in self.status(runtime) if s.agent.id == agent_id)

    # ─── stopping, restarting, swapping ──────────────────────────────────────────────

    def stop(self, runtime: ProjectRuntime, name: str) -> AgentStatus:
        agent = self.agent(runtime, name)
        session = self.session_of_agent(runtime, agent.id)
        if session is None:
            raise CommandError(f"agent {agent.name} is not running", "not_running")
        self.records.mark_stopped(runtime, agent.id)
        self.service.programs.end_session(session)
        # Its cell (if any) now waits for the agent: show that instead of a dead screen.
        for layout in runtime.terminal_layouts():
            self.service.programs.resync_page(runtime, layout.id)
        self.service.programs.notify_scene()
        return self._status_of(runtime, agent.id)

    async def restart_async(self, runtime: ProjectRuntime, name: str, *,
                            resume: bool = True) -> AgentStatus:
        """`restart`, the launch's file reads done in an executor thread first (the agent
        keeps running meanwhile: it is stopped and launched in one turn of the loop)."""
        agent = self.agent(runtime, name)
        knowledge = await self.knowledge_for(runtime, agent)
        return self.restart(runtime, agent.id, resume=resume, knowledge=knowledge)

    def restart(self, runtime: ProjectRuntime, name: str, *, resume: bool = True,
                knowledge: LaunchKnowledge | None = None) -> AgentStatus:
        """Stop the agent if it runs, then launch it again where it was."""
        agent = self.agent(runtime, name)
        session = self.session_of_agent(runtime, agent.id)
        leaf_id = self.records.agent_leaf(runtime, agent.id)
        in_background = session is not None and leaf_id is None
        if session is not None:
            self.records.mark_stopped(runtime, agent.id)
            self.service.programs.end_session(session)
        if leaf_id is not None and not in_background:
            cell = self.service.lookups.find_cell(leaf_id)
            return self.launch(
                runtime, agent.id, where="cell", cell=cell, resume=resume, force=True,
                knowledge=knowledge,
            )
        return self.launch(runtime, agent.id, where="background", resume=resume,
                           knowledge=knowledge)

    def set_profile(
        self, runtime: ProjectRuntime, name: str, profile_id: str, force: bool
    ) -> AgentStatus:
        """Change an agent's profile; a running agent is relaunched in place (SWP-1)."""
        agent = self.agent(runtime, name)
        profile = self.profile(profile_id)
        session = self.session_of_agent(runtime, agent.id)
        if session is not None and not force:
            raise ConfirmationNeeded(
                f"{agent.name} is running: switching to {profile.name} restarts it and its "
                "provider conversation is lost (its Markdown is kept). Continue?"
            )
        from core.agents.agent import change_profile

        self.save_manifest(runtime, change_profile(self.manifest(runtime), agent.id, profile.id))
        self.records.forget_conversation(runtime, agent.id)
        if session is not None:
            return self.restart(runtime, agent.id, resume=False)
        return self._status_of(runtime, agent.id)

    def _on_agent_exit(self, session: TerminalSession) -> None:
        """An agent's CLI ended by itself: it no longer counts as running (no resume)."""
        runtime = self.service.projects.get(session.project_root or "")
        if runtime is None or session.agent_id is None:
            return
        if self.session_of_agent(runtime, session.agent_id) is None:
            self.records.mark_stopped(runtime, session.agent_id)

    def _cell_message(self, runtime: ProjectRuntime, leaf: Any) -> tuple[str, str]:
        """Title and text of a cell reserved for an agent while the agent does not run."""
        try:
            agent = find_agent(self.manifest(runtime), leaf.agent)
        except (IdeaError, CommandError):
            return "agent", "This cell's agent no longer exists. Enter starts a shell."
        if leaf.agent_was_running:
            return (
                f"{agent.name} (not resumed)",
                f"Agent {agent.name} was running. Enter resumes it "
                f"(or `idea agent resume {agent.name}`).",
            )
        return f"{agent.name} (stopped)", f"Agent {agent.name} is stopped. Enter launches it."

    # ─── resume ──────────────────────────────────────────────────────────────────────

    def resumable(self, runtime: ProjectRuntime) -> list[dict[str, Any]]:
        """Agents that were running when the daemon (or the project) last stopped."""
        return resumable(self, runtime)

    def resume(self, runtime: ProjectRuntime, names: list[str] | None,
               knowledge: dict[str, LaunchKnowledge] | None = None) -> list[AgentStatus]:
        """Relaunch resumable agents where they were (each once, LAY-7)."""
        if self.conversations is not None:
            self.conversations.resuming(runtime)
        return resume(self, runtime, names, knowledge)

    async def resume_async(self, runtime: ProjectRuntime,
                           names: list[str] | None) -> list[AgentStatus]:
        """`resume`, each launch's file reads done in an executor thread first."""
        knowledge: dict[str, LaunchKnowledge] = {}
        for entry in self.resumable(runtime):
            if names is None or entry["agent"] in names or entry["agentId"] in names:
                try:
                    agent = self.agent(runtime, entry["agentId"])
                    knowledge[agent.id] = await self.knowledge_for(runtime, agent)
                except IdeaError:
                    continue  # its launch reports it, as `resume` would
        return self.resume(runtime, names, knowledge)
