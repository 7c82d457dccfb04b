"""AI profiles: how to start one agent CLI and hand it its context (FEATURES.md PRF, §3.3).

A profile is data, not code (PRN-2): adding an AI means adding a profile. This module owns
the value objects in the seed's shape plus the optional blocks the seed added over time, and
the profile aliases (D23). `core.agents.profile_rules.validate_profile` checks a profile;
`core.agents.argv` renders its templates into an argv (no shell, ever).

Placeholders, written `{name}` inside argument templates:

- `{projectRoot}`: the project folder (absolute). Allowed everywhere.
- `{runDir}`: the agent's `.ideai/run/<agent-id>/` (absolute). Allowed everywhere.
- `{conversationId}`: the provider conversation id; only in `session` templates.
- `{path}`: the absolute path of the file the block produces: the composed context file
  for `contextInjection`, the MCP config file for `mcp`. Only in those flags.
- `{content}`: the composed context text itself, passed as ONE argv word; only in the
  `contextInjection` flag (Claude Code: `--append-system-prompt {content}`).

A `flag` string is split into words like a POSIX shell would (quotes respected, nothing
executed). When it names neither `{path}` nor `{content}`, the file path is appended as a
separate word: `-f` becomes `-f /abs/run/dir/context.md`.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from core.layout.model import EMPTY_EXTRA

PROJECT_ROOT = "projectRoot"
RUN_DIR = "runDir"
CONVERSATION_ID = "conversationId"
PATH = "path"
CONTENT = "content"
PLACEHOLDERS = (PROJECT_ROOT, RUN_DIR, CONVERSATION_ID, PATH, CONTENT)

CLAUDE_CODE_ID = "claude-code"
"""Id of the built-in Claude Code profile."""
SEED_CLAUDE_ID = "664cc20c-47b8-53ad-9351-dce3c09c0de4"
"""The Claude profile id found in the seed's `agents.json` (D23: an alias of Claude Code)."""
PROFILE_ALIASES: Mapping[str, str] = {SEED_CLAUDE_ID: CLAUDE_CODE_ID}

DEFAULT_CWD = "{projectRoot}"
DEFAULT_SUBMIT_SEQUENCE = "\r"
DEFAULT_SUBMIT_DELAY_MS = 60


# ─── Value objects ───────────────────────────────────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class ConventionFile:
    """Write the context into the file the CLI reads by convention (`CLAUDE.md`, ...).

    The file goes into the agent's run dir, never into the user's own files (D19).
    """

    target: str
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


@dataclass(frozen=True, slots=True)
class Flag:
    """Pass the context (or the MCP config) on the command line; see the module docstring."""

    flag: str
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


@dataclass(frozen=True, slots=True)
class Stdin:
    """Type the context into the CLI once it shows its prompt."""

    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


@dataclass(frozen=True, slots=True)
class Env:
    """Put the absolute path of the context (or MCP config) file in an environment variable."""

    var: str
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """Write the MCP config into a file of the run dir that the CLI reads (e.g. `.mcp.json`)."""

    target: str
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


ContextInjection = ConventionFile | Flag | Stdin | Env
McpConfig = ConfigFile | Flag | Env


class McpTransport(str, Enum):  # noqa: UP042
    """How the CLI reaches idea's MCP server (D11)."""

    STDIO = "stdio"
    SOCKET = "socket"
    HTTP = "http"


@dataclass(frozen=True, slots=True)
class McpCapability:
    """How to tell this CLI about idea's MCP server. None on a profile: file protocol."""

    config: McpConfig
    transport: McpTransport = McpTransport.STDIO
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


class SessionMode(Enum):
    """Which session arguments a launch adds (D20)."""

    NONE = "none"
    """A plain start: the conversation is not tracked."""
    START = "start"
    """A fresh conversation with an id chosen by idea (`start_args`)."""
    RESUME = "resume"
    """Resume a recorded conversation (`resume_args`)."""


