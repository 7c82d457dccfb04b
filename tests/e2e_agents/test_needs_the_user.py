"""An agent that needs the user marks its cell and the status line (issue 8, "Seeing it"):
a turn that timed out, a task waiting while the agent is blocked on a question, a task whose
delivery failed. Fake agents speaking MCP to the real daemon, in cells of the user's screen;
a raw client attached to the window sees the notices (the status line) and the scenes (the
mark in each cell's title) the daemon sends."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from adapters.ipc.messages import DaemonMessage, Notice, Scene
from tests.e2e_agents.delegation import mcp_profile, team
from tests.e2e_agents.helpers import WAIT, Agents
from tests.helpers.idea import IdeaEnv
from tests.helpers.raw_client import RawClient
from tests.helpers.retry import retry_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

BOUNDS = "[delegation]\nturn_timeout = 20\nqueue_wait_cap = 120\npoll_max = 30\n"
"""A turn's bound above the 3 × 4 s a delivery is given to show that the turn started."""
QUESTION = "Do you want to proceed?"


def asks(agents: Agents, name: str, task: str) -> dict[str, Any]:
    done = agents.idea.run("ask", name, task, "--json", check=False, timeout=WAIT * 2)
    assert done.stdout, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def mark_of(message: DaemonMessage, cell: str) -> str | None:
    """The mark a scene shows in `cell`'s title (None: not a scene, or no such cell)."""
    if not isinstance(message, Scene):
        return None
    return next((c.mark for c in message.cells if c.id == cell), None)


def last_mark(client: RawClient, cell: str) -> str:
    """The mark of `cell` in the newest scene received so far."""
    while client.receive(0.05) is not None:
        pass
    scenes = [m for m in client.messages if isinstance(m, Scene)]
    return mark_of(scenes[-1], cell) or ""


def notice(client: RawClient, *words: str) -> Notice:
    try:
        found = client.wait_for(
            lambda m: isinstance(m, Notice) and all(w in m.text for w in words), WAIT)
    except AssertionError as exc:
        told = [m.text for m in client.messages if isinstance(m, Notice)]
        raise AssertionError(f"no notice with {words}; notices: {told}") from exc
    assert isinstance(found, Notice)
    return found


def test_timed_out_blocked_and_undelivered_tasks_mark_the_cell_and_the_status_line(
    idea: IdeaEnv,
) -> None:
    agents = team(idea, (), BOUNDS)
    asking = mcp_profile("fake-asking")
    asking["state"]["blockedScreen"] = [f"^{QUESTION.replace('?', '[?]')}"]
    agents.add_profile(asking)
    agents.new("Dev", "fake-asking")
    agents.new("QA", "fake-asking")
    [shell] = [c["id"] for c in idea.json("list-cells")]
    dev, qa = (agents.launch(name) for name in ("Dev", "QA"))
    for launched in (dev, qa):
        idea.capture(launched["target"], wait="MCP connected", timeout=WAIT)
    with RawClient(str(idea.locations.socket), width=160, height=48) as client:
        # The user looks at the shell: the agents' cells are elsewhere on the screen.
        client.call("select", target=f"%{shell}")

        # A turn that timed out.
        timed = asks(agents, "Dev", "never")
        assert timed["state"] == "timed_out", timed
        told = notice(client, "Dev", timed["ticket"], "timed out")
        assert told.level == "error" and "from user" in told.text
        client.wait_for(lambda m: mark_of(m, dev["cell"]) == f"{timed['ticket']} timed out",
                        WAIT)
        # Looking at the cell clears its mark.
        client.call("select", target=f"%{dev['cell']}")
        client.wait_for(lambda m: mark_of(m, dev["cell"]) == "", WAIT)
        client.call("select", target=f"%{shell}")

        # A task for an agent blocked on a question waits, and the user is told.
        idea.send_keys(dev["target"], f"/echo {QUESTION}", "Enter")
        retry_until(lambda: idea.json("agent", "state", "Dev")["state"] == "blocked" or None,
                    WAIT)
        line = agents.idea.json("agent", "send", "Dev", "after the question")
        told = notice(client, "Dev is waiting for you", QUESTION, line["ticket"])
        assert told.level == "error"
        client.wait_for(lambda m: mark_of(m, dev["cell"]) ==
                        f"waiting for you · {line['ticket']} waits", WAIT)
        assert idea.json("agent", "state", "Dev")["queue"] == 1
        # Which rule said so, on which screen line (a CLI update that breaks it shows here).
        explained = idea.run("agent", "state", "Dev", "--explain").stdout
        assert "Dev: blocked, 1 queued" in explained, explained
        assert re.search(r"rule: blocked — blockedScreen\[0\] .* on line \d+: "
                         r"'Do you want to proceed\?'", explained), explained
        assert "next task waits: Dev is blocked" in explained, explained

        # A task typed in but never started (the CLI stopped reading): it fails, said once.
        idea.send_keys(qa["target"], "/stall", "Enter")
        idea.capture(qa["target"], wait="STALLED", timeout=WAIT)
        stuck = agents.idea.json("agent", "send", "QA", "are you there")
        told = notice(client, "QA", stuck["ticket"], "failed", "turn never started")
        client.wait_for(lambda m: mark_of(m, qa["cell"]) == f"{stuck['ticket']} failed", WAIT)
        assert [m for m in client.messages if isinstance(m, Notice)
                and stuck["ticket"] in m.text] == [told]
        assert last_mark(client, shell) == ""
