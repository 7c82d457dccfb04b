"""Real Claude Code and Codex agents launched by `idea` in its cells, offline.

The daemon spawns each CLI from its built-in profile (`idea agent launch`), in a PTY of its
own; the scripted model server stands in for the providers. A line typed into the cell is a
real turn: the scripted answer shows in the cell, and the request carries the composed
context idea built for the launch (its persona, its project section).
"""

from __future__ import annotations

import pytest

from tests.agents_cli.in_idea import RealTeam
from tests.agents_cli.model_server import ModelServer, Script, Text
from tests.helpers.idea import IdeaEnv

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(400)]


@pytest.mark.parametrize("cli", ["claude", "codex"])
def test_an_agent_launched_by_idea_answers_a_turn_with_its_composed_context(
        idea: IdeaEnv, team: RealTeam, server: ModelServer, script: Script, cli: str) -> None:
    team.project()
    persona = f"# Reviewer\n\nYou review code. PERSONA-MARK-{cli.upper()} ✓\n"
    created = team.new("Rev", cli, persona)
    script.add(f"LINE-FROM-USER-{cli}", [Text(f"ANSWER-IN-CELL-{cli}")])
    launched = team.launch("Rev", cli)
    team.type_line(launched["target"], f"LINE-FROM-USER-{cli}")
    team.wait_marker(launched["target"], f"ANSWER-IN-CELL-{cli}")
    [turn] = [r for r in server.turns() if r.rule == f"LINE-FROM-USER-{cli}"]
    # The whole composed context the daemon wrote for this launch, persona included.
    context = (team.team.run_dir(created["id"]) / "context.md").read_text(encoding="utf-8")
    assert f"PERSONA-MARK-{cli.upper()} ✓" in context
    assert context.strip() in turn.system
