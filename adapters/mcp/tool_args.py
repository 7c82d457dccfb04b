"""Checks of tool arguments shared by the tool modules: a model may send anything, and
every bad argument comes back as an `isError` result saying what was expected (the SDK
already refuses wrong JSON types from the schema; these add emptiness and size)."""

from __future__ import annotations

from mcp.server.mcpserver.exceptions import ToolError

TARGET_MAX = 200
"""An agent's name (or id) as a tool argument."""

TICKET_MAX = 64
"""A ticket id (`T` and a few hex digits; generous for what a model may paste)."""

MESSAGE_MAX_CHARS = 1_000_000
"""A task or a reply: what the file protocol allows in a whole request (1 MiB), so an agent
can hand over as much through MCP as through files. More goes in a file the text names."""


def text_arg(name: str, value: object, limit: int, *, required: bool = True) -> str:
    """`value` as a non-empty string of at most `limit` characters.

    Raises:
        ToolError: It is not a string, is blank (when required) or is too long.
    """
    if not isinstance(value, str):
        raise ToolError(f"{name!r} must be a string")
    if required and not value.strip():
        raise ToolError(f"{name!r} is required and must not be empty")
    if len(value) > limit:
        raise ToolError(f"{name!r} is {len(value):,} characters; the limit is {limit:,}")
    return value


def optional_text(name: str, value: object, limit: int) -> str | None:
    """None for a missing or blank optional argument, else `text_arg`."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return text_arg(name, value, limit)
