"""Skills end to end (SKL-3..SKL-5, scenario 23): the real daemon, fake agents on real PTYs.

An assigned skill reaches the agent's launch context — as a line pointing at
`idea_skill_read` for an agent that speaks MCP, as its full text at the end for one that does
not — and leaves it at the next launch once unassigned. A skill written by one agent through
`idea_create_skill` is assigned by the user and read by another agent with `idea_skill_read`,
both through the real MCP SDK client of the fake agent.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e_agents.delegation import team
from tests.e2e_agents.helpers import WAIT, Agents, fake_profile
from tests.helpers.idea import IdeaEnv
from tests.helpers.retry import retry_until

pytestmark = pytest.mark.e2e

RELEASE = "# Release checklist\n\nBefore tagging a version.\n\n1. RELEASE-STEP-ONE\n2. tag\n"
BUILD = "---\ndescription: How the image is built\n---\nBUILD-STEP: make image\n"
UNUSED = "# Unused\n\nUNUSED-BODY must never reach an agent.\n"


def new_skill(agents: Agents, name: str, body: str, *scope: str) -> dict[str, Any]:
    source = agents.idea.root / f"{name}.md"
    source.write_text(body, encoding="utf-8")
    made: dict[str, Any] = agents.idea.json("skill", "new", name, "--file", str(source), *scope)
    return made


def context_of(agents: Agents, agent_id: str, strategy: str,
               not_pid: int | None = None) -> tuple[int, str]:
    report, received = agents.contexts(agent_id, strategy, not_pid)
    assert "error" not in received, received
    return int(report["pid"]), str(received["content"])


def test_assigned_skills_reach_the_launch_context_by_the_agents_surface(
    idea: IdeaEnv
) -> None:
    agents = team(idea, ("Linked",))
    agents.add_profile(fake_profile("fake-plain", "conventionFile"))
    agents.new("Plain", "fake-plain")
    new_skill(agents, "Release checklist", RELEASE)
    new_skill(agents, "Build", BUILD, "--global")
    new_skill(agents, "Unused", UNUSED)
    for agent in ("Plain", "Linked"):
        idea.run("skill", "assign", "release checklist", agent)
        idea.run("skill", "assign", "build", agent, "--global")
        again = idea.json("skill", "assign", "Release checklist", agent)
        assert again["changed"] is False  # idempotent
    manifest = json.loads((agents.ideai / "agents.json").read_text())
    assert [a["skills"] for a in manifest["agents"]] == [
        [{"skillId": "release-checklist", "scope": "project"},
         {"skillId": "build", "scope": "global"}]] * 2

    agents.launch("Plain", "--background")
    agents.launch("Linked", "--background")
    plain = agents.info("Plain")["id"]
    pid, text = context_of(agents, plain, "conventionFile")
    assert "# Available skills\n\n" in text
    assert "- Release checklist — Before tagging a version.\n" in text
    assert "- Build — How the image is built\n" in text
    assert "idea_skill_read" not in text
    assert text.endswith(f"# Skills\n\n## Release checklist\n\n{RELEASE.strip()}\n\n"
                         f"## Build\n\n{BUILD.strip()}\n")
    assert text.index("# idea orchestration") < text.index("# Available skills")
    assert "UNUSED-BODY" not in text and "- Unused" not in text

    _, linked = context_of(agents, agents.info("Linked")["id"], "flag")
    assert "`idea_skill_read(name=NAME)`" in linked
    assert "- Release checklist — Before tagging a version.\n- Build — How the image is built\n" \
        in linked
    assert "RELEASE-STEP-ONE" not in linked and "BUILD-STEP" not in linked
    # Both surfaces say how to write one for the team (SKL-5).
    assert "`idea_create_skill(name, content)`" in linked
    assert '"type": "skill.create"' in text
    assert "# Skills\n" not in linked

    # Unassigned: gone at the next launch (scenario 23).
    idea.run("skill", "unassign", "Release checklist", "Plain")
    idea.run("agent", "restart", "Plain")
    _, relaunched = context_of(agents, plain, "conventionFile", not_pid=pid)
    assert "RELEASE-STEP-ONE" not in relaunched and "- Release checklist" not in relaunched
    assert "BUILD-STEP: make image" in relaunched


def ask(agents: Agents, name: str, task: str) -> dict[str, Any]:
    done = agents.idea.run("ask", name, task, "--json", check=False, timeout=WAIT * 2)
    assert done.stdout, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    assert result["state"] == "replied", result
    return result


def call(agents: Agents, name: str, tool: str, arguments: dict[str, Any]) -> str:
    reply: str = ask(agents, name, f"call {tool} {json.dumps(arguments)}")["reply"]
    return reply


def test_a_skill_created_by_one_agent_is_assigned_then_read_by_another(idea: IdeaEnv) -> None:
    agents = team(idea, ("Writer", "Reader"))
    body = "# Deploy\n\nShip to staging first.\n\n1. DEPLOY-STEP\n"
    created = call(agents, "Writer", "idea_create_skill", {"name": "Deploy", "content": body})
    assert created.startswith("Created the project skill 'Deploy'"), created
    listed = idea.json("skill", "list")["skills"]
    assert [(s["name"], s["scope"], s["assignedTo"]) for s in listed] == [
        ("Deploy", "project", [])]
    assert (agents.ideai / "skills" / "md" / "deploy.md").read_text() == body

    idea.run("skill", "assign", "Deploy", "Reader")
    # Reader starts now (cold launch by the ask): its context lists the skill.
    read = call(agents, "Reader", "idea_skill_read", {"name": "deploy"})
    assert read == f"# Skill: Deploy (project)\n\n{body}"
    _, context = context_of(agents, agents.info("Reader")["id"], "flag")
    assert "- Deploy — Ship to staging first.\n" in context

    refused = call(agents, "Reader", "idea_skill_read", {"name": "nope"})
    assert refused.startswith("error: ") and "no skill 'nope'" in refused
    duplicate = call(agents, "Writer", "idea_create_skill", {"name": "deploy", "content": "x"})
    assert duplicate.startswith("error: ") and "already exists" in duplicate
    assert (agents.ideai / "skills" / "md" / "deploy.md").read_text() == body


def test_an_agent_without_mcp_creates_and_reads_a_skill_through_files(idea: IdeaEnv) -> None:
    """SKL-5's wire action `skill.create` (and `skill.read`) of the file protocol."""
    from tests.e2e_agents.test_file_protocol import request, response

    agents = team(idea, ())
    agents.add_profile(fake_profile("fake-files", "flag", session=False))
    writer = agents.new("Writer", "fake-files")
    made = request(agents, writer["id"], "s1", {"type": "skill.create", "name": "Deploy",
                                                "content": "# Deploy\n\nstaging first\n"})
    answer = response(made)
    assert answer["ok"] and answer["detail"].startswith("Created the project skill 'Deploy'")
    read = response(request(agents, writer["id"], "s2", {"type": "skill.read", "name": "deploy"}))
    assert read == {"ok": True, "action": "skill.read",
                    "detail": "# Skill: Deploy (project)\n\n# Deploy\n\nstaging first\n"}
    empty = response(request(agents, writer["id"], "s3", {"type": "skill.create", "name": "X",
                                                          "content": ""}))
    assert empty["ok"] is False and "'content' is required" in empty["error"]
    huge = response(request(agents, writer["id"], "s4", {"type": "skill.create", "name": "Big",
                                                         "content": "x" * 70_000}))
    assert huge["ok"] is False and "the limit is 65,536" in huge["error"]
    assert [s["name"] for s in idea.json("skill", "list")["skills"]] == ["Deploy"]


