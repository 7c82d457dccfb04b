"""Pick one of a few options (a profile, a template, sync on or off)."""

from __future__ import annotations

from collections.abc import Sequence

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


class ChoiceScreen(ModalScreen[str | None]):
    """Dismissed with the chosen option's id, or None on Escape.

    `options` are (id, label) pairs; `highlighted` is the id shown selected at first.
    """

    DEFAULT_CSS = """
    ChoiceScreen { align: center middle; }
    ChoiceScreen > Vertical {
        width: 80; height: auto; max-height: 80%; border: round $accent; padding: 0 1;
        background: $surface;
    }
    ChoiceScreen OptionList, ChoiceScreen OptionList:focus {
        height: auto; max-height: 20; border: none; margin-top: 1;
    }
    ChoiceScreen .hint { color: $text-muted; }
    """

    def __init__(self, question: str, options: Sequence[tuple[str, str]], *,
                 highlighted: str | None = None) -> None:
        super().__init__()
        self.question = question
        self.options = list(options)
        self.initial = highlighted

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question)
            yield OptionList(*(Option(label, id=key) for key, label in self.options))
            yield Static("↑↓ choose · Enter: this one · Escape: cancel", classes="hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        ids = [key for key, _ in self.options]
        if ids:
            options.highlighted = ids.index(self.initial) if self.initial in ids else 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def on_key(self, event: events.Key) -> None:
        if event.key in ("escape", "q"):
            event.stop()
            self.dismiss(None)
