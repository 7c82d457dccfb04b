"""The skill tools (MCP-5 #7 `idea_create_skill`, #12 `idea_skill_read`, FEATURES.md SKL-4/5).

Arguments are checked here before the port sees them, so a model gets a precise `isError`
result for an empty, oversized or mistyped argument (the limits are in the messages); the
SDK's own schema check refuses a value of the wrong JSON type the same way.
"""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from adapters.mcp.identity import Caller
from adapters.mcp.port_skills import SkillsPort
from adapters.mcp.tool_support import caller_of, tool_error
from core.agents.skills import MAX_NAME, content_problem, name_problem
from core.errors import IdeaError

MAX_QUERY = 256
"""Characters of an `idea_skill_read` name (an id is 128 at most, a name 80)."""

SKILL_READ = (
    "Read a skill of this project: a procedure the team wrote down (how to release, how to "
    "build, ...). name: the skill's name or id, as listed under 'Available skills' in your "
    "instructions. Call it before a task a skill covers, and follow what it says."
)
CREATE_SKILL = (
    "Write down a reusable procedure as a skill, so that other agents can follow it. "
    f"name: short and unique, one line ({MAX_NAME} characters at most). content: the "
    "Markdown; its first line says when to use it (other agents see that line). scope: "
    "'project' (default, this project only) or 'global' (every project of this user). The "
    "user decides which agents get it assigned; anyone can read it with idea_skill_read."
)


def _check(field: str, problem: str | None) -> None:
    if problem is not None:
        raise ToolError(f"{field} {problem}.")


def register_skills_tools(server: MCPServer, port: object, fallback: Caller | None) -> None:
    """Add the two skill tools to `server` when `port` serves them (`SkillsPort`)."""
    if not isinstance(port, SkillsPort):
        return
    skills: SkillsPort = port

    @server.tool(name="idea_skill_read", description=SKILL_READ)
    async def idea_skill_read(name: str, ctx: Context) -> str:
        if not name.strip():
            raise ToolError("name must be a skill's name or id, not empty.")
        if len(name) > MAX_QUERY:
            raise ToolError(f"name is {len(name)} characters long; the limit is {MAX_QUERY}.")
        try:
            return await skills.read_skill(caller_of(ctx, fallback), name)
        except IdeaError as error:
            raise tool_error(error) from error

    @server.tool(name="idea_create_skill", description=CREATE_SKILL)
    async def idea_create_skill(
        name: str, content: str, ctx: Context, scope: str | None = None
    ) -> str:
        _check("name", name_problem(name))
        _check("content", content_problem(content))
        if scope is not None and scope not in ("project", "global"):
            raise ToolError(f"scope must be 'project' or 'global', not {scope[:40]!r}.")
        try:
            return await skills.create_skill(caller_of(ctx, fallback), name, content, scope)
        except IdeaError as error:
            raise tool_error(error) from error
