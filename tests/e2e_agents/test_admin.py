"""Agents and templates from the command line (AGT-1..3, TPL-1..5, D24).

Names give kebab-case Markdown paths, unique; rename keeps the file; delete asks, stops a
running agent and keeps its Markdown in the trash. Templates have versions; an agent made
from one with --sync shows "update available" after an update and syncs, backing up local
edits first; an agent that is not synced is never written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.e2e_agents.helpers import Agents, fake_profile
from tests.helpers.idea import IdeaEnv, process_alive
from tests.helpers.retry import retry_until

pytestmark = pytest.mark.e2e

TEAM = {"conductor", "architect", "developer", "qa", "git-keeper"}


@pytest.fixture
def agents(idea: IdeaEnv) -> Agents:
    team = Agents(idea, idea.new_project("proj"))
    team.add_profile(fake_profile("fake", "flag"))
    return team


def manifest_names(agents: Agents) -> dict[str, str]:
    """name → mdPath, as `.ideai/agents.json` has them."""
    data = json.loads((agents.ideai / "agents.json").read_text())
    return {agent["name"]: agent.get("mdPath", agent.get("md")) for agent in data["agents"]}


def test_names_make_unique_kebab_case_markdown_paths(idea: IdeaEnv, agents: Agents) -> None:
    qa = agents.new("QA", "fake")
    assert qa["mdPath"] == "agents/qa.md"
    assert Path(qa["path"]) == agents.ideai / "agents" / "qa.md"
    assert Path(qa["path"]).read_text().startswith("# QA")

    for taken in ("QA", "qa"):
        again = idea.run("agent", "new", taken, "--profile", "fake", check=False)
        assert again.returncode == 1, again
        assert "qa" in again.stderr.lower() and "name" in again.stderr
        assert "Traceback" not in again.stderr
    spaced = agents.new("Q A", "fake")
    assert spaced["mdPath"] == "agents/q-a.md"
    dashed = agents.new("Q-A", "fake")
    assert dashed["mdPath"] not in ("agents/q-a.md", "agents/qa.md")
    assert dashed["mdPath"].startswith("agents/q-a") and dashed["mdPath"].endswith(".md")
    backend = agents.new("Backend Dev (API)", "fake")
    assert backend["mdPath"] == "agents/backend-dev-api.md"
    assert manifest_names(agents) == {
        "QA": "agents/qa.md", "Q A": "agents/q-a.md", "Q-A": dashed["mdPath"],
        "Backend Dev (API)": "agents/backend-dev-api.md"}
    unknown = idea.run("agent", "new", "Nobody", "--profile", "no-such-profile", check=False)
    assert unknown.returncode == 1 and "no-such-profile" in unknown.stderr
    assert "Nobody" not in manifest_names(agents)


def test_rename_keeps_the_file_and_refuses_a_taken_name(idea: IdeaEnv, agents: Agents) -> None:
    qa = agents.new("QA", "fake")
    agents.new("Dev", "fake")
    before = Path(qa["path"]).read_bytes()
    renamed = idea.json("agent", "rename", "QA", "Tester")
    assert renamed["name"] == "Tester"
    assert manifest_names(agents)["Tester"] == "agents/qa.md"
    assert Path(qa["path"]).read_bytes() == before
    clash = idea.run("agent", "rename", "Tester", "dev", check=False)
    assert clash.returncode == 1 and "dev" in clash.stderr.lower()
    assert sorted(manifest_names(agents)) == ["Dev", "Tester"]
    missing = idea.run("agent", "rename", "QA", "Other", check=False)
    assert missing.returncode == 1 and "QA" in missing.stderr


def test_rm_asks_then_stops_the_agent_and_keeps_its_markdown(
        idea: IdeaEnv, agents: Agents) -> None:
    doomed = agents.new("Doomed", "fake", "# Doomed\n\nMy notes.\n")
    launched = agents.launch("Doomed")
    report = agents.report(doomed["id"], lambda r: r["state"] == "running")

    asked = idea.run("agent", "rm", "Doomed", check=False)
    assert asked.returncode == 1
    assert "Delete agent Doomed?" in asked.stderr and "running" in asked.stderr
    assert "add -f" in asked.stderr
    assert "Doomed" in manifest_names(agents) and Path(doomed["path"]).exists()
    assert process_alive(report["pid"])

    idea.run("agent", "rm", "Doomed", "-f")
    retry_until(lambda: not process_alive(report["pid"]), 30,
                describe=f"agent process {report['pid']} still runs")
    assert "Doomed" not in manifest_names(agents)
    assert not Path(doomed["path"]).exists()
    trashed = list((agents.ideai / "run" / "trash").glob("*.md"))
    assert [path.read_text() for path in trashed] == ["# Doomed\n\nMy notes.\n"]
    assert all(agent["name"] != "Doomed" for agent in agents.list())
    # Its cell no longer belongs to an agent; the rest keeps answering.
    cell = {c["id"]: c for c in idea.cells()}.get(launched["cell"])
    assert cell is None or "Doomed" not in json.dumps(cell)
    idea.run("ls")


def test_templates_new_list_update_rm_and_the_team_pack(idea: IdeaEnv, agents: Agents) -> None:
    assert idea.json("template", "list")["templates"] == []
    source = idea.root / "reviewer.md"
    source.write_text("# Reviewer\n\nv1 text.\n")
    created = idea.json("template", "new", "Code Reviewer", "--file", str(source),
                        "--profile", "fake")
    assert created == {"id": "code-reviewer", "name": "Code Reviewer", "version": 1}
    [listed] = idea.json("template", "list")["templates"]
    assert listed["version"] == 1 and listed["defaultProfileId"] == "fake"
    assert idea.json("template", "show", "code-reviewer")["content"] == "# Reviewer\n\nv1 text.\n"

    source.write_text("# Reviewer\n\nv2 text.\n")
    updated = idea.json("template", "update", "code-reviewer", "--file", str(source))
    assert updated["version"] == 2
    renamed = idea.json("template", "update", "code-reviewer", "--name", "Reviewer")
    assert renamed["version"] >= 2 and renamed["name"] == "Reviewer"
    [listed] = idea.json("template", "list")["templates"]
    assert listed["name"] == "Reviewer" and listed["version"] == renamed["version"]

    idea.json("template", "rm", "code-reviewer")
    assert idea.json("template", "list")["templates"] == []
    gone = idea.run("template", "show", "code-reviewer", check=False)
    assert gone.returncode == 1 and "code-reviewer" in gone.stderr

    pack = idea.json("template", "install-pack")
    assert len(pack) == 5 and {t["id"] for t in pack} == TEAM
    listed_ids = {t["id"] for t in idea.json("template", "list")["templates"]}
    assert listed_ids == TEAM
    for template in TEAM:
        content = idea.json("template", "show", template)["content"]
        assert content.startswith("#") and len(content) > 200
    # Installing again refreshes, it does not duplicate.
    assert len(idea.json("template", "install-pack")) == 5
    assert len(idea.json("template", "list")["templates"]) == 5


def test_a_synced_agent_follows_its_template_and_local_edits_are_backed_up(
        idea: IdeaEnv, agents: Agents) -> None:
    source = idea.root / "dev.md"
    source.write_text("# Developer\n\nTemplate v1.\n")
    idea.run("template", "new", "Developer", "--file", str(source), "--profile", "fake")
    synced = agents.new("Dev", "fake", None, "--template", "developer", "--sync")
    copied = agents.new("Fork", "fake", None, "--template", "Developer")
    scratch = agents.new("Scratch", "fake")
    assert Path(synced["path"]).read_text() == "# Developer\n\nTemplate v1.\n"
    assert Path(copied["path"]).read_text() == "# Developer\n\nTemplate v1.\n"
    info = {a["name"]: a for a in agents.list()}
    assert info["Dev"]["synchronized"] is True and info["Dev"]["template"] == "developer"
    assert info["Fork"]["synchronized"] is False
    assert not any("updateAvailable" in agent for agent in info.values())
    untouched = {path: path.read_bytes()
                 for path in (Path(copied["path"]), Path(scratch["path"]))}

    source.write_text("# Developer\n\nTemplate v2.\n")
    idea.run("template", "update", "developer", "--file", str(source))
    info = {a["name"]: a for a in agents.list()}
    assert info["Dev"]["updateAvailable"] == {"from": 1, "to": 2}
    assert "updateAvailable" not in info["Fork"] and "updateAvailable" not in info["Scratch"]
    assert Path(synced["path"]).read_text() == "# Developer\n\nTemplate v1.\n", \
        "an update offers, it does not write"

    # No local edit: a sync replaces the file.
    synced_v2 = idea.json("agent", "sync", "Dev")
    assert synced_v2["version"] == 2 and synced_v2["backup"] is None
    assert Path(synced["path"]).read_text() == "# Developer\n\nTemplate v2.\n"
    assert "updateAvailable" not in agents.info("Dev")

    # A local edit, then v3: the sync asks, naming the backup; -f backs up, then replaces.
    Path(synced["path"]).write_text("# Developer\n\nMy own rules.\n")
    source.write_text("# Developer\n\nTemplate v3.\n")
    idea.run("template", "update", "developer", "--file", str(source))
    assert agents.info("Dev")["updateAvailable"] == {"from": 2, "to": 3}
    refused = idea.run("agent", "sync", "Dev", check=False)
    assert refused.returncode == 1
    assert "edited since its last sync" in refused.stderr and "add -f" in refused.stderr
    named = re.search(r"kept in (agents/dev\.md\.bak-\S+?)\. Continue", refused.stderr)
    assert named, refused.stderr
    assert Path(synced["path"]).read_text() == "# Developer\n\nMy own rules.\n"
    forced = idea.json("agent", "sync", "Dev", "-f")
    assert forced["version"] == 3 and forced["backup"] == named.group(1)
    backup = agents.ideai / forced["backup"]
    assert backup.read_text() == "# Developer\n\nMy own rules.\n"
    assert Path(synced["path"]).read_text() == "# Developer\n\nTemplate v3.\n"
    assert "updateAvailable" not in agents.info("Dev")

    # The agents that are not synced were never written.
    assert {path: path.read_bytes() for path in untouched} == untouched
    not_synced = idea.run("agent", "sync", "Scratch", check=False)
    assert not_synced.returncode == 1 and "template" in not_synced.stderr


def test_keep_in_sync_on_and_off(idea: IdeaEnv, agents: Agents) -> None:
    source = idea.root / "qa.md"
    source.write_text("# QA\n\nv1.\n")
    idea.run("template", "new", "QA", "--file", str(source), "--profile", "fake")
    made = agents.new("Tess", "fake", None, "--template", "qa")
    assert agents.info("Tess")["synchronized"] is False
    assert idea.json("agent", "keep-in-sync", "Tess", "on")["synchronized"] is True
    source.write_text("# QA\n\nv2.\n")
    idea.run("template", "update", "qa", "--file", str(source))
    assert agents.info("Tess")["updateAvailable"] == {"from": 1, "to": 2}
    assert idea.json("template", "sync", "Tess")["version"] == 2
    assert Path(made["path"]).read_text() == "# QA\n\nv2.\n"
    assert idea.json("agent", "keep-in-sync", "Tess", "off")["synchronized"] is False
    scratch = agents.new("Plain", "fake")
    refused = idea.run("agent", "keep-in-sync", "Plain", "on", check=False)
    assert refused.returncode == 1 and "template" in refused.stderr
    assert Path(scratch["path"]).exists()


def test_a_template_edited_outside_idea_is_an_update(idea: IdeaEnv, agents: Agents) -> None:
    source = idea.root / "arch.md"
    source.write_text("# Architect\n\nv1.\n")
    idea.run("template", "new", "Architect", "--file", str(source), "--profile", "fake")
    synced = agents.new("Archie", "fake", None, "--template", "architect", "--sync")
    copied = agents.new("Copy", "fake", None, "--template", "architect")
    kept = Path(copied["path"]).read_bytes()
    # Edited in another editor, not through idea.
    (idea.locations.data / "templates" / "md" / "architect.md").write_text("# Architect\n\nv2.\n")
    listed = idea.json("template", "list")
    assert listed["editedOutside"] == ["architect"]
    assert listed["templates"][0]["version"] == 2
    assert agents.info("Archie")["updateAvailable"] == {"from": 1, "to": 2}
    assert "updateAvailable" not in agents.info("Copy")
    assert idea.json("agent", "sync", "Archie")["version"] == 2
    assert Path(synced["path"]).read_text() == "# Architect\n\nv2.\n"
    assert Path(copied["path"]).read_bytes() == kept
    assert idea.json("template", "list")["editedOutside"] == []


def test_profile_rm_names_the_agents_that_still_use_it(idea: IdeaEnv, agents: Agents) -> None:
    agents.new("Dev", "fake")
    removed = idea.json("profile", "rm", "fake")
    assert removed["removed"] == "fake"
    assert [entry.split(":")[1] for entry in removed["usedBy"]] == ["Dev"]
    listed = {p["id"] for p in idea.json("profile", "list")["profiles"]}
    assert "fake" not in listed and "claude-code" in listed  # built-ins stay available
    failed = idea.run("profile", "rm", "fake", check=False)
    assert failed.returncode == 1 and "fake" in failed.stderr
