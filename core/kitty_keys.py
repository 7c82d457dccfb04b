"""Keys as the kitty keyboard protocol reports them, for a program that asked for it.

A program pushes its enhancement flags with `CSI > flags u` (and asks which are on with
`CSI ? u`); from then on keys that legacy encoding cannot tell apart come as `CSI code ;
modifiers u`: Escape is no longer the start of a sequence, Ctrl+I is not Tab, Shift+Enter is
not Enter. Agent CLIs (Claude Code, Codex, …) and editors (Neovim, Helix) use it for exactly
those keys. https://sw.kovidgoyal.net/kitty/keyboard-protocol/

Only the press of a key exists here (the client sees presses, not releases), which the
protocol allows with every flag: a press is the default event type and alternate keys are
optional. Keys that already have an unambiguous legacy form (arrows, Home/End, PageUp/Down,
Insert/Delete, F1–F12 and the keypad) keep it: it is also the protocol's own form for them.
"""

from __future__ import annotations

DISAMBIGUATE = 0b1
"""Escape, and keys held with Ctrl or Alt, as `CSI code ; modifiers u`."""
REPORT_EVENT_TYPES = 0b10
REPORT_ALTERNATE_KEYS = 0b100
ALL_KEYS_AS_ESCAPES = 0b1000
"""Every key as an escape code, text keys and Enter/Tab/Backspace included."""
REPORT_TEXT = 0b10000
"""With ALL_KEYS_AS_ESCAPES: the text a key types, as a third field."""

SHIFT, ALT, CTRL = 1, 2, 4
"""The protocol's modifier bits (the same as xterm's)."""

_FUNCTIONAL = {"escape": 27, "enter": 13, "tab": 9, "backspace": 127, "space": 32}
"""Keys named by the client that the protocol numbers as code points."""
_LEGACY_WHEN_PLAIN = {"enter", "tab", "backspace", "space"}
"""Keys that still send their legacy bytes without modifiers (unless every key is an
escape code): a shell's `reset` must work after a program left the mode on."""


def _sequence(code: int, modifiers: int, text: str = "") -> bytes:
    fields = str(code)
    if modifiers or text:
        fields += f";{modifiers + 1}"
    if text:
        fields += ";" + ":".join(str(ord(c)) for c in text)
    return f"\x1b[{fields}u".encode()


def encode_text_key(flags: int, modifiers: int, base: str,
                    character: str | None) -> bytes | None:
    """A key that types a character (`base`, as the client named it: "a", "A", "é"), or
    None when its legacy bytes are what the protocol wants too."""
    if base.lower() != base:  # "A" is Shift+a: the protocol names the unshifted key
        modifiers |= SHIFT
    code = ord(base.lower())
    if flags & ALL_KEYS_AS_ESCAPES:
        typed = ""
        if flags & REPORT_TEXT and not modifiers & (CTRL | ALT):
            typed = character if character and character.isprintable() else base
        return _sequence(code, modifiers, typed)
    if flags & DISAMBIGUATE and modifiers & (CTRL | ALT):
        return _sequence(code, modifiers)
    return None


def encode_named_key(flags: int, modifiers: int, key: str) -> bytes | None:
    """Escape, Enter, Tab, Backspace or Space (`key`), or None when the legacy bytes stand
    (any other key, or one of these where the flags keep its legacy form)."""
    code = _FUNCTIONAL.get(key)
    if code is None:
        return None
    if flags & ALL_KEYS_AS_ESCAPES:
        return _sequence(code, modifiers)
    if not flags & DISAMBIGUATE:
        return None
    if key in _LEGACY_WHEN_PLAIN and not modifiers:
        return None
    if key == "space" and not modifiers & (CTRL | ALT):
        return None  # Shift+Space types a space
    return _sequence(code, modifiers)
