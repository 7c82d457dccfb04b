"""Operating System Commands (`ESC ] code ; payload ST`): title, cwd, clipboard, notifications,
hyperlinks.

Called by the stream with the payload already bounded in length; it updates the screen's
title/cwd and queues `TerminalEvent`s. Nothing here answers the program: reading the
clipboard (`OSC 52 ; c ; ?`) is deliberately ignored, and so are the default-colour queries
(`OSC 10/11 ; ?`): the colours are the user's own terminal's, not known here, and a wrong
"dark" answer would make vim or an agent CLI pick unreadable colours on a light terminal
(tmux, detached from a terminal, does not answer either).
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Protocol
from urllib.parse import unquote, urlsplit

from adapters.emulator.links import too_long
from core.hyperlinks import safe_uri
from core.safe_text import MAX_NOTICE, MAX_TITLE, clean
from core.terminal import TerminalEvent, TerminalEventKind

# ConEmu uses `OSC 9 ; <number> ; …` for progress bars and other commands, not notifications.
_CONEMU = re.compile(r"\d+(?:;|$)")


class OscTarget(Protocol):
    """What OSC handling changes on the screen."""

    title: str
    icon_name: str
    cwd: str | None

    def add_event(self, event: TerminalEvent) -> None: ...

    def set_link(self, uri: str | None) -> None:
        """Link the cells printed from now on to `uri` (None: to nothing)."""


def parse_cwd(url: str) -> str | None:
    """The local path of an OSC 7 `file://host/path` URL (percent-decoded), else None.

    >>> parse_cwd("file://box/home/me/my%20dir")
    '/home/me/my dir'
    """
    if url.startswith("/"):
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme != "file" or not parts.path:
        return None
    return unquote(parts.path, errors="replace")


def _clipboard(rest: str) -> str | None:
    _, _, data = rest.partition(";")
    if not data or data == "?":
        return None
    try:
        raw = base64.b64decode(data.encode("ascii", "ignore"), validate=False)
    except (binascii.Error, ValueError):
        return None
    return raw.decode("utf-8", "replace")


def _notify_777(rest: str) -> str | None:
    parts = rest.split(";", 2)
    if parts[0] != "notify":
        return None
    title = parts[1] if len(parts) > 1 else ""
    body = parts[2] if len(parts) > 2 else ""
    if title and body:
        return f"{title}: {body}"
    return title or body


def handle_osc(target: OscTarget, payload: str) -> None:
    """Apply one OSC payload (the text between `ESC ]` and the terminator)."""
    code, _, rest = payload.partition(";")
    if code in ("0", "2"):
        # Titles and notices are drawn outside the cell, in the user's own terminal: no
        # control character and no unbounded length gets past this point (core.safe_text).
        title = clean(rest, MAX_TITLE)
        target.title = title
        target.add_event(TerminalEvent(TerminalEventKind.TITLE, title))
        if code == "0":
            target.icon_name = title
    elif code == "1":
        target.icon_name = clean(rest, MAX_TITLE)
    elif code == "7":
        cwd = parse_cwd(rest)
        if cwd is not None:
            target.cwd = cwd
            target.add_event(TerminalEvent(TerminalEventKind.CWD, cwd))
    elif code == "52":
        text = _clipboard(rest)
        if text is not None:
            target.add_event(TerminalEvent(TerminalEventKind.CLIPBOARD, text))
    elif code == "9":
        notice = clean(rest, MAX_NOTICE).strip()
        if notice and not _CONEMU.match(rest):
            target.add_event(TerminalEvent(TerminalEventKind.NOTIFY, notice))
    elif code == "777":
        message = clean(_notify_777(rest) or "", MAX_NOTICE).strip()
        if message:
            target.add_event(TerminalEvent(TerminalEventKind.NOTIFY, message))
    elif code == "8":
        _hyperlink(target, rest)
    # 10/11 colour queries and settings, 133 prompt marks and the rest are ignored.


def _hyperlink(target: OscTarget, rest: str) -> None:
    """`OSC 8 ; params ; URI`: open a link (an empty URI closes it). The parameters (`id=`
    joins separate stretches into one link for hovering) are not kept: the client's
    terminal gets an id per stretch, and a link is known by its URI. A URI `safe_uri`
    refuses closes the link, so its text shows unlinked. Ignored, the open link staying
    open, as libghostty-vt does: `OSC 8` without its second `;` (malformed), and a URI
    longer than libghostty-vt keeps (`links.too_long`)."""
    _params, separator, uri = rest.partition(";")
    if not separator or too_long(uri):
        return
    target.set_link(safe_uri(uri) if uri else None)
