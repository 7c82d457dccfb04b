"""The project context end to end (issue 9, CTX-1..4): an agent proposes a change through
MCP on the real daemon; CONTEXT.md is untouched until the user accepts it with `idea context
accept`; the next launch of another agent has it in `# Project context`. And the user's
`idea memory` commands on the same store."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.e2e_agents.delegation import team
from tests.e2e_agents.test_delegation import ask
from tests.helpers.idea import IDEA_BIN, IdeaEnv

pytestmark = pytest.mark.e2e


def tool_task(name: str, arguments: dict[str, str]) -> str:
    return f"call {name} {json.dumps(arguments)}"


def test_a_proposal_accepted_by_the_user_lands_in_context_md(idea: IdeaEnv) -> None:
    agents = team(idea, ("Dev",))
    agents.new("Reviewer", "fake-mcp", "# Reviewer\n\nYou review changes.\n")
    context = agents.ideai / "CONTEXT.md"
    context.write_text("# Rules\n\n- The build is `make`.\n")
    proposed = "# Rules\n\n- The build is `make check`.\n- Never push to main.\n"
    result = ask(agents, "Dev", tool_task("idea_context_propose", {
        "content": proposed, "reason": "main broke"}))
    assert "stored for the user's review" in result["reply"], result
    assert context.read_text() == "# Rules\n\n- The build is `make`.\n"

    listed = idea.json("context", "proposals")
    [proposal] = listed["proposals"]
    assert (proposal["author"], proposal["reason"], proposal["stale"]) == ("Dev", "main broke",
                                                                          False)
    assert (proposal["diff"]["added"], proposal["diff"]["removed"]) == (2, 1)
    shown = idea.run("context", "proposals", "--diff").stdout
    assert "+- Never push to main." in shown and "-- The build is `make`." in shown

    accepted = idea.run("context", "accept", proposal["id"]).stdout
    assert "accepted proposal" in accepted
    assert context.read_text() == proposed
    assert idea.json("context", "proposals")["proposals"] == []
    assert idea.run("context", "show").stdout == proposed

    reviewer = agents.info("Reviewer")
    agents.launch("Reviewer")
    _, received = agents.contexts(reviewer["id"], "flag")
    assert f"# Project context\n\n{proposed}" in received["content"]

    # A second proposal, rejected: nothing changes.
    again = ask(agents, "Dev", tool_task("idea_context_propose", {"content": "# Other\n"}))
    assert "stored" in again["reply"]
    [second] = idea.json("context", "proposals")["proposals"]
    idea.run("context", "reject", second["id"])
    assert context.read_text() == proposed
    missing = idea.run("context", "accept", second["id"], check=False)
    assert missing.returncode != 0 and "no pending proposal" in missing.stderr


def test_the_designated_orchestrator_writes_the_context_itself(idea: IdeaEnv) -> None:
    agents = team(idea, ("Lead",))
    assert "Lead may write" in idea.run("context", "orchestrator", "Lead").stdout
    result = ask(agents, "Lead", tool_task("idea_context_propose", {"content": "# Lead's\n"}))
    assert "written directly" in result["reply"], result
    assert (agents.ideai / "CONTEXT.md").read_text() == "# Lead's\n"
    manifest = json.loads((agents.ideai / "agents.json").read_text())
    assert [a.get("orchestrator") for a in manifest["agents"]] == [True]
    idea.run("context", "orchestrator", "--none")
    refused = ask(agents, "Lead", tool_task("idea_context_propose", {"content": "# Again\n"}))
    assert "stored for the user's review" in refused["reply"]


def test_the_user_manages_memory_from_the_command_line(idea: IdeaEnv) -> None:
    project = idea.new_project("notes")
    body = "# Release\n\nTag from main after the changelog.\n"
    done = subprocess.run(
        [IDEA_BIN, "memory", "edit", "release-steps", "--file", "-",
         "--description", "How a release is cut"],
        input=body, capture_output=True, text=True, env=idea.env, cwd=project, timeout=60)
    assert done.returncode == 0, done.stderr
    listed = idea.json("memory", "list", cwd=project)
    assert [(n["slug"], n["description"], n["indexed"]) for n in listed["notes"]] == [
        ("release-steps", "How a release is cut", True)]
    shown = idea.run("memory", "show", "release-steps", cwd=project).stdout
    assert shown.startswith("---\nname: release-steps\n") and shown.endswith(body)
    bad = idea.run("memory", "show", "../../etc/passwd", cwd=project, check=False)
    assert bad.returncode != 0 and "refused" in bad.stderr
    idea.run("memory", "rm", "release-steps", cwd=project)
    assert idea.json("memory", "list", cwd=project)["notes"] == []
    assert (project / ".ideai" / "memory" / "MEMORY.md").read_text() == "# Memory Index\n"


def _editor(path: Path, body: str) -> str:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


def test_the_user_edits_a_note_and_the_context_in_their_editor(
        idea: IdeaEnv, tmp_path: Path) -> None:
    """`idea memory edit` / `idea context edit` open $EDITOR on a copy and save it through the
    daemon; a file changed meanwhile (an agent's save) is not overwritten without -f."""
    project = idea.new_project("notes")
    memory = project / ".ideai" / "memory"
    idea.env.pop("VISUAL", None)
    idea.env["EDITOR"] = _editor(tmp_path / "write", 'printf "Tag from main.\\n" >> "$1"')
    idea.run("memory", "edit", "release-steps", "--description", "How a release is cut",
             cwd=project)
    note = (memory / "release-steps.md").read_text()
    assert note.startswith("---\nname: release-steps\ndescription: How a release is cut\n")
    assert note.endswith("Tag from main.\n")
    assert "- [release-steps](release-steps.md) — How a release is cut" in (
        memory / "MEMORY.md").read_text()

    # An agent saves the note while the user's editor is open: asked, never overwritten.
    idea.env["EDITOR"] = _editor(
        tmp_path / "race",
        f'printf -- "---\\nname: release-steps\\ndescription: theirs\\n---\\nagent\\n" '
        f'> "{memory / "release-steps.md"}"\nprintf "mine\\n" >> "$1"')
    refused = idea.run("memory", "edit", "release-steps", cwd=project, check=False)
    assert refused.returncode == 1 and "changed" in refused.stderr, refused.stderr
    assert (memory / "release-steps.md").read_text().endswith("---\nagent\n")
    idea.run("memory", "edit", "release-steps", "-f", cwd=project)
    assert (memory / "release-steps.md").read_text().endswith("mine\n")

    context = project / ".ideai" / "CONTEXT.md"
    idea.env["EDITOR"] = _editor(tmp_path / "rules",
                                 'printf "# Rules\\n\\nFreeze on Friday.\\n" > "$1"')
    idea.run("context", "edit", cwd=project)
    assert context.read_text() == "# Rules\n\nFreeze on Friday.\n"
    assert idea.run("context", "show", cwd=project).stdout.startswith("# Rules")
