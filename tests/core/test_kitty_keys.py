"""Keys under the kitty keyboard protocol (core/kitty_keys.py through core/keys.encode_key):
what a program that pushed `CSI > flags u` reads, checked against the protocol's own
examples (https://sw.kovidgoyal.net/kitty/keyboard-protocol/)."""

from __future__ import annotations

import pytest

from core.keys import encode_key
from core.kitty_keys import ALL_KEYS_AS_ESCAPES, DISAMBIGUATE, REPORT_EVENT_TYPES, REPORT_TEXT
from core.terminal import TerminalModes

LEGACY = TerminalModes()
KITTY = TerminalModes(kitty_keys=DISAMBIGUATE)
ALL = TerminalModes(kitty_keys=DISAMBIGUATE | ALL_KEYS_AS_ESCAPES)
ALL_WITH_TEXT = TerminalModes(kitty_keys=DISAMBIGUATE | ALL_KEYS_AS_ESCAPES | REPORT_TEXT)


@pytest.mark.parametrize(("key", "legacy", "kitty"), [
    # Legacy encoding cannot tell these apart from other keys; the protocol can.
    ("escape", b"\x1b", b"\x1b[27u"),
    ("ctrl+c", b"\x03", b"\x1b[99;5u"),
    ("ctrl+i", b"\t", b"\x1b[105;5u"),
    ("alt+x", b"\x1bx", b"\x1b[120;3u"),
    ("ctrl+alt+a", b"\x1b\x01", b"\x1b[97;7u"),
    ("shift+enter", b"\r", b"\x1b[13;2u"),
    ("ctrl+enter", b"\r", b"\x1b[13;5u"),
    ("shift+tab", b"\x1b[Z", b"\x1b[9;2u"),
    ("ctrl+backspace", b"\x08", b"\x1b[127;5u"),
    ("ctrl+space", b"\x00", b"\x1b[32;5u"),
])
def test_disambiguated_keys(key: str, legacy: bytes, kitty: bytes) -> None:
    assert encode_key(key, LEGACY) == legacy
    assert encode_key(key, KITTY) == kitty


@pytest.mark.parametrize(("key", "character", "sent"), [
    # Text and the keys a shell's `reset` needs keep their bytes with the first flag alone.
    ("a", "a", b"a"),
    ("A", "A", b"A"),
    ("enter", None, b"\r"),
    ("tab", None, b"\t"),
    ("backspace", None, b"\x7f"),
    ("space", " ", b" "),
    # Keys with an unambiguous legacy form keep it: it is also the protocol's.
    ("up", None, b"\x1b[A"),
    ("ctrl+right", None, b"\x1b[1;5C"),
    ("f5", None, b"\x1b[15~"),
])
def test_what_stays_legacy_with_the_first_flag(key: str, character: str | None,
                                              sent: bytes) -> None:
    assert encode_key(key, KITTY, character) == sent


def test_every_key_as_an_escape_code_and_its_text() -> None:
    assert encode_key("a", ALL, "a") == b"\x1b[97u"
    assert encode_key("A", ALL, "A") == b"\x1b[97;2u"  # shift+a names the unshifted key
    assert encode_key("enter", ALL) == b"\x1b[13u"
    assert encode_key("tab", ALL) == b"\x1b[9u"
    assert encode_key("a", ALL_WITH_TEXT, "a") == b"\x1b[97;1;97u"
    assert encode_key("A", ALL_WITH_TEXT, "A") == b"\x1b[97;2;65u"
    # Ctrl types no text: none is reported.
    assert encode_key("ctrl+a", ALL_WITH_TEXT) == b"\x1b[97;5u"


def test_a_press_is_the_default_event_type() -> None:
    # Only presses reach the daemon; with event types asked for, a press needs no field.
    assert encode_key("ctrl+c", TerminalModes(kitty_keys=DISAMBIGUATE | REPORT_EVENT_TYPES)) \
        == b"\x1b[99;5u"
