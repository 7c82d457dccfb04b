"""The built-in Markdown editor: personas, templates, skills, memory notes, CONTEXT.md.

Ctrl+S saves through the `save` callback given by the caller (which writes the file or calls
the daemon and returns whether it worked: the editor stays open when it did not); Escape
leaves, asking first when the text was changed. `edit_revised` is the usual caller: a file
the daemon read at a revision, written back over it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from idea_tui.screens.confirm import ConfirmScreen
from idea_tui.widgets.message_line import MessageLine

if TYPE_CHECKING:
    from idea_tui.ports import Runner

Saver = Callable[[str], Awaitable[bool]]


def markdown_area(text: str) -> TextArea:
    """A TextArea for Markdown, highlighted when this Textual has the grammar."""
    probe = TextArea()
    language = "markdown" if "markdown" in probe.available_languages else None
    return TextArea(text, language=language, soft_wrap=True, tab_behavior="indent",
                    show_line_numbers=True, id="editor-text")


class EditorScreen(ModalScreen[str | None]):
    """Dismissed with the saved text, or None when left without saving."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "leave", "Close", priority=True),
    ]

    DEFAULT_CSS = """
    EditorScreen { align: center middle; }
    EditorScreen > Vertical {
        width: 100%; height: 100%; border: round $accent; background: $surface;
    }
    EditorScreen TextArea, EditorScreen TextArea:focus { height: 1fr; border: none; }
    EditorScreen .hint { color: $text-muted; padding: 0 1; }
    EditorScreen MessageLine { padding: 0 1; }
    """

    def __init__(self, title: str, text: str, *, save: Saver | None = None,
                 note: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.original = text
        self.save = save
        self.note = note
        self.saving = False

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield markdown_area(self.original)
            yield MessageLine()
            yield Static("Ctrl+S: save · Escape: close (asks when changed) · Tab indents",
                         classes="hint")

    def on_mount(self) -> None:
        if self.note:
            self.query_one(MessageLine).show(self.note)
        self.query_one(TextArea).focus()

    @property
    def text(self) -> str:
        return self.query_one(TextArea).text

    @property
    def changed(self) -> bool:
        return self.text != self.original

    def action_save(self) -> None:
        # Ctrl+S is a priority binding, run as soon as it arrives: keys typed just before
        # it may still wait in the text area's queue. Save after them.
        self.query_one(TextArea).call_next(self._save_now)

    def _save_now(self) -> None:
        if self.saving or not self.is_attached:
            return
        if self.save is None:
            self.dismiss(self.text)
            return
        self.saving = True
        self.run_worker(self._save(self.text), group="editor-save")

    async def _save(self, text: str) -> None:
        assert self.save is not None
        try:
            saved = await self.save(text)
        finally:
            self.saving = False
        if saved:
            self.dismiss(text)

    def action_leave(self) -> None:
        if not self.changed:
            self.dismiss(None)
            return

        def answered(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(ConfirmScreen("Discard your changes?"), callback=answered)


Write = Callable[[str, str], Awaitable[str | None]]
"""Writes a text over the revision it was read at: the new revision, or None when it was not
written (the reason reported; the daemon asks first when the file changed meanwhile)."""


async def edit_revised(runner: Runner, title: str, text: str, revision: str, write: Write, *,
                       unchanged: str | None, note: str = "") -> bool:
    """`text`, read at `revision`, in the built-in editor; Ctrl+S writes it through `write`
    over that revision. Saved as it was read: `unchanged` is reported and nothing written
    (None: written all the same, e.g. a new file's starter text). True when it was saved."""
    original, base = text, revision

    async def save(new: str) -> bool:
        nonlocal original, base
        if new == original and unchanged is not None:
            runner.report(unchanged)
            return True
        revised = await write(new, base)
        if revised is None:
            return False
        original, base = new, revised
        return True

    return await runner.ask(EditorScreen(title, text, save=save, note=note)) is not None
