"""Resume after a daemon restart (AGT-5, LAY-7, D20).

Agents running in a cell and in the background are recorded (layouts.json leaves,
`.ideai/run/background.json`). After `idea kill-server -f` and `idea open PROJECT`, `idea
agent resume --list` offers them and `idea agent resume` relaunches each once, where it was,
continuing the recorded conversation when the profile has resume templates.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_agents.helpers import Agents, fake_profile
from tests.helpers.idea import IdeaEnv, process_alive
from tests.helpers.retry import retry_until

pytestmark = pytest.mark.e2e


def leaves(layouts: Path) -> list[dict[str, Any]]:
    """Every leaf of every page of a layouts.json."""
    found: list[dict[str, Any]] = []

    def walk(node: dict[str, Any]) -> None:
        if node["type"] == "leaf":
            found.append(node["node"])
        else:
            for child in node["node"]["children"]:
                walk(child["node"])

    for layout in json.loads(layouts.read_text())["layouts"]:
        walk(layout["tree"]["root"])
    return found


def restart_daemon(idea: IdeaEnv, project: Path, pids: list[int]) -> None:
    idea.run("kill-server", "-f")
    retry_until(lambda: not any(process_alive(pid) for pid in pids), 30,
                describe=lambda: f"agent processes outlived the daemon: "
                                 f"{[pid for pid in pids if process_alive(pid)]}")
    assert not idea.daemon_running()


def test_agents_in_a_cell_and_in_the_background_resume_after_a_restart(
        idea: IdeaEnv) -> None:
    project = idea.new_project("proj")
    agents = Agents(idea, project)
    agents.add_profile(fake_profile("fake", "flag"))
    agents.add_profile(fake_profile("fake-nosession", "flag", session=False))
    cell_agent = agents.new("Celia", "fake")
    back_agent = agents.new("Bruno", "fake")
    fresh_agent = agents.new("Fresh", "fake-nosession")
    in_cell = agents.launch("Celia")
    agents.launch("Bruno", "--background")
    agents.launch("Fresh", "--background")
    before = {a["id"]: agents.report(a["id"], lambda r: r["state"] == "running")
              for a in (cell_agent, back_agent, fresh_agent)}
    conversations = {a["name"]: a.get("conversationId") for a in agents.list()}
    assert conversations["Celia"] and conversations["Bruno"]
    assert conversations["Fresh"] is None
    # A message in Celia's conversation, to see it continue.
    idea.send_keys(in_cell["target"], "remember this", "Enter")
    agents.capture(in_cell["target"], r"reply: remember this")

    restart_daemon(idea, project, [r["pid"] for r in before.values()])
    idea.run("open", str(project))

    listed = idea.json("agent", "resume", "--list")
    by_name = {entry["agent"]: entry for entry in listed}
    assert sorted(by_name) == ["Bruno", "Celia", "Fresh"], listed
    assert by_name["Celia"]["resumeSupported"] is True
    assert by_name["Bruno"]["resumeSupported"] is True
    assert by_name["Fresh"]["resumeSupported"] is False
    assert by_name["Celia"]["cell"] == in_cell["cell"]
    assert by_name["Celia"]["background"] is False
    assert by_name["Bruno"]["background"] is True and by_name["Fresh"]["background"] is True
    assert by_name["Celia"]["conversationId"] == conversations["Celia"]
    assert by_name["Bruno"]["conversationId"] == conversations["Bruno"]
    recorded = {leaf.get("agent"): leaf for leaf in leaves(project / ".ideai" / "layouts.json")}
    assert recorded[cell_agent["id"]]["conversationId"] == conversations["Celia"]
    assert recorded[cell_agent["id"]]["agentWasRunning"] is True
    background = json.loads((project / ".ideai" / "run" / "background.json").read_text())
    assert background["agents"][back_agent["id"]]["conversationId"] == conversations["Bruno"]
    assert fresh_agent["id"] in background["agents"]
    states = {a["name"]: a["state"] for a in agents.list()}
    assert states == {"Celia": "resumable", "Bruno": "resumable", "Fresh": "resumable"}

    resumed = idea.json("agent", "resume")
    assert sorted(entry["name"] for entry in resumed) == ["Bruno", "Celia", "Fresh"]

    for agent in (cell_agent, back_agent):
        conversation = conversations[agent["name"]]
        report = agents.report(agent["id"], lambda r: r["pid"] not in
                               [b["pid"] for b in before.values()] and r["state"] == "running")
        assert report["session"]["id"] == conversation
        assert report["session"]["resumed"] is True
        argv = report["argv"]
        assert argv[argv.index("--resume") + 1] == conversation
        assert "--session-id" not in argv
    fresh = agents.report(fresh_agent["id"], lambda r: r["pid"] != before[fresh_agent["id"]]["pid"])
    assert "--resume" not in fresh["argv"] and "--session-id" not in fresh["argv"]

    # Celia is back in her cell, continuing the conversation; the others in the background.
    cells = {cell["id"]: cell for cell in idea.cells()}
    assert len(cells) == 2 and in_cell["cell"] in cells
    agents.wait_text(in_cell["target"], rf"RESUMED {conversations['Celia']} messages=1")
    celia = agents.report(cell_agent["id"])
    assert cells[in_cell["cell"]]["pid"] == celia["pid"]
    info = {a["name"]: a for a in agents.list()}
    assert info["Celia"]["state"] == "running" and info["Celia"]["cell"] == in_cell["cell"]
    assert info["Bruno"]["state"] == "running" and info["Bruno"]["background"] is True
    assert info["Fresh"]["state"] == "running" and info["Fresh"]["background"] is True

    # Once: nothing is left to resume, and resuming again launches nothing.
    assert idea.json("agent", "resume", "--list") == []
    assert idea.json("agent", "resume") == []
    assert agents.report(cell_agent["id"])["pid"] == celia["pid"]
    assert len(idea.cells()) == 2


def test_an_agent_in_two_leaves_resumes_once(idea: IdeaEnv) -> None:
    """LAY-7: a layout naming the same agent in two cells (edited while the daemon was
    stopped) resumes it in one of them only."""
    project = idea.new_project("proj")
    agents = Agents(idea, project)
    agents.add_profile(fake_profile("fake", "flag"))
    created = agents.new("Twin", "fake")
    launched = agents.launch("Twin")
    first = agents.report(created["id"], lambda r: r["state"] == "running")
    conversation = agents.info("Twin")["conversationId"]
    restart_daemon(idea, project, [first["pid"]])

    layouts = project / ".ideai" / "layouts.json"
    data = json.loads(layouts.read_text())
    twin_leaf = next(leaf for leaf in leaves(layouts) if leaf.get("agent") == created["id"])
    shell_leaf = next(leaf for leaf in leaves(layouts) if leaf.get("agent") is None)

    def copy_agent(node: dict[str, Any]) -> None:
        if node["type"] == "leaf":
            if node["node"]["id"] == shell_leaf["id"]:
                for key in ("agent", "agentWasRunning", "conversationId"):
                    node["node"][key] = twin_leaf[key]
        else:
            for child in node["node"]["children"]:
                copy_agent(child["node"])

    for layout in data["layouts"]:
        copy_agent(layout["tree"]["root"])
    layouts.write_text(json.dumps(data, indent=2))
    assert [leaf.get("agent") for leaf in leaves(layouts)] == [created["id"]] * 2

    idea.run("open", str(project))
    listed = idea.json("agent", "resume", "--list")
    assert [entry["agent"] for entry in listed] == ["Twin"], listed
    resumed = idea.json("agent", "resume")
    assert [entry["name"] for entry in resumed] == ["Twin"]
    report = agents.report(created["id"], lambda r: r["pid"] != first["pid"])
    assert report["session"]["id"] == conversation and report["session"]["resumed"]
    running = [cell for cell in idea.cells() if cell.get("pid") == report["pid"]]
    assert len(running) == 1, idea.cells()
    assert running[0]["id"] in (launched["cell"], shell_leaf["id"])
    assert idea.json("agent", "resume", "--list") == []


def codex_style_profile() -> dict[str, Any]:
    """The fake agent in Codex's manner: it picks its own id, writes its session file at the
    first message, and resumes with a `resume ID` subcommand; the daemon discovers the id
    from the file, as the built-in Codex profile describes (D20)."""
    profile = fake_profile("fake-codex", "flag")
    profile["args"] = ["--session-style", "codex", *profile["args"]]
    profile["session"] = {
        "startArgs": [],
        "resumeArgs": ["resume", "{conversationId}"],
        "idKnownAtLaunch": False,
        "discover": {
            "homeEnv": "FAKE_AGENT_HOME",
            "defaultHome": "~/.fake-agent",
            "glob": "sessions/*/*/*/rollout-*.jsonl",
            "idPattern": r"rollout-.*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}"
                         r"-[0-9a-f]{12})\.jsonl$",
            "appearsAt": "firstMessage",
        },
    }
    return profile


def test_an_id_discovered_after_launch_is_resumed(idea: IdeaEnv) -> None:
    project = idea.new_project("proj")
    agents = Agents(idea, project)
    agents.add_profile(codex_style_profile())
    created = agents.new("Cody", "fake-codex")
    launched = agents.launch("Cody")
    first = agents.report(created["id"], lambda r: r["state"] == "running")
    assert first["session"]["style"] == "codex"
    assert "conversationId" not in agents.info("Cody"), "not known before the first message"

    idea.send_keys(launched["target"], "first task", "Enter")
    agents.capture(launched["target"], r"reply: first task")
    own_id = agents.report(created["id"], lambda r: bool(r["session"].get("file")))["session"]["id"]
    retry_until(lambda: agents.info("Cody").get("conversationId") == own_id, 45,
                describe=lambda: json.dumps(agents.info("Cody")))
    retry_until(lambda: any(leaf.get("conversationId") == own_id
                            for leaf in leaves(project / ".ideai" / "layouts.json")), 45)

    restart_daemon(idea, project, [first["pid"]])
    idea.run("open", str(project))
    [entry] = idea.json("agent", "resume", "--list")
    assert entry["agent"] == "Cody" and entry["resumeSupported"] is True
    assert entry["conversationId"] == own_id
    idea.json("agent", "resume")
    again = agents.report(created["id"], lambda r: r["pid"] != first["pid"])
    assert again["argv"][:2] == ["resume", own_id]
    assert again["session"]["id"] == own_id and again["session"]["resumed"] is True
    agents.wait_text(launched["target"], rf"RESUMED {own_id} messages=1")


def test_an_agent_that_exited_or_was_stopped_is_not_resumed(idea: IdeaEnv) -> None:
    project = idea.new_project("proj")
    agents = Agents(idea, project)
    agents.add_profile(fake_profile("fake", "flag"))
    for name in ("Quitter", "Stopped", "Runner"):
        agents.new(name, "fake")
    quitter = agents.launch("Quitter")
    agents.launch("Stopped", "--background")
    agents.launch("Runner", "--background")
    agents.capture(quitter["target"], r"fake-agent>")
    idea.send_keys(quitter["target"], "/exit 3", "Enter")
    retry_until(lambda: agents.info("Quitter")["state"] == "exited", 45,
                describe=lambda: json.dumps(agents.info("Quitter")))
    assert agents.info("Quitter")["exitCode"] == 3
    stopped = idea.json("agent", "stop", "Stopped")
    assert stopped["state"] == "stopped"
    pids = [agents.report(a["id"])["pid"] for a in agents.list()]

    restart_daemon(idea, project, pids)
    idea.run("open", str(project))
    assert [entry["agent"] for entry in idea.json("agent", "resume", "--list")] == ["Runner"]
    states = {a["name"]: a["state"] for a in agents.list()}
    assert states == {"Quitter": "stopped", "Stopped": "stopped", "Runner": "resumable"}
