"""The templates screen (prefix + T, TPL-1..TPL-5): the global agent templates with their
versions; edit (the version goes up), create, delete, install the software team pack, and
create an agent from one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from idea_tui.screens import flows
from idea_tui.screens.action_list import ActionListScreen
from idea_tui.widgets.message_line import MessageLine

if TYPE_CHECKING:
    from idea_tui.ports import Runner

Template = dict[str, Any]

KEYS = {"enter": "edit", "e": "edit", "n": "new", "d": "delete", "i": "install",
        "a": "agent"}
NO_TEMPLATE_NEEDED = {"new", "install"}

HINTS = ("Enter/e: edit · n: new · a: new agent from it · d: delete · "
         "i: install the team pack · Esc: close")


class TemplatesScreen(ActionListScreen):
    """`listing` is template_list's answer ({templates, editedOutside, problems}),
    pre-fetched for snapshot tests, else read when the screen opens."""

    ACTION_KEYS = KEYS

    DEFAULT_CSS = """
    TemplatesScreen { align: center middle; }
    TemplatesScreen > Vertical {
        width: 96%; max-width: 110; height: auto; max-height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    TemplatesScreen DataTable { height: auto; max-height: 16; margin-top: 1; }
    TemplatesScreen #templates-note { margin-top: 1; }
    TemplatesScreen .hint { color: $text-muted; margin-top: 1; }
    """

    def __init__(self, runner: Runner | None,
                 listing: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.runner = runner
        self.listing = listing

    @property
    def templates(self) -> list[Template]:
        return list((self.listing or {}).get("templates", []))

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = " Templates "
            yield Static("Agent templates, shared by every project. An agent made from one "
                         "and kept in sync shows an update when its version goes up.")
            table: DataTable[Any] = DataTable(cursor_type="row", id="templates-table")
            table.add_column("Template", key="name")
            table.add_column("Id", key="id")
            table.add_column("Version", key="version")
            table.add_column("Profile", key="profile")
            table.add_column("Lines", key="lines")
            yield table
            yield Static("", id="templates-note")
            yield MessageLine()
            yield Static(HINTS, classes="hint")

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self._fill()
        if self.listing is None:
            self.run_worker(self.refresh_templates(), group="refresh", exclusive=True)

    async def refresh_templates(self) -> None:
        if self.runner is None:
            return
        listing = await self.runner.call("template_list")
        self.listing = listing if isinstance(listing, dict) else {"templates": []}
        self._fill()

    def _fill(self) -> None:
        if not self.is_attached:
            return
        table = self.query_one(DataTable)
        selected = self.selected
        table.clear()
        outside = set((self.listing or {}).get("editedOutside", []))
        for template in self.templates:
            version = Text(f"v{template['version']}", style="bold")
            if template["id"] in outside:
                version.append("  edited outside idea", style="yellow")
            table.add_row(Text(template["name"], style="bold"), template["id"], version,
                          template.get("defaultProfileId") or "", str(template.get("lines", "")),
                          key=template["id"])
        if selected is not None:
            ids = [template["id"] for template in self.templates]
            if selected["id"] in ids:
                table.move_cursor(row=ids.index(selected["id"]))
        note = self.query_one("#templates-note", Static)
        problems = list((self.listing or {}).get("problems", []))
        if problems:
            note.update(Text("\n".join(problems), style="bold red"))
        elif not self.templates:
            note.update("No template yet: i installs the software team pack (conductor, "
                        "architect, developer, QA, git keeper), n writes a new one.")
        else:
            note.update("")

    @property
    def selected(self) -> Template | None:
        templates = self.templates
        if not templates:
            return None
        row = self.query_one(DataTable).cursor_row
        return templates[row] if 0 <= row < len(templates) else None

    def start(self, key: str) -> None:
        action = KEYS[key]
        template = self.selected
        if template is None and action not in NO_TEMPLATE_NEEDED:
            self.query_one(MessageLine).show("no template selected: n creates one, i installs "
                                             "the software team pack", "error")
            return
        if self.runner is None:
            return
        self.run_worker(self._run(action, template), group="templates-panel")

    async def _run(self, action: str, template: Template | None) -> None:
        runner = self.runner
        assert runner is not None
        if action == "new":
            await flows.new_template(runner)
        elif action == "install":
            await flows.install_team_pack(runner)
        else:
            assert template is not None
            if action == "edit":
                await flows.edit_template(runner, template["id"])
            elif action == "delete":
                await flows.delete_template(runner, template)
            elif action == "agent":
                await flows.new_agent(runner, template_id=template["id"])
        await self.refresh_templates()
