"""The diff viewer: a file's (or a commit's) changes, the code syntax-coloured, added and
removed lines on green and red, one hunk selectable (for staging it alone).

`render_diff` is the drawing (a Rich `Text`, testable on its own); `DiffView` scrolls it
and keeps the selected hunk in view. The diff comes as the daemon sends it
(`idea_daemon/git_wire.py`: files → hunks → `[kind, text, no_newline]` lines).
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

FileDiff = dict[str, Any]

ADDED_BG = "on #14361c"
REMOVED_BG = "on #421a1a"
SELECTED = "on #2b3550"
MAX_HIGHLIGHT = 200_000
"""Characters of one hunk above which it is shown without syntax colours (colouring a huge
generated file would stall the client)."""


def _lexer(path: str, code: str) -> str:
    try:
        return Syntax.guess_lexer(path, code[:4000])
    except Exception:  # an unknown extension: plain text
        return "text"


def _colours_only(text: Text) -> Text:
    """Keep the theme's foreground colours and weight only: the diff's own backgrounds
    (added, removed, the panel's) must show through."""
    plain = Text(text.plain, end="")
    for span in text.spans:
        style = span.style if isinstance(span.style, Style) else Style.parse(span.style)
        plain.stylize(Style(color=style.color, bold=style.bold, italic=style.italic),
                      span.start, span.end)
    return plain


def _highlighted(path: str, texts: list[str]) -> list[Text]:
    code = "\n".join(texts)
    if len(code) > MAX_HIGHLIGHT:
        return [Text(t) for t in texts]
    syntax = Syntax(code, _lexer(path, code), theme="ansi_dark", background_color="default")
    lines = _colours_only(syntax.highlight(code)).split("\n", allow_blank=True)
    while len(lines) < len(texts):
        lines.append(Text(""))
    return list(lines[: len(texts)])


def render_diff(files: list[FileDiff], selected: int | None = None) -> tuple[Text, list[int]]:
    """The diff as text, and the line each hunk starts on (hunks numbered across files in
    order; `selected` is drawn highlighted)."""
    out = Text()
    starts: list[int] = []
    line_no = 0
    hunk_no = 0

    def emit(text: Text) -> None:
        nonlocal line_no
        out.append_text(text)
        out.append("\n")
        line_no += 1

    if not files:
        emit(Text("no changes", style="dim italic"))
    for item in files:
        change = {"A": "added", "D": "deleted", "M": "modified", "T": "type changed"}
        head = Text(f" {item['path']} ", style="bold reverse")
        head.append(f"  {change.get(item['change'], item['change'])}"
                    f"  +{item['added']} -{item['removed']}", style="bold")
        emit(head)
        if item.get("binary"):
            emit(Text("  binary file: no text diff to show", style="italic yellow"))
        for hunk in item["hunks"]:
            starts.append(line_no)
            chosen = hunk_no == selected
            emit(Text(hunk["header"], style="bold cyan" + (f" {SELECTED}" if chosen else "")))
            texts = [str(text) for _, text, _ in hunk["lines"]]
            for (kind, _, no_newline), code in zip(
                hunk["lines"], _highlighted(str(item["path"]), texts), strict=True
            ):
                marker = {"+": ("+", "bold green"), "-": ("-", "bold red")}.get(kind, (" ", ""))
                line = Text(marker[0], style=marker[1])
                line.append_text(code)
                if kind in ("+", "-"):
                    line.stylize(ADDED_BG if kind == "+" else REMOVED_BG)
                emit(line)
                if no_newline:
                    emit(Text("\\ no newline at end of file", style="dim"))
            hunk_no += 1
        if item.get("truncated"):
            emit(Text("  … the rest is cut: this diff is too large to show", style="italic yellow"))
    return out, starts


class DiffView(VerticalScroll):
    """A scrollable diff with a selectable hunk (`select_hunk`)."""

    DEFAULT_CSS = """
    DiffView { height: 1fr; }
    DiffView > Static { width: auto; min-width: 100%; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.files: list[FileDiff] = []
        self.selected: int | None = None
        self.starts: list[int] = []
        self._body = Static("", id=None)

    def compose(self) -> Any:
        yield self._body

    @property
    def hunk_count(self) -> int:
        return len(self.starts)

    def show(self, files: list[FileDiff], note: str = "") -> None:
        self.files = files
        self.selected = 0 if any(f["hunks"] for f in files) else None
        self._draw(note)
        self.scroll_home(animate=False)

    def select_hunk(self, step: int) -> None:
        if not self.starts:
            return
        current = self.selected if self.selected is not None else -1
        self.selected = max(0, min(len(self.starts) - 1, current + step))
        self._draw()
        self.scroll_to(y=max(0, self.starts[self.selected] - 1), animate=False)

    def selected_hunk(self) -> tuple[dict[str, Any], int, str] | None:
        """(the file, its hunk index, the hunk header) of the selected hunk."""
        if self.selected is None:
            return None
        number = 0
        for item in self.files:
            for index, hunk in enumerate(item["hunks"]):
                if number == self.selected:
                    return item, index, str(hunk["header"])
                number += 1
        return None

    def _draw(self, note: str = "") -> None:
        text, self.starts = render_diff(self.files, self.selected)
        if note:
            text = Text(note, style="italic") if not self.files else text
        self._body.update(text)
