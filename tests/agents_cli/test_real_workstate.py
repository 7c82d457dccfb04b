"""Real Claude Code and Codex agents launched by `idea` set their work state through MCP
(LIV-6), offline: the scripted model server makes the model call `idea_workstate_set`, and
the row appears in `idea work`; a second agent launched afterwards gets it in its
`# Project state`, its own row left out."""

from __future__ import annotations

import pytest

from tests.agents_cli.delegation import marker, persona
from tests.agents_cli.in_idea import RealTeam
from tests.agents_cli.model_server import McpCall, ModelServer, Script, Text
from tests.helpers.idea import IdeaEnv

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(400)]


@pytest.mark.parametrize("cli", ["claude", "codex"])
def test_a_real_agent_sets_its_work_state_and_the_row_appears(
        idea: IdeaEnv, team: RealTeam, server: ModelServer, script: Script, cli: str) -> None:
    agents = team.project()
    team.new("Dev", cli, persona("dev"))
    team.new("QA", cli, persona("qa"))
    script.add("SET-YOUR-STATE", [
        Text("Setting my state."),
        McpCall("idea", "idea_workstate_set", {"status": "blocked", "task": "TASK-MIGRATION",
                                               "note": "waiting for the schema"}),
    ], system=marker("dev"), name="dev sets its state")
    # The tool's answer (the stored row, JSON inside the CLI's own JSON) ends the turn.
    script.add("waiting for the schema", [Text("STATE-IS-SET")], system=marker("dev"),
               name="dev concludes")

    dev = team.launch("Dev", cli)
    team.type_line(dev["target"], "SET-YOUR-STATE")
    team.wait_marker(dev["target"], "STATE-IS-SET")

    listed = idea.json("work")
    [row] = [r for r in listed["rows"] if r["agent"] == "Dev"]
    assert (row["status"], row["task"], row["note"]) == (
        "blocked", "TASK-MIGRATION", "waiting for the schema")
    # The tool's answer reached the model: the rule that concluded saw the stored row.
    [seen] = [r for r in server.turns() if r.rule == "dev concludes"]
    assert "TASK-MIGRATION" in seen.latest and "blocked" in seen.latest
    # An agent launched now reads Dev's row in its context (its own is not there).
    qa = team.launch("QA", cli)
    qa_id = next(a["id"] for a in agents.list() if a["name"] == "QA")
    context = (agents.run_dir(qa_id) / "context.md").read_text()
    assert "# Project state" in context
    assert "- Dev: blocked — TASK-MIGRATION (waiting for the schema)" in context
    assert "- QA:" not in context
    # ... and its CLI passed it to the model: the system prompt of QA's first turn.
    script.add("WHO-IS-BLOCKED", [Text("QA-HAS-READ-THE-STATE")], system=marker("qa"),
               name="qa answers")
    team.type_line(qa["target"], "WHO-IS-BLOCKED")
    team.wait_marker(qa["target"], "QA-HAS-READ-THE-STATE")
    [turn] = [r for r in server.turns() if r.rule == "qa answers"]
    assert "- Dev: blocked — TASK-MIGRATION (waiting for the schema)" in turn.system
