"""Text from programs made safe to draw in idea's own chrome (titles, notices, names).

A program in a cell (or a `cat` of a hostile file) chooses its window title (OSC 0/2) and its
notifications (OSC 9/777); the name of its process and a committed `layouts.json` are just as
much someone else's text. The client draws such text into borders, the tab bar and the status
line of the user's own terminal, outside any cell: a control character there would move the
user's cursor, or start an escape sequence the outer terminal acts on (U+009B is CSI on
terminals that take C1 codes). `clean` removes them, once at the emulator boundary and again
where the client draws, and caps the length so a title cannot be megabytes.

Removed: C0 controls (U+0000–U+001F) and DEL, C1 controls (U+0080–U+009F), the Unicode
line and paragraph separators, and the bidirectional embedding, override and isolate
controls (which reorder what follows them on screen, e.g. to disguise a file name). Tabs,
newlines and the other white-space controls become one space each, so words stay apart.
Everything else is kept (wide, combining and emoji characters): measuring it is the
client's job, with the screen's cell-width rules.
"""

from __future__ import annotations

import re

MAX_TITLE = 256
"""Characters kept of a title (OSC 0/1/2); tmux keeps a comparable amount."""

MAX_NOTICE = 512
"""Characters kept of a notification (OSC 9/777) or a status-line message."""

_SPACES = re.compile(r"[\t\n\v\f\r\x85\u2028\u2029]+")
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]+")


def clean(text: str, limit: int = MAX_TITLE) -> str:
    """`text` without control characters, at most `limit` characters long.

    >>> clean("build\\r\\n\\x1b[2J\\x9b31mdone\\x07")
    'build [2J31mdone'
    """
    if text.isprintable() and len(text) <= limit:
        return text  # the common case, checked in C
    return _UNSAFE.sub("", _SPACES.sub(" ", text))[:limit]
