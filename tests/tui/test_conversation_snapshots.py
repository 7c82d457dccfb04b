"""SVG snapshots of the conversation viewer at a fixed 100x30: the active log (a skipped line
reported, a reply on several lines, an agent's escape sequence drawn harmless), the archived
segment `[` pages back to, and a search hit. Stored under
`snapshots/test_conversation_snapshots/`; see snapshots/README.md to update them."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot

from idea_tui.screens.conversation import ConversationScreen
from tests.helpers.fake_gateway import FakeGateway
from tests.helpers.pilot import SIZE, make_app, settle
from tests.tui.conversation_data import PAGES
from tests.tui.test_snapshots import with_workspace

SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Times are drawn in local time: fixed to UTC so the snapshots do not depend on it."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def viewer(*keys: str, search: str | None = None) -> Callable[[Pilot[str]], Any]:
    async def run_before(pilot: Pilot[str]) -> None:
        await with_workspace(pilot)
        screen = ConversationScreen(None, "Conductor", "Dev", pages=PAGES)
        pilot.app.push_screen(screen)
        await settle(pilot)
        await pilot.press(*keys)
        await settle(pilot)
        if search is not None:
            await screen.search(search)
            await settle(pilot)

    return run_before


def test_conversation_viewer_active_log(snap_compare: SnapCompare) -> None:
    assert snap_compare(make_app(FakeGateway()), terminal_size=SIZE, run_before=viewer())


def test_conversation_viewer_archived_segment(snap_compare: SnapCompare) -> None:
    assert snap_compare(make_app(FakeGateway()), terminal_size=SIZE,
                        run_before=viewer("left_square_bracket"))


def test_conversation_viewer_search_hit(snap_compare: SnapCompare) -> None:
    """`/ci.yml`: the hit is in the archived segment, which is shown with the word marked."""
    assert snap_compare(make_app(FakeGateway()), terminal_size=SIZE,
                        run_before=viewer(search="ci.yml"))
