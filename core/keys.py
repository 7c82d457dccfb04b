"""Keyboard input for programs in cells: from key names to the bytes xterm-256color sends.

Owned here: the encoding of a pressed key (`encode_key`, fed with Textual's key names by the
client's terminal widget, or by the daemon from a `KeyInput` message), of a `send-keys`
argument (`parse_key_spec`), of a paste (`wrap_paste`) and of focus changes (`focus_event`).
Pure functions of their arguments and the program's `TerminalModes`: no Textual import, no
state, so the daemon can encode with the cell's current modes.

The reference is xterm with its default resources (modifyCursorKeys=2, modifyFunctionKeys=2,
modifyOtherKeys=0, metaSendsEscape): programs in cells see `TERM=xterm-256color` and read
terminfo and their own tables against exactly those bytes.

- Cursor keys, Home, End: `CSI A..D/H/F`; `SS3 A..D/H/F` in application cursor mode
  (DECCKM); with modifiers `CSI 1;{mod} A`, whatever the mode.
- Insert, Delete, PageUp, PageDown, F5-F12: `CSI {n} ~`, with modifiers `CSI {n};{mod} ~`.
- F1-F4: `SS3 P..S`, with modifiers `CSI 1;{mod} P..S`. F13-F24 are shift+F1..F12, as in
  xterm's terminfo (`kf13=\\E[1;2P`).
- `{mod}` is 1 + shift(1) + alt(2) + ctrl(4); meta counts as alt; super and hyper have no
  encoding (the key is not sent).
- Other keys: alt prefixes ESC; ctrl maps a character the way X11 does for xterm
  (`@`, `a..z`, `[ \\ ] ^ _`, `` ` ``, `{ | } ~` and space to 0x00..0x1f, `2` to NUL,
  `3..7` to 0x1b..0x1f, `8` and `?` to DEL, `/` to 0x1f); other characters ignore ctrl.
- Backspace sends DEL (ctrl+backspace BS), Enter CR, Tab HT, shift+Tab `CSI Z`.
- Keypad keys send their character, or `SS3 p..y/j/k/m/n/o/M/X/l` in application keypad mode
  (DECKPAM) when no modifier is held.

Accepted by `parse_key_spec` (tmux `send-keys` style; key names are case-insensitive):

| Argument                         | Sends                                              |
|----------------------------------|----------------------------------------------------|
| `Enter`                          | CR                                                 |
| `Tab` / `BTab`                   | HT / `ESC [ Z` (shift+Tab)                         |
| `BSpace`                         | DEL (0x7f)                                         |
| `Escape`                         | ESC                                                |
| `Space`                          | a space                                            |
| `Up` `Down` `Left` `Right`       | `ESC [ A..D` (`ESC O A..D` in application cursor mode) |
| `Home` `End`                     | `ESC [ H` / `ESC [ F` (`ESC O H/F` likewise)       |
| `IC` `DC`                        | Insert `ESC [ 2 ~`, Delete `ESC [ 3 ~`             |
| `PPage` `PageUp` `PgUp`          | `ESC [ 5 ~`                                        |
| `NPage` `PageDown` `PgDn`        | `ESC [ 6 ~`                                        |
| `F1` .. `F24`                    | as xterm (`ESC O P`, `ESC [ 15 ~`, ...)            |
| `KP0`..`KP9` `KP/` `KP*` `KP-` `KP+` `KP.` `KPEnter` | keypad keys                    |
| `C-x` / `^x`                     | ctrl+x (`C-c` is 0x03, `C-Space` and `C-@` NUL)    |
| `M-x`                            | alt+x: ESC then x (`M-Up` is `ESC [ 1;3 A`)        |
| `S-x`                            | shift+x (`S-Up` is `ESC [ 1;2 A`, `S-Tab` is BTab) |
| `C-M-a`, `M-S-F5`, ...           | modifiers combine, in any order                    |
| `ctrl+c`, `alt+x`, `shift+up`    | Textual key names, with or without modifiers       |
| anything else                    | the text itself, UTF-8 (`send-keys 'ls -la' Enter`)|

Textual-only names (`pageup`, `backspace`, `delete`, `insert`, `escape`, ...) are accepted
bare; character names such as `comma` only after a modifier (`ctrl+backslash`), so that a
word typed as text stays text.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from core import kitty_keys
from core.terminal import TerminalModes

SHIFT = 1
ALT = 2
CTRL = 4

_NO_MODES = TerminalModes()

_ESC = "\x1b"
_CSI = "\x1b["
_SS3 = "\x1bO"

_MODIFIER_WORDS = {
    "shift": SHIFT,
    "alt": ALT,
    "meta": ALT,  # no separate meta key in xterm-256color: meta sends ESC like alt
    "option": ALT,
    "ctrl": CTRL,
    "control": CTRL,
}
# Modifiers the terminal cannot encode: a key held with one is not sent at all rather than
# sent as if the modifier were not there (super+c is the desktop's copy, not a "c").
_UNENCODABLE_MODIFIERS = frozenset({"super", "hyper", "cmd"})

# Final byte of keys that follow DECCKM: CSI or SS3 without modifiers, CSI 1;mod with.
_CURSOR_KEYS = {
    "up": "A",
    "down": "B",
    "right": "C",
    "left": "D",
    "home": "H",
    "end": "F",
    "kp_begin": "E",
}
_TILDE_KEYS = {
    "insert": 2,
    "delete": 3,
    "pageup": 5,
    "pagedown": 6,
    "f5": 15,
    "f6": 17,
    "f7": 18,
    "f8": 19,
    "f9": 20,
    "f10": 21,
    "f11": 23,
    "f12": 24,
}
_SS3_FUNCTION_KEYS = {"f1": "P", "f2": "Q", "f3": "R", "f4": "S"}
# Keypad key -> (character in numeric keypad mode, SS3 final byte in application keypad mode).
_KEYPAD = {
    **{f"kp_{digit}": (str(digit), chr(ord("p") + digit)) for digit in range(10)},
    "kp_decimal": (".", "n"),
    "kp_divide": ("/", "o"),
    "kp_multiply": ("*", "j"),
    "kp_subtract": ("-", "m"),
    "kp_add": ("+", "k"),
    "kp_enter": ("\r", "M"),
    "kp_equal": ("=", "X"),
    "kp_separator": (",", "l"),
}
_OTHER_SPECIAL = frozenset({"enter", "tab", "backspace", "escape", "space"})

# Textual's names for the same keys (its kitty-protocol keypad names, aliases of its Keys enum).
_TEXTUAL_ALIASES = {
    "return": "enter",
    "decimal": "kp_decimal",
    "divide": "kp_divide",
    "multiply": "kp_multiply",
    "subtract": "kp_subtract",
    "add": "kp_add",
    "equal": "kp_equal",
    "separator": "kp_separator",
}
# Names Textual gives to characters that `unicodedata.lookup` cannot read back.
_CHARACTER_NAMES = {
    "slash": "/",
    "backslash": "\\",
    "at": "@",
    "minus": "-",
    "plus": "+",
    "underscore": "_",
    "hyphen_minus": "-",
    "less_than_sign": "<",
    "greater_than_sign": ">",
    "left_square_brace": "[",
    "right_square_brace": "]",
    "newline": "\n",
}

_TMUX_NAMES = {
    "enter": "enter",
    "tab": "tab",
    "btab": "shift+tab",
    "bspace": "backspace",
    "escape": "escape",
    "space": "space",
    "up": "up",
    "down": "down",
    "left": "left",
    "right": "right",
    "home": "home",
    "end": "end",
    "ic": "insert",
    "dc": "delete",
    "ppage": "pageup",
    "pageup": "pageup",
    "pgup": "pageup",
    "npage": "pagedown",
    "pagedown": "pagedown",
    "pgdn": "pagedown",
    "kp/": "kp_divide",
    "kp*": "kp_multiply",
    "kp-": "kp_subtract",
    "kp+": "kp_add",
    "kp.": "kp_decimal",
    "kpenter": "kp_enter",
    **{f"kp{digit}": f"kp_{digit}" for digit in range(10)},
    **{f"f{number}": f"f{number}" for number in range(1, 25)},
}

_PASTE_START = "\x1b[200~"
_PASTE_END = "\x1b[201~"
# The same end marker with the 8-bit CSI: a program that reads 8-bit controls would take it too.
_PASTE_END_C1 = "\x9b201~"


def _special_key(word: str) -> str | None:
    """The canonical name of a non-character key, or None."""
    word = _TEXTUAL_ALIASES.get(word, word)
    if (
        word in _CURSOR_KEYS
        or word in _TILDE_KEYS
        or word in _SS3_FUNCTION_KEYS
        or word in _KEYPAD
        or word in _OTHER_SPECIAL
    ):
        return word
    if word.startswith("f") and word[1:].isdigit() and 13 <= int(word[1:]) <= 24:
        return word
    return None


def _character(word: str) -> str | None:
    """The character a Textual key name stands for ("a", "full_stop", "euro_sign"), or None."""
    if len(word) == 1:
        return word
    if word in _CHARACTER_NAMES:
        return _CHARACTER_NAMES[word]
    try:
        found = unicodedata.lookup(word.replace("_", " ").upper())
    except KeyError:
        return None
    return found if len(found) == 1 else None


@lru_cache(maxsize=1024)
def _parse_name(name: str) -> tuple[int, str] | None:
    """Split a Textual key name into (modifier bits, base key); base is a char or a key name.

    Returns None for names that are not keys, and (-1, "") for keys held with a modifier that
    cannot be encoded.
    """
    if name == "ctrl-at":  # Textual's Keys.ControlSpace, spelt with a hyphen
        return CTRL, "@"
    if len(name) == 1:
        return 0, name
    if name.endswith("++"):  # "ctrl++": the plus key itself
        words, base_word = name[:-2].split("+"), "+"
    else:
        *words, base_word = name.split("+")
    modifiers = 0
    for word in words:
        lowered = word.lower()
        if lowered in _UNENCODABLE_MODIFIERS:
            return -1, ""
        if lowered not in _MODIFIER_WORDS:
            return None
        modifiers |= _MODIFIER_WORDS[lowered]
    special = _special_key(base_word.lower())
    if special is not None:
        return modifiers, special
    character = _character(base_word)
    if character is None:
        return None
    return modifiers, character


def _control(character: str) -> str:
    """What ctrl+character sends (X11's rule, as xterm applies it, plus ^? = DEL)."""
    code = ord(character)
    if 0x40 <= code < 0x7F or character == " ":
        return chr(code & 0x1F)
    if character == "2":
        return "\x00"
    if "3" <= character <= "7":
        return chr(code - ord("3") + 0x1B)
    if character in "8?":
        return "\x7f"
    if character == "/":
        return "\x1f"
    return character


def _encode_character(modifiers: int, base: str, character: str | None) -> bytes:
    if modifiers & CTRL:
        text = _control(base)
    elif character and character.isprintable():
        # The text the user's terminal produced wins: it knows the keyboard layout.
        text = character
    elif modifiers & SHIFT:
        # Without the layout, shift can only be applied to letters.
        text = base.upper()
    else:
        text = base
    prefix = _ESC if modifiers & ALT else ""
    return (prefix + text).encode("utf-8", "replace")


def _encode_special(modifiers: int, key: str, modes: TerminalModes) -> bytes:
    parameter = modifiers + 1
    if key in _CURSOR_KEYS:
        final = _CURSOR_KEYS[key]
        if modifiers:
            return f"{_CSI}1;{parameter}{final}".encode()
        return ((_SS3 if modes.app_cursor else _CSI) + final).encode()
    if key in _SS3_FUNCTION_KEYS:
        final = _SS3_FUNCTION_KEYS[key]
        return (f"{_CSI}1;{parameter}{final}" if modifiers else _SS3 + final).encode()
    if key in _TILDE_KEYS:
        number = _TILDE_KEYS[key]
        return (f"{_CSI}{number};{parameter}~" if modifiers else f"{_CSI}{number}~").encode()
    if key.startswith("f"):  # f13..f24, which _special_key let through
        return _encode_special(modifiers | SHIFT, f"f{int(key[1:]) - 12}", modes)
    alt = _ESC if modifiers & ALT else ""
    if key in _KEYPAD:
        character, final = _KEYPAD[key]
        if modes.app_keypad and not modifiers:
            return (_SS3 + final).encode()
        if key == "kp_enter":
            return (alt + "\r").encode()
        return _encode_character(modifiers, character, None)
    if key == "enter":
        return (alt + "\r").encode()
    if key == "tab":
        return (alt + (f"{_CSI}Z" if modifiers & SHIFT else "\t")).encode()
    if key == "backspace":
        return (alt + ("\x08" if modifiers & CTRL else "\x7f")).encode()
    if key == "escape":
        return (alt + _ESC).encode()
    if key != "space":
        raise AssertionError(f"unhandled special key {key!r}")  # _special_key and this agree
    return (alt + ("\x00" if modifiers & CTRL else " ")).encode()


def encode_key(name: str, modes: TerminalModes, character: str | None = None) -> bytes | None:
    """The bytes xterm sends for a key, given Textual's name for it.

    Args:
        name: A Textual key name: "a", "A", "ctrl+a", "alt+x", "shift+tab", "ctrl+alt+left",
            "f5", "euro_sign", "ctrl+right_square_bracket", ... (modifiers in any order).
        modes: The program's current input modes (cursor and keypad modes matter here).
        character: The text Textual reported with the key, if any. When printable it is sent
            for keys without ctrl (so a layout's "é" or "!" arrives as typed).

    Returns:
        The bytes to write to the program, or None when the key has no encoding (a modifier
        key alone, caps lock, super+anything, unknown names without printable text).

    >>> encode_key("ctrl+c", TerminalModes())
    b'\\x03'
    >>> encode_key("up", TerminalModes(app_cursor=True))
    b'\\x1bOA'
    """
    parsed = _parse_name(name)
    if parsed is None:
        if character and character.isprintable():
            return character.encode("utf-8", "replace")
        return None
    modifiers, base = parsed
    if modifiers < 0:
        return None
    if modes.kitty_keys:
        # The program asked for the kitty keyboard protocol (`CSI > flags u`).
        if len(base) == 1:
            kitty = kitty_keys.encode_text_key(modes.kitty_keys, modifiers, base, character)
        else:
            kitty = kitty_keys.encode_named_key(modes.kitty_keys, modifiers, base)
        if kitty is not None:
            return kitty
    if len(base) == 1:
        return _encode_character(modifiers, base, character)
    return _encode_special(modifiers, base, modes)


def _parse_tmux_spec(spec: str) -> tuple[int, str] | None:
    """(modifiers, base) for a tmux key argument such as "C-M-a" or "S-Up", or None."""
    modifiers = 0
    rest = spec
    while len(rest) > 2 and rest[1] == "-" and rest[0].upper() in "CMS":
        modifiers |= {"C": CTRL, "M": ALT, "S": SHIFT}[rest[0].upper()]
        rest = rest[2:]
    if not modifiers and len(rest) == 2 and rest[0] == "^":
        modifiers, rest = CTRL, rest[1]
    if len(rest) == 1:
        return (modifiers, rest) if modifiers else None
    named = _TMUX_NAMES.get(rest.lower())
    if named is None:
        return None
    if named == "shift+tab":
        return modifiers | SHIFT, "tab"
    return modifiers, named


def parse_key_spec(spec: str, modes: TerminalModes = _NO_MODES) -> bytes:
    """The bytes one `idea send-keys` argument stands for (see the module's table).

    Args:
        spec: A key ("Enter", "C-c", "M-x", "S-Up", "F5", "ctrl+c") or literal text.
        modes: The target program's modes, so that "Up" honours application cursor mode as
            tmux does; the default is a program that set none.

    >>> parse_key_spec("C-c")
    b'\\x03'
    >>> parse_key_spec("ls -la")
    b'ls -la'
    """
    parsed = _parse_tmux_spec(spec)
    if parsed is None and "+" in spec[1:]:
        parsed = _parse_name(spec)  # only modifier words may precede a "+": "a+b" stays text
    if parsed is None:
        special = _special_key(spec.lower())
        if special is not None:
            parsed = 0, special
    if parsed is None or parsed[0] < 0:
        return spec.encode("utf-8", "replace")
    modifiers, base = parsed
    if len(base) == 1:
        return _encode_character(modifiers, base, None)
    return _encode_special(modifiers, base, modes)


def wrap_paste(text: str, modes: TerminalModes, *, keep_newlines: bool = False) -> bytes:
    """The bytes for pasting `text`: bracketed when the program turned mode 2004 on.

    Line ends become CR, as a terminal sends for the Enter key. Inside a bracket, end markers
    in the text are removed (repeatedly, so that removing one cannot join the pieces of
    another), so pasted text can never end the bracket early and be run as typed input.

    `keep_newlines` keeps LF inside a bracket (the daemon typing an agent's composed context:
    the program knows it is pasted text, and the bytes then match what the other injection
    strategies deliver); without a bracket, lines always end with CR.
    """
    if not (keep_newlines and modes.bracketed_paste):
        text = text.replace("\r\n", "\r").replace("\n", "\r")
    if not modes.bracketed_paste:
        return text.encode("utf-8", "replace")
    while _PASTE_END in text or _PASTE_END_C1 in text:
        text = text.replace(_PASTE_END, "").replace(_PASTE_END_C1, "")
    return (_PASTE_START + text + _PASTE_END).encode("utf-8", "replace")


def focus_event(focused: bool, modes: TerminalModes) -> bytes:
    """`CSI I` / `CSI O` when the program asked for focus events (mode 1004), else nothing."""
    if not modes.focus_events:
        return b""
    return b"\x1b[I" if focused else b"\x1b[O"
