"""Live-state rows and policy (FEATURES.md LIV-2..LIV-5, DECISIONS D13): bounds, last writer
wins, derived updates, prune on read, the lean view and the bounded `# Project state`."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.live_state.model import (
    MAX_ROWS,
    PREVIEW_MAX_CHARS,
    ROW_MAX_BYTES,
    TTL_MS,
    Delegation,
    LiveRow,
    RowTooLarge,
    UnknownStatus,
    WorkStatus,
    parse_status,
    preview,
    row_size,
)
from core.live_state.policy import (
    agent_update,
    ask_accepted,
    ask_ended,
    forget,
    prune,
    reply_returned,
)
from core.live_state.view import INJECT_MAX_CHARS, INJECT_MAX_ROWS, lean_rows, render_state
from core.safe_text import clean

NOW = 1_800_000_000_000
TEAM = [("a", "Alice"), ("b", "Bob"), ("c", "Carol")]


def row(status: WorkStatus = WorkStatus.WORKING, at: int = NOW, **kw: str) -> LiveRow:
    return LiveRow(status=status, updated_at_ms=at, task=kw.get("task"), note=kw.get("note"))


def test_statuses_parse_and_a_wrong_one_lists_the_five() -> None:
    assert [parse_status(s) for s in ("idle", " Working ", "BLOCKED", "waiting", "done")] == [
        WorkStatus.IDLE, WorkStatus.WORKING, WorkStatus.BLOCKED, WorkStatus.WAITING,
        WorkStatus.DONE,
    ]
    with pytest.raises(UnknownStatus) as caught:
        parse_status("busy")
    assert "idle, working, blocked, waiting, done" in caught.value.message
    with pytest.raises(UnknownStatus) as huge:
        parse_status("x" * 10_000)
    assert len(huge.value.message) < 200


def test_last_writer_wins_and_left_out_fields_are_kept() -> None:
    rows = agent_update({}, "a", WorkStatus.WORKING, "parser", "half done", NOW)
    rows = agent_update(rows, "a", WorkStatus.BLOCKED, None, "needs the schema", NOW + 5)
    assert rows == {"a": LiveRow(status=WorkStatus.BLOCKED, task="parser",
                                 note="needs the schema", updated_at_ms=NOW + 5)}
    assert len(rows) == 1


def test_an_oversized_row_is_refused_with_the_limit_and_nothing_changes() -> None:
    before = {"a": row(task="small")}
    with pytest.raises(RowTooLarge) as caught:
        agent_update(before, "a", WorkStatus.WORKING, "é" * 1500, None, NOW)
    assert "2048 bytes" in caught.value.message and caught.value.size > ROW_MAX_BYTES
    assert before == {"a": row(task="small")}
    # Exactly at the limit is accepted: the bound is on the encoded row.
    base = row_size(LiveRow(status=WorkStatus.WORKING, task="", updated_at_ms=NOW))
    fits = agent_update({}, "a", WorkStatus.WORKING, "x" * (ROW_MAX_BYTES - base), None, NOW)
    assert row_size(fits["a"]) == ROW_MAX_BYTES
    with pytest.raises(RowTooLarge):
        agent_update({}, "a", WorkStatus.WORKING, "x" * (ROW_MAX_BYTES - base + 1), None, NOW)


def test_preview_is_one_clean_line_of_at_most_160_characters() -> None:
    assert preview("fix\nthe\t parser\x1b[2J") == "fix the parser[2J"
    cut = preview("word " * 100)
    assert cut is not None and len(cut) == PREVIEW_MAX_CHARS and cut.endswith("…")
    assert preview(None) is None


def _whole_text_preview(text: str, limit: int) -> str:
    """The preview as it was computed before it looked at a head only: the whole text."""
    flat = " ".join(clean(text, len(text)).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


@given(st.lists(st.sampled_from(["word", " ", "\n", "\t", "\x1b", "\x9b", "é", "\u202e",
                                 "x" * 50, " " * 300, "\x00" * 200]), max_size=60),
       st.integers(min_value=1, max_value=200))
def test_preview_of_a_head_is_the_preview_of_the_whole_text(parts: list[str],
                                                            limit: int) -> None:
    text = "".join(parts)
    assert preview(text, limit) == _whole_text_preview(text, limit)


def test_ask_accepted_sets_target_working_and_caller_waiting() -> None:
    rows = {"a": row(task="release notes", at=NOW - 10)}
    rows = ask_accepted(rows, requester="a", requester_name="Alice", target="b",
                        target_name="Bob", ticket="T1", task="review " * 100, now_ms=NOW)
    bob, alice = rows["b"], rows["a"]
    assert bob.status is WorkStatus.WORKING
    assert bob.task is not None and len(bob.task) == PREVIEW_MAX_CHARS
    assert bob.last_delegation == Delegation(from_="a", ticket="T1", at_ms=NOW)
    assert alice.status is WorkStatus.WAITING and alice.task == "release notes"
    assert alice.note == "waiting for Bob (ticket T1)"


def test_reply_sets_target_done_and_the_waiting_caller_working() -> None:
    rows = ask_accepted({}, requester="a", requester_name="Alice", target="b",
                        target_name="Bob", ticket="T1", task="review", now_ms=NOW)
    rows = reply_returned(rows, requester="a", requester_name="Alice", target="b",
                          target_name="Bob", ticket="T1", now_ms=NOW + 1)
    assert rows["b"].status is WorkStatus.DONE and rows["b"].task == "review"
    assert rows["b"].note == "replied to Alice (ticket T1)"
    assert rows["a"].status is WorkStatus.WORKING and rows["a"].note == "Bob replied (ticket T1)"


def test_the_user_has_no_row() -> None:
    rows = ask_accepted({}, requester="user", requester_name="user", target="b",
                        target_name="Bob", ticket="T1", task="t", now_ms=NOW)
    rows = reply_returned(rows, requester="user", requester_name="user", target="b",
                          target_name="Bob", ticket="T1", now_ms=NOW)
    assert set(rows) == {"b"}


def test_a_failed_ticket_frees_the_caller_and_idles_the_target_of_that_ticket_only() -> None:
    rows = ask_accepted({}, requester="a", requester_name="Alice", target="b",
                        target_name="Bob", ticket="T1", task="t", now_ms=NOW)
    ended = ask_ended(rows, requester="a", target="b", target_name="Bob", ticket="T1",
                      outcome="timed_out", now_ms=NOW + 1)
    assert ended["b"].status is WorkStatus.IDLE and ended["a"].status is WorkStatus.WORKING
    assert ended["a"].note == "ticket T1 to Bob timed_out"
    # Bob moved on to another ticket meanwhile: his row is left alone.
    other = ask_ended(rows, requester="a", target="b", target_name="Bob", ticket="T9",
                      outcome="failed", now_ms=NOW + 1)
    assert other["b"] == rows["b"]


def test_prune_drops_stale_rows_then_keeps_the_most_recent() -> None:
    rows = {f"x{i:02}": row(at=NOW - i * 1000) for i in range(60)}
    rows["old"] = row(at=NOW - TTL_MS - 1)
    rows["edge"] = row(at=NOW - TTL_MS)
    kept = prune(rows, NOW)
    assert len(kept) == MAX_ROWS and "old" not in kept
    assert set(kept) == {f"x{i:02}" for i in range(50)}
    assert forget(kept, ["x00"]).keys() == set(kept) - {"x00"}


@settings(max_examples=200)
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=8),
        st.integers(min_value=NOW - 2 * TTL_MS, max_value=NOW + 1000),
        max_size=120,
    )
)
def test_prune_properties(stamps: dict[str, int]) -> None:
    rows = {key: row(at=at) for key, at in stamps.items()}
    kept = prune(rows, NOW)
    assert len(kept) <= MAX_ROWS
    assert all(NOW - r.updated_at_ms <= TTL_MS for r in kept.values())
    fresh = [k for k, r in rows.items() if NOW - r.updated_at_ms <= TTL_MS]
    assert len(kept) == min(len(fresh), MAX_ROWS)
    if kept:  # nothing dropped is fresher than something kept
        oldest_kept = min(r.updated_at_ms for r in kept.values())
        assert all(rows[k].updated_at_ms <= oldest_kept for k in fresh if k not in kept)
    assert prune(kept, NOW) == kept


def test_lean_rows_name_agents_in_manifest_order() -> None:
    rows = {
        "c": LiveRow(status=WorkStatus.WORKING, task="t" * 500, updated_at_ms=NOW,
                     last_delegation=Delegation(from_="a", ticket="T3", at_ms=NOW)),
        "a": row(WorkStatus.IDLE),
        "gone": row(WorkStatus.DONE),
    }
    lean = lean_rows(rows, TEAM)
    assert [r["agent"] for r in lean] == ["Alice", "Carol", "gone"]
    assert lean[1]["askedBy"] == "Alice" and lean[1]["ticket"] == "T3"
    assert len(lean[1]["task"]) == PREVIEW_MAX_CHARS
    assert lean[0] == {"agent": "Alice", "id": "a", "status": "idle",
                       "updatedAt": "2027-01-15T08:00:00Z"}


def test_injection_leaves_out_the_agent_itself_and_unknown_agents() -> None:
    rows = {"a": row(task="parser"), "b": row(WorkStatus.BLOCKED, task="ci", note="red"),
            "gone": row()}
    text = render_state(rows, TEAM, exclude="a")
    assert text is not None
    assert text.splitlines()[1:] == ["- Bob: blocked — ci (red)"]
    assert render_state({"a": row()}, TEAM, exclude="a") is None
    # The material view (refresh fingerprint): the rows alone, without notes.
    assert render_state(rows, TEAM, exclude="a", notes=False) == "- Bob: blocked — ci"
    # An agent without idea's MCP tools is not told to call them.
    plain = render_state(rows, TEAM, exclude="a", tools=False)
    assert plain is not None and "idea_workstate" not in plain
    assert plain.splitlines()[1:] == ["- Bob: blocked — ci (red)"]


def test_injection_is_bounded_to_12_rows_and_2000_chars() -> None:
    team = [(f"id{i:02}", f"agent{i:02}") for i in range(50)]
    rows = {agent_id: row(task="w" * 300, note="n" * 300, at=NOW + i)
            for i, (agent_id, _) in enumerate(team)}
    text = render_state(rows, team, exclude="id49")
    assert text is not None
    lines = text.splitlines()
    assert len(text) <= INJECT_MAX_CHARS
    shown = [line for line in lines[1:] if not line.startswith("- …")]
    assert 0 < len(shown) <= INJECT_MAX_ROWS
    assert lines[-1] == f"- … {49 - len(shown)} more (idea_workstate_read lists every row)"
    # The most recent are the ones kept, shown in manifest order.
    names = [line.split(":")[0][2:] for line in shown]
    assert names == sorted(names) and names[-1] == "agent48"


@settings(max_examples=100)
@given(
    st.lists(
        st.tuples(st.sampled_from(list(WorkStatus)), st.text(max_size=400),
                  st.text(max_size=400), st.integers(0, 10**6)),
        max_size=60,
    )
)
def test_injection_bounds_hold_for_any_rows(
    entries: list[tuple[WorkStatus, str, str, int]],
) -> None:
    team = [(f"id{i}", f"n{i}") for i in range(len(entries))]
    rows = {f"id{i}": LiveRow(status=s, task=t, note=n, updated_at_ms=at)
            for i, (s, t, n, at) in enumerate(entries)}
    text = render_state(rows, team, exclude=None)
    if not entries:
        assert text is None
        return
    assert text is not None and len(text) <= INJECT_MAX_CHARS
    body = [line for line in text.splitlines()[1:] if not line.startswith("- …")]
    assert len(body) <= INJECT_MAX_ROWS
    assert all("\x1b" not in line for line in body)


def test_rows_round_trip_in_the_seed_shape() -> None:
    value = LiveRow(status=WorkStatus.WORKING, task="t", updated_at_ms=5,
                    last_delegation=Delegation(from_="a", ticket="T1", at_ms=4))
    encoded = msgspec.json.decode(msgspec.json.encode(value))
    assert encoded == {"status": "working", "task": "t",
                       "lastDelegation": {"from": "a", "ticket": "T1", "atMs": 4},
                       "updatedAtMs": 5}
    assert msgspec.convert(encoded, LiveRow) == value
