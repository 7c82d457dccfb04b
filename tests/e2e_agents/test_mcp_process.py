"""idea's MCP server runs in a worker process the daemon owns (idea_daemon/orchestration/
mcp_host.py): the daemon itself never loads the mcp SDK (its per-call work would hold the
daemon's loop), and the worker never outlives its daemon."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e_agents.delegation import team
from tests.e2e_agents.helpers import WAIT
from tests.helpers.idea import IdeaEnv
from tests.helpers.retry import retry_until

pytestmark = pytest.mark.e2e


def workers_of(pid: int) -> list[int]:
    """The daemon's child processes that are its MCP worker."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(c) for c in children
            if b"adapters.mcp.worker" in Path(f"/proc/{c}/cmdline").read_bytes()]


def loads_the_sdk(pid: int) -> bool:
    """Whether the process has the SDK's validation library (pydantic's core) mapped."""
    return "pydantic_core" in Path(f"/proc/{pid}/maps").read_text()


def test_the_daemon_never_loads_the_sdk_and_its_worker_dies_with_it(idea: IdeaEnv) -> None:
    agents = team(idea, ("Dev",))
    done = agents.idea.json("ask", "Dev", "reply through the worker")
    assert done["reply"] == "through the worker", done
    daemon = idea.daemon_pid()
    assert daemon is not None
    [worker] = workers_of(daemon)
    assert loads_the_sdk(worker)
    assert not loads_the_sdk(daemon)
    idea.kill_daemon_hard()
    retry_until(lambda: not Path(f"/proc/{worker}").exists() or None, WAIT,
                describe="the MCP worker outlived its daemon")
