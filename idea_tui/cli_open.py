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

from adapters.locations import locate
from idea_tui.cli_common import absolute, confirm
from idea_tui.control import ControlClient
from idea_tui.ports import open_or_new


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
        probe = client.call("project_probe", path=root)
        if not probe["directory"]:
            print(f"idea: no such directory: {probe['root']}", file=sys.stderr)
            return None, 1
        method = open_or_new(probe)
        if method == "project_new" and not confirm(
                f"{probe['root']} is not an idea project yet. Create it?"):
            print(f"idea: nothing created ({probe['root']} is not a project; "
                  f"`idea new {path}` makes it one)", file=sys.stderr)
            return None, 1
        params = {"path": probe["root"], "window": window}
        opened = client.call(method, **{k: v for k, v in params.items() if v is not None})
    for problem in opened.get("problems", []):
        print(f"! {problem}", file=sys.stderr)
    return str(opened["window"]) if opened.get("window") else window, 0
