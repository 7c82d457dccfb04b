"""The workspace service: projects, windows, pages and cells, and the sessions in them.

Every workspace action (from a key in a client or a command line) lands here. Layout changes
are computed by the pure functions of `core.layout`, then this service makes the world match
the new tree: it starts shells in new cells, ends the ones of removed cells, sizes every PTY
from `core.layout.geometry`, saves `layouts.json` and tells the server which windows must be
redrawn.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from adapters.pty.environment import cell_environment, user_shell
from adapters.store.layouts_codec import LayoutStore, default_layouts
from adapters.store.project_codec import ProjectStore
from adapters.store.registry import ProjectRegistry
from adapters.store.workspace_codec import WorkspaceStore
from core import workspace as ws
from core.errors import IdeaError, StoreError
from core.layout import geometry as geo
from core.layout import ops
from core.layout.model import Direction, Layout, LayoutKind, LayoutTree, Leaf, iter_leaves
from core.project import Project, normalize_root
from core.targets import TargetSpec, parse_target
from core.terminal import TerminalEmulator, TerminalEvent, TerminalEventKind
from idea_daemon.runtime import PageState, ProjectRuntime
from idea_daemon.session import SpawnSpec, TerminalSession

log = logging.getLogger(__name__)

DEFAULT_SIZE = (80, 23)
DEFAULT_WINDOW = "main"


class CommandError(IdeaError):
    """A command that cannot be carried out as asked; `code` tells clients what to offer."""

    def __init__(self, message: str, code: str = "error") -> None:
        super().__init__(message)
        self.code = code


class ConfirmationNeeded(CommandError):
    """The action would end running programs: the caller must ask, then pass force."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "confirm")


class Listener(Protocol):
    """What the service tells the server (which talks to clients)."""

    def scene_changed(self, window_id: str | None) -> None:
        """The structure a window shows changed (None: every window)."""

    def output(self, session: TerminalSession) -> None:
        """A session's screen changed."""

    def notify(self, window_id: str | None, text: str, level: str = "info") -> None:
        """A message for the status line of a window's clients."""


@dataclass(frozen=True, slots=True)
class CellRef:
    """A resolved cell: where it is and what runs in it."""

    runtime: ProjectRuntime
    layout_id: str
    leaf: Leaf

    @property
    def page(self) -> PageState:
        return self.runtime.page(self.layout_id)

    @property
    def tree(self) -> LayoutTree:
        return self.runtime.layout(self.layout_id).tree


EmulatorFactory = Callable[[int, int], TerminalEmulator]


