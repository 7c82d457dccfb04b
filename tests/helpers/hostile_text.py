"""A corpus of hostile titles and notices (issue 7): what a program in a cell, or a `cat` of
a file someone sent, can put in an OSC 0/2 title or an OSC 9/777 notification, and what a
committed `layouts.json` can put in a page name. Used at the emulator (nothing unsafe gets
past it) and at the client's render (nothing unsafe reaches the user's terminal, and widths
are counted in cells like the screen's)."""

from __future__ import annotations

import re

from wcwidth import wcwidth

UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""What must never reach the user's terminal outside a cell."""

HOSTILE_TITLES: list[str] = [
    "line one\r\nline two",
    "back\b\b\b\bspace",
    "csi \u009b2J\u009b31m via C1",
    "osc \u009d0;inner\u009c via C1",
    "nul\x00in the middle",
    "del\x7fdel",
    "tab\tand\vvertical\fform",
    "esc \x1b[?1049h but not ST",  # ESC cannot appear raw inside OSC; after it, text
    "wide 中文字符 title 漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字",
    "combining e\u0301\u0302\u0303\u0304\u0305\u0306\u0307 marks",
    "\u0301 leading combining mark",
    "zalgo " + "a" + "\u0300\u0301\u0302\u0303\u0304" * 200,
    "emoji 👩\u200d👩\u200d👧 family 🏳️\u200d🌈 flag",
    "bidi \u202egnp.exe\u202c override \u2067isolate\u2069",
    "separators\u2028line\u2029para",
    "\x85next line C1",
    "x" * 100_000,
    "中" * 20_000,
    "",
]


def cells(text: str) -> int:
    """Cells of `text` by the screen's rules (wcwidth; a lone zero-width character or an
    unprintable one counts one, as in the emulator's cell model)."""
    total = 0
    previous_width = 0
    for character in text:
        width = wcwidth(character)
        if width == 0 and previous_width:
            continue
        total += 2 if width == 2 else 1
        previous_width = 2 if width == 2 else 1
    return total
