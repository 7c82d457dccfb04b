"""A command's new scene reaches the client before its answer does.

The client holds the keys typed after an action's key until the action's answer; the
answer must therefore find the client already showing the new focus (see
`IdeaApp._run_key_action`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from adapters.ipc.messages import DaemonMessage, Scene
from idea_tui.gateway import Gateway
from tests.helpers.daemon import InProcessDaemon


def test_split_and_select_answer_after_their_scene(daemon: InProcessDaemon,
                                                   tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    with daemon.client() as control:
        control.call("project_new", path=str(project))

    async def scenario() -> tuple[Scene, Scene]:
        gateway = await Gateway.connect(daemon.locations, window=None, width=100, height=30)
        received: list[DaemonMessage] = []
        gateway.on_message = received.append
        gateway.start()
        try:
            for _ in range(200):
                if any(isinstance(m, Scene) and m.cells for m in received):
                    break
                await asyncio.sleep(0.05)
            await gateway.call("split", direction="right")
            after_split = [m for m in received if isinstance(m, Scene)][-1]
            await gateway.call("select", direction="left")
            after_select = [m for m in received if isinstance(m, Scene)][-1]
            return after_split, after_select
        finally:
            await gateway.close()

    after_split, after_select = asyncio.run(scenario())
    assert len(after_split.cells) == 2
    focused = [cell.index for cell in after_split.cells if cell.focused]
    assert focused == [1], "the new cell has the focus when the split is answered"
    assert after_select.focused == next(c.id for c in after_select.cells if c.index == 0)
