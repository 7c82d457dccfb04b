"""The daemon's in-memory view of open projects and their pages.

Layout trees themselves are immutable values (core.layout); this module holds the mutable
state around them that the daemon owns: which page is active, which cell has focus, zoom,
undo history, and whether the project's files may be written.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from core.layout.history import LayoutHistory
from core.layout.model import Layout, LayoutKind, LayoutSet, LayoutTree, iter_leaves
from core.project import Project


@dataclass
class PageState:
    """Per page (layout) state that is not persisted in `layouts.json`."""

    focused: str | None = None
    last_focused: str | None = None
    zoomed: str | None = None
    history: LayoutHistory = field(default_factory=LayoutHistory)
    edit_group: str | None = None
    """The group of the last edit (one border drag): its later edits add no undo step."""


@dataclass
class ProjectRuntime:
    """An open project.

    `layouts_writable` / `project_writable` are False when the file on disk could not be
    parsed (or comes from a newer idea): the project then runs on defaults held in memory
    and the file is never overwritten (DECISIONS D12).
    """

    project: Project
    layouts: LayoutSet
    layouts_writable: bool = True
    project_writable: bool = True
    problems: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    """Things to tell a client attaching to this project (template updates available...)."""
    pages: dict[str, PageState] = field(default_factory=dict)
    saved_layouts: LayoutSet | None = None
    """What `layouts.json` holds (as read or last written): an unchanged set is not written
    again, so reopening a project leaves a committed file as it is."""

    @property
    def root(self) -> str:
        return self.project.root

    @property
    def name(self) -> str:
        return self.project.name

    @property
    def active(self) -> Layout:
        return self.layouts.active

    def page(self, layout_id: str) -> PageState:
        state = self.pages.get(layout_id)
        if state is None:
            state = self.pages[layout_id] = PageState()
        return state

    def layout(self, layout_id: str) -> Layout:
        for layout in self.layouts.layouts:
            if layout.id == layout_id:
                return layout
        raise KeyError(layout_id)

    def terminal_layouts(self) -> list[Layout]:
        return [lay for lay in self.layouts.layouts if lay.kind is LayoutKind.TERMINAL]

    def set_tree(self, layout_id: str, tree: LayoutTree) -> None:
        layouts = tuple(
            replace(lay, tree=tree) if lay.id == layout_id else lay for lay in self.layouts.layouts
        )
        self.layouts = replace(self.layouts, layouts=layouts)

    def focused_leaf(self, layout_id: str) -> str | None:
        """The focused cell of a page, repaired if the cell no longer exists."""
        layout = self.layout(layout_id)
        state = self.page(layout_id)
        ids = [leaf.id for leaf in iter_leaves(layout.tree.root)]
        if state.focused not in ids:
            state.focused = ids[0] if ids else None
        if state.zoomed is not None and state.zoomed not in ids:
            state.zoomed = None
        return state.focused
