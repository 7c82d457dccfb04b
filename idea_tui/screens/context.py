"""The Context panel (prefix + C, CTX-1..4): the project context `.ideai/CONTEXT.md`, which
only the user (or the agent the user made orchestrator) writes, and the agents' proposals to
change it, each shown as a diff against today's text: accept (a) makes it the context,
reject (r) deletes it. e / E edit the context itself (built-in editor / $EDITOR)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

from adapters.ipc.answers_knowledge import ContextText, ContextWritten, Said
from idea_tui.control import decoded
from idea_tui.ports import call_as
from idea_tui.screens.editor import edit_revised
from idea_tui.screens.external_editor import edit_externally
from idea_tui.screens.list_panel import ListPanel
from idea_tui.widgets.diff_view import DiffView
from idea_tui.widgets.message_line import MessageLine

if TYPE_CHECKING:
    from idea_tui.ports import Runner

Proposal = dict[str, Any]

KEYS = {"enter": "accept", "a": "accept", "r": "reject", "e": "edit", "E": "external",
        "R": "refresh"}
NO_PROPOSAL_NEEDED = {"edit", "external", "refresh"}
HINTS = ("a/Enter: accept the proposal · r: reject it · e: edit CONTEXT.md · E: in $EDITOR · "
         "R: refresh · Esc: close")


def _age(at_ms: int, now: float | None = None) -> str:
    seconds = max(0, int((now if now is not None else time.time()) - at_ms / 1000))
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit} ago"
    return "just now"


class ContextScreen(ListPanel):
    """`context` and `proposals` are context_read's and context_proposals' answers, passed
    in for snapshot tests, else read when the screen opens."""

    PANEL_TITLE = " Project context "
    HINTS = HINTS
    TABLE_ID = "proposals-table"
    COLUMNS = (("Proposal", "id"), ("From", "author"), ("When", "when"), ("Change", "change"),
               ("Reason", "reason"))
    LIST_COMMAND, ITEMS_FIELD = "context_proposals", "proposals"
    ACTIONS = KEYS
    NO_SELECTION_NEEDED = NO_PROPOSAL_NEEDED
    NOTHING_SELECTED = "no proposal selected"
    WORKER_GROUP = "context-panel"

    DEFAULT_CSS = """
    ContextScreen > Vertical { max-width: 130; height: 90%; }
    ContextScreen DataTable { max-height: 8; }
    ContextScreen DiffView { height: 1fr; border: round $panel; }
    ContextScreen .hint { margin-top: 0; }
    """

    def __init__(self, runner: Runner | None, context: dict[str, Any] | None = None,
                 proposals: dict[str, Any] | None = None, *, now: float | None = None) -> None:
        super().__init__(runner, proposals)
        self.context = (decoded(ContextText, "context_read", context)
                        if context is not None else None)
        self.now = now

    @property
    def proposals(self) -> list[Proposal]:
        return self.items

    def above(self) -> Static:
        return Static("", id="context-status")

    def below(self) -> DiffView:
        return DiffView(id="proposal-diff")

    def needs_reading(self) -> bool:
        return self.listing is None or self.context is None

    async def refresh_listing(self, *, report: bool = True) -> None:
        """The context too (its status line), then the proposals."""
        if self.runner is None:
            return
        self.context = await call_as(self.runner, ContextText, "context_read")
        await super().refresh_listing(report=report)

    def key_of(self, item: Proposal) -> str:
        return str(item["id"])

    def cells(self, item: Proposal) -> tuple[Text | str, ...]:
        diff = item["diff"]
        change = Text(f"+{diff['added']} -{diff['removed']}")
        if item.get("stale"):
            change.append("  stale", style="yellow")
        return (Text(item["id"], style="bold"), item["author"],
                _age(int(item["atMs"]), self.now), change, item.get("reason") or "")

    def after_fill(self) -> None:
        status = self.query_one("#context-status", Static)
        context = self.context
        if context is None:
            status.update(Text("reading .ideai/CONTEXT.md…", style="dim"))
        elif context.exists:
            lines = len(context.content.splitlines())
            status.update(Text.assemble(
                (".ideai/CONTEXT.md", "bold"),
                f": {lines} lines, injected into every agent's launch as # Project context. "
                "Only you write it; agents propose."))
        else:
            status.update("No .ideai/CONTEXT.md yet: e writes the rules every agent should "
                          "follow; agents can propose one.")
        self.show_selection()
        broken = (self.listing or {}).get("broken", [])
        if broken:
            self.query_one(MessageLine).show("; ".join(b["problem"] for b in broken), "error")

    def show_selection(self) -> None:
        view = self.query_one(DiffView)
        proposal = self.selected
        if proposal is None:
            view.show([], "no pending proposal" if self.listing is not None else "")
            return
        note = ("CONTEXT.md changed after this proposal was made: the diff is against "
                "today's text" if proposal.get("stale") else "")
        view.show([proposal["diff"]])
        if note:
            self.query_one(MessageLine).show(note)

    async def perform(self, action: str, proposal: Proposal | None) -> None:
        runner = self.runner
        assert runner is not None
        if action == "accept" and proposal is not None:
            question = (f"Accept {proposal['id']} from {proposal['author']}? Its text becomes "
                        ".ideai/CONTEXT.md (agents get it from their next launch).")
            await self.confirmed_call(question, Said, "context_accept", id=proposal["id"])
        elif action == "reject" and proposal is not None:
            await self.confirmed_call(f"Reject and delete {proposal['id']} from "
                                      f"{proposal['author']}?", Said, "context_reject",
                                      id=proposal["id"])
        elif action == "edit":
            await edit_context(runner)
        elif action == "external":
            await edit_context_external(runner)
        await self.refresh_listing()


async def edit_context(runner: Runner) -> bool:
    shown = await call_as(runner, ContextText, "context_read")
    if shown is None:
        return False
    note = "" if shown.exists else "no CONTEXT.md yet: saving creates it"

    async def write(text: str, base: str) -> str | None:
        written = await call_as(runner, ContextWritten, "context_write", content=text,
                                revision=base)
        if written is None:
            return None
        runner.report(written.message)
        return written.revision

    return await edit_revised(runner, " .ideai/CONTEXT.md ", shown.content,
                              shown.revision, write, unchanged="CONTEXT.md: no change",
                              note=note)


async def edit_context_external(runner: Runner) -> None:
    shown = await call_as(runner, ContextText, "context_read")
    if shown is None:
        return
    text = await edit_externally(runner, "CONTEXT.md", shown.content)
    if text is None:
        return
    if text == shown.content:
        runner.report("CONTEXT.md: no change")
        return
    written = await call_as(runner, ContextWritten, "context_write", content=text,
                            revision=shown.revision)
    if written is not None:
        runner.report(written.message)
