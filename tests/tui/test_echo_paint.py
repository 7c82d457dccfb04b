"""A typed key goes to the daemon from the app's own key handling, and its echo is drawn
when its frame arrives, not on the screen's next update: the shortcuts keep the keys'
order, Textual's bindings and what is shown when a screen is on top of the grid."""

from __future__ import annotations

import asyncio
from typing import Any

from rich.console import RenderableType
from textual import events
from textual.pilot import Pilot
from textual.screen import Screen

from idea_tui.app import IdeaApp
from idea_tui.widgets.prompt_paint import paint_now
from tests.helpers.fake_gateway import FakeGateway
from tests.helpers.pilot import drive, make_app, ready
from tests.helpers.scenes import frame, grid_scene, prompt

SCENE = grid_scene(100, 28, 1, 2, focused=0)
FOCUSED = SCENE.cells[0].id


class Displays:
    """Counts what the app hands to the terminal (`App._display`)."""

    def __init__(self, app: IdeaApp) -> None:
        self.count = 0
        self._display = app._display
        app._display = self  # type: ignore[method-assign]

    def __call__(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        self.count += renderable is not None
        self._display(screen, renderable)


def row_text(app: IdeaApp, y: int) -> str:
    return "".join(segment.text for segment in app.view.render_line(y))


def test_an_echo_is_drawn_as_soon_as_its_frame_arrives() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        app = pilot.app
        assert isinstance(app, IdeaApp)
        await ready(pilot, gateway, SCENE, [frame(SCENE, 0, [prompt()])])
        await pilot.press("x")
        assert gateway.keys == [(FOCUSED, "x", "x")]
        displays = Displays(app)
        app.handle_message(frame(SCENE, 0, [prompt("x")]))
        # Drawn before the app even got back to its loop: no update tick in between.
        assert displays.count == 1
        assert "$ x" in row_text(app, 1)
        await pilot.pause()
        assert displays.count == 1  # and nothing is left for the tick to draw again

    drive(make_app(gateway), scenario)


def test_with_a_screen_on_top_the_grid_is_drawn_by_textual_as_usual() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        app = pilot.app
        assert isinstance(app, IdeaApp)
        await ready(pilot, gateway, SCENE, [frame(SCENE, 0, [prompt()])])
        await app.push_screen(Screen())
        await pilot.pause()
        displays = Displays(app)
        app.view.await_echo()
        app.handle_message(frame(SCENE, 0, [prompt("x")]))
        assert displays.count == 0
        assert not paint_now(app.view)
        await pilot.pause()
        app.pop_screen()
        await pilot.pause()
        assert "$ x" in row_text(app, 1)

    drive(make_app(gateway), scenario)


def test_no_priority_binding_stands_between_a_key_and_the_grid() -> None:
    """The quick way skips Textual's priority bindings: there must be none to skip."""
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        app = pilot.app
        assert isinstance(app, IdeaApp)
        await ready(pilot, gateway, SCENE, [frame(SCENE, 0, [prompt()])])
        assert app.focused is app.view
        priority = [binding.key for _node, bindings in app.screen._binding_chain
                    for _key, binding in bindings if binding.priority]
        assert priority == []

    drive(make_app(gateway), scenario)


def test_a_key_typed_while_the_grid_still_handles_a_paste_follows_it() -> None:
    gateway = FakeGateway()
    sent: list[str] = []
    gateway.key = lambda cell, key, character: sent.append(key)  # type: ignore[method-assign]
    gateway.paste = lambda cell, text: sent.append(text)  # type: ignore[method-assign]

    async def scenario(pilot: Pilot[str]) -> None:
        app = pilot.app
        assert isinstance(app, IdeaApp)
        await ready(pilot, gateway, SCENE, [frame(SCENE, 0, [prompt()])])
        handle_paste = app.view.paste_handler
        assert handle_paste is not None
        go_on = asyncio.Event()

        async def slow_paste(text: str) -> None:
            await go_on.wait()
            await handle_paste(text)

        app.view.paste_handler = slow_paste
        # Pilot's pause waits for the grid, which waits for the test: plain sleeps here.
        app.post_message(events.Paste("pasted"))
        await asyncio.sleep(0.05)
        app.post_message(events.Key("x", "x"))
        app.post_message(events.Key("y", "y"))
        await asyncio.sleep(0.05)
        assert sent == []  # behind the paste, not past it
        go_on.set()
        await pilot.pause()
        await pilot.pause()
        assert sent == ["pasted", "x", "y"]
        await pilot.press("z")  # nothing is left in the grid: the quick way again
        assert sent[-1] == "z"

    drive(make_app(gateway), scenario)
