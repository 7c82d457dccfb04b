"""Key, paste and focus encoding against what xterm (and, where it agrees, tmux 3.3a) sends.

Expected bytes come from xterm's ctlseqs and terminfo (`infocmp xterm-256color`); the
send-keys rows were also checked against `tmux send-keys` into a pane that logs its raw input
(tmux differs from xterm only on Home/End, where it sends `CSI 1~`/`CSI 4~`).
"""

from __future__ import annotations

import pytest

from core.keys import encode_key, focus_event, parse_key_spec, wrap_paste
from core.terminal import TerminalModes

NORMAL = TerminalModes()
APP_CURSOR = TerminalModes(app_cursor=True)
APP_KEYPAD = TerminalModes(app_keypad=True)
BRACKETED = TerminalModes(bracketed_paste=True)

# Textual key name -> bytes, in a program that set no modes.
PLAIN_KEYS: list[tuple[str, bytes]] = [
    ("a", b"a"),
    ("z", b"z"),
    ("A", b"A"),
    ("shift+a", b"A"),
    ("5", b"5"),
    ("space", b" "),
    ("enter", b"\r"),
    ("return", b"\r"),
    ("tab", b"\t"),
    ("shift+tab", b"\x1b[Z"),
    ("escape", b"\x1b"),
    ("shift+escape", b"\x1b"),
    ("backspace", b"\x7f"),
    ("full_stop", b"."),
    ("comma", b","),
    ("slash", b"/"),
    ("backslash", b"\\"),
    ("minus", b"-"),
    ("plus", b"+"),
    ("underscore", b"_"),
    ("at", b"@"),
    ("exclamation_mark", b"!"),
    ("less_than_sign", b"<"),
    ("greater_than_sign", b">"),
    ("left_square_bracket", b"["),
    ("euro_sign", "€".encode()),
    ("é", "é".encode()),
    ("+", b"+"),
]

CTRL_KEYS: list[tuple[str, bytes]] = [
    *[
        (f"ctrl+{letter}", bytes([index + 1]))
        for index, letter in enumerate("abcdefghijklmnopqrstuvwxyz")
    ],
    ("ctrl+A", b"\x01"),
    ("ctrl+shift+a", b"\x01"),
    ("ctrl+@", b"\x00"),
    ("ctrl+at", b"\x00"),
    ("ctrl-at", b"\x00"),
    ("ctrl+space", b"\x00"),
    ("ctrl+left_square_bracket", b"\x1b"),
    ("ctrl+left_square_brace", b"\x1b"),
    ("ctrl+backslash", b"\x1c"),
    ("ctrl+right_square_bracket", b"\x1d"),
    ("ctrl+circumflex_accent", b"\x1e"),
    ("ctrl+underscore", b"\x1f"),
    ("ctrl+grave_accent", b"\x00"),
    ("ctrl+2", b"\x00"),
    ("ctrl+3", b"\x1b"),
    ("ctrl+4", b"\x1c"),
    ("ctrl+5", b"\x1d"),
    ("ctrl+6", b"\x1e"),
    ("ctrl+7", b"\x1f"),
    ("ctrl+8", b"\x7f"),
    ("ctrl+question_mark", b"\x7f"),
    ("ctrl+slash", b"\x1f"),
    # X11 leaves other characters alone under ctrl: xterm sends them unchanged.
    ("ctrl+1", b"1"),
    ("ctrl+full_stop", b"."),
    ("ctrl+backspace", b"\x08"),
    ("ctrl+enter", b"\r"),
    ("ctrl+tab", b"\t"),
    ("ctrl+shift+tab", b"\x1b[Z"),
    ("ctrl++", b"+"),
]

ALT_KEYS: list[tuple[str, bytes]] = [
    ("alt+x", b"\x1bx"),
    ("alt+shift+a", b"\x1bA"),
    ("meta+x", b"\x1bx"),
    ("alt+ctrl+a", b"\x1b\x01"),
    ("ctrl+alt+a", b"\x1b\x01"),
    ("alt+enter", b"\x1b\r"),
    ("alt+backspace", b"\x1b\x7f"),
    ("ctrl+alt+backspace", b"\x1b\x08"),
    ("alt+escape", b"\x1b\x1b"),
    ("alt+tab", b"\x1b\t"),
    ("alt+shift+tab", b"\x1b\x1b[Z"),
    ("alt+space", b"\x1b "),
    ("ctrl+alt+space", b"\x1b\x00"),
    ("alt+full_stop", b"\x1b."),
]

