"""The conversation viewer driven with keys against a recording gateway: opened from the
Agents panel (`v`), paging through segments, searching every segment, back with Esc."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from idea_tui.screens.agents import AgentsScreen
from idea_tui.screens.choice import ChoiceScreen
from idea_tui.screens.conversation import ConversationScreen
from idea_tui.screens.prompt import PromptScreen
from tests.helpers.pilot import drive, make_app
from tests.tui.conversation_data import ACTIVE, ARCHIVED
from tests.tui.test_agent_screens import agents_gateway, called, message, open_agents, screen, until

LISTING = [
    {"conversation": "c-user", "parties": ["the user", "Conductor"], "partyIds": ["user", "a1"],
     "segments": 0, "changedAtMs": 2},
    {"conversation": "c-dev", "parties": ["Conductor", "Dev"], "partyIds": ["a1", "a3"],
     "segments": 1, "changedAtMs": 1},
]


@pytest.fixture(autouse=True)
def _no_refresh_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(AgentsScreen, "REFRESH_SECONDS", 1000.0)


def page(params: dict[str, Any]) -> dict[str, Any]:
    return ARCHIVED if params.get("segment") == 1 else ACTIVE


def search(params: dict[str, Any]) -> dict[str, Any]:
    return {"conversation": "c-dev", "query": params["query"],
            "hits": [{"segment": 1, "index": 1, **ARCHIVED["turns"][1]}]}


def turns_shown(viewer: ConversationScreen) -> list[str]:
    return [str(w.render()) for w in viewer.query(".turn").results(Static)]


def test_v_picks_a_conversation_pages_back_searches_and_goes_back() -> None:
    gateway = agents_gateway(conversation_list=LISTING, read_conversation_page=page,
                             conversation_search=search)

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=0)
        await pilot.press("v")
        await screen(pilot, ChoiceScreen)
        await pilot.press("down", "enter")
        viewer = await screen(pilot, ConversationScreen)
        await until(pilot, lambda: len(turns_shown(viewer)) == 3, "the active log")
        assert "Check the build" in turns_shown(viewer)[0]
        assert "\x1b" not in turns_shown(viewer)[2]  # an agent's escape never reaches us
        await pilot.press("left_square_bracket")
        await until(pilot, lambda: viewer.segment == 1, "the archived segment")
        await until(pilot, lambda: len(turns_shown(viewer)) == 2, "its turns")
        await pilot.press("left_square_bracket")
        await until(pilot, lambda: "oldest" in message(pilot), "the edge message")
        await pilot.press("right_square_bracket")
        await until(pilot, lambda: viewer.segment == 0, "back to the active log")
        await pilot.press("slash")
        await screen(pilot, PromptScreen)
        await pilot.press(*"ci.yml", "enter")
        await called(pilot, gateway, "conversation_search")
        await until(pilot, lambda: viewer.segment == 1 and "hit 1 of 1" in message(pilot),
                    "the hit shown")
        assert viewer.query_one("#turn-1").has_class("hit")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(pilot.app.screen, AgentsScreen), "back")

    drive(make_app(gateway), scenario)
    assert gateway.params("conversation_list") == [{"agent": "a1"}]
    pages = gateway.params("read_conversation_page")
    assert pages == [{"a": "a1", "b": "a3", "segment": None}, {"a": "a1", "b": "a3", "segment": 1}]
    assert gateway.params("conversation_search") == [{"a": "a1", "b": "a3", "query": "ci.yml"}]


def test_an_agent_without_conversations_says_so() -> None:
    gateway = agents_gateway(conversation_list=[])

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=0)
        await pilot.press("v")
        await until(pilot, lambda: "no conversation yet" in message(pilot), "the message")
        assert isinstance(pilot.app.screen, AgentsScreen)

    drive(make_app(gateway), scenario)
