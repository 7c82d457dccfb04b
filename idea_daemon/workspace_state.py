"""The daemon's workspace state: open projects, windows, sessions, and how to find them.

`WorkspaceState` holds the state and the mechanics every operation needs (lookups come from
`idea_daemon.lookups`): making a page's sessions match its tree (start shells in new cells, end
the ones of removed cells, size every PTY from `core.layout.geometry`) and saving files. The
operations users run are built on it in `project_ops` and `service`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from adapters.pty.environment import cell_environment, user_shell
from adapters.store.layouts_codec import default_layouts
from core import workspace as ws
from core.errors import CorruptFile, IdeaError, NewerVersion, StoreError
from core.layout import geometry as geo
from core.layout import ops
from core.layout.model import LayoutKind, LayoutTree, Leaf, iter_leaves
from core.project import Project
from core.terminal import TerminalEvent, TerminalEventKind
from idea_daemon.layout_saver import LayoutSaver
from idea_daemon.lookups import DEFAULT_WINDOW, CellRef, Listener, WorkspaceLookups
from idea_daemon.ports import WorkspacePorts
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.runtime_files import check_idea_file, recover
from idea_daemon.session import SpawnSpec, TerminalSession

log = logging.getLogger(__name__)


class WorkspaceState(WorkspaceLookups):
    def __init__(
        self,
        ports: WorkspacePorts,
        *,
        socket_path: str,
        base_env: Mapping[str, str],
        listener: Listener,
        extra_env_names: tuple[str, ...] = (),
    ) -> None:
        self._new_id = ports.new_id
        self._listener = listener
        self._emulator_factory = ports.emulators
        self._spawn_pty = ports.spawn
        self.clock = ports.clock
        self._base_env = dict(base_env)
        self._client_env: dict[str, str] = {}
        self._extra_env_names = extra_env_names
        self._socket_path = socket_path
        self.layout_store = ports.layouts
        self.project_store = ports.projects
        self.registry = ports.registry
        self.workspace_store = ports.workspace
        self.workspace = ws.Workspace()
        self.workspace_writable = True
        self.projects: dict[str, ProjectRuntime] = {}
        self.sessions: dict[str, TerminalSession] = {}
        self.window_sizes: dict[str, tuple[int, int]] = {}
        self.problems: list[str] = []
        # Sessions each page started, to end those a layout change left without a cell.
        self._page_sessions: dict[tuple[str, str], set[str]] = {}
        self.stopping = False
        # Called when an agent's program exits by itself (the agent service records it).
        self.exit_handlers: list[Callable[[TerminalSession], None]] = []
        # Called once a project is open (drift notices, resume offers).
        self.open_handlers: list[Callable[[ProjectRuntime], None]] = []
        # Called with an agent session's folder when it may have finished a turn (its
        # title changed, it rang, went quiet, or ended): the git service refreshes.
        self.agent_activity_handlers: list[Callable[[str], None]] = []
        # Describes a cell waiting for its agent (set by the agent service).
        self.agent_cell_message: Callable[[ProjectRuntime, Leaf], tuple[str, str]] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._workspace_save: asyncio.TimerHandle | None = None
        self._failing_stores: set[str] = set()
        self.layout_saver = LayoutSaver(self.layout_store, self._layouts_not_saved)

    # ─── startup and shutdown ────────────────────────────────────────────────────────

    def restore(self, loop: asyncio.AbstractEventLoop) -> None:
        """Reopen the windows and projects of the last run (shells start anew)."""
        self._loop = loop
        self.layout_saver.bind(loop)
        registry_problem = check_idea_file(
            self.registry.list_projects, self.registry.path, "the list of projects starts empty")
        if registry_problem is not None:
            self.problems.append(registry_problem)
        try:
            self.workspace = self.workspace_store.load()
            self.window_sizes.update(
                {w.id: w.size for w in self.workspace.windows if w.size is not None}
            )
        except StoreError as exc:
            message, fresh = recover(exc, self.workspace_store.path, "windows start empty")
            # Set aside, the file no longer stands in the way; else it is never rewritten.
            self.workspace_writable = fresh
            self.problems.append(message)
        for window in self.workspace.windows:
            for root in window.tabs:
                try:
                    self._load_project(root)
                except IdeaError as exc:
                    self.problems.append(f"cannot reopen {root}: {exc.message}")
                    log.error("reopen %s: %s", root, exc.message)
        # Drop tabs whose project could not be reopened.
        for window in self.workspace.windows:
            for root in window.tabs:
                if root not in self.projects:
                    self.workspace = ws.close_project(self.workspace, root)
        for runtime in self.projects.values():
            self._sync_all_pages(runtime)
            for handler in self.open_handlers:
                handler(runtime)

    def _load_project(self, root: str) -> ProjectRuntime:
        problems: list[str] = []
        project_writable = True
        try:
            project = self.project_store.load(Path(root))
        except StoreError as exc:
            problems.append(f"{exc.message} (left untouched; using defaults in memory)")
            project, project_writable = None, False
        if project is None:
            registered = self.registry.get(root) if project_writable else None
            project = Project(
                id=registered.id if registered else str(uuid.uuid5(uuid.NAMESPACE_URL, root)),
                name=registered.name if registered else Path(root).name,
                root=root,
            )
        layouts_writable = True
        try:
            layouts = self.layout_store.load(Path(root))
            ops.validate(layouts.active.tree)
            for layout in layouts.layouts:
                ops.validate(layout.tree)
        except (StoreError, IdeaError) as exc:
            problems.append(f"{exc.message} (left untouched; a default layout is used in memory)")
            layouts, layouts_writable = default_layouts(self._new_id), False
        saved = layouts if layouts_writable and self.layout_store.path(Path(root)).exists() \
            else None
        layouts = ops.reconcile_duplicate_agents(layouts)
        runtime = ProjectRuntime(project, layouts, layouts_writable, project_writable, problems)
        runtime.saved_layouts = saved
        self.projects[root] = runtime
        return runtime

    def shutdown(self) -> None:
        # Programs end because the daemon stops, not by themselves: what the layouts say
        # was running must stay recorded, so the next daemon can offer to resume it.
        self.stopping = True
        self.layout_saver.flush()
        if self._workspace_save is not None:
            self._workspace_save.cancel()
            self._save_workspace()
        for session in list(self.sessions.values()):
            session.close()
        self.sessions.clear()

    def set_client_env(self, env: Mapping[str, str]) -> None:
        """Refresh the variables tmux refreshes from the most recent attaching client."""
        self._client_env = dict(env)

    def default_window(self) -> ws.Window:
        """The window a new project goes to when none is named: the first, made if needed."""
        if not self.workspace.windows:
            window_id = self._new_id()
            self.workspace = ws.add_window(self.workspace, window_id, DEFAULT_WINDOW)
            self._save_workspace()
        return self.workspace.windows[0]

    # ─── applying a tree ─────────────────────────────────────────────────────────────

    def _apply(
        self,
        runtime: ProjectRuntime,
        layout_id: str,
        tree: LayoutTree,
        *,
        record: bool = True,
        cwd: str | None = None,
        group: str | None = None,
    ) -> None:
        """Make `tree` the page's tree. Edits of one `group` (the moves of one border drag)
        are one undo step; an edit that changes nothing is no step at all."""
        ops.validate(tree)
        page = runtime.page(layout_id)
        previous = runtime.layout(layout_id).tree
        if tree == previous:
            return
        if record and (group is None or group != page.edit_group):
            page.history = page.history.push(previous)
        page.edit_group = group if record else None
        runtime.set_tree(layout_id, tree)
        self._sync_page(runtime, layout_id, cwd=cwd)
        runtime.focused_leaf(layout_id)
        self._save_layouts(runtime)

    def _focus(self, runtime: ProjectRuntime, layout_id: str, leaf_id: str) -> None:
        page = runtime.page(layout_id)
        if page.focused != leaf_id:
            page.last_focused = page.focused
            page.focused = leaf_id

    def _sync_all_pages(self, runtime: ProjectRuntime) -> None:
        for layout in runtime.terminal_layouts():
            self._sync_page(runtime, layout.id, cwd=runtime.root)
        self._save_layouts(runtime)

    def _sync_page(self, runtime: ProjectRuntime, layout_id: str, cwd: str | None = None) -> None:
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
            self._end_session(self.sessions[sid])
        sizes = self._content_sizes(runtime, layout_id)
        changed = False
        for leaf in list(iter_leaves(tree.root)):
            if leaf.session is not None and leaf.session in self.sessions:
                continue
            if leaf.agent is not None:
                # An agent's cell waits for its agent (launch or resume), not a shell. The
                # session it records stays as it is: rewriting it would change a
                # committed file at every start of the daemon.
                continue
            cols, rows = sizes.get(leaf.id, (80, 24))
            # A shell restarted in a cell keeps the session id the cell recorded, so that
            # reopening a project (a daemon restart) leaves `layouts.json` as committed.
            session = self._spawn(leaf.id, cwd or runtime.root, cols, rows,
                                  session_id=leaf.session)
            if session.id != leaf.session:
                tree = ops.replace_leaf(tree, leaf.id, replace(leaf, session=session.id))
                changed = True
        if changed:
            runtime.set_tree(layout_id, tree)
        self._page_sessions[(runtime.root, layout_id)] = {
            leaf.session for leaf in iter_leaves(tree.root) if leaf.session
        }
        self._resize_page(runtime, layout_id)

    def _sessions_of_page(self, runtime: ProjectRuntime, layout_id: str) -> set[str]:
        return {
            sid
            for sid in self._page_sessions.get((runtime.root, layout_id), set())
            if sid in self.sessions
        }

    def _spawn(self, cell_id: str, cwd: str, cols: int, rows: int,
               *, session_id: str | None = None) -> TerminalSession:
        """Start the user's shell for a cell (as `session_id` when that id is free)."""
        env = self.cell_env(cell_id)
        if not os.path.isdir(cwd):
            cwd = env.get("HOME", "/")
        return self.spawn_program(SpawnSpec([user_shell(env)], cwd, env), cols, rows,
                                  session_id=session_id)

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

    def spawn_program(self, spec: SpawnSpec, cols: int, rows: int,
                      *, agent_id: str | None = None, agent_name: str = "",
                      session_id: str | None = None) -> TerminalSession:
        """Start any program on a new PTY; a spawn failure stays visible in the session."""
        if session_id is None or session_id in self.sessions:
            # (Two clones of one repository may record the same id: the second gets a new.)
            session_id = self._new_id()
        session = TerminalSession(
            id=session_id,
            emulator=self._emulator_factory(max(1, cols), max(1, rows)),
            on_change=self._listener.output,
            on_exit=self._on_session_exit,
            on_event=self._on_session_event,
            agent_id=agent_id,
            agent_name=agent_name,
            monotonic=self.clock.monotonic,
        )
        self.sessions[session.id] = session
        assert self._loop is not None, "restore() must run before programs are spawned"
        session.start(spec, self._loop, self._spawn_pty)
        return session

    # ─── for the agent service ───────────────────────────────────────────────────────

    def end_session(self, session: TerminalSession) -> None:
        self._end_session(session)

    def adopt_session(self, runtime: ProjectRuntime, layout_id: str, session_id: str) -> None:
        """A session placed in a cell by the agent service: ended with its cell."""
        self._page_sessions.setdefault((runtime.root, layout_id), set()).add(session_id)
        self._resize_page(runtime, layout_id)

    def save_layouts(self, runtime: ProjectRuntime) -> None:
        self._save_layouts(runtime)

    def release_session(self, runtime: ProjectRuntime, layout_id: str, session_id: str) -> None:
        """A session leaves a page's cells alive (an agent moving to another cell)."""
        self._page_sessions.get((runtime.root, layout_id), set()).discard(session_id)

    def forget_agent(self, ref: CellRef) -> None:
        """Make an agent's cell an ordinary cell again."""
        leaf = replace(ref.leaf, agent=None, agent_was_running=False, conversation_id=None)
        ref.runtime.set_tree(ref.layout_id, ops.replace_leaf(ref.tree, ref.leaf.id, leaf))
        self._save_layouts(ref.runtime)

    def resync_page(self, runtime: ProjectRuntime, layout_id: str) -> None:
        self._sync_page(runtime, layout_id)
        self._save_layouts(runtime)

    def resize_all(self, runtime: ProjectRuntime) -> None:
        self._resize_project(runtime)

    def notify_scene(self) -> None:
        self._listener.scene_changed(None)

    def _end_session(self, session: TerminalSession) -> None:
        session.close()
        self.sessions.pop(session.id, None)

    def _on_session_exit(self, session: TerminalSession) -> None:
        if session.agent_id is not None and not self.stopping:
            for handler in self.exit_handlers:
                handler(session)
        self._listener.scene_changed(None)
        self._listener.output(session)

    _TURN_SIGNS = frozenset({TerminalEventKind.TITLE, TerminalEventKind.BELL,
                             TerminalEventKind.NOTIFY, TerminalEventKind.SILENCE})

    _ATTENTION = {
        TerminalEventKind.BELL: "bell",
        TerminalEventKind.NOTIFY: "notify",
        TerminalEventKind.ACTIVITY: "activity",
        TerminalEventKind.SILENCE: "silence",
    }

    def _on_session_event(self, session: TerminalSession, event: TerminalEvent) -> None:
        reason = self._ATTENTION.get(event.kind)
        if session.agent_id is not None and session.spec and event.kind in self._TURN_SIGNS:
            for handler in self.agent_activity_handlers:
                handler(session.spec.cwd)
        if event.kind is TerminalEventKind.NOTIFY and event.text:
            # A desktop-style notification (OSC 9/777): its text on the status line.
            window, where = self._place_of_session(session.id)
            label = session.agent_name or where
            self._listener.notify(window, f"{label}: {event.text}")
        if reason is not None and not self.is_watched(session.id):
            # A signal from a cell the user is not looking at marks it until focused.
            session.attention = f"{reason}: {event.text}" if event.text else reason
            self._listener.scene_changed(None)
        elif event.kind is TerminalEventKind.TITLE:
            self._listener.title_changed(session)
        elif event.kind is TerminalEventKind.CLIPBOARD:
            # A program copied text (OSC 52): it goes to the clipboard of the user's own
            # terminal, through the client (over ssh too).
            self._listener.clipboard(event.text)

    def _place_of_session(self, session_id: str) -> tuple[str | None, str]:
        """The window showing a session's cell, and the cell as a target ("web:Build.2")."""
        for runtime in self.projects.values():
            for layout in runtime.layouts.layouts:
                for index, leaf in enumerate(iter_leaves(layout.tree.root)):
                    if leaf.session == session_id:
                        window = self.window_of_project(runtime)
                        target = f"{runtime.name}:{layout.name}.{index}"
                        return (window.id if window else None), target
        return None, "a cell"

    def is_watched(self, session_id: str) -> bool:
        """Whether the session is the focused cell of a page an attached client shows."""
        watched = self._listener.watched_windows()
        for window in self.workspace.windows:
            if window.id not in watched or window.active not in self.projects:
                continue
            runtime = self.projects[window.active]
            layout = runtime.active
            focused = runtime.focused_leaf(layout.id)
            for leaf in iter_leaves(layout.tree.root):
                if leaf.id == focused and leaf.session == session_id:
                    return True
        return False

    def clear_attention(self, ref: CellRef) -> None:
        session = self.session_of(ref)
        if session is not None and session.attention:
            session.attention = ""
            self._listener.scene_changed(None)

    # ─── sizes ───────────────────────────────────────────────────────────────────────

    def _page_size(self, runtime: ProjectRuntime) -> tuple[int, int]:
        window = self.window_of_project(runtime)
        return self.size_of(window.id if window else None)

    def page_geometry(self, runtime: ProjectRuntime, layout_id: str) -> geo.Geometry:
        width, height = self._page_size(runtime)
        page = runtime.page(layout_id)
        return geo.compute(runtime.layout(layout_id).tree, width, height, page.zoomed)

    def _content_sizes(self, runtime: ProjectRuntime, layout_id: str) -> dict[str, tuple[int, int]]:
        geometry = self.page_geometry(runtime, layout_id)
        return {
            cid: (rect.content.width, rect.content.height) for cid, rect in geometry.cells.items()
        }

    def _resize_page(self, runtime: ProjectRuntime, layout_id: str) -> None:
        layout = runtime.layout(layout_id)
        sizes = self._content_sizes(runtime, layout_id)
        for leaf in iter_leaves(layout.tree.root):
            size = sizes.get(leaf.id)
            session = self.sessions.get(leaf.session) if leaf.session else None
            if size is not None and session is not None:
                session.resize(*size)

    def _resize_project(self, runtime: ProjectRuntime) -> None:
        for layout in runtime.terminal_layouts():
            self._resize_page(runtime, layout.id)

    def _cwd_of(self, ref: CellRef) -> str:
        session = self.session_of(ref)
        if session is not None:
            reported = session.emulator.cwd
            if reported and os.path.isdir(reported):
                return reported
            if session.pty is not None:
                cwd = session.pty.cwd()
                if cwd and os.path.isdir(cwd):
                    return cwd
        return ref.runtime.root

    # ─── persistence ─────────────────────────────────────────────────────────────────

    def _save_layouts(self, runtime: ProjectRuntime) -> None:
        """Write `layouts.json` once the current burst of edits is over (`LayoutSaver`)."""
        self.layout_saver.request(runtime)

    def flush_saves(self) -> None:
        """Write every pending save now (before a detach is answered, say)."""
        self.layout_saver.flush()
        if self._workspace_save is not None:
            self._workspace_save.cancel()
            self._workspace_save = None
            self._save_workspace()

    def _layouts_not_saved(self, runtime: ProjectRuntime, exc: StoreError) -> None:
        log.error("saving layouts of %s: %s", runtime.root, exc.message)
        window = self.window_of_project(runtime)
        self._listener.notify(window.id if window else None, exc.message, "error")

    def _save_workspace_soon(self, delay: float = 1.0) -> None:
        """Save workspace.json once changes stop coming (a terminal being resized)."""
        if self._loop is None:
            self._save_workspace()
            return
        if self._workspace_save is not None:
            self._workspace_save.cancel()
        self._workspace_save = self._loop.call_later(delay, self._save_workspace)

    def _save_workspace(self) -> None:
        if not self.workspace_writable:
            return
        try:
            self.workspace_store.save(self.workspace)
        except StoreError as exc:
            # A file that turned unreadable meanwhile is never overwritten: stop trying.
            # Other failures (disk full, permissions) are retried on the next change.
            if isinstance(exc, CorruptFile | NewerVersion):
                self.workspace_writable = False
            self.store_failed("workspace", None, exc)
        else:
            self._failing_stores.discard("workspace")

    def store_failed(self, store: str, runtime: ProjectRuntime | None, exc: IdeaError) -> None:
        """A save failed: log it, and tell the clients once until a save works again."""
        log.error("saving %s: %s", store, exc.message)
        if store in self._failing_stores:
            return
        self._failing_stores.add(store)
        window = self.window_of_project(runtime) if runtime is not None else None
        self._listener.notify(window.id if window else None, f"not saved: {exc.message}",
                              "error")

    def notify_problem(self, runtime: ProjectRuntime, message: str) -> None:
        """Tell the clients showing a project about a problem with one of its files."""
        window = self.window_of_project(runtime)
        self._listener.notify(window.id if window else None, message, "error")
