"""The user's settings: `$XDG_CONFIG_HOME/idea/config.toml` (or `IDEA_HOME/config/config.toml`).

Every setting is typed, defaulted and documented here. The file is optional; a file that
cannot be read, or holds an unknown key or a wrong type, is reported in the user's terms
(file, key, what was expected) and idea runs on the defaults — the file is never rewritten.

Example::

    prefix = "ctrl+a"              # the key before every workspace key (tmux style)
    scrollback_lines = 20000       # lines of history kept per cell by the daemon
    refresh_env = ["AWS_PROFILE"]  # more variables taken from the attaching terminal
    emulator = "auto"              # "ghostty" (libghostty-vt), "pyte" (pure Python) or "auto"
    agent_nice = 5                 # agents yield the CPU to what you type (0: equal share)

    [delegation]                   # D9: seconds (tests set them low)
    turn_timeout = 300             # from delivery to the reply
    queue_wait_cap = 600           # waiting in an agent's queue

    [session_limits]               # issue 10: seconds
    resume_margin = 60             # resume this long after the announced reset
    stall_after = 240              # a silent task makes the agent "limit suspected" (0 off)
    ask_after = 21600              # an overdue resume older than this asks first at start
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import msgspec

from core.errors import IdeaError

MAX_SCROLLBACK = 1_000_000
MAX_CONFIG_BYTES = 1024 * 1024
MAX_NICE = 19


class ConfigError(IdeaError):
    """The config file exists but cannot be used as it is."""


class Delegation(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """Bounds of delegation between agents (D9), in seconds unless said otherwise."""

    turn_timeout: float = 300.0
    """From delivery to the reply; then the asker gets a timeout and the queue moves on."""
    queue_wait_cap: float = 600.0
    """How long a task may wait in an agent's queue before it is delivered."""
    rendezvous_timeout: float = 86_400.0
    """The server's safety net for a whole ask."""
    queue_cap: int = 32
    """Tasks waiting for one agent (its current one excluded)."""
    poll_max: float = 100.0
    """How long one blocking MCP call waits before "no reply yet, call again"."""
    progress_every: float = 20.0
    """Progress notifications at least this often during a blocking call."""


class SessionLimits(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """Usage limits of agents' providers (issue 10), in seconds."""

    resume_margin: float = 60.0
    """How long after the announced reset time an agent is resumed (clocks differ)."""
    stall_after: float = 240.0
    """A task with no output from its agent for this long makes the agent "limit
    suspected": the user is asked when to resume it (0 turns this off). Below
    `Delegation.turn_timeout`, which would end the task first (the daemon logs a warning
    when it is not)."""
    ask_after: float = 6 * 3600.0
    """A resume that came due while the daemon was down fires at start, unless it is
    older than this: then the user is asked first."""


class Config(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    prefix: str = "ctrl+b"
    """The prefix key, as Textual names keys: "ctrl+b", "ctrl+a", "ctrl+space"..."""
    scrollback_lines: int = 10_000
    """Lines kept per cell after they scroll off the screen (0 keeps none)."""
    refresh_env: list[str] = []
    """Extra environment variables refreshed from the attaching client for new cells,
    beside those tmux refreshes (SSH_AUTH_SOCK, DISPLAY, ...)."""
    delegation: Delegation = Delegation()
    session_limits: SessionLimits = SessionLimits()
    emulator: Literal["auto", "ghostty", "pyte"] = "auto"
    """The terminal emulator of the cells: "ghostty" (libghostty-vt through pyghostty, fast;
    Linux x86_64/aarch64 wheels), "pyte" (pure Python, everywhere), or "auto" (ghostty where
    it loads, else pyte). A ghostty that does not load falls back to pyte with the reason
    shown by `idea ls`."""
    agent_nice: int = 5
    """How much lower agents' CPU priority is than the shells' (Unix niceness, 0-19): busy
    agents on a loaded machine then never delay what the user types, and lose nothing when
    the CPU is free. 0 gives them the same share as everything else."""
    worktree_root: str = ""
    """A folder (absolute, or ~/...) agents' own worktrees may go under when an agent's
    `worktreeDir` (agents.json) names one; besides it only the default
    `<project>-worktrees/` is used (a committed file must not send idea elsewhere)."""


def load_config(path: Path) -> tuple[Config, str | None]:
    """The settings, and a message for the user when the file had to be ignored."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        return Config(), None
    except OSError as exc:
        return Config(), f"cannot read {path}: {exc.strerror}; using the defaults"
    if len(raw) > MAX_CONFIG_BYTES:
        return Config(), (f"{path} is larger than {MAX_CONFIG_BYTES // 1024} KiB, which no "
                          "settings file is; using the defaults")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Config(), (f"{path} is not UTF-8 text (bad byte at offset {exc.start}); "
                          "using the defaults")
    try:
        config = parse_config(text, str(path))
    except ConfigError as exc:
        return Config(), f"{exc.message}; using the defaults"
    return config, None


def parse_config(text: str, source: str = "config.toml") -> Config:
    import tomllib  # here: without a config file (the usual case) the client never needs it

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source} is not valid TOML: {exc}") from exc
    try:
        config = msgspec.convert(data, Config)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"{source}: {exc}") from exc
    if not 0 <= config.scrollback_lines <= MAX_SCROLLBACK:
        raise ConfigError(
            f"{source}: scrollback_lines must be from 0 to {MAX_SCROLLBACK}, "
            f"got {config.scrollback_lines}"
        )
    if not 0 <= config.agent_nice <= MAX_NICE:
        raise ConfigError(
            f"{source}: agent_nice must be from 0 to {MAX_NICE}, got {config.agent_nice}")
    bounds = config.delegation
    if min(bounds.turn_timeout, bounds.queue_wait_cap, bounds.rendezvous_timeout,
           bounds.poll_max, bounds.progress_every) <= 0 or bounds.queue_cap < 1:
        raise ConfigError(f"{source}: every [delegation] bound must be above zero")
    limits = config.session_limits
    if min(limits.resume_margin, limits.stall_after, limits.ask_after) < 0:
        raise ConfigError(f"{source}: [session_limits] values must not be negative")
    root = config.worktree_root
    if root and not (root.startswith("/") or root.startswith("~/")):
        raise ConfigError(f"{source}: worktree_root must be an absolute folder (or ~/...), "
                          f"got {root!r}")
    if not config.prefix.strip():
        raise ConfigError(f"{source}: prefix must name a key, e.g. \"ctrl+b\"")
    return config
