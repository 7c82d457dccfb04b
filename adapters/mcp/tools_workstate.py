"""`idea_workstate_read` and `idea_workstate_set` (FEATURES.md LIV-6, MCP-5 #13–14).

`set` writes only the caller's row: the caller is whoever the transport authenticated, and
no argument names an agent. Every argument is checked here before the port sees it (type,
emptiness, size), so a model's mistake comes back as an `isError` result saying what to
send instead.
"""

from __future__ import annotations

import json

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from adapters.mcp.identity import Caller
from adapters.mcp.port_workstate import WorkState
from adapters.mcp.tool_support import caller_of
from core.errors import IdeaError
from core.live_state.arguments import workstate_arguments
from core.live_state.model import PREVIEW_MAX_CHARS, ROW_MAX_BYTES, STATUS_NAMES

WORKSTATE_READ = (
    "Read the project's live work state: one row per agent (name, status, task, note, who "
    "asked it and the ticket, last update). Statuses: idle, working, blocked, waiting, done. "
    "Call it to see who is doing what before delegating or starting overlapping work."
)
WORKSTATE_SET = (
    "Set YOUR OWN row of the project's live work state, which the user and the other agents "
    f"see. status: one of {', '.join(STATUS_NAMES)}. task (optional): what you are working "
    "on, one line. note (optional): a short remark (e.g. what blocks you). A field left out "
    f"keeps its current value. Others read only the first {PREVIEW_MAX_CHARS} characters; a "
    f"row over {ROW_MAX_BYTES} bytes is refused. Update it when your status changes, not on "
    "every step."
)


def register_workstate_tools(server: MCPServer, port: object, fallback: Caller | None) -> None:
    """Add the two tools when `port` serves them (the daemon's service does; a test's
    orchestrator fake may not)."""
    if not isinstance(port, WorkState):
        return
    state: WorkState = port

    @server.tool(name="idea_workstate_read", description=WORKSTATE_READ)
    async def idea_workstate_read(ctx: Context) -> str:
        try:
            rows = await state.workstate_read(caller_of(ctx, fallback))
        except IdeaError as error:
            raise ToolError(error.message) from error
        return json.dumps(rows, ensure_ascii=False)

    @server.tool(name="idea_workstate_set", description=WORKSTATE_SET)
    async def idea_workstate_set(
        status: str, ctx: Context, task: str | None = None, note: str | None = None
    ) -> str:
        try:
            checked = workstate_arguments(status, task, note)
            row = await state.workstate_set(
                caller_of(ctx, fallback), checked.status, checked.task, checked.note
            )
        except IdeaError as error:
            raise ToolError(error.message) from error
        return json.dumps(row, ensure_ascii=False)
