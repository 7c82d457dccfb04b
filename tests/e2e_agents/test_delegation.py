"""Delegation end to end (issue 8): fake agents speaking MCP through the real SDK to the
real daemon, tasks typed into their PTYs, replies through idea_reply."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.e2e_agents.delegation import mcp_profile, team
from tests.e2e_agents.helpers import WAIT, Agents
from tests.helpers.idea import IdeaEnv
from tests.helpers.retry import retry_until

pytestmark = pytest.mark.e2e


def ask(agents: Agents, name: str, task: str, *extra: str) -> dict[str, Any]:
    done = agents.idea.run("ask", name, task, "--json", *extra, check=False, timeout=WAIT * 2)
    assert done.stdout, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_the_user_asks_an_agent_that_is_cold_launched(idea: IdeaEnv) -> None:
    agents = team(idea, ("Dev",))
    result = ask(agents, "Dev", "reply all tests pass")
    assert result["state"] == "replied", result
    assert result["reply"] == "all tests pass"
    dev = agents.info("Dev")
    assert dev["state"] == "running" and dev["background"] is True
    report = agents.report(dev["id"], lambda r: bool(r["mcp"]["calls"]))
    assert report["mcp"]["connected"]
    [call] = report["mcp"]["calls"]
    assert call["tool"] == "idea_reply" and not call["isError"]
    # What the agent received is the D8 prefix and the task.
    assert report["messages"] == [f"[idea · task from user · ticket {result['ticket']}] "
                                  "reply all tests pass"]


def tickets(agents: Agents) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = agents.idea.json("agent", "tickets")
    return listed


def ticket(agents: Agents, ticket_id: str) -> dict[str, Any]:
    [found] = [t for t in tickets(agents) if t["ticket"] == ticket_id]
    return found


def messages(agents: Agents, name: str, count: int) -> list[str]:
    report = agents.report(agents.info(name)["id"], lambda r: len(r["messages"]) >= count)
    found: list[str] = report["messages"]
    return found


def test_an_agent_asks_another_through_mcp(idea: IdeaEnv) -> None:
    agents = team(idea, ("Conductor", "Dev"))
    result = ask(agents, "Conductor", "ask Dev check the build")
    assert result["state"] == "replied", result
    assert result["reply"] == "Dev said: done: check the build"
    conductor = agents.info("Conductor")
    calls = agents.report(conductor["id"])["mcp"]["calls"]
    assert calls[0]["arguments"] == {"target": "Dev", "task": "check the build"}
    assert calls[-1]["tool"] == "idea_reply"
    # A cold launch slower than one long-poll: "No reply yet", then the same ticket again.
    for again in calls[1:-1]:
        assert again["tool"] == "idea_ask_agent" and set(again["arguments"]) == {"target",
                                                                                 "ticket"}
        assert again["arguments"]["ticket"] in calls[0]["text"]
    [dev_message] = messages(agents, "Dev", 1)
    assert dev_message.startswith("[idea · task from Conductor · ticket ")


def test_a_cycle_is_refused_before_anything_is_queued(idea: IdeaEnv) -> None:
    agents = team(idea, ("Alpha", "Beta"))
    result = ask(agents, "Alpha", "ask Beta ask Alpha hello")
    assert result["state"] == "replied", result
    assert result["reply"].startswith("Beta said: Alpha said: error: ")
    assert "Refused: Alpha is (directly or through others) waiting for Beta" in result["reply"]
    assert "deadlock" in result["reply"]
    # Only the two legitimate asks were ever queued.
    assert [(t["requester"], t["target"]) for t in tickets(agents)] == [
        ("user", "Alpha"),
        ("Alpha", "Beta"),
    ]


def test_fifo_one_turn_at_a_time_and_parallel_targets(idea: IdeaEnv) -> None:
    agents = team(idea, ("Dev", "QA"))
    assert ask(agents, "Dev", "reply up")["state"] == "replied"  # Dev runs
    first = ask(agents, "Dev", "never", "--timeout", "0.5")
    assert first["state"] in ("queued", "delivered", "submitted"), first
    # Dev's turn holds its queue, but QA is not held up by it.
    queued = [agents.idea.json("agent", "send", "Dev", f"line {n}") for n in (1, 2, 3)]
    assert agents.idea.json("agent", "state", "Dev")["queue"] == 3
    # The Agents panel and `idea agent list` carry who works on what.
    dev = agents.info("Dev")
    assert (dev["ticket"], dev["askedBy"], dev["queue"]) == (first["ticket"], "user", 3)
    assert ask(agents, "QA", "reply independent")["reply"] == "independent"
    assert ticket(agents, first["ticket"])["state"] == "submitted"
    assert all(ticket(agents, q["ticket"])["state"] == "queued" for q in queued)
    # Interrupting Dev's turn fails its ticket and lets the queue move on, in order.
    agents.idea.run("agent", "interrupt", "Dev")
    assert ticket(agents, first["ticket"])["state"] == "failed"
    got = messages(agents, "Dev", 5)
    assert got[2:] == ["line 1", "line 2", "line 3"]
    retry_until(lambda: all(ticket(agents, q["ticket"])["state"] == "done" for q in queued)
                or None, WAIT)


def test_timeouts_and_double_replies(idea: IdeaEnv) -> None:
    bounds = "[delegation]\nturn_timeout = 2\nqueue_wait_cap = 60\npoll_max = 30\n"
    agents = team(idea, ("Dev",), bounds)
    timed = ask(agents, "Dev", "never")
    assert timed["state"] == "timed_out"
    assert "gave no reply within 2 s" in timed["reason"] and "keeps running" in timed["reason"]
    assert agents.info("Dev")["state"] == "running"
    twice = ask(agents, "Dev", "twice yes")
    assert (twice["state"], twice["reply"]) == ("replied", "yes")
    calls = agents.report(agents.info("Dev")["id"], lambda r: len(r["mcp"]["calls"]) >= 2)
    second = calls["mcp"]["calls"][-1]
    assert second["isError"] and "already replied" in second["text"]


def test_a_cancelled_ask_frees_the_target(idea: IdeaEnv) -> None:
    agents = team(idea, ("Lead", "Dev"))
    result = ask(agents, "Lead", "ask-cancel Dev never")
    assert (result["state"], result["reply"]) == ("replied", "cancelled my ask")
    [cancelled] = [t for t in tickets(agents) if t["requester"] == "Lead"]
    assert cancelled["state"] == "cancelled" and "Lead cancelled the call" in cancelled["reason"]
    # Dev is not stuck busy: the next task goes through.
    assert ask(agents, "Dev", "reply free")["reply"] == "free"
    # An agent that crashes mid-turn fails its ticket with the reason.
    crashed = ask(agents, "Dev", "crash")
    assert crashed["state"] == "failed"
    assert "Dev exited during the task (exit code 3)" in crashed["reason"]


def test_a_human_draft_is_never_merged_with_a_task(idea: IdeaEnv) -> None:
    agents = team(idea, ("Dev",))
    launched = agents.launch("Dev")
    target = launched["target"]
    agents.capture(target, "MCP connected")
    # Started, so that the only reason left for the line to wait is the draft.
    retry_until(lambda: idea.json("agent", "state", "Dev")["state"] == "idle" or None, WAIT)
    idea.send_keys(target, "half typed")
    sent = idea.json("agent", "send", "Dev", "queued line")
    # The keys typed show as work for a moment (output, then quiet); then the line waits
    # for the draft, and says so.
    waiting = retry_until(
        lambda: "typing" in ((state := idea.json("agent", "state", "Dev"))["waitingFor"]
                             or "") and state, WAIT,
        describe=lambda: str(idea.json("agent", "state", "Dev")))
    assert waiting["state"] == "idle"
    assert ticket(agents, sent["ticket"])["state"] == "queued"
    idea.send_keys(target, " draft", "Enter")
    assert messages(agents, "Dev", 2) == ["half typed draft", "queued line"]


def test_pending_tickets_survive_a_daemon_restart(idea: IdeaEnv) -> None:
    agents = team(idea, ("Dev",))
    pending = ask(agents, "Dev", "never", "--timeout", "0.5")
    dev = agents.info("Dev")
    first = agents.report(dev["id"], lambda r: len(r["messages"]) == 1)
    retry_until(lambda: ticket(agents, pending["ticket"])["state"] == "submitted" or None, WAIT)
    idea.kill_daemon_hard()
    idea.run("project", "list")  # starts a new daemon
    # It reopens the project and its journal; Dev died with the old daemon.
    assert ticket(agents, pending["ticket"])["state"] == "queued"
    agents.launch("Dev", "--background")
    again = agents.report(dev["id"], lambda r: r["pid"] != first["pid"] and bool(r["messages"]))
    assert again["messages"] == first["messages"]
    retry_until(lambda: ticket(agents, pending["ticket"])["state"] == "submitted" or None, WAIT)


RESTART_BOUNDS = """
[delegation]
turn_timeout = 120
queue_wait_cap = 240
poll_max = 2
progress_every = 0.5
"""


def lead_calls(agents: Agents, arguments: dict[str, str]) -> str:
    """The Lead makes one idea_ask_agent call (a caller that calls again with its ticket)
    and answers the user with what the call returned ("error: …" for an error result)."""
    result = ask(agents, "Lead", f"call idea_ask_agent {json.dumps(arguments)}")
    assert result["state"] == "replied", result
    reply: str = result["reply"]
    return reply


def restart(idea: IdeaEnv) -> None:
    idea.kill_daemon_hard()  # the agents die with it
    idea.run("project", "list")  # starts a new daemon, which reopens the project


def test_after_a_restart_the_caller_collects_its_answer_or_gets_a_clear_error(
        idea: IdeaEnv) -> None:
    agents = team(idea, ("Lead", "Dev"), RESTART_BOUNDS)
    release = idea.root / "release"
    waiting = lead_calls(agents, {"target": "Dev", "task": f"hold {release} the answer"})
    found = re.search(r'ticket="(\w+)"', waiting)
    assert waiting.startswith("No reply yet") and found is not None, waiting
    ticket_id = found.group(1)
    retry_until(lambda: ticket(agents, ticket_id)["state"] == "submitted" or None, WAIT)
    dev = agents.info("Dev")
    first = agents.report(dev["id"], lambda r: len(r["messages"]) == 1)
    restart(idea)
    # Re-delivered once Dev is back; answered; kept until its caller collects it.
    agents.launch("Dev", "--background")
    again = agents.report(dev["id"], lambda r: r["pid"] != first["pid"] and bool(r["messages"]))
    assert again["messages"] == first["messages"]
    release.touch()
    retry_until(lambda: ticket(agents, ticket_id)["state"] == "replied" or None, WAIT)
    # The Lead, launched again (by the user's ask), calls again with its ticket.
    assert lead_calls(agents, {"target": "Dev", "ticket": ticket_id}) == "the answer"

    # A pending ask whose target was removed while idea was down: a clear error, at once.
    held = lead_calls(agents, {"target": "Dev", "task": f"hold {idea.root / 'never'} x"})
    lost = re.search(r'ticket="(\w+)"', held)
    assert lost is not None, held
    retry_until(lambda: ticket(agents, lost.group(1))["state"] == "submitted" or None, WAIT)
    idea.kill_daemon_hard()
    manifest = agents.ideai / "agents.json"
    data = json.loads(manifest.read_text())
    data["agents"] = [a for a in data["agents"] if a["name"] != "Dev"]
    manifest.write_text(json.dumps(data))
    idea.run("project", "list")
    answer = lead_calls(agents, {"target": "Dev", "ticket": lost.group(1)})
    assert answer.startswith("error: ") and answer.endswith(
        f"The task for Dev (ticket {lost.group(1)}) failed: Dev is no longer an agent of "
        "this project."), answer


def test_an_enter_the_cli_lost_is_submitted_again(idea: IdeaEnv) -> None:
    """Delivery is verified (DLG-2): the CLI loses the Enter after the task, as a loaded Codex
    sometimes does; nothing shows the turn started, so idea submits again and it goes."""
    agents = team(idea, ())
    dropping = mcp_profile("fake-drops")
    dropping["args"] += ["--drop-submits", "1"]
    agents.add_profile(dropping)
    agents.new("Dev", "fake-drops")
    result = ask(agents, "Dev", "reply got it")
    assert (result["state"], result["reply"]) == ("replied", "got it"), result
    assert ticket(agents, result["ticket"])["submits"] == 2
    assert messages(agents, "Dev", 1) == [
        f"[idea · task from user · ticket {result['ticket']}] reply got it"]
