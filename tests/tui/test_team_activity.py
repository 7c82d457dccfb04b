"""The Agents panel's status says what an agent does for the team (issue 8)."""

from __future__ import annotations

from idea_tui.screens.flows import agent_status


def test_status_names_the_ticket_the_asker_and_the_queue() -> None:
    agent = {"state": "running", "background": True, "activity": "working", "ticket": "T3",
             "askedBy": "Conductor", "since": 40, "queue": 2}
    assert agent_status(agent) == (
        "running in background · working on T3 for Conductor (40 s) · 2 queued"
    )


def test_an_idle_agent_with_nothing_queued_says_nothing_more() -> None:
    agent = {"state": "running", "cell": "c1", "target": "p:main.1", "activity": "idle",
             "queue": 0}
    assert agent_status(agent) == "running in cell p:main.1"
    blocked = dict(agent, activity="blocked")
    assert agent_status(blocked) == "running in cell p:main.1 · blocked"
