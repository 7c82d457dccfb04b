"""The user's controls of an agent at a usage limit (issue 10) from the Agents panel (m: when
to resume, N: now, X: cancel, o: not a limit, f: continue on another profile) and from the
palette (the same five actions, the agent named in the answer), driven with keys against a
recording gateway: what the client sends the daemon and what it tells the user."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable

from idea_tui.screens.agents import AgentsScreen
from idea_tui.screens.choice import ChoiceScreen
from idea_tui.screens.palette import PaletteScreen
from idea_tui.screens.prompt import PromptScreen
from tests.helpers.pilot import drive, make_app, ready, settle
from tests.tui.agent_data import PROFILES
from tests.tui.test_agent_screens import (
    SCENE,
    Gateway,
    app_of,
    called,
    message,
    screen,
    typed,
    until,
)
from tests.tui.test_limit_snapshots import LIMITED, PLAIN, SUSPECTED, SWAPPED

ARMED = {"agent": "Backend", "limit": {**LIMITED["limit"], "armedBy": "user",
                                       "resumeAt": "2026-12-01T17:05:00+00:00",
                                       "countdown": "9m 00s"}}


def limit_gateway(**results: Any) -> Gateway:
    base: dict[str, Any] = {
        "agent_list": [LIMITED, PLAIN],
        "profile_list": {"configured": True, "profiles": PROFILES},
        "set_resume_at": ARMED,
        "resume_now": {"agent": "Backend", "resumed": True, "limit": None},
        "cancel_resume": {"agent": "Backend", "cancelled": True, "limit": LIMITED["limit"]},
        "limit_swap": lambda params: {"agent": "Backend", "profile": params["profile"],
                                      "limit": None},
        "not_limited": lambda params: {
            "agent": {"b1": "Backend", "b2": "Frontend"}.get(params["agent"], params["agent"]),
            "was": "suspected" if params["agent"] in ("b2", "Frontend") else "limited",
            "limit": None},
    }
    base.update(results)
    return Gateway(base)


async def open_panel(pilot: Pilot[str], gateway: Gateway, row: int = 0,
                     rows: int = 2) -> AgentsScreen:
    await ready(pilot, gateway, SCENE)
    await pilot.press("ctrl+b", "A")
    panel = await screen(pilot, AgentsScreen)
    assert isinstance(panel, AgentsScreen)
    await until(pilot, lambda: panel.query_one(DataTable).row_count == rows, "rows")
    panel.query_one(DataTable).move_cursor(row=row)
    await pilot.pause()
    return panel


def test_m_asks_when_to_resume_and_arms_it() -> None:
    gateway = limit_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_panel(pilot, gateway)
        await pilot.press("m")
        prompt = await screen(pilot, PromptScreen)
        assert "Resume Backend at" in str(prompt.question)
        await typed(pilot, "17:05")
        await pilot.press("enter")
        await called(pilot, gateway, "set_resume_at")
        await until(pilot, lambda: "resumes in 9m 00s" in message(pilot), "the answer shown")
        assert isinstance(pilot.app.screen, AgentsScreen)

    drive(make_app(gateway), scenario)
    assert gateway.params("set_resume_at") == [{"agent": "b1", "at": "17:05", "project": None}]


def test_escape_at_the_time_prompt_arms_nothing() -> None:
    gateway = limit_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_panel(pilot, gateway)
        await pilot.press("m")
        await screen(pilot, PromptScreen)
        await pilot.press("escape")
        await screen(pilot, AgentsScreen)
        await settle(pilot)

    drive(make_app(gateway), scenario)
    assert "set_resume_at" not in gateway.methods()


def test_shift_n_resumes_now_and_shift_x_cancels() -> None:
    gateway = limit_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_panel(pilot, gateway)
        await pilot.press("N")
        await called(pilot, gateway, "resume_now")
        await until(pilot, lambda: message(pilot) == "Backend resumed", "resumed")
        await pilot.press("X")
        await called(pilot, gateway, "cancel_resume")
        await until(pilot, lambda: message(pilot) == "Backend: resume cancelled, still limited",
                    "cancelled")

    drive(make_app(gateway), scenario)
    assert gateway.params("resume_now") == [{"agent": "b1", "project": None}]
    assert gateway.params("cancel_resume") == [{"agent": "b1", "project": None}]


def test_f_continues_on_the_chosen_profile_never_its_own() -> None:
    gateway = limit_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_panel(pilot, gateway)
        await pilot.press("f")
        choice = await screen(pilot, ChoiceScreen)
        assert "Continue on which profile?" in str(choice.question)
        await pilot.press("down", "enter")  # codex, then gemini: its own is not offered
        await called(pilot, gateway, "limit_swap")
        await until(pilot, lambda: message(pilot) == "Backend continues on gemini", "swapped")

    drive(make_app(gateway), scenario)
    assert gateway.params("limit_swap") == [{"agent": "b1", "profile": "gemini",
                                             "project": None}]


def test_f_on_an_agent_not_limited_says_so_and_sends_nothing() -> None:
    gateway = limit_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_panel(pilot, gateway, row=1)
        await pilot.press("f")
        await until(pilot, lambda: "is not at a usage limit" in message(pilot), "refused")
        assert isinstance(pilot.app.screen, AgentsScreen)

    drive(make_app(gateway), scenario)
    assert "limit_swap" not in gateway.methods() and "profile_list" not in gateway.methods()


def shown(pilot: Pilot[str], said: str) -> Callable[[], bool]:
    return lambda: message(pilot) == said


def test_o_tells_idea_a_suspected_agent_is_not_limited() -> None:
    """The suspicion goes, nothing restarts: the panel's hint under a suspected agent offers
    o (and no cancel: nothing is armed). On a limited agent o says it is no longer limited;
    on one running on its fallback profile it sends nothing (N brings it back)."""
    gateway = limit_gateway(agent_list=[SUSPECTED, LIMITED, SWAPPED])
    hints: list[str] = []

    async def scenario(pilot: Pilot[str]) -> None:
        panel = await open_panel(pilot, gateway, rows=3)
        hints.append(str(panel.query_one("#agent-detail").render()))
        await pilot.press("o")
        await called(pilot, gateway, "not_limited")
        await until(pilot, lambda: message(pilot) == "Frontend: not a limit, its task goes on",
                    "answered")
        for row, said in ((1, "Backend: no longer limited, its queue moves"),
                          (2, "Reviewer is on its fallback profile (N brings it back)")):
            panel.query_one(DataTable).move_cursor(row=row)
            await pilot.pause()
            hints.append(str(panel.query_one("#agent-detail").render()))
            await pilot.press("o")
            await until(pilot, shown(pilot, said), said)

    drive(make_app(gateway), scenario)
    assert gateway.params("not_limited") == [{"agent": "b2", "project": None},
                                             {"agent": "b1", "project": None}]
    assert "o: not a limit (its task goes on)" in hints[0], hints
    assert "X: cancel" not in hints[0]
    assert "o: no longer limited" in hints[1] and "o:" not in hints[2], hints


def test_no_at_the_suspected_prompt_is_the_answer_not_a_limit() -> None:
    gateway = limit_gateway(agent_list=[SUSPECTED, LIMITED])

    async def scenario(pilot: Pilot[str]) -> None:
        await open_panel(pilot, gateway)
        await pilot.press("m")
        prompt = await screen(pilot, PromptScreen)
        assert "Not a limit: answer no, its task goes on." in str(prompt.question)
        await typed(pilot, "No")
        await pilot.press("enter")
        await called(pilot, gateway, "not_limited")
        await until(pilot, lambda: message(pilot) == "Frontend: not a limit, its task goes on",
                    "answered")

    drive(make_app(gateway), scenario)
    assert "set_resume_at" not in gateway.methods()
    assert gateway.params("not_limited") == [{"agent": "b2", "project": None}]


async def palette(pilot: Pilot[str], action: str, answer: str) -> None:
    """Choose `action` in the palette, answer its question with `answer`."""
    await pilot.press("ctrl+b", ":")
    await screen(pilot, PaletteScreen)
    await typed(pilot, action)
    await pilot.press("enter")
    await screen(pilot, PromptScreen)
    await typed(pilot, answer)
    await pilot.press("enter")
    await settle(pilot)


def test_the_palette_arms_resumes_now_cancels_dismisses_and_continues_elsewhere() -> None:
    gateway = limit_gateway()
    said: list[str] = []

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        app = app_of(pilot)
        for action, answer in (("resume an agent at a time", "Backend 17:05"),
                               ("resume an agent now", "Backend"),
                               ("cancel an agent's armed resume", "Backend"),
                               ("not a limit", "Frontend"),
                               ("continue an agent on another profile", "Backend codex")):
            await palette(pilot, f"usage limit {action}", answer)
            said.append(app.status.message)

    drive(make_app(gateway), scenario)
    assert [(method, params) for method, params in gateway.calls if method != "agent_list"] == [
        ("set_resume_at", {"agent": "Backend", "at": "17:05"}),
        ("resume_now", {"agent": "Backend"}),
        ("cancel_resume", {"agent": "Backend"}),
        ("not_limited", {"agent": "Frontend"}),
        ("limit_swap", {"agent": "Backend", "profile": "codex"}),
    ]
    assert said == ["Backend: rate_limited (until 17:00), resumes in 9m 00s",
                    "Backend resumed", "Backend: resume cancelled, still limited",
                    "Frontend: not a limit, its task goes on", "Backend continues on codex"]


def test_the_palette_asks_again_for_what_is_missing() -> None:
    gateway = limit_gateway()
    said: list[str] = []

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await palette(pilot, "usage limit resume an agent at a time", "Backend")
        said.append(app_of(pilot).status.message)
        await palette(pilot, "usage limit continue an agent on another profile", "Backend")
        said.append(app_of(pilot).status.message)

    drive(make_app(gateway), scenario)
    assert said == ["give the agent and the time: dev 17:05",
                    "give the agent and the profile: dev codex"]
    assert gateway.calls == []