CURSOR_KEYS: list[tuple[str, bytes, bytes]] = [
    # name, normal mode, application cursor mode (DECCKM)
    ("up", b"\x1b[A", b"\x1bOA"),
    ("down", b"\x1b[B", b"\x1bOB"),
    ("right", b"\x1b[C", b"\x1bOC"),
    ("left", b"\x1b[D", b"\x1bOD"),
    ("home", b"\x1b[H", b"\x1bOH"),
    ("end", b"\x1b[F", b"\x1bOF"),
    ("kp_begin", b"\x1b[E", b"\x1bOE"),
    # Modified cursor keys ignore DECCKM.
    ("shift+up", b"\x1b[1;2A", b"\x1b[1;2A"),
    ("alt+down", b"\x1b[1;3B", b"\x1b[1;3B"),
    ("shift+alt+right", b"\x1b[1;4C", b"\x1b[1;4C"),
    ("ctrl+left", b"\x1b[1;5D", b"\x1b[1;5D"),
    ("ctrl+shift+home", b"\x1b[1;6H", b"\x1b[1;6H"),
    ("ctrl+alt+left", b"\x1b[1;7D", b"\x1b[1;7D"),
    ("alt+ctrl+left", b"\x1b[1;7D", b"\x1b[1;7D"),
    ("ctrl+alt+shift+end", b"\x1b[1;8F", b"\x1b[1;8F"),
]

EDITING_AND_FUNCTION_KEYS: list[tuple[str, bytes]] = [
    ("insert", b"\x1b[2~"),
    ("delete", b"\x1b[3~"),
    ("pageup", b"\x1b[5~"),
    ("pagedown", b"\x1b[6~"),
    ("shift+delete", b"\x1b[3;2~"),
    ("ctrl+delete", b"\x1b[3;5~"),
    ("ctrl+pageup", b"\x1b[5;5~"),
    ("shift+pagedown", b"\x1b[6;2~"),
    ("alt+insert", b"\x1b[2;3~"),
    ("f1", b"\x1bOP"),
    ("f2", b"\x1bOQ"),
    ("f3", b"\x1bOR"),
    ("f4", b"\x1bOS"),
    ("f5", b"\x1b[15~"),
    ("f6", b"\x1b[17~"),
    ("f7", b"\x1b[18~"),
    ("f8", b"\x1b[19~"),
    ("f9", b"\x1b[20~"),
    ("f10", b"\x1b[21~"),
    ("f11", b"\x1b[23~"),
    ("f12", b"\x1b[24~"),
    ("shift+f1", b"\x1b[1;2P"),
    ("ctrl+f1", b"\x1b[1;5P"),
    ("alt+f4", b"\x1b[1;3S"),
    ("shift+f5", b"\x1b[15;2~"),
    ("ctrl+f12", b"\x1b[24;5~"),
    ("ctrl+shift+f8", b"\x1b[19;6~"),
    # F13-F24 are xterm's shift+F1..F12 (terminfo kf13..kf24).
    ("f13", b"\x1b[1;2P"),
    ("f14", b"\x1b[1;2Q"),
    ("f15", b"\x1b[1;2R"),
    ("f16", b"\x1b[1;2S"),
    ("f17", b"\x1b[15;2~"),
    ("f20", b"\x1b[19;2~"),
    ("f24", b"\x1b[24;2~"),
    ("ctrl+f13", b"\x1b[1;6P"),
]

KEYPAD_KEYS: list[tuple[str, bytes, bytes]] = [
    # name, numeric keypad, application keypad (DECKPAM)
    *[
        (f"kp_{digit}", str(digit).encode(), b"\x1bO" + bytes([ord("p") + digit]))
        for digit in range(10)
    ],
    ("kp_decimal", b".", b"\x1bOn"),
    ("decimal", b".", b"\x1bOn"),
    ("divide", b"/", b"\x1bOo"),
    ("multiply", b"*", b"\x1bOj"),
    ("subtract", b"-", b"\x1bOm"),
    ("add", b"+", b"\x1bOk"),
    ("equal", b"=", b"\x1bOX"),
    ("separator", b",", b"\x1bOl"),
    ("kp_enter", b"\r", b"\x1bOM"),
]

