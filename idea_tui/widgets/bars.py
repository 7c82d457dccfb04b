"""The one-line bars around the grid: project tabs on top, pages and messages below."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget

from adapters.ipc.messages import Scene
from idea_tui.first_paint import unavailable_label
from idea_tui.widgets import labels

INFO_SECONDS = 8.0
ERROR_SECONDS = 20.0
MAX_NAME = 64
"""Characters of a window, project or page name shown in a bar."""


class TabBar(Widget):
    """Project tabs of the window (one tab per project, D3); click one to show it."""

    DEFAULT_CSS = """
    TabBar { height: 1; width: 1fr; background: $panel; }
    """

    class TabClicked(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    class TabRetry(Message):
        """A click on an unavailable project's tab: try to open it again."""

        def __init__(self, root: str) -> None:
            super().__init__()
            self.root = root

    def __init__(self) -> None:
        super().__init__()
        self.scene: Scene | None = None
        self._spans: list[tuple[int, int, int]] = []
        self._retry: list[tuple[int, int, str]] = []

    def set_scene(self, scene: Scene) -> None:
        self.scene = scene
        self.refresh()

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        self._spans = []
        self._retry = []
        scene = self.scene
        if scene is None:
            text.append(" idea — connecting…", style="dim")
            return text
        # Names come from files and programs: cleaned and measured in cells (widgets.labels).
        text.append(f" {labels.label(scene.window or 'idea', MAX_NAME)} ", style="bold reverse")
        text.append(" ")
        if not scene.tabs:
            text.append("no project open — prefix P: projects panel", style="dim italic")
        for index, tab in enumerate(scene.tabs):
            start = text.cell_len
            if tab.unavailable:
                # Kept for a project that cannot be opened now (after the open ones): the
                # reason shows, and a click retries (TabRetry).
                text.append(unavailable_label(tab.name, tab.unavailable), style="bold red")
                self._retry.append((start, text.cell_len, tab.root))
            else:
                label = f" {index}:{labels.label(tab.name, MAX_NAME)} "
                text.append(label, style="bold black on green" if tab.active else "")
                # Clicks come in cells: a wide character in a name counts two.
                self._spans.append((start, text.cell_len, index))
            text.append(" ")
        return text

    def on_click(self, event: events.Click) -> None:
        for start, end, index in self._spans:
            if start <= event.x < end:
                self.post_message(self.TabClicked(index))
                return
        for start, end, root in self._retry:
            if start <= event.x < end:
                self.post_message(self.TabRetry(root))
                return


class StatusBar(Widget):
    """Pages of the project, the prefix indicator and the last message."""

    DEFAULT_CSS = """
    StatusBar { height: 1; width: 1fr; background: $panel; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.scene: Scene | None = None
        self.message = ""
        self.level = "info"
        self.mode = ""
        self.prefix_label = "ctrl+b"
        self._clear_timer: Timer | None = None

    def set_scene(self, scene: Scene) -> None:
        self.scene = scene
        self.refresh()

    def show(self, message: str, level: str = "info") -> None:
        """Show a message; it goes away on its own (errors stay longer)."""
        self.message, self.level = message, level
        self.refresh()
        if self._clear_timer is not None:
            self._clear_timer.stop()
        seconds = ERROR_SECONDS if level == "error" else INFO_SECONDS
        self._clear_timer = self.set_timer(seconds, self._clear) if self.is_mounted else None

    def _clear(self) -> None:
        self._clear_timer = None
        self.message = ""
        self.refresh()

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        self.refresh()

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        if self.mode:
            text.append(f" {self.mode} ", style="bold black on yellow")
            text.append(" ")
        scene = self.scene
        if scene is not None:
            for index, page in enumerate(scene.pages):
                label = f"{index}:{labels.label(page.name, MAX_NAME)}"
                text.append(f" {label} ", style="bold reverse" if page.active else "dim")
        if self.message:
            style = "bold red" if self.level == "error" else "italic"
            text.append("  " + labels.label(self.message), style=style)
        hint = f" {self.prefix_label} ? help "
        width = self.size.width
        if width and text.cell_len + len(hint) < width:
            text.append(" " * (width - text.cell_len - len(hint)))
            text.append(hint, style="dim")
        return text
