"""A tiny full-screen Textual app for the tmux comparison: a header, a counter, a footer.

Run it with the venv's python (`python textual_app.py`); `+` counts up, `r` flips the
panel's colours, `q` quits. Nothing on screen depends on the time (no clock, no cursor
blink, no animation), so both terminals settle on the same picture.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Footer, Header, Static


class CounterApp(App[None]):
    TITLE = "conformance"
    CSS = """
    Screen { background: #202040; }
    #panel { border: round #ff8800; padding: 1 2; width: 40; height: 9; }
    #panel.flipped { background: #008060; border: double #ffffff; }
    #count { text-style: bold; color: #ffff00; }
    #note { text-style: italic underline; }
    """
    BINDINGS = [
        Binding("plus", "count", "Count"),
        Binding("r", "flip", "Flip"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False, icon="#")
        with Vertical(id="panel"):
            yield Static("count: 0", id="count")
            yield Static("wide 中文 and ✓ marks", id="note")
        yield Footer(show_command_palette=False)

    def action_count(self) -> None:
        self.count += 1
        self.query_one("#count", Static).update(f"count: {self.count}")

    def action_flip(self) -> None:
        self.query_one("#panel").toggle_class("flipped")


if __name__ == "__main__":
    CounterApp().run()
