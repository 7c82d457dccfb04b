"""The memory tools (MCP-5 #10, #11, FEATURES.md MEM-5): read the project's durable notes
and save one. The descriptions say what is worth saving, so a model does not fill memory
with logs (the orchestration section says it too)."""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from adapters.mcp.identity import Caller
from adapters.mcp.port_memory import MemoryPort
from adapters.mcp.tool_args import optional_text, text_arg
from adapters.mcp.tool_support import caller_of
from core.errors import IdeaError
from core.knowledge.limits import (
    MEMORY_DESCRIPTION_MAX,
    MEMORY_NOTE_MAX_CHARS,
    MEMORY_SLUG_MAX,
)
from core.knowledge.note import NOTE_TYPES

MEMORY_READ = (
    "Read the project's shared memory (durable notes every agent of this project can use). "
    "Without `slug`: the index, one line per note (`- [slug](slug.md) — description`). "
    "With `slug`: that note (frontmatter and Markdown body; [[other-slug]] links to notes)."
)
MEMORY_WRITE = (
    "Save a durable note in the project's shared memory (created or replaced; the index "
    "MEMORY.md is kept in step). slug: the note's name, lowercase-with-dashes, e.g. "
    "'git-branching-rules'. content: the note's Markdown (or a whole note with its `---` "
    "frontmatter). description: one line for the index (else the first line is used). "
    f"type: one of {', '.join(NOTE_TYPES)} (default project). Save only knowledge that is "
    "stable and useful to others later: decisions, user preferences that last, workflow "
    "rules, important references, a summary worth handing over. Never save raw "
    "conversations, logs, temporary state, task queues, who-is-doing-what, trial and "
    "error, or guesses not yet confirmed. Read the index first and update an existing note "
    "rather than add a near-duplicate."
)


def register_memory_tools(server: MCPServer, port: object, fallback: Caller | None) -> None:
    """Add `idea_memory_read` and `idea_memory_write` when `port` serves memory."""
    if not isinstance(port, MemoryPort):
        return
    memory: MemoryPort = port

    @server.tool(name="idea_memory_read", description=MEMORY_READ)
    async def idea_memory_read(ctx: Context, slug: str | None = None) -> str:
        checked = optional_text("slug", slug, MEMORY_SLUG_MAX + 3)
        try:
            return await memory.memory_read(caller_of(ctx, fallback), checked)
        except IdeaError as error:
            raise ToolError(error.message) from error

    @server.tool(name="idea_memory_write", description=MEMORY_WRITE)
    async def idea_memory_write(
        slug: str,
        content: str,
        ctx: Context,
        description: str | None = None,
        type: str | None = None,  # the note's metadata.type
    ) -> str:
        checked_slug = text_arg("slug", slug, MEMORY_SLUG_MAX + 3)
        checked_content = text_arg("content", content, MEMORY_NOTE_MAX_CHARS)
        checked_description = optional_text("description", description, MEMORY_DESCRIPTION_MAX)
        kind = optional_text("type", type, 40)
        try:
            return await memory.memory_write(
                caller_of(ctx, fallback), checked_slug, checked_content, checked_description, kind
            )
        except IdeaError as error:
            raise ToolError(error.message) from error