NOT_SENT = [
    "caps_lock",
    "num_lock",
    "left_shift",
    "media_play",
    "super+c",
    "hyper+x",
    "ctrl+super+a",
    "<scroll-up>",
    "nonsense_key_name",
    "ctrl+",
]


@pytest.mark.parametrize(("name", "expected"), PLAIN_KEYS + CTRL_KEYS + ALT_KEYS)
def test_character_and_control_keys(name: str, expected: bytes) -> None:
    assert encode_key(name, NORMAL) == expected


@pytest.mark.parametrize(("name", "normal", "app"), CURSOR_KEYS)
def test_cursor_keys_follow_decckm_only_without_modifiers(
    name: str, normal: bytes, app: bytes
) -> None:
    assert encode_key(name, NORMAL) == normal
    assert encode_key(name, APP_CURSOR) == app


@pytest.mark.parametrize(("name", "expected"), EDITING_AND_FUNCTION_KEYS)
def test_editing_and_function_keys(name: str, expected: bytes) -> None:
    assert encode_key(name, NORMAL) == expected
    # Neither cursor nor keypad mode changes them.
    assert encode_key(name, TerminalModes(app_cursor=True, app_keypad=True)) == expected


@pytest.mark.parametrize(("name", "numeric", "app"), KEYPAD_KEYS)
def test_keypad_keys(name: str, numeric: bytes, app: bytes) -> None:
    assert encode_key(name, NORMAL) == numeric
    assert encode_key(name, APP_KEYPAD) == app


def test_modified_keypad_key_ignores_application_keypad() -> None:
    assert encode_key("alt+kp_5", APP_KEYPAD) == b"\x1b5"
    assert encode_key("alt+kp_enter", APP_KEYPAD) == b"\x1b\r"


def test_application_keypad_leaves_main_keyboard_alone() -> None:
    assert encode_key("enter", APP_KEYPAD) == b"\r"
    assert encode_key("5", APP_KEYPAD) == b"5"


@pytest.mark.parametrize("name", NOT_SENT)
def test_keys_without_an_encoding(name: str) -> None:
    assert encode_key(name, NORMAL) is None


def test_printable_character_is_sent_as_typed() -> None:
    # A layout's character wins over the key's name: the user's terminal knows the layout.
    assert encode_key("shift+1", NORMAL, "!") == b"!"
    assert encode_key("a", NORMAL, "ä") == "ä".encode()
    assert encode_key("latin_small_letter_e_with_acute", NORMAL, "é") == "é".encode()
    assert encode_key("alt+x", NORMAL, "x") == b"\x1bx"
    assert encode_key("alt+shift+a", NORMAL, "A") == b"\x1bA"
    assert encode_key("space", NORMAL, " ") == b" "


def test_unknown_name_with_printable_text_sends_the_text() -> None:
    assert encode_key("some_future_name", NORMAL, "日") == "日".encode()
    assert encode_key("some_future_name", NORMAL, "\x01") is None


def test_control_character_reported_with_the_key_does_not_override_the_name() -> None:
    assert encode_key("ctrl+a", NORMAL, "\x01") == b"\x01"
    assert encode_key("enter", NORMAL, "\r") == b"\r"
    assert encode_key("tab", NORMAL, "\t") == b"\t"
    # Textual names a legacy ^H "backspace": it is a backspace, which the pty erases with DEL.
    assert encode_key("backspace", NORMAL, "\x08") == b"\x7f"
    assert encode_key("ctrl+h", NORMAL, None) == b"\x08"


def test_ctrl_wins_over_printable_text() -> None:
    assert encode_key("ctrl+c", NORMAL, "c") == b"\x03"


def test_shift_without_text_applies_to_letters_only() -> None:
    assert encode_key("shift+z", NORMAL) == b"Z"
    assert encode_key("shift+1", NORMAL) == b"1"


def test_modes_other_than_cursor_and_keypad_do_not_change_keys() -> None:
    everything = TerminalModes(bracketed_paste=True, mouse_sgr=True, focus_events=True)
    assert encode_key("up", everything) == b"\x1b[A"
    assert encode_key("ctrl+c", everything) == b"\x03"


