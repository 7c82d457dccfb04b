"""Live state end to end (issue 9, LIV-1..LIV-7): fake agents speaking MCP to the real
daemon; the rows follow the delegation cycle at zero token cost, reach the launch context
of the agent being asked, and an agent sets its own row through the tool."""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

import pytest

from tests.e2e_agents.delegation import team
from tests.e2e_agents.helpers import WAIT, Agents
from tests.helpers.idea import IDEA_BIN, IdeaEnv
from tests.helpers.retry import retry_until

pytestmark = pytest.mark.e2e


def rows(agents: Agents) -> dict[str, dict[str, Any]]:
    listed: dict[str, Any] = agents.idea.json("work")
    return {row["agent"]: row for row in listed["rows"]}


def wait_rows(agents: Agents, expected: dict[str, str]) -> dict[str, dict[str, Any]]:
    """The rows once each named agent has the expected status."""
    def check() -> dict[str, dict[str, Any]] | None:
        found = rows(agents)
        ok = all(found.get(name, {}).get("status") == status
                 for name, status in expected.items())
        return found if ok else None

    result: dict[str, dict[str, Any]] = retry_until(check, WAIT * 2,
                                                    describe=f"rows {expected}")
    return result


def test_rows_follow_an_ask_and_its_reply_and_reach_the_asked_agents_context(
    idea: IdeaEnv,
) -> None:
    agents = team(idea, ("Lead", "Dev"))
    release = idea.root / "release-dev"
    pending = subprocess.Popen(
        [IDEA_BIN, "ask", "Lead", f"ask Dev hold {release} reviewed", "--json"],
        env=idea.env, stdout=subprocess.PIPE, text=True,
    )
    try:
        during = wait_rows(agents, {"Dev": "working", "Lead": "waiting"})
        assert during["Dev"]["askedBy"] == "Lead"
        assert during["Dev"]["task"] == f"hold {release} reviewed"
        ticket = during["Dev"]["ticket"]
        assert during["Lead"]["note"] == f"waiting for Dev (ticket {ticket})"
        assert during["Lead"]["task"].startswith("ask Dev hold")  # the user's task to Lead
        # Dev was cold launched by that ask: its context shows Lead's row, not its own.
        dev = agents.info("Dev")
        context = (agents.run_dir(dev["id"]) / "context.md").read_text()
        state = context.split("# Project state\n\n", 1)[1]
        assert f"- Lead: waiting — ask Dev hold {release} reviewed" in state
        assert "- Dev:" not in state
        release.write_text("go")
        out, _ = pending.communicate(timeout=WAIT * 2)
    finally:
        pending.kill()
    assert json.loads(out)["reply"] == "Dev said: reviewed"
    after = wait_rows(agents, {"Dev": "done", "Lead": "done"})
    assert after["Dev"]["note"] == f"replied to Lead (ticket {ticket})"
    assert re.fullmatch(r"replied to user \(ticket \S+\)", after["Lead"]["note"])
    # On disk, for the next daemon (the file is written coalesced, off the loop).
    path = agents.ideai / "live-state.json"

    def on_disk() -> dict[str, Any] | None:
        try:
            entries: dict[str, Any] = json.loads(path.read_text())["entries"]
        except (OSError, ValueError, KeyError):
            return None
        done = {e["status"] for e in entries.values()} == {"done"} and len(entries) == 2
        return entries if done else None

    entries = retry_until(on_disk, WAIT)
    assert entries[dev["id"]]["lastDelegation"]["ticket"] == ticket
    # A restarted daemon reads the rows back.
    idea.run("kill-server", "-f")
    assert {name: row["status"] for name, row in rows(agents).items()} == {
        "Lead": "done", "Dev": "done"}


