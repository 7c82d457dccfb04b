"""The exception hierarchy of idea's domain and stores.

Every error a user may see derives from `IdeaError` and carries a `message` written for the
user: what went wrong, in their terms, and what to do about it when there is something to do.
Callers show `error.message` as is; the structured attributes are there for code that reacts
to a specific case (tests, the daemon choosing a fallback).

Groups, one base class each, so a caller can catch a whole family:

- `LayoutError`: an invariant of a layout tree (LAY-2) or an operation that cannot apply.
- `StoreError`: a file under `.ideai/` or the data dir that cannot be read or written.
- `ProjectError`: a project value or the global registry of projects.
- `WorkspaceError`: windows and tabs (a project is a tab and lives in one window).
- `AgentError`: agents, their profiles and templates (rules of the domain, not files).

Add new errors to the group they belong to, with a constructor that takes the facts and
builds the message, so the wording stays in one place.
"""

from __future__ import annotations

import os


class IdeaError(Exception):
    """Base of every error idea reports to a user.

    Attributes:
        message: A sentence (or two) meant for the user.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


# ─── Layout ──────────────────────────────────────────────────────────────────────────────


class LayoutError(IdeaError):
    """A layout tree breaks an invariant, or an operation cannot apply to it."""


class OverlappingSpans(LayoutError):
    """Two cells of a grid cover the same slot."""

    def __init__(self, grid_id: str, row: int, col: int) -> None:
        super().__init__(f"Two cells of grid {grid_id} overlap at row {row}, column {col}.")
        self.grid_id = grid_id
        self.row = row
        self.col = col


class SpanOutOfGrid(LayoutError):
    """A grid cell starts or extends outside its grid."""

    def __init__(self, grid_id: str, detail: str) -> None:
        super().__init__(f"A cell of grid {grid_id} lies outside the grid: {detail}.")
        self.grid_id = grid_id
        self.detail = detail


class GridNotCovered(LayoutError):
    """A slot of a grid is covered by no cell."""

    def __init__(self, grid_id: str, row: int, col: int) -> None:
        super().__init__(f"Grid {grid_id} has no cell at row {row}, column {col}.")
        self.grid_id = grid_id
        self.row = row
        self.col = col


class NonPositiveWeight(LayoutError):
    """A split child or a grid track has a weight that is not a positive finite number."""

    def __init__(self, container_id: str, weight: float) -> None:
        super().__init__(
            f"Container {container_id} has a weight of {weight!r}; weights must be positive."
        )
        self.container_id = container_id
        self.weight = weight


class EmptyContainer(LayoutError):
    """A split without children, or a grid without a row or a column."""

    def __init__(self, container_id: str) -> None:
        super().__init__(f"Container {container_id} has no cell.")
        self.container_id = container_id


class DuplicateSession(LayoutError):
    """One terminal session is attached to two cells."""

    def __init__(self, session: str) -> None:
        super().__init__(f"Session {session} appears in more than one cell.")
        self.session = session


class DuplicateNodeId(LayoutError):
    """Two nodes of one tree share an id."""

    def __init__(self, node_id: str) -> None:
        super().__init__(f"The id {node_id} is used by more than one cell or container.")
        self.node_id = node_id


class NodeNotFound(LayoutError):
    """No cell (or container) with that id or index exists in the layout."""

    def __init__(self, what: str) -> None:
        super().__init__(f"There is no {what} in this layout.")
        self.what = what


class NotAdjacent(LayoutError):
    """A merge of cells that are not neighbours inside one container."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"These cells cannot be merged: {detail}.")
        self.detail = detail


class SameCell(LayoutError):
    """An operation that needs two distinct cells was given the same cell twice."""

    def __init__(self, operation: str) -> None:
        super().__init__(f"Cannot {operation} a cell with itself; pick another cell.")
        self.operation = operation


class LastCell(LayoutError):
    """Closing the only cell of a layout."""

    def __init__(self) -> None:
        super().__init__("This is the only cell of the layout; close the layout page instead.")


class CannotResize(LayoutError):
    """The cell has no border on the requested side (it touches the edge of the page)."""

    def __init__(self, leaf_id: str, side: str) -> None:
        super().__init__(f"Cell {leaf_id} has no border to move on its {side} side.")
        self.leaf_id = leaf_id
        self.side = side


# ─── Stores ──────────────────────────────────────────────────────────────────────────────


class StoreError(IdeaError):
    """A data file cannot be read or written.

    Attributes:
        path: The file concerned, as a string.
    """

    def __init__(self, path: str | os.PathLike[str], message: str) -> None:
        super().__init__(message)
        self.path = os.fspath(path)


class CorruptFile(StoreError):
    """A file exists but its content is not what idea expects. It is left untouched."""

    def __init__(self, path: str | os.PathLike[str], detail: str) -> None:
        super().__init__(
            path,
            f"{os.fspath(path)} cannot be read: {detail}. idea left the file untouched and "
            "will not overwrite it; fix or remove it, then reopen.",
        )
        self.detail = detail


class NewerVersion(StoreError):
    """A file was written by a newer idea, in a format version this one does not know."""

    def __init__(self, path: str | os.PathLike[str], found: int, supported: int) -> None:
        super().__init__(
            path,
            f"{os.fspath(path)} uses format version {found}, but this idea reads up to "
            f"version {supported}. idea left the file untouched; upgrade idea to use it.",
        )
        self.found = found
        self.supported = supported


class FileAccessError(StoreError):
    """The operating system refused to read or write a file (permissions, disk full...)."""

    def __init__(self, path: str | os.PathLike[str], action: str, detail: str) -> None:
        super().__init__(path, f"Could not {action} {os.fspath(path)}: {detail}.")
        self.action = action
        self.detail = detail


# ─── Projects ────────────────────────────────────────────────────────────────────────────


class ProjectError(IdeaError):
    """A project value, or an entry of the registry of known projects."""


class RelativeRoot(ProjectError):
    """A project root must be an absolute path."""

    def __init__(self, root: str) -> None:
        super().__init__(f"The project root {root!r} is not an absolute path.")
        self.root = root


class ProjectNotRegistered(ProjectError):
    """The registry has no project at that root."""

    def __init__(self, root: str) -> None:
        super().__init__(f"No known project lives at {root}.")
        self.root = root


# ─── Workspace (windows and tabs) ────────────────────────────────────────────────────────


class WorkspaceError(IdeaError):
    """Windows and tabs: a project is one tab and lives in exactly one window."""


class UnknownWindow(WorkspaceError):
    """No window has that id."""

    def __init__(self, window_id: str) -> None:
        super().__init__(f"There is no window {window_id}.")
        self.window_id = window_id


class TabNotFound(WorkspaceError):
    """No window shows that project."""

    def __init__(self, root: str) -> None:
        super().__init__(f"The project {root} is not open in any window.")
        self.root = root


class DuplicateWindowName(WorkspaceError):
    """Window names are unique so that `idea attach -w NAME` is unambiguous."""

    def __init__(self, name: str) -> None:
        super().__init__(f"A window named {name!r} already exists; choose another name.")
        self.name = name


class ProjectAlreadyOpen(WorkspaceError):
    """The project already has a tab in another window (it can live in only one)."""

    def __init__(self, root: str, window_name: str) -> None:
        super().__init__(
            f"The project {root} is already open in window {window_name!r}; "
            "switch to that window or move the tab."
        )
        self.root = root
        self.window_name = window_name