def test_a_damaged_index_is_reported_left_alone_and_launches_still_work(
    idea: IdeaEnv
) -> None:
    agents = Agents(idea, idea.new_project("proj"))
    agents.add_profile(fake_profile("fake-plain", "conventionFile"))
    agents.new("Plain", "fake-plain")
    new_skill(agents, "Build", BUILD, "--global")
    idea.run("skill", "assign", "Build", "Plain")
    index = agents.ideai / "skills" / "index.json"
    index.parent.mkdir()
    damaged = '{"version": 1, "skills": [{"id": "x", "name": ""}]}'
    index.write_text(damaged)

    listed = idea.run("skill", "list")
    assert listed.stdout.startswith("global   build")
    assert "skills[0].name: must not be empty" in listed.stderr and str(index) in listed.stderr
    refused = idea.run("skill", "new", "Other", "--file", str(idea.root / "Build.md"),
                       check=False)
    assert refused.returncode != 0 and "skills[0].name: must not be empty" in refused.stderr
    assert index.read_text() == damaged

    agents.launch("Plain", "--background")
    _, text = context_of(agents, agents.info("Plain")["id"], "conventionFile")
    assert text.endswith(f"## Build\n\n{BUILD.strip()}\n")  # the global skill still comes
    assert index.read_text() == damaged


def test_a_global_skill_changed_offers_a_refresh_to_the_running_agents_it_is_assigned_to(
    idea: IdeaEnv
) -> None:
    agents = team(idea, ("Lead", "Dev"))
    new_skill(agents, "Build", BUILD, "--global")
    idea.run("skill", "assign", "build", "Dev", "--global")
    for name in ("Lead", "Dev"):
        agents.launch(name, "--background")
        agents.report(agents.info(name)["id"], lambda r: r["mcp"]["connected"])
    assert offered(agents) == []
    # The global store lives outside every project: its change is noticed all the same.
    edited = idea.root / "build-v2.md"
    edited.write_text(BUILD.replace("How the image is built", "How the image is built and "
                                    "pushed"), encoding="utf-8")
    idea.run("skill", "edit", "Build", "--file", str(edited), "--global")
    retry_until(lambda: offered(agents) == ["Dev"] or None, WAIT,
                describe=lambda: f"offered: {offered(agents)}")
    refreshed = idea.json("agent", "refresh", "Dev")
    assert refreshed["sections"] == ["skills"]
    dev = agents.info("Dev")["id"]
    [message] = agents.report(dev, lambda r: bool(r["messages"]))["messages"]
    assert "- Build — How the image is built and pushed" in message
    assert offered(agents) == []  # Lead, without the skill, was never offered one


def offered(agents: Agents) -> list[str]:
    names: list[str] = agents.idea.json("work")["refresh"]
    return names
