"""Cell operations: split, grid, close, focus, zoom, resize, merge, swap, move, undo...

Layout changes are computed by the pure functions of `core.layout`; `CellOps._apply` then
records the step for undo, makes the programs match the new tree (`CellPrograms`), saves the
layouts (`Persistence`), and `Listener.scene_changed` tells the server which windows to
redraw.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from core import workspace as ws
from core.layout import geometry as geo
from core.layout import ops
from core.layout.model import Direction, LayoutTree, iter_leaves
from idea_daemon.cell_programs import CellPrograms
from idea_daemon.errors import CommandError, ConfirmationNeeded
from idea_daemon.lookups import CellRef, Listener, Lookups
from idea_daemon.persistence import Persistence
from idea_daemon.project_ops import ProjectOps
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.workspace_model import WorkspaceModel


class CellOps:
    """What a user does to cells (from a key or a command line)."""

    def __init__(
        self,
        model: WorkspaceModel,
        lookups: Lookups,
        persistence: Persistence,
        programs: CellPrograms,
        project_ops: ProjectOps,
        listener: Listener,
        new_id: Callable[[], str],
    ) -> None:
        self.model = model
        self.lookups = lookups
        self.persistence = persistence
        self.programs = programs
        self.project_ops = project_ops
        self.listener = listener
        self._new_id = new_id

    def split(
        self,
        ref: CellRef,
        direction: Direction,
        count: int = 1,
        before: bool = False,
        *,
        agent: str | None = None,
    ) -> list[str]:
        """Split a cell; with `agent`, the new cell is reserved for it (no shell starts)."""
        cwd = self.programs.cwd_of(ref)
        tree, new_ids = ops.split(ref.tree, ref.leaf.id, direction, self._new_id, count, before)
        if agent is not None:
            leaf = ops.find_leaf(tree, new_ids[-1])
            tree = ops.replace_leaf(tree, leaf.id, replace(leaf, agent=agent))
        self._apply(ref.runtime, ref.layout_id, tree, cwd=cwd)
        self._focus(ref.runtime, ref.layout_id, new_ids[-1 if not before else 0])
        self.listener.scene_changed(None)
        return new_ids

    def make_grid(self, ref: CellRef, rows: int, cols: int) -> list[str]:
        if rows < 1 or cols < 1 or rows * cols > 64:
            raise CommandError("a grid has 1 to 64 cells")
        cwd = self.programs.cwd_of(ref)
        tree, new_ids = ops.make_grid(ref.tree, ref.leaf.id, rows, cols, self._new_id)
        self._apply(ref.runtime, ref.layout_id, tree, cwd=cwd)
        self.listener.scene_changed(None)
        return new_ids

    def close_cell(self, ref: CellRef, force: bool) -> None:
        session = self.lookups.session_of(ref)
        busy = session.busy_command() if session else None
        if busy and not force:
            raise ConfirmationNeeded(f"the cell runs {busy}: close it anyway?")
        tree = ref.tree
        if sum(1 for _ in iter_leaves(tree.root)) == 1:
            # The last cell of a page: close the page, or the project with its last page.
            if len(ref.runtime.layouts.layouts) > 1:
                self.project_ops.close_page(ref.runtime, ref.layout_id, force=True)
            else:
                self.project_ops.close_project(ref.runtime.root, force=True)
            return
        new_tree = ops.close(tree, ref.leaf.id, self._new_id)
        page = ref.page
        target = page.last_focused if page.last_focused != ref.leaf.id else None
        self._apply(ref.runtime, ref.layout_id, new_tree)
        if target is not None:
            self._focus(ref.runtime, ref.layout_id, target)
        self.listener.scene_changed(None)

    def select(self, ref: CellRef) -> None:
        window = self.lookups.window_of_project(ref.runtime)
        if window is not None and window.active != ref.runtime.root:
            self.model.workspace = ws.activate(self.model.workspace, ref.runtime.root)
            self.persistence.save_workspace()
        if ref.runtime.layouts.active_id != ref.layout_id:
            ref.runtime.layouts = replace(ref.runtime.layouts, active_id=ref.layout_id)
            self.persistence.save_layouts(ref.runtime)
        page = ref.page
        if page.zoomed is not None and page.zoomed != ref.leaf.id:
            page.zoomed = None
            self.programs.resize_page(ref.runtime, ref.layout_id)
        self._focus(ref.runtime, ref.layout_id, ref.leaf.id)
        self.programs.clear_attention(ref)
        self.listener.scene_changed(None)

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
            width, height = self.lookups.page_size(ref.runtime)
            geometry = geo.compute(tree, width, height)
            target = geo.neighbour(geometry, ref.leaf.id, geo.Side(how), None)
        if target is None:
            return ref
        return CellRef(ref.runtime, ref.layout_id, ops.find_leaf(tree, target))

    def toggle_zoom(self, ref: CellRef) -> bool:
        page = ref.page
        page.zoomed = None if page.zoomed == ref.leaf.id else ref.leaf.id
        page.focused = ref.leaf.id
        self.programs.resize_page(ref.runtime, ref.layout_id)
        self.listener.scene_changed(None)
        return page.zoomed is not None

    def resize(self, ref: CellRef, side: geo.Side, cells: int) -> None:
        width, height = self.lookups.page_size(ref.runtime)
        tree = ops.resize(ref.tree, ref.leaf.id, side, cells, width, height)
        self._apply(ref.runtime, ref.layout_id, tree)
        self.listener.scene_changed(None)

    def set_border(
        self,
        runtime: ProjectRuntime,
        layout_id: str,
        container: str,
        index: int,
        position: int,
        vertical: bool,
        *,
        drag: str | None = None,
    ) -> None:
        """Move a border; the moves of one `drag` make one undo step."""
        width, height = self.lookups.page_size(runtime)
        orientation = geo.Orientation.VERTICAL if vertical else geo.Orientation.HORIZONTAL
        tree = ops.set_border(
            runtime.layout(layout_id).tree, container, index, position, width, height, orientation
        )
        self._apply(runtime, layout_id, tree, group=None if drag is None else f"drag {drag}")
        self.listener.scene_changed(None)

    def merge(self, ref: CellRef, other: CellRef, force: bool) -> None:
        if other.runtime is not ref.runtime or other.layout_id != ref.layout_id:
            raise CommandError("cells of different pages cannot be merged")
        # Merging keeps `ref` and removes the cells it absorbs: their programs would end.
        tree, removed = ops.merge(ref.tree, ref.leaf.id, other.leaf.id)
        sessions = [
            s
            for leaf in removed
            if leaf.session and (s := self.model.sessions.get(leaf.session)) is not None
        ]
        busy = self.programs.busy_in(sessions)
        if busy and not force:
            raise ConfirmationNeeded(f"merging ends: {', '.join(busy)}")
        self._apply(ref.runtime, ref.layout_id, tree)
        self._focus(ref.runtime, ref.layout_id, ref.leaf.id)
        self.listener.scene_changed(None)

    def swap(self, ref: CellRef, other: CellRef) -> None:
        if other.runtime is not ref.runtime or other.layout_id != ref.layout_id:
            raise CommandError("cells of different pages cannot be swapped")
        tree = ops.swap(ref.tree, ref.leaf.id, other.leaf.id)
        self._apply(ref.runtime, ref.layout_id, tree)
        self._focus(ref.runtime, ref.layout_id, other.leaf.id)
        self.listener.scene_changed(None)

    def move(self, ref: CellRef, dst: CellRef, direction: Direction, before: bool) -> None:
        if dst.runtime is not ref.runtime or dst.layout_id != ref.layout_id:
            raise CommandError("a cell moves within its page")
        tree = ops.move(ref.tree, ref.leaf.id, dst.leaf.id, direction, self._new_id, before)
        self._apply(ref.runtime, ref.layout_id, tree)
        self._focus(ref.runtime, ref.layout_id, ref.leaf.id)
        self.listener.scene_changed(None)

    def equalize(self, runtime: ProjectRuntime, layout_id: str) -> None:
        tree = ops.equalize(runtime.layout(layout_id).tree)
        self._apply(runtime, layout_id, tree)
        self.listener.scene_changed(None)

    def undo(self, runtime: ProjectRuntime, layout_id: str, redo: bool = False) -> bool:
        page = runtime.page(layout_id)
        current = runtime.layout(layout_id).tree
        step = page.history.redo(current) if redo else page.history.undo(current)
        if step is None:
            return False
        page.history, tree = step
        self._apply(runtime, layout_id, tree, record=False)
        self.listener.scene_changed(None)
        return True

    def restart(self, ref: CellRef, force: bool) -> None:
        session = self.lookups.session_of(ref)
        if session is not None and session.running:
            busy = session.busy_command()
            if busy and not force:
                raise ConfirmationNeeded(f"the cell runs {busy}: restart it anyway?")
        cwd = self.programs.cwd_of(ref)
        if session is not None:
            self.programs.end_session(session)
        leaf = replace(ref.leaf, session=None)
        ref.runtime.set_tree(ref.layout_id, ops.replace_leaf(ref.tree, ref.leaf.id, leaf))
        self.programs.sync_page(ref.runtime, ref.layout_id, cwd=cwd)
        self.persistence.save_layouts(ref.runtime)
        self.listener.scene_changed(None)

    def forget_agent(self, ref: CellRef) -> None:
        """Make an agent's cell an ordinary cell again."""
        leaf = replace(ref.leaf, agent=None, agent_was_running=False, conversation_id=None)
        ref.runtime.set_tree(ref.layout_id, ops.replace_leaf(ref.tree, ref.leaf.id, leaf))
        self.persistence.save_layouts(ref.runtime)

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
        self.programs.sync_page(runtime, layout_id, cwd=cwd)
        runtime.focused_leaf(layout_id)
        self.persistence.save_layouts(runtime)

    def _focus(self, runtime: ProjectRuntime, layout_id: str, leaf_id: str) -> None:
        page = runtime.page(layout_id)
        if page.focused != leaf_id:
            page.last_focused = page.focused
            page.focused = leaf_id
