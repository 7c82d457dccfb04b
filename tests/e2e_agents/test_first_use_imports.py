"""The first command of each feature imports nothing on the daemon's loop (issue 7).

A module imported for the first time runs on the thread that asks for it; on the loop it
holds every PTY and client meanwhile (the MCP SDK's Rich, uvicorn's h11, anyio's streams:
a second on a loaded machine). The real daemon notes every module its loop imports after
start (`idea_daemon.late_imports`); once its start-up imports in the worker are done
(`warm`), the first git, agent (an MCP agent connecting and its tools listed), conversation,
knowledge, skill and template commands must add none. No timing is measured: the list of
modules says it.
"""

from __future__ import annotations

import subprocess
from typing import Any

from idea_tui.control import ControlClient
from tests.e2e_agents.delegation import team
from tests.e2e_agents.helpers import PROMPT_READY, WAIT
from tests.helpers.idea import IdeaEnv
from tests.helpers.retry import retry_until


def loop_stats(idea: IdeaEnv) -> dict[str, Any]:
    with ControlClient.connect(idea.locations) as control:
        stats: dict[str, Any] = control.call("loop_stats")
    return stats


def test_the_first_command_of_every_feature_imports_nothing_on_the_loop(
        idea: IdeaEnv) -> None:
    agents = team(idea, ("first",))
    git = ["git", "-C", str(agents.project), "-c", "user.name=t", "-c", "user.email=t@x"]
    subprocess.run([*git, "init", "-q"], check=True)
    (agents.project / "README.md").write_text("hello\n")
    subprocess.run([*git, "add", "README.md"], check=True)
    subprocess.run([*git, "commit", "-qm", "first"], check=True)
    retry_until(lambda: loop_stats(idea)["warm"], WAIT,
                describe=lambda: f"the daemon never finished its start-up imports: "
                                 f"{loop_stats(idea)}")
    cwd = agents.project
    for command in (("git", "status"), ("git", "log"), ("git", "diff"), ("git", "branch"),
                    ("agent", "list"), ("work",), ("conversation", "list"),
                    ("memory", "list"), ("context", "show"), ("skill", "list"),
                    ("template", "list"), ("profile", "list")):
        idea.run(*command, cwd=cwd)
    launched = agents.launch("first")
    # The fake agent shows its prompt once its MCP session is up and its tools listed.
    agents.capture(launched["target"], PROMPT_READY)
    assert loop_stats(idea)["lateImports"] == []
