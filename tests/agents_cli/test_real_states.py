"""The built-in state rules (core/agents/state_rules.py data in adapters/agents/catalogue.py)
against the real CLIs' TUIs launched by `idea` (issue 8: "when is an agent free?"): idle at
its prompt, then working while its model takes its time, then idle again. (Blocked on a
permission question is not produced here: launched this way Claude Code 2.1.332 shows
"⏵⏵ auto mode on" and ran a Bash call without asking; Codex runs with approvals off.) The
verdicts come from the daemon (`idea agent state --json`), with the rule and the screen line
that decided, so a CLI update that breaks detection fails here with the screen in hand."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from tests.agents_cli.delegation import marker, persona
from tests.agents_cli.in_idea import WAIT, RealTeam
from tests.agents_cli.model_server import Held, ModelRequest, Reply, Script, Text
from tests.helpers.retry import retry_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

WORKING_RULES = {"claude": ("workingTitle", "workingScreen"), "codex": ("workingScreen",)}
"""The rules that may see each CLI at work: Claude Code also says so in its title."""


def state_becomes(team: RealTeam, name: str, wanted: str, target: str) -> dict[str, Any]:
    def look() -> dict[str, Any] | None:
        state: dict[str, Any] = team.idea.json("agent", "state", name)
        return state if state["state"] == wanted else None

    def why() -> str:
        return f"{team.idea.json('agent', 'state', name)}\n{team.idea.capture(target)}"

    found: dict[str, Any] = retry_until(look, WAIT, interval=0.2, describe=why)
    return found


@pytest.mark.parametrize("cli", ["claude", "codex"])
def test_a_real_cli_is_seen_idle_then_working_while_its_model_takes_its_time(
        team: RealTeam, script: Script, cli: str) -> None:
    team.project()
    team.new("Dev", cli, persona("dev"))
    release = threading.Event()

    def held(request: ModelRequest) -> Reply:
        return Held([Text("HELD-TURN-DONE")], release.is_set)

    script.add("HOLD-THE-TURN", held, system=marker("dev"), name="dev takes its time")
    dev = team.launch("Dev", cli)
    target = dev["target"]

    idle = state_becomes(team, "Dev", "idle", target)
    assert idle["rule"].startswith("idleScreen"), idle
    team.type_line(target, "HOLD-THE-TURN")
    working = state_becomes(team, "Dev", "working", target)
    assert working["rule"].startswith(WORKING_RULES[cli]), working
    release.set()
    team.wait_marker(target, "HELD-TURN-DONE")
    state_becomes(team, "Dev", "idle", target)
