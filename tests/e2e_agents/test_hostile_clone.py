"""A cloned project's committed `.ideai/` is adopted as it is (D23), so its ids must never
become paths outside the project (issue 7): an `agentId` of `../../../x`, a layout id with a
slash, a recorded conversation id that looks like an option, `.ideai/run` committed as a
symbolic link. Each is a clear error naming the file; the file is untouched; nothing is
written outside; the rest of the project opens and the daemon keeps answering."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e_agents.helpers import Agents, fake_profile, snapshot
from tests.helpers.idea import IdeaEnv

pytestmark = pytest.mark.e2e


@pytest.fixture
def agents(idea: IdeaEnv) -> Agents:
    team = Agents(idea, idea.new_project("proj"))
    team.add_profile(fake_profile("fake", "flag"))
    return team


def fails(idea: IdeaEnv, *args: str) -> str:
    result = idea.run(*args, check=False)
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr + result.stdout
    return result.stderr


def everything_under(folder: Path) -> set[Path]:
    return set(folder.rglob("*"))


@pytest.mark.parametrize("hostile", ["../../../escaped", "../escaped", "/tmp/escaped",
                                     "a/b", ".hidden", "x\x1b]0;pwned\x07"])
def test_an_agent_id_that_is_a_path_is_refused_before_any_io(
        idea: IdeaEnv, agents: Agents, hostile: str) -> None:
    agents.new("Kept", "fake")
    manifest = agents.ideai / "agents.json"
    data = json.loads(manifest.read_text())
    data["agents"][0]["agentId"] = hostile
    manifest.write_text(json.dumps(data))
    kept = snapshot([manifest])
    before = everything_under(idea.root)
    for command in (("agent", "launch", "Kept"), ("agent", "launch", "Kept", "--background"),
                    ("agent", "list")):
        message = fails(idea, *command)
        assert str(manifest) in message and "agents[0].agentId" in message, message
        assert "not a safe id" in message, message
    assert snapshot([manifest]) == kept
    # Nothing was created anywhere (no run dir inside or outside the project).
    assert not (agents.ideai / "run").exists()
    created = everything_under(idea.root) - before
    assert not [p for p in created if "escaped" in p.name or "context.md" in p.name], created
    # The rest of the project opens: its shell cell runs, the workspace answers.
    idea.run("open", str(agents.project))
    cells = idea.cells()
    assert cells and cells[0]["running"]
    assert snapshot([manifest]) == kept


def test_a_layout_with_a_path_for_an_id_is_named_and_left_alone(
        idea: IdeaEnv, agents: Agents) -> None:
    layouts = agents.ideai / "layouts.json"
    data = json.loads(layouts.read_text())
    data["layouts"][0]["id"] = "../../layouts"
    layouts.write_text(json.dumps(data))
    kept = snapshot([layouts])
    idea.stop()
    idea.run("open", str(agents.project))
    # The next daemon reports the file and opens the project with a default layout in memory.
    cells = idea.cells()
    assert cells and cells[0]["running"]
    problems = json.dumps(idea.json("ls"))
    assert "layouts[0].id" in problems and "not a safe id" in problems, problems
    idea.run("split")
    assert snapshot([layouts]) == kept


def test_a_recorded_conversation_id_that_looks_like_an_option_is_not_passed(
        idea: IdeaEnv, agents: Agents) -> None:
    created = agents.new("Resumer", "fake")
    layouts = agents.ideai / "layouts.json"
    data = json.loads(layouts.read_text())
    leaf = data["layouts"][0]["tree"]["root"]["node"]
    leaf.update({"agent": created["id"], "agentWasRunning": True,
                 "conversationId": "--dangerously-skip-permissions"})
    layouts.write_text(json.dumps(data))
    kept = snapshot([layouts])
    idea.stop()
    idea.run("open", str(agents.project))
    problems = json.dumps(idea.json("ls"))
    assert "conversationId" in problems and "not a safe id" in problems, problems
    assert snapshot([layouts]) == kept


def test_a_run_folder_committed_as_a_symbolic_link_is_refused(
        idea: IdeaEnv, agents: Agents) -> None:
    created = agents.new("Linked", "fake")
    outside = idea.root / "outside"
    outside.mkdir()
    (agents.ideai / "run").symlink_to(outside)
    for where in ((), ("--background",)):
        message = fails(idea, "agent", "launch", "Linked", *where)
        assert "outside .ideai/" in message, message
    assert list(outside.iterdir()) == [], "nothing was written through the link"
    assert agents.info("Linked")["state"] != "running"
    assert created["id"]
    assert idea.cells()[0]["running"]
