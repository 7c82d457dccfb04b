"""Windows and tabs (FEATURES.md PRJ-4..PRJ-6, DECISIONS D3).

A tab is a project (named by its root). A window is a named group of tabs, as a tmux
session groups windows; a client shows one window. A project lives in exactly one window.
Everything here is pure: each operation returns a new `Workspace`. Persisted machine-locally
in `workspace.json` by `adapters.store.workspace_codec`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from core.errors import DuplicateWindowName, ProjectAlreadyOpen, TabNotFound, UnknownWindow
from core.layout.model import EMPTY_EXTRA
from core.project import normalize_root


@dataclass(frozen=True, slots=True)
class Window:
    """A named group of project tabs.

    Attributes:
        id: Stable id (clients attach by id or by name).
        name: Unique display name (`idea attach -w NAME`).
        tabs: Project roots, in tab order.
        active: The focused tab's root, or None when the window has no tab.
        size: The cell area (columns, rows) its clients last had, so that a daemon that
            restarts starts programs at that size rather than at a default one.
        extra: Keys of `workspace.json` this version does not know.
    """

    id: str
    name: str
    tabs: tuple[str, ...] = ()
    active: str | None = None
    size: tuple[int, int] | None = None
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


@dataclass(frozen=True, slots=True)
class Workspace:
    """Every window of the user's session on this machine."""

    windows: tuple[Window, ...] = ()
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)

    def window(self, window_id: str) -> Window:
        """The window with that id.

        Raises:
            UnknownWindow: No window has that id.
        """
        for window in self.windows:
            if window.id == window_id:
                return window
        raise UnknownWindow(window_id)

    def window_named(self, name: str) -> Window | None:
        """The window with that name, if any."""
        return next((w for w in self.windows if w.name == name), None)

    def window_of(self, root: str) -> Window | None:
        """The window showing a project, if any."""
        key = normalize_root(root)
        return next((w for w in self.windows if key in w.tabs), None)


@dataclass(frozen=True, slots=True)
class KeptTab:
    """A saved tab whose project could not be reopened (its folder is missing, say).

    It is not open, but it stays in `workspace.json` (`with_kept_tabs`), so that the project
    comes back where it was once its folder does, instead of being lost at the next save.

    Attributes:
        root: The project's root.
        window_id: The window it was a tab of.
        window_name: That window's name (to recreate it if it is gone by the next save).
        position: Its place among that window's tabs.
        reason: Why it could not be reopened, for the user.
    """

    root: str
    window_id: str
    window_name: str
    position: int
    reason: str


def with_kept_tabs(workspace: Workspace, kept: Iterable[KeptTab]) -> Workspace:
    """The workspace to save: the open tabs plus each kept tab put back where it was.

    A kept tab goes back into its window at its position (or the end); if that window is
    gone, into the first window; with no window left, its window is made again. A root that
    is open again (in any window) is not added twice.
    """
    for tab in kept:
        if workspace.window_of(tab.root) is not None:
            continue
        window = next((w for w in workspace.windows if w.id == tab.window_id), None)
        if window is None and workspace.windows:
            window = workspace.windows[0]
        if window is None:
            window = Window(tab.window_id, tab.window_name)
            workspace = replace(workspace, windows=(window,))
        at = min(tab.position, len(window.tabs))
        tabs = (*window.tabs[:at], tab.root, *window.tabs[at:])
        workspace = _put(workspace, replace(window, tabs=tabs))
    return workspace


def _put(workspace: Workspace, window: Window) -> Workspace:
    windows = tuple(window if w.id == window.id else w for w in workspace.windows)
    return replace(workspace, windows=windows)


def _without_tab(window: Window, root: str) -> Window:
    """The window without a tab; if it was active, focus goes to the tab that slides into
    its place (the next one), else to the new last tab."""
    position = window.tabs.index(root)
    tabs = window.tabs[:position] + window.tabs[position + 1 :]
    active = window.active
    if active == root or active not in tabs:
        active = tabs[min(position, len(tabs) - 1)] if tabs else None
    return replace(window, tabs=tabs, active=active)


def add_window(
    workspace: Workspace, window_id: str, name: str, project: str | None = None
) -> Workspace:
    """Add a window, empty or holding one project (which must not be open elsewhere).

    Raises:
        DuplicateWindowName: Another window has that name.
        ProjectAlreadyOpen: The project already has a tab in a window.
        ValueError: The id is taken or the name is empty (caller errors).
    """
    if not name.strip():
        raise ValueError("a window needs a name")
    if any(w.id == window_id for w in workspace.windows):
        raise ValueError(f"window id {window_id} is already used")
    if workspace.window_named(name) is not None:
        raise DuplicateWindowName(name)
    workspace = replace(workspace, windows=(*workspace.windows, Window(window_id, name)))
    if project is not None:
        workspace = add_project(workspace, window_id, project)
    return workspace


