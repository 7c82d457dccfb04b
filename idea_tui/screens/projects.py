"""The projects panel (prefix + P): known projects, open one, create one, close one."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from adapters.ipc.answers_workspace import ProjectDescription, ProjectProbe
from idea_tui.control import decoded_list
from idea_tui.ports import call_as, call_list

if TYPE_CHECKING:
    from idea_tui.ports import Runner


def project_label(project: ProjectDescription) -> str:
    state = f"open · window {project.window}" if project.open else "closed"
    return f"{project.name:<20} {project.root}  ({state})"


class ProjectsScreen(ModalScreen[None]):
    """Enter on a project opens it; Enter in the path box creates or opens that folder.
    `projects` is project_list's answer, passed in for snapshot tests."""

    DEFAULT_CSS = """
    ProjectsScreen { align: center middle; }
    ProjectsScreen > Vertical {
        width: 90; height: auto; max-height: 90%; border: round $accent;
        background: $surface; padding: 0 1;
    }
    ProjectsScreen OptionList { height: auto; max-height: 20; border: none; }
    ProjectsScreen .hint { color: $text-muted; }
    """

    def __init__(self, runner: Runner | None, projects: list[dict[str, Any]] | None = None,
                 cwd: str | None = None) -> None:
        super().__init__()
        self.runner = runner
        self.projects = (decoded_list(ProjectDescription, "project_list", projects)
                         if projects is not None else None)
        self.cwd = cwd or os.getcwd()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("[b]Projects[/b]")
            yield OptionList()
            yield Input(value=self.cwd, placeholder="Path of a project to create or open")
            yield Static("Enter: open · x: close the project · Tab: path box · Escape: back",
                         classes="hint")

    async def on_mount(self) -> None:
        if self.projects is None and self.runner is not None:
            self.projects = await call_list(self.runner, ProjectDescription, "project_list") or []
        self._fill()
        self.query_one(OptionList).focus()

    def _fill(self) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        for project in self.projects or []:
            options.add_option(Option(project_label(project), id=project.root))
        if not self.projects:
            options.add_option(Option("No project yet: type a folder below and press Enter",
                                      disabled=True))
        else:
            # Enter opens the first project and x closes it without moving first.
            options.highlighted = 0

    async def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if self.runner is not None and event.option.id:
            await self.runner.call("project_open", path=event.option.id)
        self.dismiss(None)

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        path = os.path.abspath(os.path.expanduser(event.value.strip()))
        if self.runner is None or not path:
            return
        probe = await call_as(self.runner, ProjectProbe, "project_probe", path=path)
        if probe is None:
            return
        result = await self.runner.call(probe.command(), path=path)
        if result is not None:
            self.dismiss(None)

    async def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.stop()
            self.dismiss(None)
        elif event.key == "x" and isinstance(self.focused, OptionList):
            event.stop()
            options = self.query_one(OptionList)
            if options.highlighted is None or self.runner is None:
                return
            root = options.get_option_at_index(options.highlighted).id
            if root:
                await self.runner.call("project_close", project=root)
                self.projects = await call_list(self.runner, ProjectDescription,
                                                "project_list") or []
                self._fill()
