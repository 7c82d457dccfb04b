"""OSC strings and BEL: title, cwd, hyperlinks, clipboard, notifications, bell."""

from __future__ import annotations

import base64

import pytest

from core.terminal import TerminalEvent, TerminalEventKind
from tests.adapters.emulator.helpers import fed, lines, make

BELL = TerminalEvent(TerminalEventKind.BELL)


@pytest.mark.parametrize("terminator", ["\x07", "\x1b\\"])
@pytest.mark.parametrize("code", ["0", "2"])
def test_title(code: str, terminator: str) -> None:
    emulator = fed(f"\x1b]{code};my title{terminator}x")
    assert emulator.title == "my title"
    assert emulator.take_events() == [TerminalEvent(TerminalEventKind.TITLE, "my title")]
    assert lines(emulator)[0] == "x"


def test_icon_name_alone_does_not_change_the_title() -> None:
    emulator = fed("\x1b]1;icon\x07")
    assert emulator.title == ""
    assert emulator.take_events() == []


def test_cwd_from_osc_7_is_percent_decoded() -> None:
    emulator = fed("\x1b]7;file://box.local/home/me/my%20dir%C3%A9\x1b\\")
    assert emulator.cwd == "/home/me/my diré"
    assert emulator.take_events() == [TerminalEvent(TerminalEventKind.CWD, "/home/me/my diré")]


def test_cwd_ignores_urls_that_are_not_files() -> None:
    emulator = fed("\x1b]7;http://x/y\x07")
    assert emulator.cwd is None


def test_hyperlinks_keep_the_text_and_are_no_events() -> None:
    # The links themselves: test_hyperlinks.py.
    emulator = fed("see \x1b]8;id=1;https://example.com\x1b\\here\x1b]8;;\x1b\\ now")
    assert lines(emulator)[0] == "see here now"
    assert emulator.take_events() == []


def test_clipboard_text_is_decoded() -> None:
    payload = base64.b64encode("copied é 中".encode()).decode()
    emulator = fed(f"\x1b]52;c;{payload}\x07")
    assert emulator.take_events() == [TerminalEvent(TerminalEventKind.CLIPBOARD, "copied é 中")]


@pytest.mark.parametrize("payload", ["?", "", "!!!not base64"])
def test_clipboard_queries_and_garbage_produce_nothing(payload: str) -> None:
    assert fed(f"\x1b]52;c;{payload}\x07").take_events() == []


def test_notifications_from_osc_9_and_777() -> None:
    emulator = fed("\x1b]9;build done\x07\x1b]777;notify;Agent;needs input\x1b\\")
    assert emulator.take_events() == [
        TerminalEvent(TerminalEventKind.NOTIFY, "build done"),
        TerminalEvent(TerminalEventKind.NOTIFY, "Agent: needs input"),
    ]


def test_conemu_progress_is_not_a_notification() -> None:
    assert fed("\x1b]9;4;1;50\x07").take_events() == []


def test_bel_rings_but_not_when_it_ends_an_osc() -> None:
    emulator = fed("a\x07b\x1b]2;t\x07c")
    assert emulator.take_events() == [BELL, TerminalEvent(TerminalEventKind.TITLE, "t")]


def test_a_burst_of_bells_is_one_event() -> None:
    assert fed("\x07" * 50).take_events() == [BELL]


def test_events_are_bounded() -> None:
    emulator = fed("".join(f"\x1b]2;t{n}\x07" for n in range(1000)))
    events = emulator.take_events()
    assert 0 < len(events) <= 256
    assert emulator.title == "t999"


def test_osc_split_across_reads_is_applied_once_complete() -> None:
    emulator = make()
    for part in (b"\x1b]", b"2;ti", b"tle\x1b", b"\\after"):
        emulator.feed(part)
    assert emulator.title == "title"
    assert lines(emulator)[0] == "after"


def test_osc_cut_by_escape_ends_the_string() -> None:
    # tmux ends the string at ESC and consumes the next character.
    emulator = fed("\x1b]2;abc\x1b[31mx")
    assert emulator.title == "abc"
    assert lines(emulator)[0] == "31mx"


@pytest.mark.parametrize("terminator", ["\x07", "\x1b\\"])
def test_default_colour_queries_are_not_answered(terminator: str) -> None:
    """The user's terminal's colours are not known here: no answer, as tmux gives none, so
    programs keep their own default instead of a guess."""
    emulator = make()
    emulator.feed(f"\x1b]11;?{terminator}\x1b]10;?{terminator}x".encode())
    assert emulator.take_replies() == b""
    assert lines(emulator)[0] == "x"


def test_a_title_flood_keeps_the_last_title_among_the_events() -> None:
    # A program retitling itself in a loop: more titles in one read than the event bound.
    emulator = fed(b"".join(b"\x1b]2;flood %d\x07" % n for n in range(1, 3001)) + b"\x07")
    events = emulator.take_events()
    titles = [event.text for event in events if event.kind == TerminalEventKind.TITLE]
    assert titles == ["flood 3000"]
    assert emulator.title == "flood 3000"
    assert TerminalEvent(TerminalEventKind.BELL) in events


def test_a_title_flood_is_cleaned_and_queued_once_per_read(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the latest title of a read counts, so only it is cleaned and queued: a program
    retitling itself in a loop once held the daemon's loop for 30-60 ms a read (a clean-up
    and an event per title)."""
    from core.safe_text import MAX_TITLE, clean

    cleaned: list[str] = []

    def counting(text: str, limit: int = MAX_TITLE) -> str:
        cleaned.append(text)
        return clean(text, limit)

    monkeypatch.setattr("adapters.emulator.osc.clean", counting)
    emulator = make()
    emulator.feed(b"".join(b"\x1b]2;flood %d\x07" % n for n in range(1, 1001)))
    assert cleaned == ["flood 1000"]
    assert emulator.title == "flood 1000"
    assert emulator.take_events() == [TerminalEvent(TerminalEventKind.TITLE, "flood 1000")]


def test_titles_keep_their_place_among_other_events() -> None:
    # The latest title is where it was set, after the events before it and before the next.
    emulator = fed("\x1b]2;a\x07\x07\x1b]2;b\x07\x1b]7;file://h/x\x07\x1b]2;c\x07")
    assert emulator.take_events() == [BELL, TerminalEvent(TerminalEventKind.CWD, "/x"),
                                      TerminalEvent(TerminalEventKind.TITLE, "c")]
