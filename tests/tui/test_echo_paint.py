"""A typed key goes to the daemon from the app's own key handling, and its echo is drawn
when its frame arrives, not on the screen's next update: the shortcuts keep the keys'
order, Textual's bindings and what is shown when a screen is on top of the grid."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
from rich.console import RenderableType
from rich.style import Style
from textual import events
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Static

from adapters.ipc.messages import CellFrame
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


class Updates(Displays):
    """Keeps what the app hands to the terminal, too."""

    def __init__(self, app: IdeaApp) -> None:
        super().__init__(app)
        self.renderables: list[RenderableType] = []

    def __call__(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        if renderable is not None:
            self.renderables.append(renderable)
        super().__call__(screen, renderable)


def one_row(full: CellFrame, y: int, cursor_x: int) -> CellFrame:
    """Only row `y` of `full` changed, the cursor after its text (what an echo sends)."""
    return msgspec.structs.replace(full, lines=[full.lines[y]], full=False,
                                   cursor=(cursor_x, y, True, 0))


def cells_of(strip: Strip) -> list[tuple[str, Style | None]]:
    """A strip cell by cell, so that two strips cut into segments differently compare."""
    return [(character, segment.style) for segment in strip for character in segment.text]


def test_an_echo_on_lines_nothing_covers_is_drawn_straight_as_the_compositor_would() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        app = pilot.app
        assert isinstance(app, IdeaApp)
        await ready(pilot, gateway, SCENE, [frame(SCENE, 0, [prompt()])])
        await pilot.press("x")
        updates = Updates(app)
        app.handle_message(one_row(frame(SCENE, 0, [prompt("x")]), 0, 22))
        assert updates.count == 1
        (drawn,) = updates.renderables
        assert not isinstance(drawn, ChopsUpdate | LayoutUpdate)  # not the compositor's
        cell = SCENE.cells[0]
        screen_y = app.view.region.y + cell.y + 1
        text = drawn.render_segments(app.console)  # type: ignore[union-attr]
        assert text.startswith(f"\x1b[{screen_y + 1};{app.view.region.x + 1}H")
        # What went out is the line the compositor makes of the whole screen now.
        straight = drawn._lines[0][1]  # type: ignore[union-attr]
        whole = app.screen._compositor.render_strips()[screen_y]
        assert cells_of(straight) == cells_of(whole)
        assert "$ x" in "".join(character for character, _style in cells_of(whole))
        await pilot.pause()
        assert updates.count == 1  # nothing is left for the tick to draw again

    drive(make_app(gateway), scenario)


def test_an_echo_under_another_widget_is_drawn_by_the_compositor() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        app = pilot.app
        assert isinstance(app, IdeaApp)
        await ready(pilot, gateway, SCENE, [frame(SCENE, 0, [prompt()])])
        # A box drawn over the grid (as a tooltip or a notice would be), on row 3's line.
        cell = SCENE.cells[0]
        row = 3
        over_y = app.view.region.y + cell.y + 1 + row
        cover = Static("over the grid")
        cover.styles.overlay = "screen"
        cover.styles.position = "absolute"
        cover.styles.offset = (30, over_y)
        cover.styles.width = 16
        cover.styles.height = 1
        await app.screen.mount(cover)
        await pilot.pause()
        assert cover.region == Region(30, over_y, 16, 1)
        await pilot.press("x")
        updates = Updates(app)
        lines = [prompt()] * row + [prompt("x")]
        app.handle_message(one_row(frame(SCENE, 0, lines), row, 22))
        assert updates.count == 1
        assert isinstance(updates.renderables[0], ChopsUpdate)
        shown = "".join(segment.text
                        for segment in app.screen._compositor.render_strips()[over_y])
        assert "$ x" in shown and "over the grid" in shown

    drive(make_app(gateway), scenario)
