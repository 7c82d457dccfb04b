"""The tool catalogue (MCP-5 #1–#6) on an `MCPServer`, with descriptions that tell a model
exactly what to do: answer with `idea_reply`, never in plain text; on "no reply yet", call
again with the ticket rather than asking twice.

The caller is whoever the transport authenticated (`adapters.mcp.identity`): the HTTP layer
puts it in the request scope, the Unix-socket bridge in each message's metadata. A tool
argument can never change it.
"""

from __future__ import annotations

import json
import logging
import time

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from adapters.mcp.identity import Caller
from adapters.mcp.port import Orchestrator
from adapters.mcp.tool_args import (
    MESSAGE_MAX_CHARS,
    TARGET_MAX,
    TICKET_MAX,
    optional_text,
    text_arg,
)
from adapters.mcp.tool_support import SCOPE_KEY as SCOPE_KEY  # (http.py reads it here)
from adapters.mcp.tool_support import caller_of, tool_error
from adapters.mcp.tools_context import register_context_tools
from adapters.mcp.tools_memory import register_memory_tools
from adapters.mcp.tools_skills import register_skills_tools
from adapters.mcp.tools_workstate import register_workstate_tools
from core.errors import IdeaError
from core.knowledge.limits import PERSONA_MAX_CHARS

log = logging.getLogger(__name__)

SERVER_NAME = "idea"

INSTRUCTIONS = (
    "idea runs a team of agents, each in its own terminal. Delegate with idea_ask_agent, "
    "answer tasks delivered to you (they start with '[idea · task from NAME · ticket ID]') "
    "with idea_reply — the requester only ever sees what you pass to idea_reply."
)

LIST_AGENTS = (
    "List the agents of this project you can delegate to: name, id, profile, state "
    "(starting, idle, working, blocked = waiting for its user, exited, stopped), queue depth "
    "and current ticket. Call it when you do not know an agent's exact name."
)
ASK_AGENT = (
    "Give a task to another agent of this project and wait for its answer. "
    "target: the agent's name (see idea_list_agents). task: complete, self-contained "
    "instructions — the other agent does not see your conversation or files you did not "
    "name. The task joins the target's queue (each agent works on one task at a time) and "
    "idea types it into the target's terminal; the target's idea_reply comes back here as "
    "this tool's result. One call waits about 100 seconds at most: if the answer is not "
    "ready you get 'No reply yet' with a ticket — then call idea_ask_agent again with the "
    "same target and ticket=<that ticket> (task may be empty) to keep waiting. Never re-send "
    "the task without the ticket: that queues it twice. Errors (unknown agent, an ask that "
    "would make two agents wait for each other, a full queue, a timeout) come back as error "
    "results that say what to do. Do not use your own sub-agents for work another agent owns."
)
REPLY = (
    "Answer a task idea delivered to you. Such tasks start with "
    "'[idea · task from NAME · ticket ID]'. When you are done, call "
    "idea_reply(result=<your complete answer>, ticket=<ID>): the requester sees only "
    "`result`, never your plain-text output. Call it once per ticket; without `ticket` it "
    "answers your current task."
)
LAUNCH_AGENT = (
    "Start an agent of this project. visibility: 'visible' opens it in a new cell of the "
    "user's screen, 'background' runs it without a cell. task (optional): queued for it as "
    "by idea_ask_agent, without waiting; the result gives the ticket, and "
    "idea_ask_agent(target, ticket=…) collects the answer later."
)
STOP_AGENT = (
    "Stop a running agent of this project. Tasks waiting in its queue end as failed "
    "(their askers are told)."
)
UPDATE_CONTEXT = (
    "Replace the Markdown instructions (persona) of an agent of this project with `content`. "
    "It takes effect at the agent's next launch; a running agent is not interrupted."
)


_caller = caller_of
_fail = tool_error


