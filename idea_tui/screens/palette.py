"""The command palette (prefix + :): every action, filtered as you type."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from idea_tui.keymap import ACTIONS, key_label


def matches(query: str, text: str) -> bool:
    """Every word of the query appears in the text (case-insensitive)."""
    lowered = text.lower()
    return all(word in lowered for word in query.lower().split())


class PaletteScreen(ModalScreen[str | None]):
    """Dismissed with the chosen action name, or None."""

    DEFAULT_CSS = """
    PaletteScreen { align: center top; }
    PaletteScreen > Vertical {
        width: 80; height: auto; max-height: 80%; margin-top: 2;
        border: round $accent; background: $surface;
    }
    PaletteScreen OptionList { height: auto; max-height: 24; border: none; }
    """

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Input(placeholder="Type to filter actions, Enter to run")
            yield OptionList()

    def on_mount(self) -> None:
        self._fill("")

    def _fill(self, query: str) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        for action in ACTIONS:
            keys = ", ".join(key_label(key) for key in action.keys)
            label = f"{action.description}  [{keys}]" if keys else action.description
            if matches(query, f"{action.name} {action.description} {action.group}"):
                options.add_option(Option(label, id=action.name))
        if options.option_count:
            options.highlighted = 0

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            option = options.get_option_at_index(options.highlighted)
            self.dismiss(option.id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def on_key(self, event: events.Key) -> None:
        options = self.query_one(OptionList)
        if event.key == "escape":
            event.stop()
            self.dismiss(None)
        elif event.key in ("down", "up") and options.option_count:
            event.stop()
            current = options.highlighted or 0
            step = 1 if event.key == "down" else -1
            options.highlighted = (current + step) % options.option_count
