"""The `# idea orchestration` section of the composed context (D7, D8, ORC-6): who the other
agents are, how to delegate and how to reply, and the rule about native sub-agents."""

from __future__ import annotations

from collections.abc import Sequence

from core.agents.agent import Agent
from core.orchestration.tickets import delegation_prefix

MEMORY_RULE = (
    "Save only what is stable and useful to others later: decisions, lasting user "
    "preferences, workflow rules, important references, a summary worth handing over. "
    "Never save raw conversations, logs, temporary state, task queues, who is doing what "
    "now, trial and error, or hypotheses not yet confirmed, nor what is already written "
    "elsewhere; update an existing note rather than add a near-duplicate."
)
"""What is worth saving in project memory and what is not (FEATURES.md MEM-5)."""


def orchestration_section(
    agent: Agent, team: Sequence[tuple[Agent, str]], *, mcp: bool
) -> str:
    """`team` is every agent of the project with its profile's name; `agent` is unused
    (kept for callers: the text is per project).

    The text is the same for every agent of a project (no "you are X"): an agent's persona
    says who it is, and D7 promises one composed text whatever the strategy.
    """
    del agent
    members = [f"- {a.name} ({profile})" for a, profile in team]
    lines = [
        "You are one agent of a team that idea runs in this project, each agent in its own "
        "terminal. The user can see every agent and step in. The team:",
        *members,
        "",
    ]
    example = delegation_prefix("NAME", "ID")
    if mcp:
        lines += [
            "Delegating: call the MCP tool `idea_ask_agent(target=NAME, task=...)` with "
            "complete, self-contained instructions; its result is the other agent's answer. "
            "If it says \"No reply yet\", call it again with the same target and "
            "`ticket=...`; never send the same task twice. `idea_list_agents` lists the team.",
            "",
            f"Replying: a message that starts with `{example}` is a task for you. Do it, then "
            "call `idea_reply(result=<your complete answer>, ticket=ID)`. The requester sees "
            "only what you pass to `idea_reply`, never your plain-text output, so never "
            "answer in plain text only. Reply once per ticket.",
            "",
            "Never use your own provider's sub-agents (a Task tool, spawned helpers) for work "
            "that another agent of this team owns: delegate it with `idea_ask_agent`.",
            "",
            "Project memory: `idea_memory_read()` lists the team's durable notes and "
            "`idea_memory_read(slug=...)` reads one; `idea_memory_write(slug, content, "
            "description)` saves one for every agent. " + MEMORY_RULE,
            "",
            "Project context (the rules every agent follows now, `.ideai/CONTEXT.md`): "
            "`idea_context_read()` reads it; it has a single writer, the user, so to change "
            "it call `idea_context_propose(content=<the whole new text>, reason=...)` and the "
            "user reviews your proposal.",
            "",
            "Skills: a procedure the team should follow every time (how to release, how to "
            "build) is worth a skill: `idea_create_skill(name, content)` writes it, "
            "`idea_skill_read(name)` reads one; the user decides which agents get it.",
        ]
    else:
        # $IDEA_AGENT (set in every agent's environment) keeps this text the same for all.
        folder = ".ideai/requests/$IDEA_AGENT/"
        lines += [
            "This CLI has no MCP connection to idea: delegate through files. Write a JSON "
            f"file `{folder}<any-name>.json` in the project (`IDEA_AGENT` is in your "
            "environment), e.g. "
            '`{"type": "agent.message", "targetAgent": "NAME", "task": "..."}`; idea deletes '
            "it and writes the answer next to it as `<any-name>.json.response.json`: "
            '`{"ok": true, "action": "agent.message", "reply": "..."}` (or `"ok": false` with '
            "an `error`). Write the file whole (to a temporary name, then rename it), under a new "
            "name for each request: the same request under the same name is answered once.",
            "",
            f"Replying: a message that starts with `{example}` is a task for you. Do it, then "
            f"write `{folder}<any-name>.json` with "
            '`{"type": "agent.reply", "ticket": "ID", "result": "<your complete answer>"}`. '
            "The requester sees only that result.",
            "",
            "Never use your own provider's sub-agents for work that another agent owns.",
            "",
            "Project memory lives in `.ideai/memory/`: `MEMORY.md` lists the notes, one line "
            "each (`- [slug](slug.md) — description`); read them there. Save one with a "
            'request `{"type": "memory.write", "slug": "lowercase-with-dashes", "content": '
            '"<Markdown>", "description": "<one line>"}` (idea writes the note and its index '
            'line); `{"type": "context.propose", "content": "<whole new CONTEXT.md>", '
            '"reason": "..."}` proposes a change to the project context for the user to '
            "review. " + MEMORY_RULE,
            "",
            "Skills: a procedure the team should follow every time is worth a skill: "
            '`{"type": "skill.create", "name": "...", "content": "<Markdown>"}` writes it; '
            "the user decides which agents get it.",
            "",
            "Your work state (the row of the project's live state the user and the others "
            'see): `{"type": "workstate.set", "status": "idle|working|blocked|waiting|done", '
            '"task": "<one line>", "note": "<short>"}` sets it (a field left out keeps its '
            'value; update it when your status changes); `{"type": "workstate.read"}` lists '
            "every agent's row.",
        ]
    return "\n".join(lines) + "\n"
