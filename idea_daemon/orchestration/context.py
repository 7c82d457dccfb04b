"""The `# idea orchestration` section of the composed context (D7, D8, ORC-6): who the other
agents are, how to delegate and how to reply, and the rule about native sub-agents."""

from __future__ import annotations

from collections.abc import Sequence

from core.agents.agent import Agent
from core.orchestration.tickets import delegation_prefix


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
            "an `error`). Write the file whole (to a temporary name, then rename it).",
            "",
            f"Replying: a message that starts with `{example}` is a task for you. Do it, then "
            f"write `{folder}<any-name>.json` with "
            '`{"type": "agent.reply", "ticket": "ID", "result": "<your complete answer>"}`. '
            "The requester sees only that result.",
            "",
            "Never use your own provider's sub-agents for work that another agent owns.",
        ]
    return "\n".join(lines) + "\n"
