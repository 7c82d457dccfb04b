"""Project memory end to end (issue 9, MEM-1..5): a fake agent saves a note through MCP on
the real daemon; the note and the index are on disk; another agent launched afterwards gets
a pointer to it in `# Project memory` of its composed context."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from core.knowledge.limits import CONTEXT_INJECT_MAX_CHARS, MEMORY_INJECT_MAX_CHARS
from tests.e2e_agents.delegation import team
from tests.e2e_agents.helpers import Agents, fake_profile
from tests.e2e_agents.test_delegation import ask
from tests.e2e_agents.test_injection import STRATEGIES
from tests.helpers.idea import IdeaEnv

pytestmark = pytest.mark.e2e

SEED_MEMORY = Path(__file__).parents[1] / "fixtures" / "seed_memory"


def tool_task(name: str, arguments: dict[str, str]) -> str:
    return f"call {name} {json.dumps(arguments)}"


def test_memory_written_by_one_agent_reaches_another_at_launch(idea: IdeaEnv) -> None:
    agents = team(idea, ("Scribe",))
    agents.new("Deployer", "fake-mcp",
               "# Deployer\n\nYou run deploys of the shop and check releases.\n")
    saved = ask(agents, "Scribe", tool_task("idea_memory_write", {
        "slug": "deploy-rules",
        "content": "# Deploy rules\n\nDeploy only from main, after a review.\n",
        "description": "Deploys go out from main only, after a review"}))
    assert saved["state"] == "replied", saved
    assert saved["reply"].startswith("saved memory note 'deploy-rules'"), saved
    memory = agents.ideai / "memory"
    assert (memory / "MEMORY.md").read_text() == (
        "# Memory Index\n\n- [deploy-rules](deploy-rules.md) — Deploys go out from main only, "
        "after a review\n")
    assert (memory / "deploy-rules.md").read_text().startswith(
        "---\nname: deploy-rules\ndescription: Deploys go out from main only, after a review\n"
        "metadata:\n  type: project\n---\n# Deploy rules\n")
    # Reading it back through the tool, as another agent would.
    read = ask(agents, "Scribe", tool_task("idea_memory_read", {"slug": "deploy-rules"}))
    assert "Deploy only from main" in read["reply"]

    deployer = agents.info("Deployer")
    agents.launch("Deployer")
    _, received = agents.contexts(deployer["id"], "flag")
    text = received["content"]
    assert text == (agents.run_dir(deployer["id"]) / "context.md").read_text()
    assert "# Project memory\n\n" in text
    section = text[text.index("# Project memory"):]
    assert "- [deploy-rules](deploy-rules.md) — Deploys go out from main only" in section
    assert "idea_memory_read(slug=...)" in section
    # Pointers, not bodies.
    assert "after a review.\n" not in section
    # MEM-5: the orchestration section says what is worth saving.
    assert "Never save raw conversations" in text
    assert text.index("# Project memory") > text.index("You run deploys of the shop")


def test_every_strategy_gets_the_same_bounded_memory_and_context(idea: IdeaEnv) -> None:
    """The seed's memory and a project context far over its bound: all four strategies get
    the same text, with the recalled index lines and the context cut with a pointer."""
    project = idea.new_project("seeded")
    shutil.copytree(SEED_MEMORY, project / ".ideai" / "memory")
    rule = "- Every change goes through review; the build is `make check`.\n"
    (project / ".ideai" / "CONTEXT.md").write_text("# Rules\n\n" + rule * 400)
    agents = Agents(idea, project)
    ids: dict[str, str] = {}
    git_persona = "# Git\n\nYou own commits, merges and every branch of the repository.\n"
    for strategy in STRATEGIES:
        agents.add_profile(fake_profile(f"fake-{strategy}", strategy))
        ids[strategy] = agents.new(f"Git {strategy}", f"fake-{strategy}", git_persona)["name"]
    for strategy in STRATEGIES:
        agents.launch(ids[strategy], "--background")
    contents: dict[str, str] = {}
    for strategy in STRATEGIES:
        agent_id = agents.info(ids[strategy])["id"]
        _, received = agents.contexts(agent_id, "flag" if strategy == "flag-path" else strategy)
        contents[strategy] = received["content"]
    reference = contents["conventionFile"]
    assert all(text == reference for text in contents.values()), list(contents)
    memory = reference[reference.index("# Project memory"):]
    lines = [line for line in memory.splitlines() if line.startswith("- [")]
    assert lines[0].startswith("- [git-owns-commit-merge-decisions]"), lines  # recalled first
    assert len(lines) == 7 and sum(len(line) + 1 for line in lines) <= MEMORY_INJECT_MAX_CHARS
    assert "Je ne dois PLUS demander" not in reference  # a pointer, never the body
    shared = reference[reference.index("# Project context"):reference.index("# Git\n")]
    assert len(shared) < CONTEXT_INJECT_MAX_CHARS + 400
    assert "The project context continues" in shared and "idea_context_read" not in shared
    assert shared.count(rule) > 50
