"""Which variables of the attaching terminal a new cell takes (DECISIONS D22).

Shared by the client, which picks them from its own environment, and the daemon, which
applies them to the cells it starts; pure data so that the client needs no PTY adapter.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

# Variables tmux refreshes from the attaching client (update-environment).
REFRESHED_FROM_CLIENT = (
    "DISPLAY",
    "KRB5CCNAME",
    "SSH_ASKPASS",
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "SSH_CONNECTION",
    "WINDOWID",
    "XAUTHORITY",
    "COLORTERM",
    "TERM_PROGRAM",
    "WAYLAND_DISPLAY",
)


def refreshed_variables(env: Mapping[str, str], extra_names: Iterable[str] = ()) -> dict[str, str]:
    """The variables of `env` a client hands to the daemon: tmux's list, then the user's
    configured extra names (`refresh_env` in config.toml), those that are set."""
    names = dict.fromkeys((*REFRESHED_FROM_CLIENT, *extra_names))
    return {name: env[name] for name in names if name in env}