# --- send-keys arguments ----------------------------------------------------------------

SPECS: list[tuple[str, bytes]] = [
    ("Enter", b"\r"),
    ("enter", b"\r"),
    ("ENTER", b"\r"),
    ("Tab", b"\t"),
    ("BTab", b"\x1b[Z"),
    ("S-Tab", b"\x1b[Z"),
    ("M-BTab", b"\x1b\x1b[Z"),
    ("BSpace", b"\x7f"),
    ("C-BSpace", b"\x08"),
    ("M-BSpace", b"\x1b\x7f"),
    ("Escape", b"\x1b"),
    ("M-Escape", b"\x1b\x1b"),
    ("Space", b" "),
    ("C-Space", b"\x00"),
    ("Up", b"\x1b[A"),
    ("Down", b"\x1b[B"),
    ("Left", b"\x1b[D"),
    ("Right", b"\x1b[C"),
    ("S-Up", b"\x1b[1;2A"),
    ("M-Up", b"\x1b[1;3A"),
    ("C-Up", b"\x1b[1;5A"),
    ("C-M-Up", b"\x1b[1;7A"),
    ("S-Left", b"\x1b[1;2D"),
    ("Home", b"\x1b[H"),
    ("End", b"\x1b[F"),
    ("S-Home", b"\x1b[1;2H"),
    ("IC", b"\x1b[2~"),
    ("DC", b"\x1b[3~"),
    ("PPage", b"\x1b[5~"),
    ("PageUp", b"\x1b[5~"),
    ("PgUp", b"\x1b[5~"),
    ("NPage", b"\x1b[6~"),
    ("PageDown", b"\x1b[6~"),
    ("PgDn", b"\x1b[6~"),
    ("F1", b"\x1bOP"),
    ("F5", b"\x1b[15~"),
    ("F12", b"\x1b[24~"),
    ("S-F5", b"\x1b[15;2~"),
    ("C-F1", b"\x1b[1;5P"),
    ("C-F5", b"\x1b[15;5~"),
    ("M-S-F5", b"\x1b[15;4~"),
    ("F13", b"\x1b[1;2P"),
    ("C-c", b"\x03"),
    ("C-C", b"\x03"),
    ("c-c", b"\x03"),
    ("^c", b"\x03"),
    ("^[", b"\x1b"),
    ("C-@", b"\x00"),
    ("C-\\", b"\x1c"),
    ("C-]", b"\x1d"),
    ("C-^", b"\x1e"),
    ("C-_", b"\x1f"),
    ("C-?", b"\x7f"),
    ("C-[", b"\x1b"),
    ("C-/", b"\x1f"),
    ("C-2", b"\x00"),
    ("M-x", b"\x1bx"),
    ("M-Enter", b"\x1b\r"),
    ("C-M-a", b"\x1b\x01"),
    ("M-C-a", b"\x1b\x01"),
    ("M--", b"\x1b-"),
    ("S-a", b"A"),
    ("M-S-a", b"\x1bA"),
    ("KP5", b"5"),
    ("KP*", b"*"),
    ("KP/", b"/"),
    ("KP-", b"-"),
    ("KP+", b"+"),
    ("KP.", b"."),
    ("KPEnter", b"\r"),
    # Textual names
    ("ctrl+c", b"\x03"),
    ("alt+x", b"\x1bx"),
    ("shift+up", b"\x1b[1;2A"),
    ("ctrl+alt+left", b"\x1b[1;7D"),
    ("ctrl+backslash", b"\x1c"),
    ("pageup", b"\x1b[5~"),
    ("backspace", b"\x7f"),
    ("delete", b"\x1b[3~"),
    ("insert", b"\x1b[2~"),
    ("f5", b"\x1b[15~"),
    # literal text
    ("ls -la", b"ls -la"),
    ("a", b"a"),
    ("é", "é".encode()),
    ("hello world\n", b"hello world\n"),
    ("C-", b"C-"),
    ("^", b"^"),
    ("C-xyz", b"C-xyz"),
    ("a+b", b"a+b"),
    ("1+1", b"1+1"),
    ("comma", b"comma"),
    ("Entering", b"Entering"),
    ("super+c", b"super+c"),
    ("ctrl+nonsense", b"ctrl+nonsense"),
    ("", b""),
]