def build_server(orchestrator: Orchestrator, *, fallback: Caller | None = None) -> MCPServer:
    """The MCP server. `fallback` (tests with the in-process client only) is the caller
    when the transport carries none."""
    server: MCPServer = MCPServer(
        SERVER_NAME, instructions=INSTRUCTIONS, version="1", log_level="WARNING"
    )

    @server.tool(name="idea_list_agents", description=LIST_AGENTS)
    async def idea_list_agents(ctx: Context) -> str:
        try:
            agents = await orchestrator.list_agents(_caller(ctx, fallback))
        except IdeaError as error:
            raise _fail(error) from error
        return json.dumps(agents, ensure_ascii=False)

    @server.tool(name="idea_ask_agent", description=ASK_AGENT)
    async def idea_ask_agent(
        target: str, ctx: Context, task: str = "", ticket: str | None = None
    ) -> str:
        checked_target = text_arg("target", target, TARGET_MAX)
        checked_ticket = optional_text("ticket", ticket, TICKET_MAX)
        # With a ticket the call only collects the answer: the task may be left out.
        checked_task = text_arg("task", task, MESSAGE_MAX_CHARS, required=not checked_ticket)
        caller = _caller(ctx, fallback)
        started = time.monotonic()

        async def progress(message: str) -> None:
            try:
                await ctx.report_progress(time.monotonic() - started, None, message)
            except Exception:  # a client that left: the wait goes on, the ticket is kept
                log.debug("progress for %s not sent", caller.name, exc_info=True)

        try:
            outcome = await orchestrator.ask(
                caller, checked_target, checked_task, checked_ticket, progress
            )
        except IdeaError as error:
            raise _fail(error) from error
        if outcome.reply is not None:
            return outcome.reply
        return (
            f"No reply yet from {outcome.target} (ticket {outcome.ticket}, {outcome.state}). "
            f'Call idea_ask_agent again with target="{outcome.target}" and '
            f'ticket="{outcome.ticket}" to keep waiting; do not send the task again.'
        )

    @server.tool(name="idea_reply", description=REPLY)
    async def idea_reply(result: str, ctx: Context, ticket: str | None = None) -> str:
        checked_result = text_arg("result", result, MESSAGE_MAX_CHARS)
        checked_ticket = optional_text("ticket", ticket, TICKET_MAX)
        try:
            return await orchestrator.reply(
                _caller(ctx, fallback), checked_result, checked_ticket
            )
        except IdeaError as error:
            raise _fail(error) from error

    @server.tool(name="idea_launch_agent", description=LAUNCH_AGENT)
    async def idea_launch_agent(
        target: str, ctx: Context, visibility: str = "background", task: str | None = None
    ) -> str:
        checked_target = text_arg("target", target, TARGET_MAX)
        if visibility not in ("visible", "background"):
            raise ToolError("visibility must be 'visible' or 'background'")
        checked_task = optional_text("task", task, MESSAGE_MAX_CHARS)
        try:
            return await orchestrator.launch(
                _caller(ctx, fallback), checked_target, visibility, checked_task
            )
        except IdeaError as error:
            raise _fail(error) from error

    @server.tool(name="idea_stop_agent", description=STOP_AGENT)
    async def idea_stop_agent(target: str, ctx: Context) -> str:
        checked_target = text_arg("target", target, TARGET_MAX)
        try:
            return await orchestrator.stop(_caller(ctx, fallback), checked_target)
        except IdeaError as error:
            raise _fail(error) from error

    @server.tool(name="idea_update_context", description=UPDATE_CONTEXT)
    async def idea_update_context(target: str, content: str, ctx: Context) -> str:
        checked_target = text_arg("target", target, TARGET_MAX)
        checked_content = text_arg("content", content, PERSONA_MAX_CHARS)
        try:
            return await orchestrator.update_context(
                _caller(ctx, fallback), checked_target, checked_content
            )
        except IdeaError as error:
            raise _fail(error) from error

    register_skills_tools(server, orchestrator, fallback)
    register_memory_tools(server, getattr(orchestrator, "knowledge", None), fallback)
    register_context_tools(server, getattr(orchestrator, "knowledge", None), fallback)
    register_workstate_tools(server, orchestrator, fallback)
    return server

