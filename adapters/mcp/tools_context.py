"""The project-context tools (MCP-5 #8, #9; CTX-1..3): read the shared project context or
an agent's persona; propose a change to the context, which the user reviews (the context has
a single writer)."""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from adapters.mcp.identity import Caller
from adapters.mcp.port_context import ContextPort
from adapters.mcp.tool_args import TARGET_MAX, optional_text, text_arg
from adapters.mcp.tool_support import caller_of
from core.errors import IdeaError
from core.knowledge.limits import CONTEXT_MAX_CHARS, PERSONA_MAX_CHARS
from core.knowledge.proposals import REASON_MAX

CONTEXT_READ = (
    "Read the project's shared context (.ideai/CONTEXT.md: the rules and constraints every "
    "agent of this project follows now). With `target` (an agent's name): that agent's "
    "persona instead."
)
CONTEXT_PROPOSE = (
    "Propose a change to the project's shared context. content: the WHOLE new text of "
    ".ideai/CONTEXT.md (read it first with idea_context_read, then edit). reason: one line "
    "saying why. The context has a single writer, the user: your text is stored as a "
    "proposal the user reviews as a diff and accepts or rejects; it does not apply until "
    "then. Put only rules that apply to every agent now there; durable knowledge goes to "
    "idea_memory_write. With `target` (an agent's name) the text replaces that agent's "
    "persona directly, as idea_update_context does."
)


def register_context_tools(server: MCPServer, port: object, fallback: Caller | None) -> None:
    """Add `idea_context_read` and `idea_context_propose` when `port` serves the context."""
    if not isinstance(port, ContextPort):
        return
    context: ContextPort = port

    @server.tool(name="idea_context_read", description=CONTEXT_READ)
    async def idea_context_read(ctx: Context, target: str | None = None) -> str:
        checked = optional_text("target", target, TARGET_MAX)
        try:
            return await context.context_read(caller_of(ctx, fallback), checked)
        except IdeaError as error:
            raise ToolError(error.message) from error

    @server.tool(name="idea_context_propose", description=CONTEXT_PROPOSE)
    async def idea_context_propose(
        content: str, ctx: Context, target: str | None = None, reason: str | None = None
    ) -> str:
        checked_target = optional_text("target", target, TARGET_MAX)
        limit = PERSONA_MAX_CHARS if checked_target else CONTEXT_MAX_CHARS
        checked_content = text_arg("content", content, limit)
        checked_reason = optional_text("reason", reason, REASON_MAX)
        try:
            return await context.context_propose(
                caller_of(ctx, fallback), checked_target, checked_content, checked_reason
            )
        except IdeaError as error:
            raise ToolError(error.message) from error
