"""How users name a cell on the command line (`-t TARGET`), parsed without I/O.

Accepted forms (indices are 0-based, as `idea list-cells` shows them):

==========================  =================================================
``3``                       cell 3 of the current page
``.3``                      same
``Build.3``                 cell 3 of page "Build" of the current project
``myproj:3``                cell 3 of the active page of project "myproj"
``myproj:Build.3``          cell 3 of page "Build" of project "myproj"
``myproj:``                 the focused cell of project "myproj"
``%1a2b`` / ``1a2b3c4d``    the cell whose id starts with these characters (8+ without %)
==========================  =================================================

A project is named by its name, its id (or an id prefix) or its root path; a page by its
name, its position (``#2``) or an id prefix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.errors import IdeaError


class BadTarget(IdeaError):
    """A target string that cannot be parsed."""


@dataclass(frozen=True, slots=True)
class TargetSpec:
    project: str | None = None
    page: str | None = None
    index: int | None = None
    cell_id: str | None = None

    @property
    def is_current(self) -> bool:
        return self == TargetSpec()


# Without the `%` sigil, only something that looks like a real id (8+ hex characters with a
# digit) is taken as one, so that a page named "cafe" stays a page.
_BARE_ID = re.compile(r"^(?=[^.:]*[0-9])[0-9a-fA-F][0-9a-fA-F-]{7,}$")


def parse_target(text: str | None) -> TargetSpec:
    """Split a target string into its parts.

    >>> parse_target("web:Build.2")
    TargetSpec(project='web', page='Build', index=2, cell_id=None)
    >>> parse_target("2")
    TargetSpec(project=None, page=None, index=2, cell_id=None)
    >>> parse_target("%ab12")
    TargetSpec(project=None, page=None, index=None, cell_id='ab12')
    """
    if text is None or text.strip() == "":
        return TargetSpec()
    text = text.strip()
    if text.isdigit():
        return TargetSpec(index=int(text))
    if text.startswith("%") or _BARE_ID.match(text):
        cell = text.removeprefix("%")
        if not cell:
            raise BadTarget(f"empty cell id in target {text!r}")
        return TargetSpec(cell_id=cell.lower())
    project: str | None = None
    rest = text
    if ":" in text:
        project, rest = text.split(":", 1)
        if not project:
            raise BadTarget(f"empty project name in target {text!r}")
    page: str | None = None
    index: int | None = None
    if rest:
        page_part, dot, index_part = rest.rpartition(".")
        if dot and index_part.isdigit():
            page = page_part or None
            index = int(index_part)
        elif rest.isdigit():
            index = int(rest)
        else:
            page = rest
    return TargetSpec(project=project, page=page, index=index)
