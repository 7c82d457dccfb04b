"""The environment and shell of a cell (DECISIONS D22)."""

from __future__ import annotations

import os
import pwd
from collections.abc import Mapping

from core.environment import REFRESHED_FROM_CLIENT


def user_shell(env: Mapping[str, str]) -> str:
    """`$SHELL`, else the passwd shell, else `/bin/sh`."""
    shell = env.get("SHELL")
    if shell and os.access(shell, os.X_OK):
        return shell
    try:
        passwd_shell = pwd.getpwuid(os.getuid()).pw_shell
    except KeyError:
        passwd_shell = ""
    if passwd_shell and os.access(passwd_shell, os.X_OK):
        return passwd_shell
    return "/bin/sh"


def cell_environment(
    base: Mapping[str, str],
    client: Mapping[str, str],
    *,
    extra_names: tuple[str, ...] = (),
    cell_id: str,
    socket_path: str,
) -> dict[str, str]:
    """The environment a cell's program starts with.

    The daemon's own environment is passed through whole (never stripped: PATH, API keys
    and locale stay as the user set them), refreshed from the last attached client for the
    variables tmux refreshes, then the terminal identity and the idea variables.
    """
    env = dict(base)
    for name in (*REFRESHED_FROM_CLIENT, *extra_names):
        if name in client:
            env[name] = client[name]
    env["TERM"] = "xterm-256color"
    env.setdefault("COLORTERM", "truecolor")
    env["IDEA_CELL"] = cell_id
    env["IDEA_SOCKET"] = socket_path
    env.pop("TMUX", None)  # a cell is not inside tmux even if the daemon was started there
    return env
