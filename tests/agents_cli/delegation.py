"""Scripting delegation between real agents: who asks whom, who answers what.

Every agent of a scenario shares one model server; a rule is tied to one agent by a marker
that only its persona carries (its persona is in its system prompt). The task idea types
into a target starts with the D8 prefix `[idea · task from NAME · ticket ID]`; the target's
scripted model reads the ticket from it and answers with `idea_reply(result, ticket)`, as
the tool descriptions tell a real model to.
"""

from __future__ import annotations

import re

from tests.agents_cli.model_server import McpCall, ModelRequest, Reply, Script, Text

TASK_PREFIX = re.compile(r"\[idea · task from (?P<caller>[^·\]]+?) · ticket (?P<ticket>[^\]\s]+)\]")
NO_REPLY_YET = re.compile(r'No reply yet from (?P<target>\S+) \(ticket (?P<ticket>[^,\s]+)')


def persona(name: str) -> str:
    """A persona whose marker (`PERSONA-NAME`) ties rules to this agent."""
    return (f"# {name.title()}\n\nYou are {name.title()}, an agent of this team. "
            f"PERSONA-{name.upper()}\n")


def marker(name: str) -> str:
    return f"PERSONA-{name.upper()}"


def asks(script: Script, who: str, on: str, target: str, task: str) -> None:
    """When `who` gets a line matching `on`, it calls idea_ask_agent(target, task)."""
    script.add(on, [Text(f"Asking {target}."),
                    McpCall("idea", "idea_ask_agent", {"target": target, "task": task})],
               system=marker(who), name=f"{who} asks {target}")


def keeps_waiting(script: Script, who: str) -> None:
    """On "No reply yet … ticket T", `who` calls idea_ask_agent again with the ticket (as the
    tool's description says), any number of times."""
    def again(request: ModelRequest) -> Reply:
        found = NO_REPLY_YET.search(request.latest)
        assert found is not None
        return [McpCall("idea", "idea_ask_agent",
                        {"target": found["target"], "ticket": found["ticket"]})]

    script.add(NO_REPLY_YET.pattern, again, times=None, system=marker(who),
               name=f"{who} waits again")


def answers(script: Script, who: str, on: str, result: str, times: int | None = 1) -> None:
    """When a task matching `on` is delivered to `who`, it replies `result` to its ticket."""
    def reply(request: ModelRequest) -> Reply:
        found = TASK_PREFIX.search(request.latest)
        assert found is not None, f"no D8 prefix in {request.latest[-300:]!r}"
        return [McpCall("idea", "idea_reply", {"result": result, "ticket": found["ticket"]})]

    script.add(on, reply, times=times, system=marker(who), name=f"{who} answers {on}")


def concludes(script: Script, who: str, on: str, text: str) -> None:
    """When `who` gets a tool result matching `on`, it ends its turn saying `text`."""
    script.add(on, [Text(text)], system=marker(who), name=f"{who} concludes {on}")
