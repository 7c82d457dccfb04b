"""What every tool module needs: who is calling, and an `IdeaError` as an `isError` result.

Kept apart from `tools.py` so that the tool modules of each area (`tools_<area>.py`, which
`build_server` registers) can use it without importing `tools.py` back.
"""

from __future__ import annotations

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from adapters.mcp.identity import Caller
from core.errors import IdeaError

SCOPE_KEY = "idea.caller"
"""Where the HTTP authentication layer leaves the caller in the ASGI scope."""


def caller_of(ctx: Context, fallback: Caller | None) -> Caller:
    """The authenticated caller: the bridge puts it in the request, HTTP in the scope."""
    request = ctx.request_context.request
    if isinstance(request, Caller):
        return request
    scope = getattr(request, "scope", None)
    if isinstance(scope, dict) and isinstance(scope.get(SCOPE_KEY), Caller):
        caller: Caller = scope[SCOPE_KEY]
        return caller
    if fallback is not None:
        return fallback
    # Transports authenticate before a request gets here; this is a wiring mistake.
    raise ToolError("idea could not tell which agent is calling; relaunch the agent")


def tool_error(error: IdeaError) -> ToolError:
    return ToolError(error.message)
