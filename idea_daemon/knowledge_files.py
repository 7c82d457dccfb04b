"""Memory and project context through the file protocol (MCP-6: the same operations as the
MCP tools, for agents whose CLI has no MCP). Wire actions as in FEATURES.md MCP-5:

- `{"type": "memory.read", "slug"?: SLUG}` → the note, or the index without a slug;
- `{"type": "memory.write", "slug": SLUG, "content": TEXT, "description"?: LINE,
  "type"?: ...}` → `metadataType` may carry the note's type (`type` names the action);
- `{"type": "context.read", "targetAgent"?: NAME}` → the project context or a persona;
- `{"type": "context.propose", "content": TEXT, "reason"?: LINE, "targetAgent"?: NAME}`.

Arguments are checked here as the tools check theirs (empty, too long, wrong type)."""

from __future__ import annotations

from typing import Any

from adapters.mcp.identity import Caller
from core.knowledge.errors import InvalidArgument, TooLarge
from core.knowledge.limits import (
    CONTEXT_MAX_CHARS,
    MEMORY_DESCRIPTION_MAX,
    MEMORY_NOTE_MAX_CHARS,
    MEMORY_SLUG_MAX,
    PERSONA_MAX_CHARS,
)
from core.knowledge.proposals import REASON_MAX
from idea_daemon.knowledge import Knowledge

ACTIONS = ("memory.read", "memory.write", "context.read", "context.propose")


def _field(request: dict[str, Any], key: str, limit: int, *, required: bool,
           aliases: tuple[str, ...] = ()) -> str | None:
    for name in (key, *aliases):
        value = request.get(name)
        if value is None:
            continue
        if not isinstance(value, str):
            raise InvalidArgument(name, "must be a string")
        if len(value) > limit:
            raise TooLarge(name, len(value), limit)
        if value.strip():
            return value
    if required:
        raise InvalidArgument(key, "is required and must not be empty")
    return None


async def dispatch_knowledge(knowledge: Knowledge, caller: Caller, action: str,
                             request: dict[str, Any]) -> str:
    """The detail of a successful request; errors are `IdeaError`s (an `ok: false`)."""
    target_keys = ("name", "target")
    if action == "memory.read":
        slug = _field(request, "slug", MEMORY_SLUG_MAX + 3, required=False)
        return await knowledge.memory_read(caller, slug)
    if action == "memory.write":
        slug = _field(request, "slug", MEMORY_SLUG_MAX + 3, required=True)
        content = _field(request, "content", MEMORY_NOTE_MAX_CHARS, required=True)
        description = _field(request, "description", MEMORY_DESCRIPTION_MAX, required=False)
        kind = _field(request, "metadataType", 40, required=False)
        assert slug is not None and content is not None
        return await knowledge.memory_write(caller, slug, content, description, kind)
    target = _field(request, "targetAgent", 200, required=False, aliases=target_keys)
    if action == "context.read":
        return await knowledge.context_read(caller, target)
    limit = PERSONA_MAX_CHARS if target else CONTEXT_MAX_CHARS
    content = _field(request, "content", limit, required=True)
    reason = _field(request, "reason", REASON_MAX, required=False)
    assert content is not None
    return await knowledge.context_propose(caller, target, content, reason)