def test_an_agent_sets_its_own_row_through_mcp_and_bad_values_are_refused(
    idea: IdeaEnv,
) -> None:
    agents = team(idea, ("Dev",))
    done = agents.idea.run("ask", "Dev", "workstate blocked waiting for the schema", "--json",
                           timeout=WAIT * 2)
    reply = json.loads(done.stdout)["reply"]
    assert json.loads(reply)["status"] == "blocked", reply
    # The reply turn itself made the row "done" afterwards (derived, last writer wins);
    # the task the agent set is kept.
    row = wait_rows(agents, {"Dev": "done"})["Dev"]
    assert row["task"] == "waiting for the schema"
    refused = agents.idea.run("ask", "Dev", "workstate sleeping", "--json", timeout=WAIT * 2)
    answer = json.loads(refused.stdout)["reply"]
    assert answer.startswith("error: ") and "idle, working, blocked, waiting, done" in answer
    # The refused set changed nothing; the ask itself (derived) is Dev's task now.
    text = agents.idea.run("work").stdout
    assert re.fullmatch(r"Dev  done  workstate sleeping \(replied to user \(ticket \S+\)\) · "
                        r"asked by user\n", text), text


def test_a_running_agent_is_offered_its_refreshed_context_and_gets_it_through_its_queue(
    idea: IdeaEnv,
) -> None:
    agents = team(idea, ("Lead", "Dev"))
    agents.launch("Dev", "--background")
    dev = agents.info("Dev")
    pid = agents.report(dev["id"], lambda r: r["mcp"]["connected"])["pid"]
    assert offered_refresh(agents) == []
    # Lead works and replies: the rows move, so Dev's "# Project state" would read differently.
    assert agents.idea.json("ask", "Lead", "reply ok")["reply"] == "ok"
    # Dev has no row of its own (it did nothing yet); it is offered a refresh all the same.
    retry_until(lambda: offered_refresh(agents) == ["Dev"] or None, WAIT,
                describe=lambda: f"offered: {offered_refresh(agents)}")
    assert not rows(agents)["Lead"].get("refresh"), "Lead's own row is not in its context"
    refreshed = agents.idea.json("agent", "refresh", "Dev")
    assert refreshed["sections"] == ["state"] and refreshed["ticket"]
    [message] = [m for m in agents.report(dev["id"], lambda r: bool(r["messages"]))["messages"]]
    assert message.startswith("[idea · context refresh]")
    assert "# Project state" in message and "- Lead: done" in message
    # It went through Dev's FIFO as the user's line and the offer is gone; the agent was
    # never restarted (same process).
    assert agents.report(dev["id"])["pid"] == pid
    assert offered_refresh(agents) == []
    again = agents.idea.json("agent", "refresh", "Dev")
    assert again == {"agent": "Dev", "ticket": None, "sections": []}
    # The user edits the shared project context: noticed without anyone reporting it.
    (agents.ideai / "CONTEXT.md").write_text("Release freeze until Friday.\n")
    # Both agents share it this time.
    retry_until(lambda: offered_refresh(agents) == ["Lead", "Dev"] or None, WAIT,
                describe=lambda: f"offered: {offered_refresh(agents)}")
    second = agents.idea.json("agent", "refresh", "Dev")
    assert second["sections"] == ["project_context"]
    got = agents.report(dev["id"], lambda r: len(r["messages"]) >= 2)["messages"][1]
    assert "# Project context\n\nRelease freeze until Friday." in got


def offered_refresh(agents: Agents) -> list[str]:
    names: list[str] = agents.idea.json("work")["refresh"]
    return names


def test_a_damaged_live_state_file_never_fails_a_delegation_and_is_left_alone(
    idea: IdeaEnv,
) -> None:
    """LIV-4 best-effort: derived updates are skipped, the delegation goes through, the file
    is never overwritten, `idea work` and idea_workstate_set say why; once the user removes
    the file, rows come back without a restart."""
    agents = team(idea, ("Lead", "Dev"))
    path = agents.ideai / "live-state.json"
    path.write_text('{"version": 1, "entries": {"x": ')
    done = agents.idea.json("ask", "Lead", "ask Dev check the build")
    assert done["reply"] == "Dev said: done: check the build", done
    listed = agents.idea.json("work")
    assert listed["rows"] == [] and "live-state.json" in listed["problem"], listed
    refused = json.loads(agents.idea.run("ask", "Dev", "workstate blocked on CI", "--json",
                                         timeout=WAIT * 2).stdout)["reply"]
    assert refused.startswith("error: ") and "live-state.json" in refused, refused
    assert path.read_text() == '{"version": 1, "entries": {"x": '
    path.unlink()
    assert agents.idea.json("ask", "Lead", "reply fixed")["reply"] == "fixed"
    after = wait_rows(agents, {"Lead": "done"})
    assert after["Lead"]["task"] == "reply fixed"