@dataclass(frozen=True, slots=True)
class SessionTemplates:
    """How the CLI starts with a known conversation id and resumes one (D20).

    Attributes:
        start_args: Words placed before the profile's args on a fresh start, e.g.
            `("--session-id", "{conversationId}")`. Empty: the CLI cannot be given an id.
        resume_args: Words placed before the profile's args to resume, e.g.
            `("--resume", "{conversationId}")`, or Codex's subcommand
            `("resume", "{conversationId}")`.
        id_known_at_launch: True when `start_args` hand the CLI an id chosen by idea. False
            (Codex) means the daemon must discover the id after launch.
    """

    start_args: tuple[str, ...] = ()
    resume_args: tuple[str, ...] = ()
    id_known_at_launch: bool = False
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)

    @property
    def resume_supported(self) -> bool:
        """Whether a recorded conversation can be resumed (SWP-3)."""
        return bool(self.resume_args)

    @classmethod
    def from_seed_flags(cls, assign_flag: str | None, resume_flag: str | None) -> SessionTemplates:
        """The seed's `{assignFlag, resumeFlag}` form as templates.

        `"--resume"` becomes `("--resume", "{conversationId}")`; a flag that already names
        `{conversationId}` is split into words as is.
        """
        start = _flag_with_id(assign_flag)
        return cls(start, _flag_with_id(resume_flag), id_known_at_launch=bool(start))


def _flag_with_id(flag: str | None) -> tuple[str, ...]:
    if flag is None or not flag.strip():
        return ()
    words = split_words(flag)
    if not any("{conversationId}" in word for word in words):
        words.append("{conversationId}")
    return tuple(words)


@dataclass(frozen=True, slots=True)
class AgentProfile:
    """A declarative AI CLI profile (PRF-1), as stored in `profiles.json`.

    Attributes:
        id: Stable id agents refer to (`profileId`).
        name: Display name.
        command: The program, one word (a name looked up on PATH, or a path); extra words
            go in `args`. It is never run through a shell.
        context_injection: How the composed context reaches the CLI (PRF-5, D7).
        args: Argument templates.
        detect: A command line telling whether the CLI is installed (`claude --version`).
        cwd: Template of the working directory (D19: the project root by default).
        session: Start/resume templates, or None when conversations cannot be resumed.
        mcp: How the CLI is told about idea's MCP server, or None (file protocol).
        prompt_ready_pattern: A regex matched on the screen when the CLI awaits input.
        rate_limit_pattern: A regex matched on the screen when the CLI hit a usage limit.
        submit_sequence: What submits a typed line (TRM-7).
        submit_delay_ms: Pause between a typed line and the submit sequence.
        env: Extra environment variables for the CLI; values may use `{projectRoot}` and
            `{runDir}` (e.g. a per-agent `CODEX_HOME`, D19).
        extra: Keys of `profiles.json` this version does not know, written back unchanged.
    """

    id: str
    name: str
    command: str
    context_injection: ContextInjection
    args: tuple[str, ...] = ()
    detect: str | None = None
    cwd: str = DEFAULT_CWD
    session: SessionTemplates | None = None
    mcp: McpCapability | None = None
    prompt_ready_pattern: str | None = None
    rate_limit_pattern: str | None = None
    submit_sequence: str = DEFAULT_SUBMIT_SEQUENCE
    submit_delay_ms: int = DEFAULT_SUBMIT_DELAY_MS
    env: Mapping[str, str] = field(default=EMPTY_EXTRA)
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


# ─── Aliases ─────────────────────────────────────────────────────────────────────────────


def canonical_profile_id(profile_id: str) -> str:
    """The id a (possibly aliased) profile id stands for (D23)."""
    return PROFILE_ALIASES.get(profile_id, profile_id)


def find_profile(profiles: Iterable[AgentProfile], profile_id: str) -> AgentProfile | None:
    """The profile an agent's `profileId` designates: an exact id first, then its alias."""
    candidates = list(profiles)
    for profile in candidates:
        if profile.id == profile_id:
            return profile
    target = canonical_profile_id(profile_id)
    return next((profile for profile in candidates if profile.id == target), None)


def split_words(line: str) -> list[str]:
    """Split a command-line template into words, POSIX-shell style (nothing is executed).

    Raises:
        ValueError: Unbalanced quotes.
    """
    return shlex.split(line, posix=True)
