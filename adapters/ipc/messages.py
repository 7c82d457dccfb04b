"""The client ⇄ daemon protocol: tagged msgspec Structs, framed as length-prefixed msgpack.

`Hello`, `Welcome` and `Refused` are the handshake. Their shape must never change, so that
a client and a daemon of different versions can always tell each other so in plain words;
everything else may change with `PROTOCOL_VERSION`.
"""

from __future__ import annotations

from typing import Any

import msgspec

PROTOCOL_VERSION = 2

# Rows travel as the Run tuples of core.terminal: (text, fg, bg, attrs).
WireRun = tuple[str, int, int, int]
WireRow = tuple[WireRun, ...]
# A row's hyperlinks (core.terminal.Links): (run index, URI) pairs. They travel beside the
# rows, in a field left out when empty, so a row without links is encoded exactly as before
# and a peer that does not know the field ignores it (msgspec skips unknown fields).
WireLinks = tuple[tuple[int, str], ...]


class _Msg(msgspec.Struct, tag_field="t", array_like=False, omit_defaults=True):
    pass


# --- handshake (frozen shape) ---------------------------------------------------------


class Hello(_Msg, tag="hello"):
    """First frame a client sends."""

    protocol: int
    client_version: str
    kind: str = "tui"
    """`tui` for an attached screen, `control` for a one-shot command."""
    window: str | None = None
    width: int = 80
    height: int = 24
    env: dict[str, str] = {}
    cell: str | None = None
    """The IDEA_CELL the command runs in, if any (the default target)."""


class Welcome(_Msg, tag="welcome"):
    protocol: int
    daemon_version: str
    daemon_pid: int
    client_id: int


class Refused(_Msg, tag="refused"):
    protocol: int
    daemon_version: str
    reason: str


# --- client → daemon --------------------------------------------------------------------


class FramesShown(_Msg, tag="shown"):
    """The client drew the `count` `CellFrame`s it got since it attached (sent after its
    screen was repainted). The daemon keeps frames of unfocused cells back while the client
    is behind, so that a flood elsewhere never queues in front of a typed key's echo."""

    count: int


class Request(_Msg, tag="req"):
    """A command. The daemon answers with a `Response` carrying the same id."""

    id: int
    method: str
    params: dict[str, Any] = {}


class KeyInput(_Msg, tag="key"):
    """A key pressed in a cell, by name; the daemon encodes it with the cell's modes."""

    cell: str
    key: str
    character: str | None = None


class RawInput(_Msg, tag="raw"):
    cell: str
    data: bytes


class PasteInput(_Msg, tag="paste"):
    cell: str
    text: str


class MouseInput(_Msg, tag="mouse"):
    cell: str
    kind: str
    """press, release, move, drag, wheel_up, wheel_down"""
    button: int
    x: int
    y: int
    shift: bool = False
    alt: bool = False
    ctrl: bool = False


class ClientSize(_Msg, tag="size"):
    """The area the client has for cells (its terminal minus tab bar and status line)."""

    width: int
    height: int


# --- daemon → client --------------------------------------------------------------------


class ErrorInfo(msgspec.Struct, omit_defaults=True):
    code: str
    message: str


class Response(_Msg, tag="res"):
    id: int
    result: Any = None
    error: ErrorInfo | None = None


class CellInfo(msgspec.Struct, omit_defaults=True):
    id: str
    index: int
    x: int
    y: int
    width: int
    height: int
    title: str = ""
    command: str = ""
    running: bool = True
    exit_code: int | None = None
    focused: bool = False
    attention: bool = False
    kind: str = "terminal"
    message: str = ""
    """Shown in place of a terminal (a spawn error, a page kind not shown here)."""
    refresh: bool = False
    """An agent whose shared knowledge changed since launch: its title offers a refresh."""
    mark: str = ""
    """A short mark for the title: an agent needing the user ("T3 timed out")."""


class BorderInfo(msgspec.Struct):
    vertical: bool
    x: int
    y: int
    length: int
    container: str
    index: int


class TabInfo(msgspec.Struct, omit_defaults=True):
    project: str
    name: str
    root: str
    active: bool = False
    unavailable: str = ""
    """Why the project cannot be opened now (its folder missing or unreadable, its
    `.ideai` corrupt): the tab stays, after the open ones, and a click retries it."""


class PageInfo(msgspec.Struct, omit_defaults=True):
    id: str
    name: str
    kind: str = "terminal"
    active: bool = False


class WindowInfo(msgspec.Struct, omit_defaults=True):
    id: str
    name: str
    active: bool = False


class Scene(_Msg, tag="scene"):
    """What a client's window shows, sent whenever its structure changes."""

    window: str
    windows: list[WindowInfo]
    tabs: list[TabInfo]
    pages: list[PageInfo]
    width: int
    height: int
    cells: list[CellInfo]
    borders: list[BorderInfo]
    focused: str | None = None
    zoomed: bool = False
    prefix: str = "ctrl+b"


class CellFrame(_Msg, tag="frame"):
    """Rows of one cell's screen: all of them (`full`) or the ones that changed."""

    cell: str
    cols: int
    rows: int
    lines: list[tuple[int, WireRow]]
    cursor: tuple[int, int, bool, int]
    """x, y, visible, shape"""
    full: bool = False
    mouse: bool = False
    """The program asked for mouse reports (the client forwards the mouse instead of
    scrolling or selecting)."""
    alt_screen: bool = False
    links: list[tuple[int, WireLinks]] = []
    """`(y, links)` for the rows of `lines` that have hyperlinks (OSC 8), none for the others
    (`core.terminal.LinkedRow`; the client checks each URI again)."""


class CellTitle(_Msg, tag="title"):
    """A cell's title changed (OSC 0/2): only that, without a whole new `Scene`."""

    cell: str
    title: str


class Notice(_Msg, tag="notice"):
    """A short message for the status line."""

    text: str
    level: str = "info"


class Clipboard(_Msg, tag="clip"):
    """Text a program in a cell copied (OSC 52), for the user's own clipboard."""

    text: str


class Changed(_Msg, tag="changed"):
    """Something a client shows changed in the daemon: ask again (no payload to go stale).

    `topic` names what (`"git"`), `key` which one (a repository root).
    """

    topic: str
    key: str


class Detached(_Msg, tag="detached"):
    """The daemon ends this client's attachment (kill-server, detach from elsewhere)."""

    reason: str
    error: bool = False
    """True when the attachment could not be made (an unknown window, say)."""


ClientMessage = (
    Hello | Request | KeyInput | RawInput | PasteInput | MouseInput | ClientSize | FramesShown
)
DaemonMessage = (
    Welcome | Refused | Response | Scene | CellFrame | CellTitle | Notice | Clipboard | Changed
    | Detached
)
