"""Rendering a profile's argument templates into an argv (no shell, ever).

Substitution is a single pass over each word (a value that contains `{path}` is not
expanded again) and happens after a template is split into words, so a value with spaces
stays one word. Only the placeholders of `core.agents.profile.PLACEHOLDERS` are filled in;
any other brace pair (`{"a": 1}`) is left as written (`validate_profile` refuses typos).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from core.agents.errors import PlaceholderError
from core.agents.profile import (
    PATH,
    PLACEHOLDERS,
    AgentProfile,
    ContextInjection,
    Env,
    Flag,
    McpCapability,
    SessionMode,
    split_words,
)

MAX_ARG_BYTES = 128 * 1024
"""Linux refuses a single argv word this long (MAX_ARG_STRLEN): E2BIG at exec."""

_PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")


def render(template: str, values: Mapping[str, str]) -> str:
    """One word with its placeholders filled in (single pass, see the module docstring).

    Raises:
        PlaceholderError: A placeholder has no value, or a value is unusable in an argv.
    """

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise PlaceholderError(name, "no value is known at this point")
        return values[name]

    word = _PLACEHOLDER.sub(fill, template)
    if "\x00" in word:
        raise PlaceholderError(_first_name(template), "the value contains a NUL character")
    try:
        # How the OS will receive it (os.fsencode): surrogate escapes stand for raw bytes.
        size = len(word.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError as error:
        raise PlaceholderError(
            _first_name(template), "the value holds characters no program can receive"
        ) from error
    if size >= MAX_ARG_BYTES:
        raise PlaceholderError(
            _first_name(template),
            "the argument would exceed the 128 KiB the system allows for one argument; "
            "use a conventionFile or a {path} flag instead",
        )
    return word


def _first_name(template: str) -> str:
    match = _PLACEHOLDER.search(template)
    return match.group(1) if match else "argument"


def render_words(templates: Sequence[str], values: Mapping[str, str]) -> list[str]:
    """Each word of a template sequence, filled in."""
    return [render(word, values) for word in templates]


def flag_words(flag: str, values: Mapping[str, str]) -> list[str]:
    """The argv words of a `flag` strategy; the path is appended when not named."""
    words = split_words(flag)
    if not any("{path}" in word or "{content}" in word for word in words):
        words.append("{path}")
    return render_words(words, values)


def session_words(profile: AgentProfile, mode: SessionMode, values: Mapping[str, str]) -> list[str]:
    """The session arguments of a launch (empty for NONE or a profile without them)."""
    if profile.session is None or mode is SessionMode.NONE:
        return []
    words = profile.session.start_args if mode is SessionMode.START else profile.session.resume_args
    return render_words(words, values)


def injection_words(injection: ContextInjection, values: Mapping[str, str]) -> list[str]:
    """The argv words the context injection adds (only the flag strategy adds any)."""
    return flag_words(injection.flag, values) if isinstance(injection, Flag) else []


def mcp_words(mcp: McpCapability | None, values: Mapping[str, str]) -> list[str]:
    """The argv words the MCP block adds (only its flag strategy adds any)."""
    if mcp is None or not isinstance(mcp.config, Flag):
        return []
    return flag_words(mcp.config.flag, values)


def render_args(
    profile: AgentProfile,
    values: Mapping[str, str],
    *,
    session: SessionMode = SessionMode.NONE,
    mcp_path: str | None = None,
) -> list[str]:
    """The arguments after the command, in launch order.

    Order: session words (first, since Codex's `resume ID` is a subcommand), the profile's
    args, the context-injection flag, then the MCP flag.

    Args:
        profile: A validated profile.
        values: Placeholder values; `{path}` is the composed context file.
        session: Which session arguments to add.
        mcp_path: The MCP config file, the `{path}` of the MCP flag; required when the
            profile's MCP block is a flag.

    Raises:
        PlaceholderError: A placeholder the templates use has no usable value.
    """
    words = session_words(profile, session, values)
    words += render_words(profile.args, values)
    words += injection_words(profile.context_injection, values)
    words += mcp_words(profile.mcp, _mcp_values(values, mcp_path))
    return words


def _mcp_values(values: Mapping[str, str], mcp_path: str | None) -> dict[str, str]:
    """The values for the MCP block: `{path}` is the MCP config file, not the context."""
    mcp_values = {name: value for name, value in values.items() if name != PATH}
    if mcp_path is not None:
        mcp_values[PATH] = mcp_path
    return mcp_values


def command_line(
    profile: AgentProfile,
    values: Mapping[str, str],
    *,
    session: SessionMode = SessionMode.NONE,
    mcp_path: str | None = None,
) -> list[str]:
    """The full argv: the command then `render_args`."""
    return [profile.command, *render_args(profile, values, session=session, mcp_path=mcp_path)]


def render_env(
    profile: AgentProfile,
    values: Mapping[str, str],
    *,
    mcp_path: str | None = None,
) -> dict[str, str]:
    """The variables a launch adds to the CLI's environment.

    The profile's own `env` (rendered), then the context file's path for the env strategy,
    then the MCP config file's path for an env MCP block; the daemon layers these over the
    cell environment of D22.

    Raises:
        PlaceholderError: A placeholder has no usable value (`{path}` for an env strategy).
    """
    env = {name: render(value, values) for name, value in profile.env.items()}
    if isinstance(profile.context_injection, Env):
        env[profile.context_injection.var] = render("{path}", values)
    if profile.mcp is not None and isinstance(profile.mcp.config, Env):
        env[profile.mcp.config.var] = render("{path}", _mcp_values(values, mcp_path))
    return env


def render_cwd(profile: AgentProfile, values: Mapping[str, str]) -> str:
    """The working directory of a launch (D19: the project root by default)."""
    return render(profile.cwd, values)


def detect_argv(profile: AgentProfile) -> list[str] | None:
    """The argv of the profile's detection command, or None when it has none.

    Raises:
        ValueError: The line has unbalanced quotes (a validated profile never has).
    """
    return split_words(profile.detect) if profile.detect is not None else None
