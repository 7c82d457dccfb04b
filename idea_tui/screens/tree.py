"""The tree of windows, project tabs and pages (prefix + w): pick one to show it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, Tree

from adapters.ipc.answers_workspace import Overview
from idea_tui.control import decoded
from idea_tui.ports import call_as

if TYPE_CHECKING:
    from idea_tui.ports import Runner


class TreeScreen(ModalScreen[None]):
    """`overview` is the `ls` answer, passed in for snapshot tests."""

    DEFAULT_CSS = """
    TreeScreen { align: center middle; }
    TreeScreen > Vertical {
        width: 80; height: 80%; border: round $accent; background: $surface; padding: 0 1;
    }
    TreeScreen .hint { color: $text-muted; }
    """

    def __init__(self, runner: Runner | None, overview: dict[str, Any] | None = None
                 ) -> None:
        super().__init__()
        self.runner = runner
        self.overview = decoded(Overview, "ls", overview) if overview is not None else None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Tree[dict[str, Any]]("workspace")
            yield Static("Enter: show it · Escape: back", classes="hint")

    async def on_mount(self) -> None:
        if self.overview is None and self.runner is not None:
            self.overview = await call_as(self.runner, Overview, "ls")
        tree = self.query_one(Tree)
        tree.show_root = False
        for window in self.overview.windows if self.overview is not None else []:
            clients = f" ({window.clients} attached)" if window.clients else ""
            wnode = tree.root.add(f"window {window.name}{clients}",
                                  {"window": window.name}, expand=True)
            for project in window.projects:
                mark = "*" if project.active else " "
                pnode = wnode.add(f"{mark} {project.name}  {project.root}",
                                  {"window": window.name, "project": project.root},
                                  expand=project.active)
                for page in project.pages:
                    pmark = "*" if page.active else " "
                    pnode.add_leaf(f"{pmark} {page.name} ({len(page.cells)} cells)",
                                   {"window": window.name, "project": project.root,
                                    "page": page.name})
        tree.focus()

    async def on_tree_node_selected(self, event: Tree.NodeSelected[dict[str, Any]]) -> None:
        data = event.node.data
        if data is None or self.runner is None:
            return
        await self.runner.call("attach_window", window=data["window"])
        if "project" in data:
            await self.runner.call("project_switch", which=data["project"])
        if "page" in data:
            await self.runner.call("layout_switch", project=data["project"], page=data["page"])
        self.dismiss(None)

    def on_key(self, event: events.Key) -> None:
        if event.key in ("escape", "q"):
            event.stop()
            self.dismiss(None)
