"""A bug while drawing for one client must not freeze the daemon's output (robustness)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import idea_daemon.frames
import idea_daemon.scene
from adapters.ipc.messages import CellFrame, DaemonMessage, Scene
from idea_tui.gateway import Gateway
from tests.helpers.daemon import InProcessDaemon


def test_a_failing_scene_is_logged_and_the_client_is_repainted(
    daemon: InProcessDaemon, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    with daemon.client() as control:
        control.call("project_new", path=str(project))
    real = idea_daemon.scene.build_scene
    failures = {"left": 1}

    def flaky(*args: Any, **kwargs: Any) -> Scene:
        if failures["left"]:
            failures["left"] -= 1
            raise RuntimeError("a drawing bug")
        return real(*args, **kwargs)

    monkeypatch.setattr(idea_daemon.frames, "build_scene", flaky)

    async def attach() -> list[DaemonMessage]:
        gateway = await Gateway.connect(daemon.locations, window=None, width=100, height=30)
        received: list[DaemonMessage] = []
        gateway.on_message = received.append
        gateway.start()
        for _ in range(200):  # up to 10 s: the retry comes 50 ms after the failure
            if any(isinstance(m, Scene) for m in received) and any(
                isinstance(m, CellFrame) for m in received
            ):
                break
            await asyncio.sleep(0.05)
        await gateway.close()
        return received

    received = asyncio.run(attach())
    assert failures["left"] == 0, "the fault was injected"
    assert any(isinstance(m, Scene) and m.tabs for m in received)
    assert any(isinstance(m, CellFrame) and m.full for m in received)
    assert daemon.running, "the daemon's loop survived"