class WorkspaceService:
    def __init__(
        self,
        *,
        data_dir: Path,
        socket_path: str,
        emulator_factory: EmulatorFactory,
        base_env: Mapping[str, str],
        listener: Listener,
        new_id: Callable[[], str] = lambda: str(uuid.uuid4()),
        extra_env_names: tuple[str, ...] = (),
    ) -> None:
        self._new_id = new_id
        self._listener = listener
        self._emulator_factory = emulator_factory
        self._base_env = dict(base_env)
        self._client_env: dict[str, str] = {}
        self._extra_env_names = extra_env_names
        self._socket_path = socket_path
        self.layout_store = LayoutStore(new_id)
        self.project_store = ProjectStore()
        self.registry = ProjectRegistry(data_dir)
        self.workspace_store = WorkspaceStore(data_dir)
        self.workspace = ws.Workspace()
        self.workspace_writable = True
        self.projects: dict[str, ProjectRuntime] = {}
        self.sessions: dict[str, TerminalSession] = {}
        self.window_sizes: dict[str, tuple[int, int]] = {}
        self.problems: list[str] = []
        # Sessions each page started, to end those a layout change left without a cell.
        self._page_sessions: dict[tuple[str, str], set[str]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    # ─── startup and shutdown ────────────────────────────────────────────────────────

    def restore(self, loop: asyncio.AbstractEventLoop) -> None:
        """Reopen the windows and projects of the last run (shells start anew)."""
        self._loop = loop
        try:
            self.workspace = self.workspace_store.load()
        except StoreError as exc:
            self.workspace_writable = False
            self.problems.append(f"{exc.message} — windows start empty and it is not rewritten.")
            log.error("workspace: %s", exc.message)
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

    def shutdown(self) -> None:
        for session in list(self.sessions.values()):
            session.close()
        self.sessions.clear()

    def set_client_env(self, env: Mapping[str, str]) -> None:
        """Refresh the variables tmux refreshes from the most recent attaching client."""
        self._client_env = dict(env)

    # ─── lookups ─────────────────────────────────────────────────────────────────────

    def runtime_of(self, name: str) -> ProjectRuntime:
        """An open project by name, id (or id prefix) or root."""
        if name.startswith("/"):
            try:
                root = normalize_root(name)
            except IdeaError:
                root = name
            if root in self.projects:
                return self.projects[root]
        exact = [rt for rt in self.projects.values() if rt.name == name or rt.project.id == name]
        if len(exact) == 1:
            return exact[0]
        prefixed = [rt for rt in self.projects.values() if rt.project.id.startswith(name)]
        if len(prefixed) == 1 and len(name) >= 4:
            return prefixed[0]
        if len(exact) > 1:
            roots = ", ".join(rt.root for rt in exact)
            raise CommandError(f"several open projects are named {name!r} ({roots}): use a root")
        raise CommandError(f"no open project named {name!r}", "not_found")

    def window_by_name(self, name: str) -> ws.Window:
        window = self.workspace.window_named(name)
        if window is None:
            window = next((w for w in self.workspace.windows if w.id == name), None)
        if window is None:
            raise CommandError(f"no window named {name!r}", "not_found")
        return window

    def window_of_project(self, runtime: ProjectRuntime) -> ws.Window | None:
        return self.workspace.window_of(runtime.root)

    def default_window(self) -> ws.Window:
        """The window a new project goes to when none is named: the first, made if needed."""
        if not self.workspace.windows:
            window_id = self._new_id()
            self.workspace = ws.add_window(self.workspace, window_id, DEFAULT_WINDOW)
            self._save_workspace()
        return self.workspace.windows[0]

    def size_of(self, window_id: str | None) -> tuple[int, int]:
        if window_id is None:
            return DEFAULT_SIZE
        return self.window_sizes.get(window_id, DEFAULT_SIZE)

    def iter_cells(self) -> Iterator[CellRef]:
        for runtime in self.projects.values():
            for layout in runtime.layouts.layouts:
                for leaf in iter_leaves(layout.tree.root):
                    yield CellRef(runtime, layout.id, leaf)

    def find_cell(self, cell_id: str) -> CellRef:
        matches = [ref for ref in self.iter_cells() if ref.leaf.id.startswith(cell_id)]
        exact = [ref for ref in matches if ref.leaf.id == cell_id]
        if exact:
            return exact[0]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise CommandError(f"no cell with id {cell_id!r}", "not_found")
        raise CommandError(f"cell id {cell_id!r} is ambiguous: give more characters")

    def focused_cell(self, window_id: str | None) -> CellRef:
        runtime = self.active_runtime(window_id)
        layout = runtime.active
        leaf_id = runtime.focused_leaf(layout.id)
        if leaf_id is None:
            raise CommandError("the current page has no cell")
        return CellRef(runtime, layout.id, ops.find_leaf(layout.tree, leaf_id))

    def active_runtime(self, window_id: str | None) -> ProjectRuntime:
        window = self._window_or_default(window_id)
        if window is None or window.active is None or window.active not in self.projects:
            raise CommandError("no project is open: create one with `idea new PATH`", "no_project")
        return self.projects[window.active]

    def _window_or_default(self, window_id: str | None) -> ws.Window | None:
        if window_id is not None:
            try:
                return self.workspace.window(window_id)
            except IdeaError:
                pass
        return self.workspace.windows[0] if self.workspace.windows else None

    def resolve(self, target: str | None, window_id: str | None, current_cell: str | None) -> CellRef:
        """A cell from a target string (core.targets), relative to a client's window."""
        spec = parse_target(target)
        if spec.cell_id is not None:
            return self.find_cell(spec.cell_id)
        if spec.is_current:
            if current_cell is not None:
                try:
                    return self.find_cell(current_cell)
                except CommandError:
                    pass
            return self.focused_cell(window_id)
        return self._resolve_spec(spec, window_id, current_cell)

    def _resolve_spec(self, spec: TargetSpec, window_id: str | None, current: str | None) -> CellRef:
        if spec.project is not None:
            runtime = self.runtime_of(spec.project)
        elif current is not None and spec.page is None:
            try:
                runtime = self.find_cell(current).runtime
            except CommandError:
                runtime = self.active_runtime(window_id)
        else:
            runtime = self.active_runtime(window_id)
        layout = self.find_page(runtime, spec.page) if spec.page is not None else runtime.active
        if spec.index is None:
            leaf_id = runtime.focused_leaf(layout.id)
            if leaf_id is None:
                raise CommandError(f"page {layout.name!r} has no cell")
            return CellRef(runtime, layout.id, ops.find_leaf(layout.tree, leaf_id))
        try:
            leaf = ops.leaf_at_index(layout.tree, spec.index)
        except IdeaError as exc:
            raise CommandError(f"page {layout.name!r} has no cell {spec.index}", "not_found") from exc
        return CellRef(runtime, layout.id, leaf)

    def find_page(self, runtime: ProjectRuntime, name: str) -> Layout:
        layouts = runtime.layouts.layouts
        if name.startswith("#") and name[1:].isdigit():
            position = int(name[1:])
            if 0 <= position < len(layouts):
                return layouts[position]
        for layout in layouts:
            if layout.name == name or layout.id == name:
                return layout
        prefixed = [lay for lay in layouts if lay.id.startswith(name)]
        if len(prefixed) == 1 and len(name) >= 4:
            return prefixed[0]
        raise CommandError(f"project {runtime.name!r} has no page {name!r}", "not_found")

    def session_of(self, ref: CellRef) -> TerminalSession | None:
        sid = ref.leaf.session
        return self.sessions.get(sid) if sid is not None else None

    # ─── projects ────────────────────────────────────────────────────────────────────

    def new_project(self, path: str, name: str | None, window_id: str | None) -> ProjectRuntime:
        """Create (or adopt, D23) a project at an absolute path and open it."""
        root = self._checked_root(path)
        registered = self.registry.get(root)
        if registered is not None:
            raise CommandError(
                f"{root} is already a registered project ({registered.name}): "
                f"open it with `idea open {root}`",
                "exists",
            )
        existing = self.project_store.load(Path(root))
        if existing is None:
            project = Project(
                id=self._new_id(),
                name=name or Path(root).name or root,
                root=root,
                created_at_ms=int(time.time() * 1000),
            )
            self.project_store.save(project)
        else:
            project = existing
        self.project_store.ensure_gitignore(Path(root))
        self.registry.add(root, project.id, project.name)
        return self.open_project(root, window_id)

    def _checked_root(self, path: str) -> str:
        if not os.path.isabs(path):
            raise CommandError(f"the project path must be absolute, got {path!r}")
        root = normalize_root(path)
        if not os.path.isdir(root):
            raise CommandError(f"no such directory: {root}", "not_found")
        return root

    def open_project(self, path: str, window_id: str | None) -> ProjectRuntime:
        """Open a registered project, or an unregistered folder that has `.ideai/project.json`."""
        root = self._checked_root(path)
        if root in self.projects:
            runtime = self.projects[root]
            self.workspace = ws.activate(self.workspace, root)
            self._save_workspace()
            self._listener.scene_changed(None)
            return runtime
        registered = self.registry.get(root)
        if registered is None:
            found = self.project_store.load(Path(root))
            if found is None:
                raise CommandError(
                    f"{root} is not an idea project yet: create it with `idea new {root}`",
                    "not_found",
                )
            self.registry.add(root, found.id, found.name)
        runtime = self._load_project(root)
        window = self._window_or_default(window_id) or self.default_window()
        self.workspace = ws.add_project(self.workspace, window.id, root)
        self._save_workspace()
        try:
            self.registry.touch(root)
        except IdeaError as exc:
            log.warning("registry touch: %s", exc)
        self._sync_all_pages(runtime)
        for problem in runtime.problems:
            self._listener.notify(window.id, problem, "error")
        self._listener.scene_changed(None)
        return runtime

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
        layouts = ops.reconcile_duplicate_agents(layouts)
        runtime = ProjectRuntime(project, layouts, layouts_writable, project_writable, problems)
        self.projects[root] = runtime
        return runtime

    def close_project(self, name: str, force: bool) -> ProjectRuntime:
        runtime = self.runtime_of(name)
        busy = self._busy_in(self._project_sessions(runtime))
        if busy and not force:
            raise ConfirmationNeeded(f"closing {runtime.name} ends: {', '.join(busy)}")
        window = self.window_of_project(runtime)
        for session in self._project_sessions(runtime):
            self._end_session(session)
        self._save_layouts(runtime)
        del self.projects[runtime.root]
        if window is not None:
            self.workspace = ws.close_project(self.workspace, runtime.root)
            remaining = self.workspace.window(window.id)
            if not remaining.tabs and len(self.workspace.windows) > 1:
                # A window closes with its last tab; its clients move to another window.
                self.workspace = ws.close_window(self.workspace, window.id)
                self.window_sizes.pop(window.id, None)
            self._save_workspace()
        self._listener.scene_changed(None)
        return runtime

    def switch_project(self, window_id: str | None, which: str) -> ProjectRuntime:
        window = self._window_or_default(window_id)
        if window is None or not window.tabs:
            raise CommandError("no project is open", "no_project")
        if which in ("next", "prev"):
            position = window.tabs.index(window.active) if window.active in window.tabs else 0
            step = 1 if which == "next" else -1
            root = window.tabs[(position + step) % len(window.tabs)]
        elif which.isdigit() and 0 <= int(which) < len(window.tabs):
            root = window.tabs[int(which)]
        else:
            root = self.runtime_of(which).root
        runtime = self.projects[root]
        holder = self.workspace.window_of(root)
        self.workspace = ws.activate(self.workspace, root)
        self._save_workspace()
        if holder is not None and holder.id != window.id:
            self._listener.notify(window.id, f"{runtime.name} is in window {holder.name}")
        self._listener.scene_changed(None)
        return runtime

    def _project_sessions(self, runtime: ProjectRuntime) -> list[TerminalSession]:
        found = []
        for layout in runtime.layouts.layouts:
            for leaf in iter_leaves(layout.tree.root):
                session = self.sessions.get(leaf.session) if leaf.session else None
                if session is not None:
                    found.append(session)
        return found

    @staticmethod
    def _busy_in(sessions: list[TerminalSession]) -> list[str]:
        return [name for s in sessions if (name := s.busy_command()) is not None]

    # ─── windows ─────────────────────────────────────────────────────────────────────

    def new_window(self, name: str, project: str | None) -> ws.Window:
        window_id = self._new_id()
        if project is not None:
            runtime = self.runtime_of(project)
            self.workspace = ws.move_project_to_new_window(
                self.workspace, runtime.root, window_id, name
            )
        else:
            self.workspace = ws.add_window(self.workspace, window_id, name)
        self._save_workspace()
        self._after_window_change()
        return self.workspace.window(window_id)

    def rename_window(self, window: str, name: str) -> ws.Window:
        target = self.window_by_name(window)
        self.workspace = ws.rename_window(self.workspace, target.id, name)
        self._save_workspace()
        self._listener.scene_changed(None)
        return self.workspace.window(target.id)

    def move_project(self, project: str, window: str) -> ws.Window:
        runtime = self.runtime_of(project)
        target = self.window_by_name(window)
        self.workspace = ws.move_project(self.workspace, runtime.root, target.id)
        self._save_workspace()
        self._after_window_change()
        return self.workspace.window(target.id)

    def _after_window_change(self) -> None:
        for runtime in self.projects.values():
            self._resize_project(runtime)
        self._listener.scene_changed(None)

    def set_window_size(self, window_id: str, width: int, height: int) -> None:
        size = (max(1, width), max(1, height))
        if self.window_sizes.get(window_id) == size:
            return
        self.window_sizes[window_id] = size
        for root in self.workspace.window(window_id).tabs:
            runtime = self.projects.get(root)
            if runtime is not None:
                self._resize_project(runtime)
        self._listener.scene_changed(window_id)

    # ─── pages (layouts) ─────────────────────────────────────────────────────────────

    def new_page(self, runtime: ProjectRuntime, name: str | None) -> Layout:
        taken = {lay.name for lay in runtime.layouts.layouts}
        if name is None:
            number = len(runtime.layouts.layouts) + 1
            while f"Page {number}" in taken:
                number += 1
            name = f"Page {number}"
        elif name in taken:
            raise CommandError(f"project {runtime.name} already has a page named {name!r}")
        layout = Layout(self._new_id(), name, LayoutKind.TERMINAL, LayoutTree(Leaf(self._new_id())))
        runtime.layouts = replace(
            runtime.layouts, layouts=(*runtime.layouts.layouts, layout), active_id=layout.id
        )
        self._sync_page(runtime, layout.id, cwd=runtime.root)
        self._save_layouts(runtime)
        self._listener.scene_changed(None)
        return layout

    def switch_page(self, runtime: ProjectRuntime, which: str) -> Layout:
        layouts = runtime.layouts.layouts
        if which in ("next", "prev"):
            position = next(i for i, lay in enumerate(layouts) if lay.id == runtime.active.id)
            layout = layouts[(position + (1 if which == "next" else -1)) % len(layouts)]
        elif which.isdigit() and 0 <= int(which) < len(layouts):
            layout = layouts[int(which)]
        else:
            layout = self.find_page(runtime, which)
        runtime.layouts = replace(runtime.layouts, active_id=layout.id)
        self._save_layouts(runtime)
        self._listener.scene_changed(None)
        return layout

    def rename_page(self, runtime: ProjectRuntime, page: str | None, name: str) -> Layout:
        layout = self.find_page(runtime, page) if page else runtime.active
        if any(lay.name == name and lay.id != layout.id for lay in runtime.layouts.layouts):
            raise CommandError(f"project {runtime.name} already has a page named {name!r}")
        renamed = replace(layout, name=name)
        runtime.layouts = replace(
            runtime.layouts,
            layouts=tuple(renamed if lay.id == layout.id else lay for lay in runtime.layouts.layouts),
        )
        self._save_layouts(runtime)
        self._listener.scene_changed(None)
        return renamed

    def close_page(self, runtime: ProjectRuntime, page: str | None, force: bool) -> Layout:
        layout = self.find_page(runtime, page) if page else runtime.active
        if len(runtime.layouts.layouts) == 1:
            raise CommandError("a project keeps at least one page: close the project instead")
        sessions = [s for leaf in iter_leaves(layout.tree.root)
                    if leaf.session and (s := self.sessions.get(leaf.session)) is not None]
        busy = self._busy_in(sessions)
        if busy and not force:
            raise ConfirmationNeeded(f"closing page {layout.name} ends: {', '.join(busy)}")
        for session in sessions:
            self._end_session(session)
        remaining = tuple(lay for lay in runtime.layouts.layouts if lay.id != layout.id)
        active = runtime.layouts.active_id
        if active == layout.id:
            active = remaining[0].id
        runtime.layouts = replace(runtime.layouts, layouts=remaining, active_id=active)
        runtime.pages.pop(layout.id, None)
        self._save_layouts(runtime)
        self._listener.scene_changed(None)
        return layout

    # ─── cells ───────────────────────────────────────────────────────────────────────

    def split(self, ref: CellRef, direction: Direction, count: int = 1,
              before: bool = False) -> list[str]:
        cwd = self._cwd_of(ref)
        tree, new_ids = ops.split(ref.tree, ref.leaf.id, direction, self._new_id, count, before)
        self._apply(ref.runtime, ref.layout_id, tree, cwd=cwd)
        self._focus(ref.runtime, ref.layout_id, new_ids[-1 if not before else 0])
        self._listener.scene_changed(None)
        return new_ids

    def make_grid(self, ref: CellRef, rows: int, cols: int) -> list[str]:
        if rows < 1 or cols < 1 or rows * cols > 64:
            raise CommandError("a grid has 1 to 64 cells")
        cwd = self._cwd_of(ref)
        tree, new_ids = ops.make_grid(ref.tree, ref.leaf.id, rows, cols, self._new_id)
        self._apply(ref.runtime, ref.layout_id, tree, cwd=cwd)
        self._listener.scene_changed(None)
        return new_ids

    def close_cell(self, ref: CellRef, force: bool) -> None:
        session = self.session_of(ref)
        busy = session.busy_command() if session else None
        if busy and not force:
            raise ConfirmationNeeded(f"the cell runs {busy}: close it anyway?")
        tree = ref.tree
        if sum(1 for _ in iter_leaves(tree.root)) == 1:
            # The last cell of a page: close the page, or the project with its last page.
            if len(ref.runtime.layouts.layouts) > 1:
                self.close_page(ref.runtime, ref.layout_id, force=True)
            else:
                self.close_project(ref.runtime.root, force=True)
            return
        new_tree = ops.close(tree, ref.leaf.id, self._new_id)
        page = ref.page
        target = page.last_focused if page.last_focused != ref.leaf.id else None
        self._apply(ref.runtime, ref.layout_id, new_tree)
        if target is not None:
            self._focus(ref.runtime, ref.layout_id, target)
        self._listener.scene_changed(None)

    def select(self, ref: CellRef) -> None:
        window = self.window_of_project(ref.runtime)
        if window is not None and window.active != ref.runtime.root:
            self.workspace = ws.activate(self.workspace, ref.runtime.root)
            self._save_workspace()
        if ref.runtime.layouts.active_id != ref.layout_id:
            ref.runtime.layouts = replace(ref.runtime.layouts, active_id=ref.layout_id)
            self._save_layouts(ref.runtime)
        page = ref.page
        if page.zoomed is not None and page.zoomed != ref.leaf.id:
            page.zoomed = None
            self._resize_page(ref.runtime, ref.layout_id)
        self._focus(ref.runtime, ref.layout_id, ref.leaf.id)
        self._listener.scene_changed(None)

    def neighbour(self, ref: CellRef, how: str) -> CellRef:
        """The cell to focus for a direction (left/right/up/down), next/prev or last."""
        tree = ref.tree
        ids = [leaf.id for leaf in iter_leaves(tree.root)]
        target: str | None
        if how in ("next", "prev"):
            position = ids.index(ref.leaf.id)
            target = ids[(position + (1 if how == "next" else -1)) % len(ids)]
        elif how == "last":
            target = ref.page.last_focused if ref.page.last_focused in ids else None
        else:
            width, height = self._page_size(ref.runtime)
            geometry = geo.compute(tree, width, height)
            target = geo.neighbour(geometry, ref.leaf.id, geo.Side(how), None)
        if target is None:
            return ref
        return CellRef(ref.runtime, ref.layout_id, ops.find_leaf(tree, target))

    def toggle_zoom(self, ref: CellRef) -> bool:
        page = ref.page
        page.zoomed = None if page.zoomed == ref.leaf.id else ref.leaf.id
        page.focused = ref.leaf.id
        self._resize_page(ref.runtime, ref.layout_id)
        self._listener.scene_changed(None)
        return page.zoomed is not None

    def resize(self, ref: CellRef, side: geo.Side, cells: int) -> None:
        width, height = self._page_size(ref.runtime)
        tree = ops.resize(ref.tree, ref.leaf.id, side, cells, width, height)
        self._apply(ref.runtime, ref.layout_id, tree)
        self._listener.scene_changed(None)

    def set_border(self, runtime: ProjectRuntime, layout_id: str, container: str, index: int,
                   position: int, vertical: bool) -> None:
        width, height = self._page_size(runtime)
        orientation = geo.Orientation.VERTICAL if vertical else geo.Orientation.HORIZONTAL
        tree = ops.set_border(runtime.layout(layout_id).tree, container, index, position,
                              width, height, orientation)
        self._apply(runtime, layout_id, tree)
        self._listener.scene_changed(None)

    def merge(self, ref: CellRef, other: CellRef, force: bool) -> None:
        if other.runtime is not ref.runtime or other.layout_id != ref.layout_id:
            raise CommandError("cells of different pages cannot be merged")
        # Merging keeps `ref` and removes the cells it absorbs: their programs would end.
        tree, removed = ops.merge(ref.tree, ref.leaf.id, other.leaf.id)
        sessions = [s for leaf in removed if leaf.session and
                    (s := self.sessions.get(leaf.session)) is not None]
        busy = self._busy_in(sessions)
        if busy and not force:
            raise ConfirmationNeeded(f"merging ends: {', '.join(busy)}")
        self._apply(ref.runtime, ref.layout_id, tree)
        self._focus(ref.runtime, ref.layout_id, ref.leaf.id)
        self._listener.scene_changed(None)

    def swap(self, ref: CellRef, other: CellRef) -> None:
        if other.runtime is not ref.runtime or other.layout_id != ref.layout_id:
            raise CommandError("cells of different pages cannot be swapped")
        tree = ops.swap(ref.tree, ref.leaf.id, other.leaf.id)
        self._apply(ref.runtime, ref.layout_id, tree)
        self._focus(ref.runtime, ref.layout_id, other.leaf.id)
        self._listener.scene_changed(None)

    def move(self, ref: CellRef, dst: CellRef, direction: Direction, before: bool) -> None:
        if dst.runtime is not ref.runtime or dst.layout_id != ref.layout_id:
            raise CommandError("a cell moves within its page")
        tree = ops.move(ref.tree, ref.leaf.id, dst.leaf.id, direction, self._new_id, before)
        self._apply(ref.runtime, ref.layout_id, tree)
        self._focus(ref.runtime, ref.layout_id, ref.leaf.id)
        self._listener.scene_changed(None)

    def equalize(self, runtime: ProjectRuntime, layout_id: str) -> None:
        tree = ops.equalize(runtime.layout(layout_id).tree)
        self._apply(runtime, layout_id, tree)
        self._listener.scene_changed(None)

    def undo(self, runtime: ProjectRuntime, layout_id: str, redo: bool = False) -> bool:
        page = runtime.page(layout_id)
        current = runtime.layout(layout_id).tree
        step = page.history.redo(current) if redo else page.history.undo(current)
        if step is None:
            return False
        page.history, tree = step
        self._apply(runtime, layout_id, tree, record=False)
        self._listener.scene_changed(None)
        return True

    def restart(self, ref: CellRef, force: bool) -> None:
        session = self.session_of(ref)
        if session is not None and session.running:
            busy = session.busy_command()
            if busy and not force:
                raise ConfirmationNeeded(f"the cell runs {busy}: restart it anyway?")
        cwd = self._cwd_of(ref)
        if session is not None:
            self._end_session(session)
        leaf = replace(ref.leaf, session=None)
        ref.runtime.set_tree(ref.layout_id, ops.replace_leaf(ref.tree, ref.leaf.id, leaf))
        self._sync_page(ref.runtime, ref.layout_id, cwd=cwd)
        self._save_layouts(ref.runtime)
        self._listener.scene_changed(None)

    # ─── applying a tree ─────────────────────────────────────────────────────────────

    def _apply(self, runtime: ProjectRuntime, layout_id: str, tree: LayoutTree, *,
               record: bool = True, cwd: str | None = None) -> None:
        ops.validate(tree)
        page = runtime.page(layout_id)
        previous = runtime.layout(layout_id).tree
        if record:
            page.history = page.history.push(previous)
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
        referenced = {leaf.session for lay in runtime.layouts.layouts
                      for leaf in iter_leaves(lay.tree.root) if leaf.session}
        owned = self._sessions_of_page(runtime, layout_id)
        for sid in owned - referenced:
            self._end_session(self.sessions[sid])
        sizes = self._content_sizes(runtime, layout_id)
        changed = False
        for leaf in list(iter_leaves(tree.root)):
            if leaf.session is not None and leaf.session in self.sessions:
                continue
            cols, rows = sizes.get(leaf.id, (80, 24))
            session = self._spawn(leaf.id, cwd or runtime.root, cols, rows)
            tree = ops.replace_leaf(tree, leaf.id, replace(leaf, session=session.id))
            changed = True
        if changed:
            runtime.set_tree(layout_id, tree)
        self._page_sessions[(runtime.root, layout_id)] = {
            leaf.session for leaf in iter_leaves(tree.root) if leaf.session
        }
        self._resize_page(runtime, layout_id)

    def _sessions_of_page(self, runtime: ProjectRuntime, layout_id: str) -> set[str]:
        return {sid for sid in self._page_sessions.get((runtime.root, layout_id), set())
                if sid in self.sessions}

    def _spawn(self, cell_id: str, cwd: str, cols: int, rows: int) -> TerminalSession:
        session = TerminalSession(
            id=self._new_id(),
            emulator=self._emulator_factory(max(1, cols), max(1, rows)),
            on_change=self._listener.output,
            on_exit=self._on_session_exit,
            on_event=self._on_session_event,
        )
        self.sessions[session.id] = session
        env = cell_environment(
            self._base_env, self._client_env, extra_names=self._extra_env_names,
            cell_id=cell_id, socket_path=self._socket_path,
        )
        shell = user_shell(env)
        if not os.path.isdir(cwd):
            cwd = env.get("HOME", "/")
        assert self._loop is not None, "restore() must run before cells are spawned"
        session.start(SpawnSpec([shell], cwd, env), self._loop)
        return session

    def _end_session(self, session: TerminalSession) -> None:
        session.close()
        self.sessions.pop(session.id, None)

    def _on_session_exit(self, session: TerminalSession) -> None:
        self._listener.scene_changed(None)
        self._listener.output(session)

    def _on_session_event(self, session: TerminalSession, event: TerminalEvent) -> None:
        if event.kind in (TerminalEventKind.TITLE, TerminalEventKind.BELL):
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
        return {cid: (rect.content.width, rect.content.height)
                for cid, rect in geometry.cells.items()}

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
        if not runtime.layouts_writable:
            return
        try:
            self.layout_store.save(Path(runtime.root), runtime.layouts)
        except StoreError as exc:
            runtime.layouts_writable = False
            log.error("saving layouts of %s: %s", runtime.root, exc.message)
            window = self.window_of_project(runtime)
            self._listener.notify(window.id if window else None, exc.message, "error")

    def _save_workspace(self) -> None:
        if not self.workspace_writable:
            return
        try:
            self.workspace_store.save(self.workspace)
        except StoreError as exc:
            self.workspace_writable = False
            log.error("saving workspace: %s", exc.message)
            self._listener.notify(None, exc.message, "error")
