"""Project memory with the real Claude Code and Codex CLIs launched by `idea`, offline.

The scripted model makes the agent call `idea_memory_write` through the MCP config idea
generated; the note and the MEMORY.md index are then on disk, in the seed's format. A second
agent launched afterwards gets the note's index line in `# Project memory`, and its real
CLI sends it to the model in the system prompt.
"""

from __future__ import annotations

import pytest

from core.knowledge.memory_index import parse_index
from core.knowledge.note import parse_note
from tests.agents_cli.delegation import marker, persona
from tests.agents_cli.in_idea import RealTeam
from tests.agents_cli.model_server import McpCall, ModelServer, Script, Text
from tests.helpers.idea import IdeaEnv

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(500)]


@pytest.mark.parametrize("cli", ["claude", "codex"])
def test_a_real_agent_saves_a_memory_note_that_the_next_launch_gets(
        idea: IdeaEnv, team: RealTeam, server: ModelServer, script: Script, cli: str) -> None:
    agents = team.project()
    team.new("Scribe", cli, persona("scribe"))
    slug = f"release-rules-{cli}"
    script.add("SAVE-A-NOTE", [Text("Saving it."), McpCall("idea", "idea_memory_write", {
        "slug": slug, "content": "# Release rules\n\nTag from main after the changelog.\n",
        "description": f"Releases are tagged from main ({cli})", "type": "feedback"})],
        system=marker("scribe"), name="scribe saves")
    script.add("saved memory note", [Text("NOTE-SAVED-OK")], system=marker("scribe"),
               name="scribe concludes")
    scribe = team.launch("Scribe", cli)
    team.type_line(scribe["target"], "SAVE-A-NOTE")
    team.wait_marker(scribe["target"], "NOTE-SAVED-OK")

    folder = agents.ideai / "memory"
    note = parse_note(slug, (folder / f"{slug}.md").read_text(encoding="utf-8"))
    assert (note.description, note.type) == (f"Releases are tagged from main ({cli})",
                                             "feedback")
    assert note.body == "# Release rules\n\nTag from main after the changelog.\n"
    index = parse_index((folder / "MEMORY.md").read_text(encoding="utf-8"))
    assert [e.slug for e in index.entries] == [slug]
    [saved] = [r for r in server.turns() if r.rule == "scribe concludes"]
    assert f"saved memory note '{slug}'" in saved.latest

    # The next agent launched gets a pointer to it, through its real CLI's system prompt.
    team.new("Releaser", cli, persona("releaser") + "You tag and publish releases.\n")
    script.add("HELLO-RELEASER", [Text("RELEASER-READY")], system=marker("releaser"),
               name="releaser answers")
    releaser = team.launch("Releaser", cli)
    team.type_line(releaser["target"], "HELLO-RELEASER")
    team.wait_marker(releaser["target"], "RELEASER-READY")
    [turn] = [r for r in server.turns() if r.rule == "releaser answers"]
    assert "# Project memory" in turn.system
    assert f"- [{slug}]({slug}.md) — Releases are tagged from main ({cli})" in turn.system
    assert "Tag from main after the changelog." not in turn.system  # pointers, not bodies
