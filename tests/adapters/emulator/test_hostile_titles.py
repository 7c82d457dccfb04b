"""Titles and notifications are cleaned at the emulator boundary (issue 7): whatever a
program sends in OSC 0/1/2/9/777, the title, the icon name and every event's text are free
of C0/C1 and bidi controls and bounded in length, however the bytes are chunked."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.safe_text import MAX_NOTICE, MAX_TITLE, clean
from core.terminal import TerminalEvent, TerminalEventKind
from tests.adapters.emulator.helpers import fed, icon_name, make
from tests.helpers.hostile_text import HOSTILE_TITLES, UNSAFE


def assert_safe(emulator_title: str, events: list[TerminalEvent]) -> None:
    assert not UNSAFE.search(emulator_title), repr(emulator_title[:200])
    assert len(emulator_title) <= MAX_TITLE
    for event in events:
        assert not UNSAFE.search(event.text), (event.kind, repr(event.text[:200]))
        limit = MAX_NOTICE if event.kind is TerminalEventKind.NOTIFY else MAX_TITLE
        if event.kind in (TerminalEventKind.NOTIFY, TerminalEventKind.TITLE):
            assert len(event.text) <= limit


@pytest.mark.parametrize("title", HOSTILE_TITLES, ids=lambda t: repr(t[:24]))
@pytest.mark.parametrize("template", ["\x1b]0;{}\x07", "\x1b]2;{}\x1b\\", "\x1b]1;{}\x07",
                                      "\x1b]9;{}\x07", "\x1b]777;notify;{}\x07",
                                      "\x1b]777;notify;T\x9b;{}\x07"])
def test_hostile_titles_and_notices_come_out_clean(title: str, template: str) -> None:
    emulator = fed(template.format(title), cols=40, rows=4)
    assert_safe(emulator.title, emulator.take_events())
    assert not UNSAFE.search(icon_name(emulator))


# ESC and BEL end the OSC string itself (as in every terminal): not part of a title.
WHOLE = [title for title in HOSTILE_TITLES[:12] if not set(title) & {"\x1b", "\x07"}]


@pytest.mark.parametrize("title", WHOLE, ids=lambda t: repr(t[:24]))
def test_a_title_split_across_reads_is_cleaned_too(title: str) -> None:
    emulator = make(40, 4)
    data = f"\x1b]2;{title}\x07".encode()
    for start in range(0, len(data), 3):
        emulator.feed(data[start:start + 3])
    assert emulator.title == clean(title)
    assert_safe(emulator.title, emulator.take_events())


def test_controls_are_removed_and_white_space_becomes_one_space() -> None:
    emulator = fed("\x1b]2;make\r\n\u009b2J\bdone\tnow\x07")
    assert emulator.title == "make 2Jdone now"
    assert emulator.take_events() == [TerminalEvent(TerminalEventKind.TITLE, "make 2Jdone now")]


def test_wide_and_combining_characters_are_kept() -> None:
    title = "漢字 e\u0301 👩\u200d👧"
    assert fed(f"\x1b]2;{title}\x07").title == title


def test_a_huge_title_is_capped() -> None:
    emulator = fed("\x1b]2;" + "x" * 60_000 + "\x07")
    assert emulator.title == "x" * MAX_TITLE


def test_a_notice_of_only_controls_is_dropped() -> None:
    assert fed("\x1b]9;\r\n\b\x07").take_events() == []


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\x07\x1b"),
               max_size=300),
       st.sampled_from(["0", "2", "9", "777;notify;x"]))
def test_any_text_comes_out_without_controls(text: str, code: str) -> None:
    emulator = fed(f"\x1b]{code};{text}\x07")
    assert_safe(emulator.title, emulator.take_events())