@pytest.mark.parametrize(("spec", "expected"), SPECS)
def test_parse_key_spec(spec: str, expected: bytes) -> None:
    assert parse_key_spec(spec) == expected


@pytest.mark.parametrize(
    ("spec", "expected"),
    [("Up", b"\x1bOA"), ("Home", b"\x1bOH"), ("S-Up", b"\x1b[1;2A"), ("KP5", b"\x1bOu")],
)
def test_parse_key_spec_honours_the_target_modes(spec: str, expected: bytes) -> None:
    assert parse_key_spec(spec, TerminalModes(app_cursor=True, app_keypad=True)) == expected


# --- paste ------------------------------------------------------------------------------


def test_paste_without_bracketed_mode_is_the_text_with_cr_line_ends() -> None:
    assert wrap_paste("ls\nfoo\r\nbar\r", NORMAL) == b"ls\rfoo\rbar\r"


def test_paste_in_bracketed_mode_is_wrapped() -> None:
    assert wrap_paste("echo hi\n", BRACKETED) == b"\x1b[200~echo hi\r\x1b[201~"


def test_empty_paste_in_bracketed_mode() -> None:
    assert wrap_paste("", BRACKETED) == b"\x1b[200~\x1b[201~"


def test_paste_cannot_close_the_bracket_early() -> None:
    hostile = "safe\x1b[201~rm -rf ~\n"
    assert wrap_paste(hostile, BRACKETED) == b"\x1b[200~saferm -rf ~\r\x1b[201~"


def test_removing_an_end_marker_cannot_assemble_another() -> None:
    nested = "a\x1b[20\x1b[201~1~b"
    wrapped = wrap_paste(nested, BRACKETED)
    inner = wrapped.removeprefix(b"\x1b[200~").removesuffix(b"\x1b[201~")
    assert b"\x1b[201~" not in inner
    assert inner == b"ab"


def test_eight_bit_end_marker_is_removed_too() -> None:
    assert wrap_paste("x\x9b201~y", BRACKETED) == b"\x1b[200~xy\x1b[201~"


def test_paste_keeps_non_ascii_and_other_escapes() -> None:
    text = "naïve 日本 \x1b[31mred\x1b[0m"
    assert wrap_paste(text, BRACKETED) == b"\x1b[200~" + text.encode() + b"\x1b[201~"


def test_large_paste_is_wrapped_whole() -> None:
    line = "x" * 99 + "\n"
    text = line * 1024  # 100 KB
    text = text[:50_000] + "\x1b[201~" + text[50_000:]
    wrapped = wrap_paste(text, BRACKETED)
    assert wrapped.startswith(b"\x1b[200~")
    assert wrapped.endswith(b"\x1b[201~")
    inner = wrapped[len(b"\x1b[200~") : -len(b"\x1b[201~")]
    assert len(inner) == 100 * 1024
    assert b"\x1b" not in inner
    assert b"\n" not in inner
    assert inner.count(b"\r") == 1024


# --- focus ------------------------------------------------------------------------------


def test_focus_events_only_when_asked_for() -> None:
    focus = TerminalModes(focus_events=True)
    assert focus_event(True, focus) == b"\x1b[I"
    assert focus_event(False, focus) == b"\x1b[O"
    assert focus_event(True, NORMAL) == b""
    assert focus_event(False, NORMAL) == b""


def test_docstring_examples_hold() -> None:
    import doctest

    import core.keys

    result = doctest.testmod(core.keys)
    assert result.attempted > 0
    assert result.failed == 0


def test_paste_keeps_newlines_inside_a_bracket_when_asked() -> None:
    bracketed = TerminalModes(bracketed_paste=True)
    assert wrap_paste("a\nb", bracketed, keep_newlines=True) == b"\x1b[200~a\nb\x1b[201~"
    assert wrap_paste("a\nb", bracketed) == b"\x1b[200~a\rb\x1b[201~"
    # Without a bracket the program would read LF as Enter anyway: CR, as typed.
    assert wrap_paste("a\nb", TerminalModes(), keep_newlines=True) == b"a\rb"
