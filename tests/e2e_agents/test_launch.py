"""Launching (PRF-8, AGT-4, AGT-6): into a new split, in the background, brought into a cell
without a respawn, and one live session per agent."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e_agents.helpers import PROMPT_READY, Agents, fake_profile
from tests.helpers.idea import IdeaEnv, process_alive

pytestmark = pytest.mark.e2e


@pytest.fixture
def agents(idea: IdeaEnv) -> Agents:
    """A project with agents Alpha and Beta on a fake-agent profile (flag strategy)."""
    team = Agents(idea, idea.new_project("proj"))
    team.add_profile(fake_profile("fake", "flag"))
    team.new("Alpha", "fake")
    team.new("Beta", "fake")
    return team


def background_record(agents: Agents) -> dict[str, Any]:
    path = agents.ideai / "run" / "background.json"
    if not path.exists():
        return {}
    entries: dict[str, Any] = json.loads(path.read_text())["agents"]
    return entries


def test_launch_in_a_new_split_next_to_the_focused_cell(idea: IdeaEnv, agents: Agents) -> None:
    [shell] = idea.cells()
    assert shell["focused"]
    launched = agents.launch("Alpha")
    assert launched["state"] == "running" and launched["background"] is False

    cells = idea.cells()
    assert len(cells) == 2 and cells[0]["id"] == shell["id"]
    new = cells[1]
    assert new["id"] == launched["cell"] and new["target"] == launched["target"]
    assert new["focused"], "the new cell takes the focus"
    assert new["rows"] == cells[0]["rows"], "side by side (a split to the right)"
    assert new["cols"] + cells[0]["cols"] < shell["cols"] + 2
    agents.capture(new["target"], PROMPT_READY)

    alpha = agents.info("Alpha")
    assert alpha["state"] == "running" and alpha["background"] is False
    assert alpha["cell"] == new["id"]
    report = agents.report(alpha["id"], lambda r: r["state"] == "running")
    assert new["pid"] == report["pid"]
    assert report["session"]["id"] == alpha["conversationId"]

    # The project's layouts.json records the agent in its leaf (resume after restart).
    layouts = (agents.ideai / "layouts.json").read_text()
    assert alpha["id"] in layouts and alpha["conversationId"] in layouts


def test_a_background_agent_is_brought_into_a_cell_without_a_respawn(
        idea: IdeaEnv, agents: Agents) -> None:
    [shell] = idea.cells()
    launched = agents.launch("Beta", "--background")
    assert launched["state"] == "running" and launched["background"] is True
    assert "cell" not in launched
    assert [cell["id"] for cell in idea.cells()] == [shell["id"]], "no cell for it"

    beta = agents.info("Beta")
    assert beta["state"] == "running" and beta["background"] is True
    assert beta["id"] in background_record(agents)
    report = agents.report(beta["id"], lambda r: r["state"] == "running")
    pid = report["pid"]
    assert process_alive(pid)

    # Into the shell's cell: the shell gives way, the same process shows there.
    shown = agents.launch("Beta", "-t", shell["target"], "-f")
    assert shown["state"] == "running" and shown["background"] is False
    assert shown["cell"] == shell["id"]
    [cell] = idea.cells()
    assert cell["id"] == shell["id"] and cell["pid"] == pid
    assert agents.info("Beta")["background"] is False
    assert beta["id"] not in background_record(agents)
    assert agents.report(beta["id"])["pid"] == pid, "not respawned"
    # What it printed while in the background is on the cell's screen, and it is live.
    agents.wait_text(cell["target"],
                     rf"fake-agent 1 \(pid {pid}\).*SESSION {beta['conversationId']}")
    idea.send_keys(cell["target"], "still me", "Enter")
    agents.capture(cell["target"], r"reply: still me")
    assert agents.report(beta["id"], lambda r: r["messages"] == ["still me"])["pid"] == pid


def test_an_agent_running_in_another_cell_is_not_launched_twice(
        idea: IdeaEnv, agents: Agents) -> None:
    [shell] = idea.cells()
    launched = agents.launch("Alpha")
    alpha = agents.report(agents.info("Alpha")["id"], lambda r: r["state"] == "running")
    idea.run("select", "-t", shell["target"])

    # A new split beside the shell: refused, naming where it runs.
    refused = idea.run("agent", "launch", "Alpha", check=False)
    assert refused.returncode == 1, refused
    assert "already running" in refused.stderr and launched["target"] in refused.stderr
    assert "go to it" in refused.stderr
    assert "Traceback" not in refused.stderr
    # In another cell (the shell's): refused the same way, the shell untouched.
    refused = idea.run("agent", "launch", "Alpha", "-t", shell["target"], "-f", check=False)
    assert refused.returncode == 1, refused
    assert launched["target"] in refused.stderr
    cells = idea.cells()
    assert len(cells) == 2 and cells[0]["pid"] == shell["pid"]

    # In the background while it runs in a cell: it stays where it is.
    stays = agents.launch("Alpha", "--background")
    assert stays["cell"] == launched["cell"] and stays["background"] is False
    assert agents.report(agents.info("Alpha")["id"])["pid"] == alpha["pid"]
    assert process_alive(alpha["pid"])


def test_a_launch_in_the_agents_own_cell_reattaches(idea: IdeaEnv, agents: Agents) -> None:
    launched = agents.launch("Alpha")
    alpha = agents.report(agents.info("Alpha")["id"], lambda r: r["state"] == "running")
    for force in ((), ("-f",)):
        again = agents.launch("Alpha", "-t", launched["target"], *force)
        assert again["cell"] == launched["cell"] and again["state"] == "running", again
        cells = idea.cells()
        assert len(cells) == 2 and cells[1]["pid"] == alpha["pid"]
        assert process_alive(alpha["pid"])
    idea.send_keys(launched["target"], "same process", "Enter")
    agents.capture(launched["target"], r"reply: same process")


def test_move_shows_a_running_agent_in_another_cell(idea: IdeaEnv, agents: Agents) -> None:
    [shell] = idea.cells()
    launched = agents.launch("Alpha")
    alpha = agents.report(agents.info("Alpha")["id"], lambda r: r["state"] == "running")
    moved = agents.launch("Alpha", "-t", shell["target"], "--move", "-f")
    assert moved["cell"] == shell["id"] and moved["state"] == "running"
    cells = {cell["id"]: cell for cell in idea.cells()}
    assert cells[shell["id"]]["pid"] == alpha["pid"], "the same process, not a respawn"
    assert process_alive(alpha["pid"])
    # The cell it left is an ordinary cell again, with a shell.
    former = cells[launched["cell"]]
    assert former["pid"] != alpha["pid"]
    idea.shell(former["target"], "echo left-$((40+2))", "left-42", timeout=45)
    assert agents.info("Alpha")["cell"] == shell["id"]
