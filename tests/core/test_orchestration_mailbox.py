"""The mailbox: FIFO per agent, one turn at a time, cycles refused, timeouts, D10 replies."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.orchestration.errors import (
    CycleRefused,
    MissingField,
    NoPendingTicket,
    QueueFull,
    TicketClosed,
    TicketNotFound,
    TicketNotYours,
)
from core.orchestration.journal import JournalError, decode_journal, encode_journal
from core.orchestration.mailbox import Mailbox
from core.orchestration.tickets import USER, Limits, TicketState, delivery_text


def mailbox(**limits: float) -> Mailbox:
    counter = itertools.count(1)
    return Mailbox(Limits(**limits), lambda: f"T{next(counter)}")  # type: ignore[arg-type]


def ask(box: Mailbox, requester: str, target: str, task: str = "do it", now: float = 0.0) -> str:
    return box.ask(
        requester=requester,
        requester_name=requester.title(),
        target=target,
        target_name=target.title(),
        task=task,
        now=now,
    ).id


def test_fifo_one_turn_at_a_time() -> None:
    box = mailbox()
    first, second = ask(box, "a", "dev", "one"), ask(box, "b", "dev", "two")
    assert box.next_for_delivery("dev") is box.get(first)
    box.delivered(first, 1.0)
    # The second waits while the first's turn runs.
    assert box.next_for_delivery("dev") is None
    assert box.current("dev") is box.get(first)
    assert box.depth("dev") == 1
    box.reply(replier="dev", result="done one", ticket_id=None, now=2.0)
    assert box.get(first).state is TicketState.REPLIED
    assert box.get(first).result == "done one"
    assert box.next_for_delivery("dev") is box.get(second)


def test_different_targets_do_not_block_each_other() -> None:
    box = mailbox()
    one, two = ask(box, "a", "dev"), ask(box, "a", "qa")
    box.delivered(one, 0.0)
    assert box.next_for_delivery("qa") is box.get(two)
    assert set(box.targets_waiting()) == {"qa"}


def test_delivery_prefix_names_requester_and_ticket() -> None:
    box = mailbox()
    ticket = box.get(ask(box, "conductor", "dev", "write the tests"))
    assert delivery_text(ticket) == "[idea · task from Conductor · ticket T1] write the tests"


def test_direct_and_transitive_cycles_are_refused_before_queueing() -> None:
    box = mailbox()
    ask(box, "a", "b")
    with pytest.raises(CycleRefused) as refused:
        ask(box, "b", "a")
    assert "A → B → A" in refused.value.message or "B → A → B" in refused.value.message
    ask(box, "b", "c")  # a → b → c is fine
    with pytest.raises(CycleRefused):
        ask(box, "c", "a")
    with pytest.raises(CycleRefused):
        ask(box, "a", "a")
    # Nothing refused was queued.
    assert [t.target for t in box.tickets()] == ["b", "c"]
    assert box.depth("a") == 0


def test_edges_vanish_with_their_ticket() -> None:
    box = mailbox(turn_timeout=10)
    first = ask(box, "a", "b")
    box.delivered(first, 0.0)
    box.sweep(11.0)  # the turn timed out
    assert box.get(first).state is TicketState.TIMED_OUT
    ask(box, "b", "a")  # no phantom edge a → b left behind


def test_user_asks_never_form_cycles() -> None:
    box = mailbox()
    ask(box, USER, "a")
    ask(box, "a", "b")
    assert box.wait_path("b", USER) is None
    ask(box, "b", "c")


def test_queue_cap_counts_waiting_tasks_only() -> None:
    box = mailbox(queue_cap=2)
    first = ask(box, "a", "dev")
    box.delivered(first, 0.0)
    ask(box, "b", "dev")
    ask(box, "c", "dev")
    with pytest.raises(QueueFull):
        ask(box, "d", "dev")


def test_empty_task_is_refused() -> None:
    with pytest.raises(MissingField):
        ask(mailbox(), "a", "b", "   ")


def test_reply_by_ticket_wins_over_position() -> None:
    box = mailbox()
    first = ask(box, "a", "dev")
    box.delivered(first, 0.0)
    ticket = box.reply(replier="dev", result="r", ticket_id=first, now=1.0)
    assert ticket.id == first


def test_reply_errors_are_typed() -> None:
    box = mailbox()
    with pytest.raises(NoPendingTicket):
        box.reply(replier="dev", result="r", ticket_id=None, now=0.0)
    first = ask(box, "a", "dev")
    second = ask(box, "a2", "dev")
    with pytest.raises(TicketNotYours):
        box.reply(replier="qa", result="r", ticket_id=first, now=0.0)
    with pytest.raises(TicketNotYours):  # queued, never delivered to dev yet
        box.reply(replier="dev", result="r", ticket_id=second, now=0.0)
    with pytest.raises(TicketNotFound):
        box.reply(replier="dev", result="r", ticket_id="T99", now=0.0)
    box.delivered(first, 0.0)
    box.reply(replier="dev", result="r", ticket_id=first, now=1.0)
    with pytest.raises(TicketClosed):  # answering twice
        box.reply(replier="dev", result="again", ticket_id=first, now=2.0)
    assert box.get(first).result == "r"


def test_timeouts_queue_then_turn() -> None:
    box = mailbox(turn_timeout=5, queue_wait_cap=10)
    first, second = ask(box, "a", "dev"), ask(box, "b", "dev")
    box.delivered(first, 0.0)
    assert box.next_deadline() == 5.0
    assert box.sweep(4.0) == []
    ended = box.sweep(6.0)
    assert [t.id for t in ended] == [first]
    assert "keeps running" in (box.get(first).reason or "")
    # The queue advanced.
    assert box.next_for_delivery("dev") is box.get(second)
    assert [t.id for t in box.sweep(11.0)] == [second]
    assert "queue" in (box.get(second).reason or "")


def test_rendezvous_net_and_retention() -> None:
    box = mailbox(rendezvous_timeout=50, retention=20)
    first = ask(box, "a", "dev")
    box.delivered(first, 0.0)
    box.submitted(first, 0.0)
    box.reply(replier="dev", result="r", ticket_id=None, now=1.0)
    ask(box, "b", "qa")
    ended = box.sweep(51.0)
    assert [t.state for t in ended] == [TicketState.TIMED_OUT]
    # The reply was kept for collection until its retention ended.
    with pytest.raises(TicketNotFound):
        box.get(first)


def test_cancel_is_idempotent_and_frees_the_turn() -> None:
    box = mailbox()
    first, second = ask(box, "a", "dev"), ask(box, "b", "dev")
    box.delivered(first, 0.0)
    assert box.cancel(first, 1.0, "caller went away") is not None
    assert box.cancel(first, 2.0, "again") is None
    assert box.get(first).reason == "caller went away"
    assert box.next_for_delivery("dev") is box.get(second)


def test_a_users_line_ends_with_the_turn() -> None:
    box = mailbox()
    line = box.ask(
        requester=USER,
        requester_name="user",
        target="dev",
        target_name="Dev",
        task="git status",
        now=0.0,
        expects_reply=False,
    )
    assert delivery_text(line) == "git status"
    box.delivered(line.id, 0.0)
    with pytest.raises(NoPendingTicket):
        box.reply(replier="dev", result="x", ticket_id=None, now=0.0)
    assert box.end_turn("dev", 1.0) is line
    assert line.state is TicketState.DONE


def test_journal_round_trip_requeues_running_turns() -> None:
    box = mailbox()
    first, second = ask(box, "a", "dev"), ask(box, "b", "dev")
    done = ask(box, "c", "qa")
    box.delivered(first, 0.0)
    box.delivered(done, 0.0)
    box.reply(replier="qa", result="answer", ticket_id=done, now=1.0)
    data = encode_journal(box.tickets())
    assert b'"requesterName"' in data
    again = mailbox()
    pending = again.restore(decode_journal(data), now=100.0)
    assert [t.id for t in pending] == [first, second]
    assert again.next_for_delivery("dev") is again.get(first)
    assert again.get(first).reason == "re-delivered after a daemon restart"
    assert again.get(done).result == "answer"
    # Fresh ids do not collide with restored ones.
    assert ask(again, "x", "y") not in {first, second, done}


@pytest.mark.parametrize(
    "data", [b"{", b'{"version": 9, "tickets": []}', b'{"version": 1, "tickets": [{"id": 3}]}']
)
def test_unreadable_journal_says_why(data: bytes) -> None:
    with pytest.raises(JournalError):
        decode_journal(data)


# ─── properties ──────────────────────────────────────────────────────────────────────────

AGENTS = ["a", "b", "c", "d", USER]
ops = st.lists(
    st.one_of(
        st.tuples(st.just("ask"), st.sampled_from(AGENTS), st.sampled_from(AGENTS[:-1])),
        st.tuples(st.just("deliver"), st.sampled_from(AGENTS[:-1]), st.none()),
        st.tuples(st.just("reply"), st.sampled_from(AGENTS[:-1]), st.none()),
        st.tuples(st.just("cancel"), st.integers(1, 40), st.none()),
        st.tuples(st.just("tick"), st.integers(1, 30), st.none()),
    ),
    max_size=60,
)


def _has_cycle(edges: set[tuple[str, str]]) -> bool:
    graph: dict[str, set[str]] = {}
    for source, dest in edges:
        graph.setdefault(source, set()).add(dest)
    state: dict[str, int] = {}

    def visit(node: str) -> bool:
        state[node] = 1
        for dest in graph.get(node, ()):
            if state.get(dest) == 1 or (dest not in state and visit(dest)):
                return True
        state[node] = 2
        return False

    return any(node not in state and visit(node) for node in list(graph))


@settings(deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(ops)
def test_invariants_hold_under_any_sequence(sequence: list[tuple[str, object, object]]) -> None:
    box = mailbox(turn_timeout=20, queue_wait_cap=45, queue_cap=4)
    now = 0.0
    asked: dict[str, list[str]] = {}
    delivered: dict[str, list[str]] = {}
    for op, x, y in sequence:
        if op == "ask":
            assert isinstance(x, str) and isinstance(y, str)
            try:
                asked.setdefault(y, []).append(ask(box, x, y, now=now))
            except (CycleRefused, QueueFull):
                pass
        elif op == "deliver":
            assert isinstance(x, str)
            head = box.next_for_delivery(x)
            if head is not None:
                box.delivered(head.id, now)
                delivered.setdefault(x, []).append(head.id)
        elif op == "reply":
            assert isinstance(x, str)
            try:
                box.reply(replier=x, result="r", ticket_id=None, now=now)
            except NoPendingTicket:
                pass
        elif op == "cancel":
            box.cancel(f"T{x}", now, "cancelled")
        else:
            assert isinstance(x, int)
            now += x
            box.sweep(now)
        # One turn at a time per target, and it is the head of its FIFO.
        for target in AGENTS:
            in_turn = [t for t in box.queue(target) if t.state.in_turn]
            assert len(in_turn) <= 1
            if in_turn:
                assert box.queue(target)[0] is in_turn[0]
            assert box.depth(target) <= 4
        assert not _has_cycle(box.edges())
    # Deliveries follow the order of the asks, per target.
    for target, ids in delivered.items():
        order = asked[target]
        assert ids == sorted(ids, key=order.index)
    # Far enough in the future, every ticket reached a final state.
    box.sweep(now + 10_000)
    assert all(t.state.final for t in box.tickets())


# ─── a held FIFO (issue 10: the target is at a usage limit) ──────────────────────────────


def test_a_held_target_gets_nothing_and_its_queue_does_not_time_out() -> None:
    box = mailbox(queue_wait_cap=10.0, rendezvous_timeout=1000.0)
    first = ask(box, "a", "b", now=0.0)
    box.hold("b", "target limited until 17:00")
    assert box.next_for_delivery("b") is None and box.targets_waiting() == []
    assert box.held("b") == "target limited until 17:00"
    assert box.sweep(500.0) == []  # far past the queue-wait cap
    assert box.get(first).state is TicketState.QUEUED
    assert box.next_deadline() == 1000.0  # only the rendezvous bound still counts
    assert box.release("b", 500.0) is True and box.release("b", 500.0) is False
    # The queue wait starts again at the release.
    assert box.sweep(505.0) == []
    assert [t.id for t in box.sweep(511.0)] == [first]


def test_a_turn_held_under_a_suspicion_goes_on_with_the_bound_it_had_left() -> None:
    """A limit only suspected holds the FIFO with the turn still running: it does not time
    out while the user is asked, and when the answer is "not a limit" it goes on with the
    time it had left (the wait for the user is not charged to it)."""
    box = mailbox(turn_timeout=100.0, rendezvous_timeout=10_000.0)
    first = ask(box, "a", "b", now=0.0)
    box.delivered(first, 0.0)
    second = ask(box, "a", "b", now=1.0)
    box.hold("b", "target seems stuck", 60.0)  # suspected 60 s into the turn
    box.hold("b", "target seems stuck (again)", 70.0)  # a new reason keeps the start
    assert box.sweep(500.0) == []  # far past the turn bound
    running = box.current("b")
    assert running is not None and running.id == first
    assert box.next_deadline() == 10_000.0
    assert box.release("b", 1000.0) is True
    # 60 s ran before the hold: 40 s are left from the release.
    assert box.next_deadline() == 1040.0
    assert box.sweep(1039.0) == []
    assert [t.id for t in box.sweep(1041.0)] == [first]
    # The queue behind it kept its order; the next turn has its whole bound.
    assert box.next_for_delivery("b") is not None
    box.delivered(second, 1041.0)
    assert box.deadline_of(box.get(second)) == 1141.0


def test_the_rendezvous_bound_still_ends_a_held_ticket() -> None:
    box = mailbox(rendezvous_timeout=100.0)
    first = ask(box, "a", "b", now=0.0)
    box.hold("b", "target limited (reset time unknown)")
    assert [t.id for t in box.sweep(101.0)] == [first]
    # The caller is told why it never got an outcome.
    reason = box.get(first).reason
    assert reason is not None and reason.endswith(": B limited (reset time unknown)"), reason


def test_a_first_ticket_goes_ahead_of_the_waiting_ones() -> None:
    box = mailbox(queue_cap=1)
    waiting = ask(box, "a", "b")
    resume = box.ask(requester=USER, requester_name="user", target="b", target_name="b",
                     task="resume", now=0.0, expects_reply=False, first=True)
    assert [t.id for t in box.queue("b")] == [resume.id, waiting]
    # A turn in progress stays at the head.
    box.delivered(resume.id, 1.0)
    again = box.ask(requester=USER, requester_name="user", target="b", target_name="b",
                    task="again", now=1.0, expects_reply=False, first=True)
    assert [t.id for t in box.queue("b")] == [resume.id, again.id, waiting]


def test_only_the_most_recent_collected_tickets_are_kept_as_history(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from core.orchestration import mailbox as mailbox_module

    monkeypatch.setattr(mailbox_module, "HISTORY", 3)
    box = mailbox()
    done = []
    for n in range(5):
        ticket = ask(box, "a", "dev", f"task {n}", now=float(n))
        box.delivered(ticket, float(n))
        box.reply(replier="dev", result="ok", ticket_id=ticket, now=float(n) + 0.5)
        box.collect(ticket)
        done.append(ticket)
    waiting = ask(box, "a", "qa", "not collected", now=10.0)
    box.delivered(waiting, 10.0)
    box.reply(replier="qa", result="kept", ticket_id=waiting, now=10.5)
    box.sweep(11.0)
    assert {t.id for t in box.tickets()} == {*done[2:], waiting}
