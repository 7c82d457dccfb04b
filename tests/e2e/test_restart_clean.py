"""Restarting the daemon leaves a project's committed files as they were: `git status` in a
real repository stays clean across `idea kill-server` and the next start."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.helpers.idea import IdeaEnv
from tests.helpers.programs import require_program
from tests.helpers.retry import retry_until

pytestmark = pytest.mark.e2e

AGENT_SESSION = "5b0c7a3e-1d2f-4c5b-9a8e-7f6d5c4b3a21"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
        env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
             "GIT_COMMITTER_EMAIL": "t@x", "HOME": str(repo), "PATH": "/usr/bin:/bin"},
    ).stdout


def reserve_a_cell_for_an_agent(project: Path) -> None:
    """Mark the last cell as an agent's that was not running, as a launch leaves it."""
    path = project / ".ideai" / "layouts.json"
    data = json.loads(path.read_text())
    node = data["layouts"][0]["tree"]["root"]
    while node["type"] != "leaf":
        node = node["node"]["children"][-1]["node"]
    node["node"].update(agent="a6ced819-b893-4213-b003-9e9dc79b9641", session=AGENT_SESSION)
    path.write_text(json.dumps(data, indent=2) + "\n")


def test_a_daemon_restart_does_not_dirty_the_committed_layouts(idea: IdeaEnv) -> None:
    require_program("git")
    project = idea.root / "web"
    project.mkdir()
    git(project, "init", "-q")
    idea.run("new", str(project))
    idea.run("split", "-h")
    idea.run("split", "-v")
    idea.run("kill-server", "-f")
    reserve_a_cell_for_an_agent(project)
    git(project, "add", "-A")
    git(project, "commit", "-qm", "layouts")
    committed = (project / ".ideai" / "layouts.json").read_bytes()

    for _ in range(2):
        idea.run("open", str(project))  # starts a daemon, which reopens everything
        # The two shells run again (the agent's cell waits for its agent).
        retry_until(lambda: sum(c["running"] for c in idea.cells()) == 2,
                    describe=lambda: str(idea.cells()))
        idea.run("kill-server", "-f")
        assert git(project, "status", "--porcelain") == ""
    assert (project / ".ideai" / "layouts.json").read_bytes() == committed
