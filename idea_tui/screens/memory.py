"""The Memory panel (prefix + N, MEM-1..5): the project's durable notes as MEMORY.md lists
them, then the files it misses; view or edit one in the built-in editor (Enter, e) or in
$EDITOR (E), write a new one (n), delete one (d). The daemon reads and writes the files,
under the same FileGuard as the agents' `idea_memory_write`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from adapters.ipc.answers_knowledge import MemoryChanged, MemoryText
from idea_tui.ports import call_as
from idea_tui.screens.editor import edit_revised
from idea_tui.screens.external_editor import edit_externally
from idea_tui.screens.list_panel import ListPanel
from idea_tui.screens.prompt import PromptScreen

if TYPE_CHECKING:
    from idea_tui.ports import Runner

Note = dict[str, Any]

KEYS = {"enter": "edit", "e": "edit", "E": "external", "n": "new", "d": "delete",
        "r": "refresh"}
NO_NOTE_NEEDED = {"new", "refresh"}
HINTS = ("Enter/e: view and edit · E: edit in $EDITOR · n: new note · d: delete · "
         "r: refresh · Esc: close")
NEW_NOTE = "---\nname: {slug}\ndescription: \nmetadata:\n  type: project\n---\n# {slug}\n\n"


class MemoryScreen(ListPanel):
    """`listing` is memory_list's answer ({folder, problem, notes})."""

    PANEL_TITLE = " Project memory "
    INTRO = ("Durable notes every agent of this project can read (.ideai/memory/, "
             "versioned). Agents get the most relevant ones as pointers at launch.")
    HINTS = HINTS
    TABLE_ID, NOTE_ID = "memory-table", "memory-note"
    COLUMNS = (("Note", "slug"), ("Type", "type"), ("Description", "description"))
    LIST_COMMAND, ITEMS_FIELD = "memory_list", "notes"
    ACTIONS = KEYS
    NO_SELECTION_NEEDED = NO_NOTE_NEEDED
    NOTHING_SELECTED = "no note selected: n writes one"
    WORKER_GROUP = "memory-panel"

    DEFAULT_CSS = """
    MemoryScreen DataTable { max-height: 18; }
    """

    @property
    def notes(self) -> list[Note]:
        return self.items

    def key_of(self, item: Note) -> str:
        return str(item["slug"])

    def cells(self, item: Note) -> tuple[Text, ...]:
        description = Text(item["description"] or "")
        if item.get("problem"):
            description = Text(item["problem"], style="bold red")
        elif not item.get("indexed"):
            description.append("  (not in MEMORY.md)", style="yellow")
        kind = item.get("type") or ""
        return (Text(item["slug"], style="bold"),
                Text(kind, style="magenta" if kind == "feedback" else ""), description)

    def after_fill(self) -> None:
        problem = (self.listing or {}).get("problem")
        self.show_note([problem] if problem else [],
                       "No memory yet: agents save durable knowledge with "
                       "idea_memory_write; n writes a note yourself.",
                       Text(f"{len(self.notes)} notes", style="dim"))

    async def perform(self, action: str, note: Note | None) -> None:
        runner = self.runner
        assert runner is not None
        if action == "new":
            slug = await runner.ask(PromptScreen(
                "Slug of the new note (lowercase-with-dashes, e.g. release-checklist):"))
            if slug:
                await edit_note(runner, slug.strip())
        elif action == "edit" and note is not None:
            await edit_note(runner, note["slug"])
        elif action == "external" and note is not None:
            await edit_note_external(runner, note["slug"])
        elif action == "delete" and note is not None:
            question = (f"Delete memory note {note['slug']}? Its file and its line in "
                        "MEMORY.md go (git keeps the history if it was committed).")
            await self.confirmed_call(question, MemoryChanged, "memory_delete",
                                      slug=note["slug"])
        await self.refresh_listing()


async def _save_note(runner: Runner, slug: str, text: str, base: str) -> MemoryChanged | None:
    """The daemon asks (a "confirm" answer) when an agent saved the note meanwhile."""
    written = await call_as(runner, MemoryChanged, "memory_write", slug=slug, content=text,
                            revision=base)
    if written is not None:
        runner.report(written.message)
    return written


async def edit_note(runner: Runner, slug: str) -> bool:
    """A note in the built-in editor; a new slug starts from an empty frontmatter."""
    shown = await call_as(runner, MemoryText, "memory_read", slug=slug)
    if shown is None:
        return False
    slug = shown.slug
    note = "" if shown.exists else "a new note: fill in its description, then Ctrl+S"

    async def write(text: str, base: str) -> str | None:
        if await _save_note(runner, slug, text, base) is None:
            return None
        again = await call_as(runner, MemoryText, "memory_read", slug=slug)
        return again.revision if again is not None else base

    # A new note is written even as its starter frontmatter: saving is what creates it.
    return await edit_revised(runner, f" Memory — {slug}.md ",
                              shown.content or NEW_NOTE.format(slug=slug), shown.revision,
                              write, unchanged=f"{slug}: no change" if shown.exists else None,
                              note=note)


async def edit_note_external(runner: Runner, slug: str) -> None:
    """A note in $VISUAL / $EDITOR on a copy, the client suspended meanwhile."""
    shown = await call_as(runner, MemoryText, "memory_read", slug=slug)
    if shown is None:
        return
    start = shown.content or NEW_NOTE.format(slug=shown.slug)
    text = await edit_externally(runner, f"{shown.slug}.md", start)
    if text is None:
        return
    if text == start:
        runner.report(f"{shown.slug}: no change")
        return
    await _save_note(runner, shown.slug, text, shown.revision)
