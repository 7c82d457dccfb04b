"""Parameters of the commands on projects, windows and pages (`project_*`, `window_*`,
`layout_*`), as msgspec Structs (see `adapters.ipc.params`); their answers are in
`answers_workspace.py`."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from adapters.ipc.params import NoParams, Params

Text = Annotated[str, msgspec.Meta(pattern=r"\S")]
"""Text with something in it besides blanks."""


class ProjectParams(Params, kw_only=True):
    project: str | None = None
    """A project by name, id or root; else the caller's."""


class PathParams(Params, kw_only=True):
    path: str | None = None
    """The project's folder, absolute (the daemon may run elsewhere: the client resolves)."""
    name: str | None = None
    window: str | None = None


class ProjectCloseParams(ProjectParams, kw_only=True):
    force: bool = False


class ProjectSwitchParams(Params, kw_only=True):
    which: str = "next"
    """next, prev, a tab number, or a project by name, id or root."""


class ProjectMoveParams(ProjectParams, kw_only=True):
    window: Text


class WindowNewParams(Params, kw_only=True):
    name: Text
    project: str | None = None


class WindowRenameParams(Params, kw_only=True):
    window: str | None = None
    name: Text


class PageNewParams(ProjectParams, kw_only=True):
    name: str | None = None
    kind: Literal["terminal", "gitGraph"] = "terminal"


class PageSwitchParams(ProjectParams, kw_only=True):
    page: str = "next"


class PageRenameParams(ProjectParams, kw_only=True):
    page: str | None = None
    name: Text


class PageCloseParams(ProjectParams, kw_only=True):
    page: str | None = None
    force: bool = False


WORKSPACE_PARAMS: dict[str, type[Params]] = {
    "project_probe": PathParams,
    "project_new": PathParams,
    "project_open": PathParams,
    "project_close": ProjectCloseParams,
    "project_switch": ProjectSwitchParams,
    "project_list": NoParams,
    "project_move": ProjectMoveParams,
    "window_new": WindowNewParams,
    "window_rename": WindowRenameParams,
    "window_list": NoParams,
    "layout_list": ProjectParams,
    "layout_new": PageNewParams,
    "layout_switch": PageSwitchParams,
    "layout_rename": PageRenameParams,
    "layout_close": PageCloseParams,
    "ls": NoParams,
}
