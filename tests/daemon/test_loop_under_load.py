"""The loop never stalls: while one client drags a border in a burst, a program floods its
cell with titles and a slow command waits on the same connection, another cell's echo still
comes back, and each of those ends as it should. Behaviour only: no timing is asserted
(`bench/bench_loop.py` prints the figures)."""

from __future__ import annotations

from pathlib import Path

from adapters.ipc.messages import (
    CellFrame,
    CellTitle,
    DaemonMessage,
    RawInput,
    Response,
    Scene,
)
from tests.helpers.daemon import InProcessDaemon
from tests.helpers.idea import PROMPT_RE
from tests.helpers.raw_client import RawClient
from tests.helpers.retry import retry_until

FLOOD = "for i in $(seq 1 3000); do printf '\\033]2;flood %d\\007' $i; done; echo flood-done"


def frame_text(message: DaemonMessage, cell: str) -> str:
    if not isinstance(message, CellFrame) or message.cell != cell:
        return ""
    return "\n".join("".join(run[0] for run in runs) for _y, runs in message.lines)


def shows_title(message: DaemonMessage, cell: str, title: str) -> bool:
    """A title reaches a client alone (`CellTitle`) or in a scene another change sent."""
    if isinstance(message, CellTitle):
        return message.cell == cell and message.title == title
    if isinstance(message, Scene):
        return any(info.id == cell and info.title == title for info in message.cells)
    return False


def widths(client: RawClient) -> list[int]:
    return [cell["cols"] for cell in client.call("list_cells")]


def test_echo_keeps_coming_under_layout_bursts_title_floods_and_a_slow_command(
        daemon: InProcessDaemon, tmp_path: Path) -> None:
    project = tmp_path / "web"
    project.mkdir()
    service = daemon.server.service
    assert service is not None
    with RawClient(str(daemon.locations.socket), width=120, height=30) as client:
        client.call("project_new", path=str(project))
        client.call("split", direction="right")
        client.call("split", direction="right")
        echo_cell, flood_cell, _third = (cell["id"] for cell in client.call("list_cells"))
        client.call("capture", target=f"%{flood_cell}", wait=PROMPT_RE, timeout=30)
        border = next(iter(service.projects.values()))
        geometry = service.lookups.page_geometry(border, border.active.id).borders[0]
        before_drag = widths(client)
        writes = service.persistence.layout_saver.writes

        # All at once, on the one connection: a title flood, a command that waits a
        # minute, a burst of 150 border moves (one drag), then keys for the echo cell.
        client.call("send_keys", target=f"%{flood_cell}", keys=[FLOOD, "Enter"])
        slow = client.request("capture", target=f"%{echo_cell}", wait="never shown",
                              timeout=60)
        moves = [client.request("set_border", container=geometry.container_id,
                                index=geometry.index, position=10 + n % 60, vertical=True,
                                drag="burst") for n in range(150)]
        client.send(RawInput(cell=echo_cell, data=b"echo echo-$((6*7))\r"))

        client.wait_for(lambda m: "echo-42" in frame_text(m, echo_cell))
        assert not any(isinstance(m, Response) and m.id == slow for m in client.messages), \
            "the slow command is still waiting: it did not hold up the keys"
        for move in moves:
            assert client.answer(move).error is None
        client.wait_for(lambda m: shows_title(m, flood_cell, "flood 3000"))
        client.wait_for(lambda m: "flood-done" in frame_text(m, flood_cell))

        # The burst was one undo step and a few writes, not 150.
        retry_until(lambda: not service.persistence.layout_saver.pending)
        assert service.persistence.layout_saver.writes - writes < 10
        client.call("undo")
        assert widths(client) == before_drag
        stats = client.call("loop_stats")
        assert stats["turns"] > 0
    # The client left: its waiting command went with it.
    session = service.lookups.session_of(service.lookups.find_cell(echo_cell))
    assert session is not None
    retry_until(lambda: session.waiting == 0)
