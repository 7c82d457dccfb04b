"""Running the real client app (`IdeaApp`) under Textual's Pilot with a `FakeGateway`."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from textual.pilot import Pilot
from textual.screen import Screen

from adapters.ipc.messages import CellFrame, Scene
from idea_tui.app import IdeaApp
from idea_tui.gateway import GatewayPort
from tests.helpers.fake_gateway import FakeGateway

SIZE = (100, 30)
S = TypeVar("S", bound=Screen[Any])
Scenario = Callable[[Pilot[str]], Awaitable[None]]


def make_app(gateway: FakeGateway) -> IdeaApp:
    async def connect(width: int, height: int) -> GatewayPort:
        gateway.sizes.append((width, height))
        return gateway

    return IdeaApp(connect)


def drive(app: IdeaApp, scenario: Scenario, size: tuple[int, int] = SIZE) -> None:
    """Run `scenario` against `app` in a headless terminal of `size`."""
    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await scenario(pilot)

    asyncio.run(main())


async def settle(pilot: Pilot[str]) -> None:
    """Let queued messages, and the actions they started (workers), finish."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def ready(pilot: Pilot[str], gateway: FakeGateway, scene: Scene,
                frames: Sequence[CellFrame] = ()) -> None:
    """Show `scene`, let the start-up requests finish, then forget them: what the gateway
    records from here on is what the test did."""
    await show(pilot, scene, frames)
    await settle(pilot)
    gateway.calls.clear()
    gateway.keys.clear()


async def show(pilot: Pilot[str], scene: Scene, frames: Sequence[CellFrame] = ()) -> None:
    """Deliver a scene and frames as if the daemon had sent them."""
    app = pilot.app
    assert isinstance(app, IdeaApp)
    app.handle_message(scene)
    for item in frames:
        app.handle_message(item)
    await pilot.pause()


async def wait_for_screen(pilot: Pilot[str], screen: type[S], turns: int = 200) -> S:
    """Pause until the active screen is a `screen` (an action shows it from a worker)."""
    for _ in range(turns):
        active = pilot.app.screen
        if isinstance(active, screen):
            return active
        await pilot.pause()
    raise AssertionError(f"{screen.__name__} was not shown; the screen is {pilot.app.screen}")
