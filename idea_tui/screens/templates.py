"""The templates screen (prefix + T, TPL-1..TPL-5): the global agent templates with their
versions; edit (the version goes up), create, delete, install the software team pack, and
create an agent from one."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from idea_tui.screens import flows
from idea_tui.screens.list_panel import ListPanel

Template = dict[str, Any]

KEYS = {"enter": "edit", "e": "edit", "n": "new", "d": "delete", "i": "install",
        "a": "agent"}
NO_TEMPLATE_NEEDED = {"new", "install"}

HINTS = ("Enter/e: edit · n: new · a: new agent from it · d: delete · "
         "i: install the team pack · Esc: close")


class TemplatesScreen(ListPanel):
    """`listing` is template_list's answer ({templates, editedOutside, problems})."""

    PANEL_TITLE = " Templates "
    INTRO = ("Agent templates, shared by every project. An agent made from one and kept in "
             "sync shows an update when its version goes up.")
    HINTS = HINTS
    TABLE_ID, NOTE_ID = "templates-table", "templates-note"
    COLUMNS = (("Template", "name"), ("Id", "id"), ("Version", "version"),
               ("Profile", "profile"), ("Lines", "lines"))
    LIST_COMMAND, ITEMS_FIELD = "template_list", "templates"
    ACTIONS = KEYS
    NO_SELECTION_NEEDED = NO_TEMPLATE_NEEDED
    NOTHING_SELECTED = "no template selected: n creates one, i installs the software team pack"
    WORKER_GROUP = "templates-panel"

    DEFAULT_CSS = """
    TemplatesScreen > Vertical { max-width: 110; }
    """

    @property
    def templates(self) -> list[Template]:
        return self.items

    def key_of(self, item: Template) -> str:
        return str(item["id"])

    def cells(self, item: Template) -> tuple[Text | str, ...]:
        version = Text(f"v{item['version']}", style="bold")
        if item["id"] in (self.listing or {}).get("editedOutside", []):
            version.append("  edited outside idea", style="yellow")
        return (Text(item["name"], style="bold"), item["id"], version,
                item.get("defaultProfileId") or "", str(item.get("lines", "")))

    def after_fill(self) -> None:
        self.show_note((self.listing or {}).get("problems", []),
                       "No template yet: i installs the software team pack (conductor, "
                       "architect, developer, QA, git keeper), n writes a new one.")

    async def perform(self, action: str, template: Template | None) -> None:
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
        await self.refresh_listing()