def resize_window(workspace: Workspace, window_id: str, width: int, height: int) -> Workspace:
    """Record the size of a window's cell area.

    Raises:
        UnknownWindow: No window has that id.
        ValueError: A dimension is below 1.
    """
    if width < 1 or height < 1:
        raise ValueError(f"a window is at least 1x1, got {width}x{height}")
    return _put(workspace, replace(workspace.window(window_id), size=(width, height)))


def rename_window(workspace: Workspace, window_id: str, name: str) -> Workspace:
    """Give a window a new name.

    Raises:
        UnknownWindow: No window has that id.
        DuplicateWindowName: Another window has that name.
        ValueError: The name is empty.
    """
    window = workspace.window(window_id)
    if not name.strip():
        raise ValueError("a window needs a name")
    other = workspace.window_named(name)
    if other is not None and other.id != window_id:
        raise DuplicateWindowName(name)
    return _put(workspace, replace(window, name=name))


def close_window(workspace: Workspace, window_id: str) -> Workspace:
    """Remove a window and its tabs (the projects are closed, not deleted).

    Raises:
        UnknownWindow: No window has that id.
    """
    workspace.window(window_id)
    return replace(workspace, windows=tuple(w for w in workspace.windows if w.id != window_id))


def add_project(
    workspace: Workspace, window_id: str, root: str, activate: bool = True
) -> Workspace:
    """Open a project as a new tab of a window (or focus it if it is already there).

    Raises:
        UnknownWindow: No window has that id.
        ProjectAlreadyOpen: The project has a tab in another window.
        RelativeRoot: `root` is not absolute.
    """
    key = normalize_root(root)
    window = workspace.window(window_id)
    holder = workspace.window_of(key)
    if holder is not None and holder.id != window_id:
        raise ProjectAlreadyOpen(key, holder.name)
    tabs = window.tabs if key in window.tabs else (*window.tabs, key)
    active = key if activate or window.active is None else window.active
    return _put(workspace, replace(window, tabs=tabs, active=active))


def activate(workspace: Workspace, root: str) -> Workspace:
    """Focus a project's tab in its window.

    Raises:
        TabNotFound: No window shows that project.
    """
    key = normalize_root(root)
    window = workspace.window_of(key)
    if window is None:
        raise TabNotFound(key)
    return _put(workspace, replace(window, active=key))


def move_project(workspace: Workspace, root: str, window_id: str) -> Workspace:
    """Move a project's tab to another window, where it becomes the active tab.

    The tab is moved, never duplicated. A source window left without tabs is removed; if the
    moved tab was its active one, focus falls back to a remaining tab.

    Raises:
        TabNotFound: No window shows that project.
        UnknownWindow: No window has id `window_id`.
    """
    key = normalize_root(root)
    source = workspace.window_of(key)
    if source is None:
        raise TabNotFound(key)
    target = workspace.window(window_id)
    if source.id == target.id:
        return activate(workspace, key)
    remaining = _without_tab(source, key)
    workspace = _put(workspace, replace(target, tabs=(*target.tabs, key), active=key))
    if remaining.tabs:
        return _put(workspace, remaining)
    return replace(workspace, windows=tuple(w for w in workspace.windows if w.id != source.id))


def move_project_to_new_window(
    workspace: Workspace, root: str, window_id: str, name: str
) -> Workspace:
    """Detach a tab into a new window (PRJ-6): `add_window` then `move_project`.

    Raises:
        TabNotFound: No window shows that project.
        DuplicateWindowName: Another window has that name.
    """
    key = normalize_root(root)
    if workspace.window_of(key) is None:
        raise TabNotFound(key)
    return move_project(add_window(workspace, window_id, name), key, window_id)


def close_project(workspace: Workspace, root: str) -> Workspace:
    """Close a project's tab; focus falls back to a remaining tab of its window.

    The window itself stays, possibly empty, so that a client attached to it keeps its
    screen (it shows the projects panel); `close_window` removes it.

    Raises:
        TabNotFound: No window shows that project.
    """
    key = normalize_root(root)
    window = workspace.window_of(key)
    if window is None:
        raise TabNotFound(key)
    return _put(workspace, _without_tab(window, key))
