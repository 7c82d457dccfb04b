"""The session-limit files (issue 10, D15): round trip, damaged or newer files left alone."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from adapters.store.limits_store import FallbackPolicy, LimitStore, book_path, policy_path
from core.errors import CorruptFile, NewerVersion
from core.session_limits import LimitLevel, LimitSignal
from core.session_limits.book import SHOWN_AGENTS, SHOWN_PER_AGENT, LimitBook

NOW = datetime(2026, 12, 1, 16, 0, tzinfo=UTC)


def armed_book() -> LimitBook:
    book = LimitBook()
    book.on_signal(
        "a1",
        "alice",
        LimitSignal(LimitLevel.PATTERN, NOW + timedelta(hours=1), "screen", "limit"),
        NOW,
    )
    return book


def test_the_book_round_trips(tmp_path: Path) -> None:
    store = LimitStore()
    store.save_book(str(tmp_path), armed_book().to_file())
    loaded = LimitBook()
    loaded.load(store.load_book(str(tmp_path)))
    limit = loaded.get("a1")
    assert limit is not None and limit.fire_at == NOW + timedelta(hours=1, minutes=1)
    assert store.load_book(str(tmp_path / "elsewhere")).limits == []


def test_the_messages_already_shown_round_trip_bounded(tmp_path: Path) -> None:
    """What a restarted daemon must not take for a new limit (a resumed CLI's replay)."""
    book = armed_book()
    assert book.remember_shown("a1", "You've hit your limit · resets 3am")
    assert not book.remember_shown("a1", "You've hit your limit · resets 3am")
    for n in range(SHOWN_PER_AGENT + 5):
        book.remember_shown("a2", f"message {n}")
    assert len(book.shown["a2"]) == SHOWN_PER_AGENT and book.shown["a2"][0] == "message 5"
    for n in range(SHOWN_AGENTS - 2):  # a1, a2 and these: the bound
        book.remember_shown(f"other{n}", "limit")
    book.remember_shown("a2", "message 5")  # seen again: a2 is the newest agent now
    book.remember_shown("last", "limit")  # one agent too many: the oldest (a1) goes
    store = LimitStore()
    store.save_book(str(tmp_path), book.to_file())
    loaded = LimitBook()
    loaded.load(store.load_book(str(tmp_path)))
    assert len(loaded.shown) == SHOWN_AGENTS and loaded.shown_by("a1") == frozenset()
    assert loaded.shown["a2"][-1] == "message 5" and len(loaded.shown["a2"]) == SHOWN_PER_AGENT
    assert loaded.shown_by("other0") == {"limit"} and loaded.get("a1") is not None


def test_a_hand_edited_book_past_the_bounds_keeps_the_newest(tmp_path: Path) -> None:
    path = book_path(str(tmp_path))
    path.parent.mkdir(parents=True)
    keys = [f"m{n}" for n in range(SHOWN_PER_AGENT + 3)] + ["m0"]
    path.write_text(json.dumps({"version": 1, "limits": [], "shown": {"a1": keys}}))
    loaded = LimitBook()
    loaded.load(LimitStore().load_book(str(tmp_path)))
    assert len(loaded.shown["a1"]) == SHOWN_PER_AGENT and loaded.shown["a1"][-1] == "m18"


@pytest.mark.parametrize("content", [
    "{not json", '{"version": 1, "limits": [{"x": 1}]}', "",
    '{"version": 1, "limits": [], "shown": {"a1": "not a list"}}',
    '{"version": 1, "limits": [], "shown": ["a1"]}',
])
def test_a_damaged_book_is_refused_and_never_overwritten(tmp_path: Path, content: str) -> None:
    path = book_path(str(tmp_path))
    path.parent.mkdir(parents=True)
    path.write_text(content)
    store = LimitStore()
    with pytest.raises(CorruptFile) as raised:
        store.load_book(str(tmp_path))
    assert "session-limits.json" in raised.value.message
    with pytest.raises(CorruptFile):
        store.save_book(str(tmp_path), armed_book().to_file())
    assert path.read_text() == content


def test_a_newer_book_is_left_alone(tmp_path: Path) -> None:
    path = book_path(str(tmp_path))
    path.parent.mkdir(parents=True)
    path.write_text('{"version": 9, "limits": []}')
    with pytest.raises(NewerVersion):
        LimitStore().load_book(str(tmp_path))
    with pytest.raises(NewerVersion):
        LimitStore().save_book(str(tmp_path), armed_book().to_file())


def test_the_fallback_policy(tmp_path: Path) -> None:
    store = LimitStore()
    assert store.load_policy(str(tmp_path)) == FallbackPolicy()
    policy = FallbackPolicy(project="codex", agents={"a1": "claude-code", "a2": ""})
    store.save_policy(str(tmp_path), policy)
    loaded = store.load_policy(str(tmp_path))
    assert loaded.fallback_for("a1", "codex") == "claude-code"
    assert loaded.fallback_for("a2", "claude-code") is None  # opted out
    assert loaded.fallback_for("a3", "claude-code") == "codex"
    assert loaded.fallback_for("a3", "codex") is None  # already on it
    policy_path(str(tmp_path)).write_text('{"version": 1, "surprise": true}')
    with pytest.raises(CorruptFile):
        store.load_policy(str(tmp_path))
