"""The conversation viewer (LOG-7): a pair's transcript, full screen and read-only.

Opened from the Agents panel (`v`), it shows the active log of a conversation, pages back
through its archived segments (`[` older, `]` newer) and searches every segment (`/`, then
`n`/`N` from hit to hit). Pages come from `read_conversation_page`, hits from
`conversation_search`. The text of turns is other programs' text: it is drawn as Rich `Text`
(never markup), control characters removed.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import msgspec
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from adapters.ipc.answers_knowledge import (
    ConversationPage,
    ConversationSearch,
    ConversationSummary,
)
from core.safe_text import clean
from idea_tui.ports import attempt_as, call_list
from idea_tui.screens.prompt import PromptScreen
from idea_tui.widgets.message_line import MessageLine

if TYPE_CHECKING:
    from idea_tui.ports import Runner

Page = dict[str, Any]
ACTIVE = 0
"""The key of the active log among pages (archived segments are numbered from 1)."""
LONG_TEXT = 1_000_000
ROLE_STYLES = {"prompt": "bold cyan", "response": "bold green"}
HINT = ("↑↓ PgUp PgDn: scroll · [ ]: older/newer segment · /: search · "
        "n N: next/previous hit · Esc: back")


def turn_text(turn: dict[str, Any], query: str | None) -> Text:
    text = Text()
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(int(turn["atMs"]) / 1000))
    text.append(clean(str(turn["source"])), style="bold")
    text.append(f" · {turn['role']}", style=ROLE_STYLES.get(str(turn["role"]), ""))
    text.append(f" · {when}\n", style="dim")
    body = Text("\n".join(clean(line, LONG_TEXT) for line in str(turn["text"]).split("\n")))
    if query:
        body.highlight_words([query], style="black on yellow", case_sensitive=False)
    text.append_text(body)
    return text


class ConversationScreen(ModalScreen[None]):
    """`pages` given (segment → page, 0 the active log): shown as is (snapshot tests);
    else read from the daemon as the user pages."""

    DEFAULT_CSS = """
    ConversationScreen { align: center middle; }
    ConversationScreen > Vertical {
        width: 100%; height: 100%; border: round $accent; background: $surface; padding: 0 1;
    }
    ConversationScreen #conversation-turns { height: 1fr; margin-top: 1; }
    ConversationScreen .turn { margin-bottom: 1; }
    ConversationScreen .turn.hit { background: $boost; }
    ConversationScreen .hint { color: $text-muted; }
    """

    def __init__(self, runner: Runner | None, a: str, b: str, *,
                 pages: dict[int, Page] | None = None) -> None:
        super().__init__()
        self.runner = runner
        self.a, self.b = a, b
        self.pages: dict[int, Page] = dict(pages or {})
        self.offline = pages is not None
        self.segment = ACTIVE
        self.needle: str | None = None
        self.hits: list[dict[str, Any]] = []
        self.hit = -1
        self.labels = (a, b)
        """How the two sides are named in the title (ids are what the daemon is sent)."""

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = f" Conversation {clean(self.labels[0])} ↔ {clean(self.labels[1])} "
            yield Static("", id="conversation-heading")
            yield VerticalScroll(id="conversation-turns")
            yield MessageLine()
            yield Static(HINT, classes="hint")

    async def on_mount(self) -> None:
        self.query_one("#conversation-turns").focus()
        await self.show(ACTIVE)

    # ─── pages ───────────────────────────────────────────────────────────────────────

    async def page(self, segment: int) -> Page | None:
        found = self.pages.get(segment)
        if found is not None or self.offline or self.runner is None:
            return found
        answer, read = await attempt_as(self.runner, ConversationPage, "read_conversation_page",
                                        a=self.a, b=self.b, segment=segment or None)
        if read is None:
            self.query_one(MessageLine).show(answer.error or "cannot read it", "error")
            return None
        # A map, as the pages given offline (tests): the daemon's own, from the Struct.
        page: Page = msgspec.to_builtins(read)
        self.pages[segment] = page
        return page

    async def show(self, segment: int, focus_index: int | None = None) -> None:
        page = await self.page(segment)
        if page is None:
            return
        self.segment = segment
        turns = page["turns"]
        heading = Text()
        heading.append(" ↔ ".join(clean(p) for p in page["parties"]), style="bold")
        where = "active log" if segment == ACTIVE else f"archived segment {segment}"
        heading.append(f" · {where} · {len(turns)} turn{'s' if len(turns) != 1 else ''}")
        segments = page.get("segments") or self._segments()
        if segments:
            heading.append(f" · archived: {', '.join(map(str, segments))}", style="dim")
        for problem in page.get("problems", []):
            heading.append(f"\n! {clean(str(problem), 512)}", style="bold red")
        self.query_one("#conversation-heading", Static).update(heading)
        box = self.query_one("#conversation-turns", VerticalScroll)
        await box.remove_children()
        widgets = []
        for index, turn in enumerate(turns):
            widget = Static(turn_text(turn, self.needle), classes="turn", id=f"turn-{index}")
            if focus_index == index:
                widget.add_class("hit")
            widgets.append(widget)
        if not widgets:
            widgets.append(Static(Text("No turn in this segment yet.", style="dim")))
        await box.mount_all(widgets)
        if focus_index is not None:
            box.scroll_to_widget(widgets[focus_index], animate=False, top=True)
        else:
            box.scroll_end(animate=False)

    def _segments(self) -> list[int]:
        active = self.pages.get(ACTIVE)
        if active is not None and active.get("segments"):
            return list(active["segments"])
        return sorted(key for key in self.pages if key != ACTIVE)

    async def step(self, older: bool) -> None:
        """`[` goes to the next older segment, `]` to the next newer (the active log last)."""
        order = [*self._segments(), ACTIVE]
        at = order.index(self.segment) if self.segment in order else len(order) - 1
        to = at - 1 if older else at + 1
        if not 0 <= to < len(order):
            edge = "the oldest segment" if older else "the active log, the newest"
            self.query_one(MessageLine).show(f"this is {edge}")
            return
        self.query_one(MessageLine).clear()
        await self.show(order[to])

    # ─── search ──────────────────────────────────────────────────────────────────────

    async def search(self, query: str) -> None:
        self.needle = query
        hits: list[dict[str, Any]] = []
        if self.offline or self.runner is None:
            for segment in [*self._segments(), ACTIVE]:
                for index, turn in enumerate((self.pages.get(segment) or {"turns": []})["turns"]):
                    if query.casefold() in str(turn["text"]).casefold():
                        hits.append({"segment": segment or None, "index": index})
        else:
            answer, found = await attempt_as(self.runner, ConversationSearch, "conversation_search",
                                             a=self.a, b=self.b, query=query)
            if found is None:
                self.query_one(MessageLine).show(answer.error or "search failed", "error")
                return
            hits = [{"segment": hit.segment, "index": hit.index} for hit in found.hits]
        self.hits = hits
        if not hits:
            self.hit = -1
            self.query_one(MessageLine).show(f"no turn holds {query!r}", "error")
            await self.show(self.segment)
            return
        # The most recent hit first: the user came here from the latest turns.
        await self.go_hit(len(hits) - 1)

    async def go_hit(self, number: int) -> None:
        self.hit = number % len(self.hits)
        hit = self.hits[self.hit]
        self.query_one(MessageLine).show(
            f"hit {self.hit + 1} of {len(self.hits)} for {self.needle!r}")
        await self.show(int(hit["segment"] or ACTIVE), int(hit["index"]))

    async def ask_search(self) -> None:
        if self.runner is not None:
            query = await self.runner.ask(PromptScreen("Search this conversation for:",
                                                       self.needle or ""))
        else:
            query = None
        if query:
            await self.search(query)

    def on_key(self, event: events.Key) -> None:
        key = event.character if event.character in ("[", "]", "/", "n", "N") else event.key
        if key in ("escape", "q"):
            event.stop()
            self.dismiss(None)
        elif key in ("[", "]"):
            event.stop()
            self.run_worker(self.step(older=key == "["), group="conversation", exclusive=True)
        elif key == "/":
            event.stop()
            self.run_worker(self.ask_search(), group="conversation-search")
        elif key in ("n", "N") and self.hits:
            event.stop()
            step = 1 if key == "n" else -1
            self.run_worker(self.go_hit(self.hit + step), group="conversation", exclusive=True)


async def open_for_agent(runner: Runner, agent: dict[str, Any]) -> None:
    """From the Agents panel: the agent's conversations to pick from (the only one is
    opened at once), then the viewer."""
    from idea_tui.screens.choice import ChoiceScreen

    listing = await call_list(runner, ConversationSummary, "conversation_list",
                              agent=agent["id"])
    if listing is None:
        return
    options: list[tuple[str, str]] = []
    peers: dict[str, tuple[str, str]] = {}
    for entry in listing:
        ids, names = entry.party_ids, entry.parties
        if not ids or not names:
            continue
        other = 1 if ids[0] == agent["id"] else 0
        peers[entry.conversation] = (ids[other], names[other])
        archived = f" · {entry.segments} archived" if entry.segments else ""
        options.append((entry.conversation, f"with {clean(names[other])}{archived}"))
    if not options:
        runner.report(f"{agent['name']} has no conversation yet")
        return
    chosen: str | None = options[0][0]
    if len(options) > 1:
        chosen = await runner.ask(ChoiceScreen(f"Which conversation of {agent['name']}?",
                                               options))
    if chosen is None:
        return
    peer_id, peer_name = peers[chosen]
    screen = ConversationScreen(runner, agent["id"], peer_id)
    screen.labels = (str(agent["name"]), peer_name)
    runner.app.push_screen(screen)
