"""`idea monitor` (issue 8, "Seeing it"): the agents, their states, queues and tickets, and the
recent delegations, from the real daemon with fake agents that speak MCP."""

from __future__ import annotations

import json
import select
import subprocess
import time
from typing import Any

import pytest

from tests.e2e_agents.delegation import team
from tests.e2e_agents.helpers import WAIT, Agents
from tests.helpers.idea import IDEA_BIN, IdeaEnv
from tests.helpers.retry import retry_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def ask(agents: Agents, name: str, task: str, *extra: str) -> dict[str, Any]:
    done = agents.idea.run("ask", name, task, "--json", *extra, check=False, timeout=WAIT * 2)
    assert done.stdout, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def snapshot(agents: Agents) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(agents.idea.run("monitor", "--once", "--json").stdout)
    return data


def rows(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["name"]: row for row in data["agents"]}


def test_the_monitor_shows_who_works_for_whom_and_who_needs_the_user(idea: IdeaEnv) -> None:
    agents = team(idea, ("Dev", "QA"))
    first = snapshot(agents)
    assert {name: row["state"] for name, row in rows(first).items()} == {
        "Dev": "stopped", "QA": "stopped"}
    assert first["tickets"] == []
    done = ask(agents, "Dev", "reply ready")
    assert done["state"] == "replied", done
    waiting = ask(agents, "QA", "never", "--timeout", "0.5")
    assert waiting["state"] in ("queued", "delivered", "submitted"), waiting

    def qa_on_it() -> dict[str, Any] | None:
        data = snapshot(agents)
        qa = rows(data)["QA"]
        # (Its screen may say idle: the fake agent shows its prompt while it never replies.)
        return data if qa["ticket"] == waiting["ticket"] else None

    data = retry_until(qa_on_it, WAIT)
    qa, dev = rows(data)["QA"], rows(data)["Dev"]
    assert qa["askedBy"] == "user" and qa["since"] is not None
    assert dev["state"] == "idle" and dev["ticket"] is None and dev["trouble"] == ""
    # Newest first: QA's open ask, then Dev's answered one with how long it took.
    assert [(t["ticket"], t["target"], t["requester"]) for t in data["tickets"]] == [
        (waiting["ticket"], "QA", "user"), (done["ticket"], "Dev", "user")]
    assert data["tickets"][1]["state"] == "replied" and data["tickets"][1]["took"] > 0
    assert data["tickets"][0]["took"] is None

    # An interrupted turn fails its ticket: QA is marked, in JSON and in the text view.
    agents.idea.run("agent", "interrupt", "QA")
    def qa_marked() -> dict[str, Any] | None:
        data = snapshot(agents)
        return data if rows(data)["QA"]["trouble"] else None

    data = retry_until(qa_marked, WAIT)
    assert rows(data)["QA"]["trouble"] == f"{waiting['ticket']} failed"
    assert data["tickets"][0]["state"] == "failed"
    assert "interrupted" in data["tickets"][0]["reason"]
    text = agents.idea.run("monitor", "--once").stdout
    assert f"needs you: QA ({waiting['ticket']} failed)" in text
    assert "AGENT" in text and "recent delegations" in text


def test_the_json_stream_prints_a_line_when_something_changed(idea: IdeaEnv) -> None:
    agents = team(idea, ("Dev",))
    process = subprocess.Popen(
        [IDEA_BIN, "monitor", "--json", "--interval", "0.1"], env=idea.env, cwd=idea.root,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert process.stdout is not None
        first = json.loads(process.stdout.readline())
        assert rows(first)["Dev"]["state"] == "stopped" and "time" in first
        # Nothing changes: no new line while the monitor looks many times.
        ready, _, _ = select.select([process.stdout], [], [], 1.0)
        assert not ready
        done = ask(agents, "Dev", "reply hello")
        assert done["state"] == "replied"
        deadline = time.monotonic() + WAIT
        seen: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            assert line, process.stderr.read() if process.stderr else ""
            seen.append(json.loads(line))
            if any(t["state"] == "replied" for t in seen[-1]["tickets"]):
                break
        assert seen and seen[-1]["tickets"][0]["ticket"] == done["ticket"]
    finally:
        process.terminate()
        process.wait(10)
