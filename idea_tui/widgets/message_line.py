"""A one-line message inside a panel: what the last action did, or why it failed.

The status line sits under modal panels (dimmed), so `ActionRunner.report` also writes to the
`MessageLine` of the screen on top, when it has one.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class MessageLine(Static):
    """Empty until something is shown; errors in bold red, other messages in italics."""

    DEFAULT_CSS = """
    MessageLine { height: auto; width: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.message = ""
        self.level = "info"

    def show(self, message: str, level: str = "info") -> None:
        self.message, self.level = message, level
        style = "bold red" if level == "error" else "italic"
        self.update(Text(message, style=style))

    def clear(self) -> None:
        self.show("")
