"""Answers of the commands on projects, windows and pages, and of the `ls` overview, as
msgspec Structs (see `adapters.ipc.params.Answer`): the daemon returns them, clients decode
the result into them (`adapters.ipc.answers.decode_answer`), so neither side reads a map
by hand. The wire shape is what it always was (camelCase names, optional keys left out).
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from adapters.ipc.answers_git import RecordedWorktree
from adapters.ipc.commands import CellDescription
from adapters.ipc.params import Answer

# ─── projects ──────────────────────────────────────────────────────────────────────────


class ProjectDescription(Answer, kw_only=True):
    """A project as `project_new|open|switch|list` describe it (a closed one of
    `project_list` has no pages)."""

    id: str
    name: str
    root: str
    window: str | None
    open: bool
    pages: list[str] | UnsetType = UNSET
    active_page: str | UnsetType = msgspec.field(default=UNSET, name="activePage")
    problems: list[str] | UnsetType = UNSET


class ProjectProbe(Answer, kw_only=True):
    """What is at a folder (`project_probe`), for choosing between opening and creating."""

    root: str
    directory: bool
    registered: bool
    has_project_file: bool = msgspec.field(name="hasProjectFile")
    open: bool

    def command(self) -> str:
        """A folder that is a project (registered, or with `.ideai/project.json`) is
        opened, any other is created."""
        return "project_open" if self.registered or self.has_project_file else "project_new"


class ProjectClosed(Answer, kw_only=True):
    closed: str
    """The project's root."""


class ProjectMoved(Answer, kw_only=True):
    project: str
    window: str


# ─── windows ───────────────────────────────────────────────────────────────────────────


class WindowNamed(Answer, kw_only=True):
    """`window_new` (with its projects) and `window_rename`."""

    id: str
    name: str
    projects: list[str] | UnsetType = UNSET


class WindowDescription(Answer, kw_only=True):
    """A window as `window_list` describes it."""

    id: str
    name: str
    projects: list[str]
    clients: int
    width: int
    height: int


# ─── pages ─────────────────────────────────────────────────────────────────────────────


class PageDescription(Answer, kw_only=True):
    """A page as `layout_list` describes it."""

    id: str
    name: str
    kind: str
    active: bool
    cells: int


class PageNamed(Answer, kw_only=True):
    """`layout_new` (with its kind), `layout_switch`, `layout_rename`."""

    id: str
    name: str
    kind: str | UnsetType = UNSET


class PageClosed(Answer, kw_only=True):
    closed: str
    """The page's name."""


# ─── the overview ──────────────────────────────────────────────────────────────────────


class OverviewPage(Answer, kw_only=True):
    name: str
    kind: str
    active: bool
    cells: list[CellDescription]


class OverviewProject(Answer, kw_only=True):
    name: str
    root: str
    active: bool
    pages: list[OverviewPage]
    problems: list[str]
    worktrees: list[RecordedWorktree]
    """The agents' recorded worktrees."""


class OverviewUnavailable(Answer, kw_only=True):
    """A project that cannot be opened now (folder missing or unreadable, `.ideai`
    corrupt): its tab is kept, and `idea open ROOT` retries it."""

    name: str
    root: str
    reason: str


class OverviewWindow(Answer, kw_only=True):
    name: str
    id: str
    clients: int
    projects: list[OverviewProject]
    unavailable: list[OverviewUnavailable] = []


class Overview(Answer, kw_only=True):
    """`ls`: every window, its projects, pages and cells."""

    windows: list[OverviewWindow]
    problems: list[str]
    sessions: int
    emulator: str | None = None
