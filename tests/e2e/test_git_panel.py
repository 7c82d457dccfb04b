"""The git panel and the Git Graph page in the real attached client (tmux), against the
real daemon and a real repository: a file written behind the panel's back shows up (the
daemon's watcher, no polling), it is staged and committed from the panel, and the graph page
shows the new commit; Enter on it shows its diff. The message typed right after `c` lands in
the message box whole, however fast it comes (no key of it runs a panel command)."""

from __future__ import annotations

import subprocess

import pytest

from tests.helpers.idea import IdeaEnv
from tests.helpers.programs import require_program
from tests.helpers.tui import TuiFactory

pytestmark = pytest.mark.e2e


def test_stage_and_commit_from_the_panel_then_the_graph(idea: IdeaEnv, tui: TuiFactory) -> None:
    require_program("git")
    (idea.user_home / ".gitconfig").write_text(
        "[user]\n\tname = Panel User\n\temail = panel@example.com\n"
        "[init]\n\tdefaultBranch = main\n")
    project = idea.new_project("web")
    subprocess.run(["git", "init", "-q"], cwd=project, env=idea.env, check=True)
    client = tui()
    client.prefix("G")
    client.wait_for(r"main\s+no commits yet")
    (project / "hello.py").write_text("print('hello')\n")
    client.wait_for(r"hello\.py")  # the watcher told the panel; nobody pressed anything
    # Stage every untracked file from the section's header (idea's own .ideai files are
    # there too: layouts and project are meant to be committed), then commit.
    client.send_keys("Up")
    client.send_keys("s")
    client.wait_for(r"Staged \(\d\)")
    client.send_keys("c")
    client.type("First from the panel")  # at once: no key of it may run a panel command
    client.send_keys("Enter")
    client.wait_for(r"committed [0-9a-f]{10}")
    log = subprocess.run(["git", "log", "--format=%an|%s"], cwd=project, capture_output=True,
                         text=True, check=True).stdout
    assert log == "Panel User|First from the panel\n"
    client.send_keys("Escape")
    idea.run("layout", "new", "--kind", "gitGraph")
    client.wait_for(r"● [0-9a-f]{8} \(HEAD -> main\) First from the panel")
    client.send_keys("Enter")  # the commit's diff
    client.wait_for(r"Panel User <panel@example\.com>")
    client.wait_for(r"\.ideai/\.gitignore\s+added")
