"""Finding things in the daemon's workspace: projects, windows, pages and cells by the
names and target strings users give (core.targets), and the geometry of pages.

`Lookups` only reads the `WorkspaceModel`; the operations that change it are in
`project_ops` (projects, windows, pages) and `cell_ops` (cells).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from core import workspace as ws
from core.errors import IdeaError
from core.layout import geometry as geo
from core.layout import ops
from core.layout.model import Layout, LayoutTree, Leaf, iter_leaves
from core.project import normalize_root
from core.targets import TargetSpec, parse_target
from idea_daemon.errors import CommandError
from idea_daemon.runtime import PageState, ProjectRuntime
from idea_daemon.session import TerminalSession
from idea_daemon.workspace_model import WorkspaceModel

DEFAULT_SIZE = (80, 23)
DEFAULT_WINDOW = "main"
BACKGROUND_CELL_PREFIX = "background:"


class Listener(Protocol):
    """What the service tells the server (which talks to clients)."""

    def scene_changed(self, window_id: str | None) -> None:
        """The structure a window shows changed (None: every window)."""

    def output(self, session: TerminalSession) -> None:
        """A session's screen changed."""

    def title_changed(self, session: TerminalSession) -> None:
        """A session's title changed (sent to the clients that show it, nothing else)."""

    def notify(self, window_id: str | None, text: str, level: str = "info") -> None:
        """A message for the status line of a window's clients."""

    def watched_windows(self) -> set[str]:
        """Windows that an attached client shows right now."""

    def short_turn(self, session_id: str, now: float) -> bool:
        """Whether a session's reader takes one chunk this turn (another cell's echo is
        due, `idea_daemon.echo_turns`)."""

    def input_waiting(self) -> bool:
        """Whether a client's input waits to be read: a reader ends its turn early
        (`idea_daemon.echo_turns`)."""

    def clipboard(self, text: str) -> None:
        """A program copied text: hand it to the user's terminal."""


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


class Lookups:
    """Read-only queries on the workspace model."""

    def __init__(self, model: WorkspaceModel) -> None:
        self.model = model

    def runtime_of(self, name: str) -> ProjectRuntime:
        """An open project by name, id (or id prefix) or root."""
        if name.startswith("/"):
            try:
                root = normalize_root(name)
            except IdeaError:
                root = name
            if root in self.model.projects:
                return self.model.projects[root]
        exact = [rt for rt in self.model.projects.values()
                 if rt.name == name or rt.project.id == name]
        if len(exact) == 1:
            return exact[0]
        prefixed = [rt for rt in self.model.projects.values() if rt.project.id.startswith(name)]
        if len(prefixed) == 1 and len(name) >= 4:
            return prefixed[0]
        if len(exact) > 1:
            roots = ", ".join(rt.root for rt in exact)
            raise CommandError(f"several open projects are named {name!r} ({roots}): use a root")
        raise CommandError(f"no open project named {name!r}", "not_found")

    def window_by_name(self, name: str) -> ws.Window:
        window = self.model.workspace.window_named(name)
        if window is None:
            window = next((w for w in self.model.workspace.windows if w.id == name), None)
        if window is None:
            raise CommandError(f"no window named {name!r}", "not_found")
        return window

    def window_of_project(self, runtime: ProjectRuntime) -> ws.Window | None:
        return self.model.workspace.window_of(runtime.root)

    def size_of(self, window_id: str | None) -> tuple[int, int]:
        if window_id is None:
            return DEFAULT_SIZE
        return self.model.window_sizes.get(window_id, DEFAULT_SIZE)

    def iter_cells(self) -> Iterator[CellRef]:
        for runtime in self.model.projects.values():
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

    def focused_cell_id(self, window_id: str | None) -> str | None:
        """The focused cell of the page a window shows, if any (no error)."""
        window = self.window_or_default(window_id)
        if window is None or window.active not in self.model.projects:
            return None
        runtime = self.model.projects[window.active]
        return runtime.focused_leaf(runtime.active.id)

    def active_runtime(self, window_id: str | None) -> ProjectRuntime:
        window = self.window_or_default(window_id)
        if window is None or window.active is None or window.active not in self.model.projects:
            raise CommandError("no project is open: create one with `idea new PATH`", "no_project")
        return self.model.projects[window.active]

    def window_or_default(self, window_id: str | None) -> ws.Window | None:
        if window_id is not None:
            try:
                return self.model.workspace.window(window_id)
            except IdeaError:
                pass
        return self.model.workspace.windows[0] if self.model.workspace.windows else None

    def resolve(
        self, target: str | None, window_id: str | None, current_cell: str | None
    ) -> CellRef:
        """A cell from a target string (core.targets), relative to a client's window."""
        spec = parse_target(target)
        if spec.cell_id is not None:
            return self.find_cell(spec.cell_id)
        if spec.is_current:
            if current_cell is not None:
                try:
                    return self.find_cell(self._current_cell_id(current_cell))
                except CommandError:
                    pass
            return self.focused_cell(window_id)
        return self._resolve_spec(spec, window_id, current_cell)

    def _current_cell_id(self, current: str) -> str:
        """The cell a command runs in. An agent started in the background was given
        `IDEA_CELL=background:<agent id>`; once shown in a cell, that cell is its own."""
        if current.startswith(BACKGROUND_CELL_PREFIX):
            agent_id = current[len(BACKGROUND_CELL_PREFIX):]
            for ref in self.iter_cells():
                if ref.leaf.agent == agent_id:
                    return ref.leaf.id
        return current

    def _resolve_spec(
        self, spec: TargetSpec, window_id: str | None, current: str | None
    ) -> CellRef:
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
            raise CommandError(
                f"page {layout.name!r} has no cell {spec.index}", "not_found"
            ) from exc
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
        return self.model.sessions.get(sid) if sid is not None else None

    def page_size(self, runtime: ProjectRuntime) -> tuple[int, int]:
        window = self.window_of_project(runtime)
        return self.size_of(window.id if window else None)

    def page_geometry(self, runtime: ProjectRuntime, layout_id: str) -> geo.Geometry:
        width, height = self.page_size(runtime)
        page = runtime.page(layout_id)
        return geo.compute(runtime.layout(layout_id).tree, width, height, page.zoomed)

    def content_sizes(self, runtime: ProjectRuntime, layout_id: str) -> dict[str, tuple[int, int]]:
        geometry = self.page_geometry(runtime, layout_id)
        return {
            cid: (rect.content.width, rect.content.height) for cid, rect in geometry.cells.items()
        }

    def place_of_session(self, session_id: str) -> tuple[str | None, str]:
        """The window showing a session's cell, and the cell as a target ("web:Build.2")."""
        for runtime in self.model.projects.values():
            for layout in runtime.layouts.layouts:
                for index, leaf in enumerate(iter_leaves(layout.tree.root)):
                    if leaf.session == session_id:
                        window = self.window_of_project(runtime)
                        target = f"{runtime.name}:{layout.name}.{index}"
                        return (window.id if window else None), target
        return None, "a cell"
