"""`idea PATH` (and `idea .`): open the project at PATH and attach, the way `code .` works.

A folder that is not a project yet becomes one after a yes/no question on the terminal.
Whether it is one is the daemon's answer (`project_probe`), never a look at the files here:
the daemon owns the projects. `idea open PATH` stays the scripting command (no question, no
screen).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Collection

from adapters.ipc.answers_workspace import ProjectDescription, ProjectProbe
from adapters.locations import locate
from idea_tui.cli_common import absolute, confirm
from idea_tui.control import ControlClient


def looks_like_path(word: str, commands: Collection[str]) -> bool:
    """Whether the first word of `idea WORD …` names a folder rather than a subcommand:
    never a subcommand's name (a folder called `new` is `idea ./new`), never an option,
    else anything with a slash, `.`, `..`, `~…`, or an existing directory."""
    if not word or word.startswith("-") or word in commands:
        return False
    if word in (".", "..") or "/" in word or word.startswith("~"):
        return True
    return os.path.isdir(word)


def open_for_attach(path: str, window: str | None) -> tuple[str | None, int]:
    """Open (or create, once the user says yes) the project at `path`.

    Returns the window to attach to, and 0; or None and the exit status when there is
    nothing to attach (refused, not a folder: the reason is printed).
    """
    root = absolute(path)
    with ControlClient.connect(locate(), start=True) as client:
        probe = client.call_as(ProjectProbe, "project_probe", path=root)
        if not probe.directory:
            print(f"idea: no such directory: {probe.root}", file=sys.stderr)
            return None, 1
        method = probe.command()
        if method == "project_new" and not confirm(
                f"{probe.root} is not an idea project yet. Create it?"):
            print(f"idea: nothing created ({probe.root} is not a project; "
                  f"`idea new {path}` makes it one)", file=sys.stderr)
            return None, 1
        opened = client.call_as(ProjectDescription, method, path=probe.root, window=window)
    for problem in opened.problems or []:
        print(f"! {problem}", file=sys.stderr)
    return opened.window or window, 0
