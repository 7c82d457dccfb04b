"""Agents in their own git worktrees (D28), end to end: the real daemon, the fake agent, a
real repository. Launch → the agent runs in `<project>-worktrees/<agent>` on `idea/<agent>`
→ it commits → "what did it change" → merge back; a conflicting merge stops and names the
file; discard keeps a backup; a restart keeps the worktree and resumes the agent there; a
worktree removed behind idea's back is reported, not made again."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.e2e_agents.helpers import Agents, fake_profile
from tests.e2e_agents.test_resume import restart_daemon
from tests.helpers.idea import IdeaEnv
from tests.helpers.programs import require_program

pytestmark = pytest.mark.e2e


def git(where: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=where, capture_output=True, text=True,
                          check=True).stdout


@pytest.fixture
def team(idea: IdeaEnv) -> Agents:
    require_program("git")
    (idea.user_home / ".gitconfig").write_text(
        "[user]\n\tname = Lead\n\temail = lead@example.com\n[init]\n\tdefaultBranch = main\n")
    project = idea.new_project("proj")
    subprocess.run(["git", "init", "-q"], cwd=project, env=idea.env, check=True)
    (project / "app.txt").write_text("base\n")
    subprocess.run(["git", "add", "app.txt"], cwd=project, env=idea.env, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "base"], cwd=project, env=idea.env, check=True)
    agents = Agents(idea, project)
    agents.add_profile(fake_profile("fake", "flag"))
    agents.new("Alpha", "fake")
    return agents


def commit_in(tree: Path, idea: IdeaEnv, name: str, text: str, message: str) -> None:
    (tree / name).write_text(text)
    for args in (["add", name], ["commit", "-q", "-m", message]):
        subprocess.run(["git", *args], cwd=tree, env=idea.env, check=True)


def test_launch_commit_changes_merge(idea: IdeaEnv, team: Agents) -> None:
    launched = team.launch("Alpha", "--worktree", "--background")
    tree = team.project.parent / "proj-worktrees" / "alpha"
    report = team.report(launched["id"], lambda r: r["state"] == "running")
    assert Path(report["cwd"]).resolve() == tree.resolve()  # it works in its worktree
    assert git(tree, "branch", "--show-current").strip() == "idea/alpha"
    listed = idea.json("ls")["windows"][0]["projects"][0]["worktrees"]
    assert [(t["branch"], t["missing"]) for t in listed] == [("idea/alpha", False)]

    commit_in(tree, idea, "feature.txt", "from alpha\n", "Alpha's feature")
    (tree / "wip.txt").write_text("not committed\n")
    changes = idea.json("agent", "changes", "Alpha")
    assert [c["subject"] for c in changes["commits"]] == ["Alpha's feature"]
    assert [f["path"] for f in changes["committed"]] == ["feature.txt"]

    idea.run("agent", "stop", "Alpha")
    refused = idea.run("agent", "finish", "Alpha", "merge", check=False)
    assert refused.returncode != 0 and "uncommitted" in refused.stderr
    (tree / "wip.txt").unlink()
    merged = idea.json("agent", "finish", "Alpha", "merge")
    assert merged["into"] == "main"
    assert (team.project / "feature.txt").read_text() == "from alpha\n"
    assert not tree.exists()
    assert idea.json("ls")["windows"][0]["projects"][0]["worktrees"] == []


def test_a_conflicting_merge_stops_and_names_the_file(idea: IdeaEnv, team: Agents) -> None:
    idea.json("agent", "worktree", "Alpha")
    tree = team.project.parent / "proj-worktrees" / "alpha"
    commit_in(tree, idea, "app.txt", "alpha's version\n", "Alpha edits app")
    commit_in(team.project, idea, "app.txt", "lead's version\n", "Lead edits app")
    failed = idea.run("agent", "finish", "Alpha", "merge", check=False)
    assert failed.returncode != 0 and "app.txt" in failed.stderr
    assert "UU app.txt" in git(team.project, "status", "--short")
    assert tree.exists()  # nothing of the agent's work is gone


def test_discard_keeps_a_backup(idea: IdeaEnv, team: Agents) -> None:
    idea.json("agent", "worktree", "Alpha")
    tree = team.project.parent / "proj-worktrees" / "alpha"
    commit_in(tree, idea, "kept.txt", "committed\n", "work")
    (tree / "draft.txt").write_text("uncommitted draft\n")
    asked = idea.run("agent", "finish", "Alpha", "discard", check=False)
    assert asked.returncode != 0 and tree.exists()  # without -f it only asks
    done = idea.json("agent", "finish", "Alpha", "discard", "-f")
    backup = Path(done["backup"])
    assert (backup / "files" / "draft.txt").read_text() == "uncommitted draft\n"
    assert done["tip"] in (backup / "README.txt").read_text()
    assert not tree.exists() and "idea/alpha" not in git(team.project, "branch")


def test_the_worktree_survives_a_restart_and_a_vanished_one_is_reported(
    idea: IdeaEnv, team: Agents
) -> None:
    launched = team.launch("Alpha", "--worktree", "--background")
    tree = team.project.parent / "proj-worktrees" / "alpha"
    report = team.report(launched["id"], lambda r: r["state"] == "running")
    restart_daemon(idea, team.project, [report["pid"]])
    idea.run("open", str(team.project))
    idea.run("agent", "resume", "Alpha")
    again = team.report(launched["id"], lambda r: r["pid"] != report["pid"])
    assert Path(again["cwd"]).resolve() == tree.resolve()
    idea.run("agent", "stop", "Alpha")
    git(team.project, "worktree", "remove", "--force", str(tree))
    failed = idea.run("agent", "launch", "Alpha", "--background", check=False)
    assert failed.returncode != 0 and "removed or moved" in failed.stderr
    assert not tree.exists()  # reported, not silently made again
    listed = idea.json("ls")["windows"][0]["projects"][0]["worktrees"]
    assert [t["missing"] for t in listed] == [True]


def test_discard_refuses_a_hostile_worktrees_json(idea: IdeaEnv, team: Agents) -> None:
    """A cloned project's worktrees.json naming a folder of the user's: the real `idea`
    refuses, names the file and key, and neither reads, copies nor removes anything there."""
    secret = idea.user_home / ".ssh"
    secret.mkdir()
    git(secret, "init", "-q")
    (secret / "id_ed25519").write_text("PRIVATE\n")
    agents = json.loads((team.ideai / "agents.json").read_text())["agents"]
    alpha = next(a.get("agentId", a.get("id")) for a in agents if a["name"] == "Alpha")
    hostile = json.dumps({"version": 1, "worktrees": {alpha: {
        "path": f"{team.project}/{os.path.relpath(secret, team.project)}",  # ../../u/.ssh
        "branch": "idea/alpha", "baseBranch": "main", "baseOid": None}}})
    (team.ideai / "worktrees.json").write_text(hostile)
    failed = idea.run("agent", "finish", "Alpha", "discard", "-f", check=False)
    assert failed.returncode != 0
    assert f"worktrees.json: worktrees.{alpha}.path" in failed.stderr
    assert (secret / "id_ed25519").read_text() == "PRIVATE\n"
    assert not (team.ideai / "backups").exists()
    assert (team.ideai / "worktrees.json").read_text() == hostile
