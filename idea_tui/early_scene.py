"""The daemon's first `Scene` and `CellFrame`s as the early frame reads them: from the maps
`adapters.ipc.msgpack_lite` decodes, before msgspec (and its Structs) are loaded.

The messages are tagged maps whose fields at their default value are left out
(`omit_defaults`), so each class here fills the same defaults as its Struct in
`adapters.ipc.messages` (`tests/tui/test_early_scene.py` compares them field by field).
Only what `idea_tui.first_paint` draws is kept; the app decodes the very same bytes with
msgspec afterwards.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _text(data: dict[Any, Any], key: str, default: str = "") -> str:
    value = data.get(key, default)
    return value if isinstance(value, str) else default


def _int(data: dict[Any, Any], key: str, default: int = 0) -> int:
    value = data.get(key, default)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _flag(data: dict[Any, Any], key: str, default: bool = False) -> bool:
    value = data.get(key, default)
    return value if isinstance(value, bool) else default


def _maps(data: dict[Any, Any], key: str) -> list[dict[Any, Any]]:
    value = data.get(key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


class EarlyCell:
    """`CellInfo`."""

    __slots__ = (
        "attention",
        "command",
        "exit_code",
        "focused",
        "height",
        "id",
        "index",
        "kind",
        "mark",
        "message",
        "refresh",
        "running",
        "title",
        "width",
        "x",
        "y",
    )

    def __init__(self, data: dict[Any, Any]) -> None:
        self.id = _text(data, "id")
        self.index = _int(data, "index")
        self.x = _int(data, "x")
        self.y = _int(data, "y")
        self.width = _int(data, "width")
        self.height = _int(data, "height")
        self.title = _text(data, "title")
        self.command = _text(data, "command")
        self.running = _flag(data, "running", True)
        code = data.get("exit_code")
        self.exit_code: int | None = code if isinstance(code, int) else None
        self.focused = _flag(data, "focused")
        self.attention = _flag(data, "attention")
        self.kind = _text(data, "kind", "terminal")
        self.message = _text(data, "message")
        self.refresh = _flag(data, "refresh")
        self.mark = _text(data, "mark")


class EarlyNamed:
    """`TabInfo` or `PageInfo`: what the bars show of them."""

    __slots__ = ("active", "kind", "name", "root", "unavailable")

    def __init__(self, data: dict[Any, Any]) -> None:
        self.name = _text(data, "name")
        self.active = _flag(data, "active")
        self.kind = _text(data, "kind", "terminal")
        self.root = _text(data, "root")
        self.unavailable = _text(data, "unavailable")


class EarlyBorder:
    """`BorderInfo`."""

    __slots__ = ("length", "vertical", "x", "y")

    def __init__(self, data: dict[Any, Any]) -> None:
        self.vertical = _flag(data, "vertical")
        self.x = _int(data, "x")
        self.y = _int(data, "y")
        self.length = _int(data, "length")


class EarlyScene:
    """`Scene`."""

    __slots__ = ("borders", "cells", "height", "pages", "tabs", "width", "window", "zoomed")

    def __init__(self, data: dict[Any, Any]) -> None:
        self.window = _text(data, "window")
        self.tabs = [EarlyNamed(tab) for tab in _maps(data, "tabs")]
        self.pages = [EarlyNamed(page) for page in _maps(data, "pages")]
        self.width = _int(data, "width")
        self.height = _int(data, "height")
        self.cells = [EarlyCell(cell) for cell in _maps(data, "cells")]
        self.borders = [EarlyBorder(border) for border in _maps(data, "borders")]
        self.zoomed = _flag(data, "zoomed")


class EarlyCellFrame:
    """`CellFrame`: rows as [y, runs] pairs, each run [text, fg, bg, attrs]."""

    __slots__ = ("cell", "cols", "cursor", "full", "lines", "rows")

    def __init__(self, data: dict[Any, Any]) -> None:
        self.cell = _text(data, "cell")
        self.cols = _int(data, "cols")
        self.rows = _int(data, "rows")
        self.full = _flag(data, "full")
        lines: list[tuple[int, list[tuple[str, int, int, int]]]] = []
        raw_lines = data.get("lines")
        for line in raw_lines if isinstance(raw_lines, list) else ():
            if (isinstance(line, list) and len(line) == 2 and isinstance(line[0], int)
                    and isinstance(line[1], list)):
                runs = [(run[0], run[1], run[2], run[3]) for run in line[1]
                        if isinstance(run, list) and len(run) == 4 and isinstance(run[0], str)
                        and all(isinstance(part, int) for part in run[1:])]
                lines.append((line[0], runs))
        self.lines = lines
        cursor = data.get("cursor")
        if isinstance(cursor, list) and len(cursor) == 4:
            self.cursor = (int(cursor[0]), int(cursor[1]), bool(cursor[2]), int(cursor[3]))
        else:
            self.cursor = (0, 0, False, 0)
