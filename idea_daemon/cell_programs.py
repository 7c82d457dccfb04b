"""The programs in cells: starting them (the user's shell, or an agent's CLI) with the
environment of D22, making a page's sessions match its tree (start shells in new cells, end
the ones of removed cells, size every PTY from `core.layout.geometry`), and what their
terminals report (titles, bells, notifications, the clipboard).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from dataclasses import replace

from adapters.pty.environment import cell_environment, user_shell
from core.layout import ops
from core.layout.model import LayoutKind, iter_leaves
from core.terminal import TerminalEvent, TerminalEventKind
from idea_daemon.lookups import CellRef, Listener, Lookups
from idea_daemon.persistence import Persistence
from idea_daemon.ports import WorkspacePorts
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.session import SpawnSpec, TerminalSession
from idea_daemon.workspace_model import WorkspaceHooks, WorkspaceModel

log = logging.getLogger(__name__)


class CellPrograms:
    """Sessions of the cells: spawned, resized and ended as the layouts change."""

    def __init__(
        self,
        model: WorkspaceModel,
        hooks: WorkspaceHooks,
        lookups: Lookups,
        persistence: Persistence,
        ports: WorkspacePorts,
        listener: Listener,
        *,
        socket_path: str,
        base_env: Mapping[str, str],
        extra_env_names: tuple[str, ...] = (),
    ) -> None:
        self.model = model
        self.hooks = hooks
        self.lookups = lookups
        self.persistence = persistence
        self.listener = listener
        self._new_id = ports.new_id
        self._emulator_factory = ports.emulators
        self._spawn_pty = ports.spawn
        self.clock = ports.clock
        self._base_env = dict(base_env)
        self._client_env: dict[str, str] = {}
        self._extra_env_names = extra_env_names
        self._socket_path = socket_path
        self._loop: asyncio.AbstractEventLoop | None = None

    def bind_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop that reads the PTYs (programs start only once it is known)."""
        self._loop = loop

    def set_client_env(self, env: Mapping[str, str]) -> None:
        """Refresh the variables tmux refreshes from the most recent attaching client."""
        self._client_env = dict(env)

    def cell_env(self, cell_id: str) -> dict[str, str]:
        """The environment of D22 for a program in a cell (or a background agent)."""
        return cell_environment(
            self._base_env,
            self._client_env,
            # The client picked its variables from its own config (which may be newer
            # than the one this daemon read at start): take every name it sent.
            extra_names=(*self._extra_env_names, *self._client_env),
            cell_id=cell_id,
            socket_path=self._socket_path,
        )

    def spawn_shell(self, cell_id: str, cwd: str, cols: int, rows: int,
               *, session_id: str | None = None) -> TerminalSession:
        """Start the user's shell for a cell (as `session_id` when that id is free)."""
        env = self.cell_env(cell_id)
        if not os.path.isdir(cwd):
            cwd = env.get("HOME", "/")
        return self.spawn_program(SpawnSpec([user_shell(env)], cwd, env), cols, rows,
                                  session_id=session_id)

    def spawn_program(self, spec: SpawnSpec, cols: int, rows: int,
                      *, agent_id: str | None = None, agent_name: str = "",
                      session_id: str | None = None) -> TerminalSession:
        """Start any program on a new PTY; a spawn failure stays visible in the session."""
        if session_id is None or session_id in self.model.sessions:
            # (Two clones of one repository may record the same id: the second gets a new.)
            session_id = self._new_id()
        session = TerminalSession(
            id=session_id,
            emulator=self._emulator_factory(max(1, cols), max(1, rows)),
            on_change=self.listener.output,
            short_turn=self.listener.short_turn,
            input_waiting=self.listener.input_waiting,
            on_exit=self._on_session_exit,
            on_event=self._on_session_event,
            agent_id=agent_id,
            agent_name=agent_name,
            monotonic=self.clock.monotonic,
        )
        self.model.sessions[session.id] = session
        assert self._loop is not None, "restore() must run before programs are spawned"
        session.start(spec, self._loop, self._spawn_pty)
        return session

    def sync_all_pages(self, runtime: ProjectRuntime) -> None:
        for layout in runtime.terminal_layouts():
            self.sync_page(runtime, layout.id, cwd=runtime.root)
        self.persistence.save_layouts(runtime)

    def sync_page(self, runtime: ProjectRuntime, layout_id: str, cwd: str | None = None) -> None:
        """Make sessions match the page's tree: start missing ones, end orphans, resize."""
        layout = runtime.layout(layout_id)
        if layout.kind is not LayoutKind.TERMINAL:
            return
        tree = layout.tree
        referenced = {
            leaf.session
            for lay in runtime.layouts.layouts
            for leaf in iter_leaves(lay.tree.root)
            if leaf.session
        }
        owned = self._sessions_of_page(runtime, layout_id)
        for sid in owned - referenced:
            self.end_session(self.model.sessions[sid])
        sizes = self.lookups.content_sizes(runtime, layout_id)
        changed = False
        for leaf in list(iter_leaves(tree.root)):
            if leaf.session is not None and leaf.session in self.model.sessions:
                continue
            if leaf.agent is not None:
                # An agent's cell waits for its agent (launch or resume), not a shell. The
                # session it records stays as it is: rewriting it would change a
                # committed file at every start of the daemon.
                continue
            cols, rows = sizes.get(leaf.id, (80, 24))
            # A shell restarted in a cell keeps the session id the cell recorded, so that
            # reopening a project (a daemon restart) leaves `layouts.json` as committed.
            session = self.spawn_shell(leaf.id, cwd or runtime.root, cols, rows,
                                  session_id=leaf.session)
            if session.id != leaf.session:
                tree = ops.replace_leaf(tree, leaf.id, replace(leaf, session=session.id))
                changed = True
        if changed:
            runtime.set_tree(layout_id, tree)
        self.model.page_sessions[(runtime.root, layout_id)] = {
            leaf.session for leaf in iter_leaves(tree.root) if leaf.session
        }
        self.resize_page(runtime, layout_id)

    def _sessions_of_page(self, runtime: ProjectRuntime, layout_id: str) -> set[str]:
        return {
            sid
            for sid in self.model.page_sessions.get((runtime.root, layout_id), set())
            if sid in self.model.sessions
        }

    def end_session(self, session: TerminalSession) -> None:
        session.close()
        self.model.sessions.pop(session.id, None)

    def adopt_session(self, runtime: ProjectRuntime, layout_id: str, session_id: str) -> None:
        """A session placed in a cell by the agent service: ended with its cell."""
        self.model.page_sessions.setdefault((runtime.root, layout_id), set()).add(session_id)
        self.resize_page(runtime, layout_id)

    def release_session(self, runtime: ProjectRuntime, layout_id: str, session_id: str) -> None:
        """A session leaves a page's cells alive (an agent moving to another cell)."""
        self.model.page_sessions.get((runtime.root, layout_id), set()).discard(session_id)

    def resync_page(self, runtime: ProjectRuntime, layout_id: str) -> None:
        self.sync_page(runtime, layout_id)
        self.persistence.save_layouts(runtime)

    def resize_project(self, runtime: ProjectRuntime) -> None:
        for layout in runtime.terminal_layouts():
            self.resize_page(runtime, layout.id)

    def resize_page(self, runtime: ProjectRuntime, layout_id: str) -> None:
        layout = runtime.layout(layout_id)
        sizes = self.lookups.content_sizes(runtime, layout_id)
        for leaf in iter_leaves(layout.tree.root):
            size = sizes.get(leaf.id)
            session = self.model.sessions.get(leaf.session) if leaf.session else None
            if size is not None and session is not None:
                session.resize(*size)

    def notify_scene(self) -> None:
        self.listener.scene_changed(None)

    def _on_session_exit(self, session: TerminalSession) -> None:
        if session.agent_id is not None and not self.model.stopping:
            for handler in self.hooks.exit_handlers:
                handler(session)
        self.listener.scene_changed(None)
        self.listener.output(session)

    def _on_session_event(self, session: TerminalSession, event: TerminalEvent) -> None:
        reason = self._ATTENTION.get(event.kind)
        if session.agent_id is not None and session.spec and event.kind in self._TURN_SIGNS:
            for handler in self.hooks.agent_activity_handlers:
                handler(session.spec.cwd)
        if event.kind is TerminalEventKind.NOTIFY and event.text:
            # A desktop-style notification (OSC 9/777): its text on the status line.
            window, where = self.lookups.place_of_session(session.id)
            label = session.agent_name or where
            self.listener.notify(window, f"{label}: {event.text}")
        if reason is not None and not self.is_watched(session.id):
            # A signal from a cell the user is not looking at marks it until focused.
            session.attention = f"{reason}: {event.text}" if event.text else reason
            self.listener.scene_changed(None)
        elif event.kind is TerminalEventKind.TITLE:
            self.listener.title_changed(session)
        elif event.kind is TerminalEventKind.CLIPBOARD:
            # A program copied text (OSC 52): it goes to the clipboard of the user's own
            # terminal, through the client (over ssh too).
            self.listener.clipboard(event.text)

    _TURN_SIGNS = frozenset({TerminalEventKind.TITLE, TerminalEventKind.BELL,
                             TerminalEventKind.NOTIFY, TerminalEventKind.SILENCE})

    _ATTENTION = {
        TerminalEventKind.BELL: "bell",
        TerminalEventKind.NOTIFY: "notify",
        TerminalEventKind.ACTIVITY: "activity",
        TerminalEventKind.SILENCE: "silence",
    }

    def is_watched(self, session_id: str) -> bool:
        """Whether the session is the focused cell of a page an attached client shows."""
        watched = self.listener.watched_windows()
        for window in self.model.workspace.windows:
            if window.id not in watched or window.active not in self.model.projects:
                continue
            runtime = self.model.projects[window.active]
            layout = runtime.active
            focused = runtime.focused_leaf(layout.id)
            for leaf in iter_leaves(layout.tree.root):
                if leaf.id == focused and leaf.session == session_id:
                    return True
        return False

    def clear_attention(self, ref: CellRef) -> None:
        session = self.lookups.session_of(ref)
        if session is not None and session.attention:
            session.attention = ""
            self.listener.scene_changed(None)

    def cwd_of(self, ref: CellRef) -> str:
        session = self.lookups.session_of(ref)
        if session is not None:
            reported = session.emulator.cwd
            if reported and os.path.isdir(reported):
                return reported
            if session.pty is not None:
                cwd = session.pty.cwd()
                if cwd and os.path.isdir(cwd):
                    return cwd
        return ref.runtime.root

    def project_sessions(self, runtime: ProjectRuntime) -> list[TerminalSession]:
        found = []
        for layout in runtime.layouts.layouts:
            for leaf in iter_leaves(layout.tree.root):
                session = self.model.sessions.get(leaf.session) if leaf.session else None
                if session is not None:
                    found.append(session)
        return found

    @staticmethod
    def busy_in(sessions: list[TerminalSession]) -> list[str]:
        return [name for s in sessions if (name := s.busy_command()) is not None]
