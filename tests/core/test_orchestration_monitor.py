"""The monitor's rows: states with their detail, the marks that say an agent needs the user,
ticket durations, and JSON both ways (a newer daemon's extra keys are ignored)."""

from __future__ import annotations

import itertools

from core.orchestration.mailbox import Mailbox
from core.orchestration.monitor import (
    AgentRow,
    Snapshot,
    TicketRow,
    agent_table,
    align,
    duration,
    recent_tickets,
    ticket_table,
    trouble_of,
)
from core.orchestration.tickets import Limits


def _box() -> Mailbox:
    counter = itertools.count(1)
    return Mailbox(Limits(), lambda: f"T{next(counter)}")


def _ask(box: Mailbox, target: str, now: float) -> str:
    return box.ask(requester="a", requester_name="Conductor", target=target,
                   target_name=target.title(), task="do it", now=now).id


def test_a_state_shows_its_detail_and_a_limited_agent_needs_the_user() -> None:
    row = AgentRow(name="Dev", state="rate_limited", detail="until 14:05")
    assert row.state_label() == "rate_limited (until 14:05)"
    assert row.needs_user()
    assert not AgentRow(name="QA", state="working").needs_user()
    assert AgentRow(name="QA", state="idle", trouble="T3 timed out").needs_user()


def test_rows_round_trip_through_json_and_ignore_unknown_keys() -> None:
    row = AgentRow(name="Dev", state="working", queue=2, ticket="T1", asked_by="user",
                   since=3.5)
    data = row.to_json()
    assert data["askedBy"] == "user" and "asked_by" not in data
    assert AgentRow.from_json({**data, "limitResetsAt": 123}) == row
    snap = Snapshot("proj", [row], [TicketRow("T1", "user", "Dev", "submitted", 3.5)])
    assert Snapshot.from_json(snap.to_json()) == snap


def test_recent_tickets_are_newest_first_with_their_durations() -> None:
    box = _box()
    first = _ask(box, "dev", 10.0)
    second = _ask(box, "qa", 11.0)
    box.delivered(first, 10.5)
    box.reply(replier="dev", result="ok", ticket_id=first, now=12.0)
    rows = recent_tickets(box.tickets(), now=20.0)
    assert [r.ticket for r in rows] == [second, first]
    assert rows[1].state == "replied" and rows[1].took == 2.0 and rows[1].age == 10.0
    assert rows[0].took is None
    assert len(recent_tickets(box.tickets(), now=20.0, count=1)) == 1


def test_an_agents_latest_timed_out_or_failed_ticket_marks_it_until_a_later_one() -> None:
    box = _box()
    first = _ask(box, "dev", 0.0)
    box.fail(first, 1.0, "the turn never started")
    assert trouble_of(box.tickets(), "dev") == f"{first} failed"
    assert trouble_of(box.tickets(), "qa") == ""
    later = _ask(box, "dev", 2.0)
    assert trouble_of(box.tickets(), "dev") == ""
    box.delivered(later, 2.5)
    timed = box.sweep(2.5 + Limits().turn_timeout + 1)
    assert [t.id for t in timed] == [later]
    assert trouble_of(box.tickets(), "dev") == f"{later} timed out"


def test_tables_align_and_say_durations_for_people() -> None:
    assert [duration(s) for s in (None, 0.42, 12.4, 300, 9000)] == [
        "", "0.4 s", "12 s", "5 min", "2 h"]
    rows = [AgentRow(name="Conductor", state="working", ticket="T1", asked_by="user",
                     since=4.0),
            AgentRow(name="QA", state="blocked", detail="Do you want to proceed?", queue=1,
                     trouble="T2 failed")]
    lines = align(agent_table(rows))
    assert lines[0].split() == ["AGENT", "STATE", "QUEUE", "TICKET", "FOR", "SINCE"]
    assert lines[1].split() == ["Conductor", "working", "T1", "user", "4.0", "s"]
    assert "blocked (Do you want to proceed?)" in lines[2] and lines[2].endswith("! T2 failed")
    assert lines[1].index("working") == lines[2].index("blocked")
    tickets = align(ticket_table([TicketRow("T2", "Conductor", "QA", "timed_out", 400.0,
                                            reason="no reply in 300 s")]))
    assert "timed out" in tickets[1] and tickets[1].endswith("no reply in 300 s")
    assert all(len(line) <= 20 for line in align(agent_table(rows), 20))
