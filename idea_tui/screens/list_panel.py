"""`ListPanel`: what the panels that list a project's things in a table share (Agents, Work,
Memory, Context, Skills, Templates).

A framed modal with a line above the table, the table, a note (or detail, or diff) below it,
a message line and the panel's key hints. The list is read from the daemon when the panel
opens (unless the caller passed it in: snapshot tests), and again every `REFRESH_SECONDS`
for the panels that follow live changes. Each redraw keeps the selected row by its key.
Enter on a row and each of `ACTIONS`' keys run the key's action on the selected row in a
worker (it may ask questions in dialogs); `q` and Escape close the panel.

A panel says what differs: its columns and cells, the key of a row, what its note shows and
what each action does.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import DataTable, Static

from idea_tui.keymap import normalize_key
from idea_tui.ports import call_as
from idea_tui.screens.confirm import ConfirmScreen
from idea_tui.widgets.message_line import MessageLine

if TYPE_CHECKING:
    from idea_tui.ports import Runner

Item = dict[str, Any]


class Worded(Protocol):
    """An answer that says what was done in words (`MemoryChanged`, `Said`)."""

    @property
    def message(self) -> str: ...


W = TypeVar("W", bound=Worded)


class ListPanel(ModalScreen[None]):
    """`listing` is what the daemon's `LIST_COMMAND` answers (a dict with the rows under
    `ITEMS_FIELD`), passed in for snapshot tests, else read when the panel opens."""

    BINDINGS = [Binding("escape", "close", "Close", priority=True)]

    # The frame every panel has; a panel's own DEFAULT_CSS overrides a size or two (the
    # subclass's rules win over these at equal specificity).
    DEFAULT_CSS = """
    ListPanel { align: center middle; }
    ListPanel > Vertical {
        width: 96%; max-width: 120; height: auto; max-height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    ListPanel DataTable { height: auto; max-height: 16; margin-top: 1; }
    ListPanel .note { margin-top: 1; }
    ListPanel .hint { color: $text-muted; margin-top: 1; }
    """

    PANEL_TITLE: ClassVar[str]
    """The frame's title, e.g. " Skills "."""
    INTRO: ClassVar[str] = ""
    """The line above the table (a panel with a changing heading overrides `above`)."""
    HINTS: ClassVar[str]
    TABLE_ID: ClassVar[str]
    NOTE_ID: ClassVar[str]
    """The id of the Static below the table that `show_note` (or the panel) writes."""
    COLUMNS: ClassVar[Sequence[tuple[str, str]]]
    """(header, key) of each column."""
    COLUMNS_FOLLOW_CONTENT: ClassVar[bool] = False
    """The columns are made again at each redraw, so that their widths follow the content
    (panels that clip a column to what the others leave)."""

    LIST_COMMAND: ClassVar[str]
    ITEMS_FIELD: ClassVar[str]
    REFRESH_SECONDS: ClassVar[float | None] = None
    """Read the list again this often while the panel is open (None: after actions only)."""

    ACTIONS: ClassVar[Mapping[str, str]]
    """Key (as typed; "enter" for a row's Enter) → the action `perform` runs."""
    NO_SELECTION_NEEDED: ClassVar[Collection[str]] = frozenset()
    """Actions that make sense without a selected row (new, refresh…)."""
    NOTHING_SELECTED: ClassVar[str]
    """The error shown when an action needs a row and none is selected."""
    WORKER_GROUP: ClassVar[str]

    def __init__(self, runner: Runner | None, listing: Any = None) -> None:
        super().__init__()
        self.runner = runner
        self.listing = listing

    # --- what a panel says ------------------------------------------------------------

    @abstractmethod
    def cells(self, item: Item) -> Sequence[RenderableType]:
        """The row of `item`, one cell per column."""

    @abstractmethod
    def key_of(self, item: Item) -> str:
        """What identifies `item` across two reads (the selection follows it)."""

    @abstractmethod
    async def perform(self, action: str, item: Item | None) -> None:
        """Run `action` (a value of `ACTIONS`) on `item`, None only for the actions in
        `NO_SELECTION_NEEDED`."""

    def above(self) -> Widget:
        return Static(self.INTRO)

    def below(self) -> Widget:
        return Static("", id=self.NOTE_ID, classes="note")

    def measure(self) -> None:
        """Before the rows of a redraw are added: room for cells whose width depends on
        every row (nothing by default)."""

    def after_fill(self) -> None:
        """After a redraw: the note, the heading (nothing by default)."""

    def show_selection(self) -> None:
        """What the panel shows of the highlighted row besides the table (nothing by
        default)."""

    def needs_reading(self) -> bool:
        """Whether the panel reads the daemon when it opens (not when it was given all)."""
        return self.listing is None

    def take(self, listing: Any) -> bool:
        """Keep what `LIST_COMMAND` answered (None: it failed); True to redraw."""
        self.listing = listing if isinstance(listing, dict) else {self.ITEMS_FIELD: []}
        return True

    @property
    def items(self) -> list[Item]:
        return list((self.listing or {}).get(self.ITEMS_FIELD, []))

    # --- the shared machinery ---------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.PANEL_TITLE
            yield self.above()
            table: DataTable[Any] = DataTable(cursor_type="row", id=self.TABLE_ID)
            if not self.COLUMNS_FOLLOW_CONTENT:
                for header, key in self.COLUMNS:
                    table.add_column(header, key=key)
            yield table
            yield self.below()
            yield MessageLine()
            yield Static(self.HINTS, classes="hint")

    def on_mount(self) -> None:
        # Textual calls the on_mount of every class in the MRO: a panel extends
        # `start_reading`, never this handler (it would run twice).
        self.query_one(DataTable).focus()
        self._fill()  # the headers at least, until the daemon answers
        if self.runner is not None:
            self.start_reading()

    def start_reading(self) -> None:
        """Once mounted with a runner: the first read (unless given), the periodic ones."""
        if self.needs_reading():
            self.run_worker(self.refresh_listing(), group="refresh", exclusive=True)
        if self.REFRESH_SECONDS is not None:
            self.set_interval(self.REFRESH_SECONDS, self._tick)

    def _tick(self) -> None:
        self.run_worker(self.refresh_listing(report=False), group="refresh", exclusive=True)

    async def refresh_listing(self, *, report: bool = True) -> None:
        """Read the list again; `report=False` (the periodic reads) says nothing when the
        daemon cannot answer and keeps what is shown."""
        if self.runner is None:
            return
        if report:
            listing = await self.runner.call(self.LIST_COMMAND)
        else:
            answer = await self.runner.attempt(self.LIST_COMMAND)
            listing = answer.result if answer.ok else None
        # The selected row of the list shown, before the new one replaces it (read after,
        # the cursor's row would name whatever row now stands there).
        selected = self.selected
        if self.take(listing):
            self._fill(keep=selected)

    def _fill(self, keep: Item | None = None) -> None:
        """Draw the rows again; `keep` (else the selected row) is selected again by its key."""
        if not self.is_attached:
            return
        table = self.query_one(DataTable)
        selected = keep or self.selected
        if self.COLUMNS_FOLLOW_CONTENT:
            table.clear(columns=True)
            for header, key in self.COLUMNS:
                table.add_column(header, key=key)
        else:
            table.clear()
        self.measure()
        keys: list[str] = []
        for item in self.items:
            keys.append(self.key_of(item))
            table.add_row(*self.cells(item), key=keys[-1])
        if selected is not None and self.key_of(selected) in keys:
            table.move_cursor(row=keys.index(self.key_of(selected)))
        self.after_fill()

    @property
    def selected(self) -> Item | None:
        items = self.items
        if not items or not self.is_attached:
            return None
        row = self.query_one(DataTable).cursor_row
        return items[row] if 0 <= row < len(items) else None

    def show_note(self, problems: Sequence[str], empty: RenderableType,
                  summary: RenderableType = "") -> None:
        """The note below the table: what went wrong reading the list (bold red), else what
        to do when it is empty, else `summary`."""
        note = self.query_one(f"#{self.NOTE_ID}", Static)
        if problems:
            note.update(Text("\n".join(problems), style="bold red"))
        elif not self.items:
            note.update(empty)
        else:
            note.update(summary)

    def start(self, key: str) -> None:
        """Run the action of `key` on the selected row in a worker."""
        action = self.ACTIONS[key]
        item = self.selected
        if item is None and action not in self.NO_SELECTION_NEEDED:
            self.query_one(MessageLine).show(self.NOTHING_SELECTED, "error")
            return
        if self.runner is None:
            return
        self.run_worker(self.perform(action, item), group=self.WORKER_GROUP)

    async def confirmed_call(self, question: str, answer: type[W], method: str,
                             **params: Any) -> None:
        """Ask `question`; on yes run the daemon's `method` and report its answer's message
        (`answer`, the command's answer Struct; a failure is reported by the runner)."""
        runner = self.runner
        assert runner is not None
        if await runner.ask(ConfirmScreen(question)):
            done = await call_as(runner, answer, method, **params)
            if done is not None:
                runner.report(done.message)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_selection()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.start("enter")

    def on_key(self, event: events.Key) -> None:
        key = normalize_key(event.key, event.character)
        if key == "q":
            event.stop()
            self.dismiss(None)
        elif key in self.ACTIONS and key != "enter":
            event.stop()
            self.start(key)

    def action_close(self) -> None:
        self.dismiss(None)
