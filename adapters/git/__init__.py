"""The git adapters (D16): the git program where it is installed, dulwich where it is not.

`open_git` picks one; only the composition root (`idea_daemon/bootstrap.py`) calls it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping

from core.git.port import GitPort


def open_git(
    env: Mapping[str, str], which: Callable[[str], str | None] = shutil.which
) -> GitPort:
    """The git CLI adapter when `git` is on PATH, else the dulwich one."""
    executable = which("git")
    if executable is not None:
        from adapters.git.cli_repo import GitCliRepository

        return GitCliRepository(executable, env)
    from adapters.git.dulwich_repo import DulwichRepository

    return DulwichRepository(env)
