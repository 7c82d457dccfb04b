"""Where libghostty-vt answers a program differently from xterm and tmux, put right around it.

Each correction is found with a substring test on the read (`in` on bytes is a memchr-speed
scan; a program sends these sequences rarely), so a read without them costs nothing more:
- mouse tracking is one mode, as in xterm: the last of 9/1000/1002/1003 set wins and any
  of them reset turns tracking off (Ghostty resets only when the reset mode is the active
  one, and tells modes set in one read apart by rank, not order);
- DECSTR (`CSI ! p`, which Ghostty ignores) is fed as the sequences doing what xterm's
  soft reset does (and pyte's backend): insert, origin and cursor-key modes off, autowrap
  and the cursor shown, numeric keypad, default rendition, no margins, the cursor kept;
- the DEC form of the cursor position report (`CSI ? 6 n`) is answered `CSI ? r ; c R`
  (Ghostty answers only `CSI 6 n`).
- RIS (`ESC c`) clears Ghostty's title, and a title set earlier in the same read is read
  only once the read is parsed: it is read before the reset, so the title stays, as in
  tmux and pyte's backend, however the output is cut into reads;
- DA1/DA2/DA3 with a non-zero parameter (`CSI 1 c`, `CSI > 1 c`) get no reply, as in
  xterm (only looked for after Ghostty answered a DA in the read).
- a code point joining the cluster of a cell already written (a combining accent, a zero
  width joiner, an emoji variation selector or skin tone) changes that cell without marking
  its row dirty, so the render state keeps showing the row as it was: a read that may hold
  one (`may_join_a_cell`) has every row copied again on the next update.
A sequence cut between two reads is seen too: the unfinished control sequence at the end of
a read (`carry_of`) is kept and looked at again with the next read, so how a program's output
is cut into reads never changes what the screen or the program gets.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from core.terminal import MouseMode

_MODES = re.compile(rb"\x1b\[\?([0-9;]*)([hl])")
_DA = re.compile(rb"\x1b\[[>=]?([0-9;]*)c")
_SPLIT = re.compile(rb"\x1b\[!p|\x1b\[\?6n|\x1bc")
_UNFINISHED = re.compile(rb"\x1b(?:\[[\x20-\x3f]*)?\Z")
"""An ESC, or a CSI with its parameters and intermediates but no final byte yet."""
CARRY_MAX = 64
"""A longer unfinished sequence is not one the fixups look for (theirs are a few bytes)."""
_MOUSE = {b"9": MouseMode.X10, b"1000": MouseMode.NORMAL, b"1002": MouseMode.BUTTON,
          b"1003": MouseMode.ANY}
# The UTF-8 of the code points that join the cell before them, generously (a false match
# costs one full copy of the screen in C, a miss leaves a mark unshown until its row
# changes). Lead bytes alone: combining diacritics (CC, CD), Cyrillic marks (D2), Hebrew and
# Arabic (D6-DB), the Indic/Thai/Lao/Tibetan blocks (E0), Myanmar, Hangul jamo and the
# combining supplements (E1), kana voicing marks (E3), variation selectors and half marks
# (EF), tags (F3). Agents print E2 (box drawing, bullets) and F0 (emoji) all the time, so
# those two are looked for with their next bytes: the zero width joiner (of emoji sequences),
# emoji skin tones, regional indicators. (The zero width non-joiner and the combining marks
# for symbols come with lead bytes above: Persian or Indic text, a keycap's VS16.)
_JOINING_LEADS = bytes(
    1 if byte in (0xCC, 0xCD, 0xD2, 0xE0, 0xE1, 0xE3, 0xEF, 0xF3) or 0xD6 <= byte <= 0xDB
    else 0
    for byte in range(256)
)
_ZERO_WIDTH_JOINER = b"\xe2\x80\x8d"
_JOINING_F0 = (b"\xf0\x9f\x8f", b"\xf0\x9f\x87")
SOFT_RESET = b"\x1b[!p"
DEC_CPR = b"\x1b[?6n"
FULL_RESET = b"\x1bc"


def mouse_asked(data: bytes, current: MouseMode | None) -> MouseMode | None:
    """The mouse tracking mode after the DECSET/DECRST sequences in `data` (xterm's rule),
    `current` if they name no tracking mode."""
    if b"\x1b[?" not in data:
        return current
    for match in _MODES.finditer(data):
        for code in match.group(1).split(b";"):
            mode = _MOUSE.get(code.lstrip(b"0") or b"0")
            if mode is not None:
                current = mode if match.group(2) == b"h" else MouseMode.OFF
    return current


def carry_of(data: bytes) -> bytes:
    """The unfinished control sequence `data` ends with (b"" when it ends with none): the
    next read is looked at with it in front, so a sequence cut between two reads is seen
    whole once its last byte comes."""
    at = data.rfind(b"\x1b", max(0, len(data) - CARRY_MAX))
    if at < 0 or _UNFINISHED.match(data, at) is None:
        return b""
    return data[at:]


def may_join_a_cell(data: bytes) -> bool:
    """Whether `data` (with the end of the previous read in front: a code point may be cut)
    may hold a code point that joins the cluster of the cell before it. A byte-class
    `translate` and a few substring scans: a regular expression here cost more than
    Ghostty's whole parse of an agent's output."""
    if data.isascii():
        return False
    if b"\x01" in data.translate(_JOINING_LEADS):
        return True
    if _ZERO_WIDTH_JOINER in data:
        return True
    return b"\xf0" in data and any(joiner in data for joiner in _JOINING_F0)


def needs_split(data: bytes) -> bool:
    """Whether `data` (with the previous read's carry in front) holds a sequence `pieces`
    corrects."""
    return SOFT_RESET in data or DEC_CPR in data or FULL_RESET in data


def pieces(data: bytes, carry: bytes = b"") -> Iterator[tuple[bytes, bytes]]:
    """`data` as (bytes to feed, the corrected sequence that follows them or b"").

    A corrected sequence whose start came in the previous read (`carry`, already fed) is
    fed to its end (Ghostty finishes it as one it ignores or does not answer), then
    corrected; one wholly in `data` is not fed at all.
    """
    scan = carry + data
    offset = len(carry)
    start = 0
    for match in _SPLIT.finditer(scan):
        if match.start() < offset:
            end = match.end() - offset
            yield data[start:end], match.group()
        else:
            yield data[start:match.start() - offset], match.group()
            end = match.end() - offset
        start = end
    yield data[start:], b""


def soft_reset(x: int, y: int) -> bytes:
    """DECSTR for a cursor at column `x`, row `y` (0-based, absolute): IRM, DECOM, DECCKM
    off; DECAWM, DECTCEM on; DECKPNM; SGR 0; DECSTBM reset (which homes the cursor, so the
    cursor is put back)."""
    return b"\x1b[4l\x1b[?6l\x1b[?1l\x1b[?7h\x1b[?25h\x1b>\x1b[0m\x1b[r\x1b[%d;%dH" % (y + 1, x + 1)


def da_requests(data: bytes) -> list[bool]:
    """For each device-attributes request in `data`, in order: is it one xterm answers
    (no parameter, or 0)?"""
    return [not match.group(1).strip(b"0;") for match in _DA.finditer(data)]
