"""The most recently active client's size wins (tmux `window-size latest`), and a client
that merely repeats its own size is not active: the attach test of CI once saw the first,
bigger client take the window back after the second attached, because its first-run check
ended late and re-sent the size it already had."""

from __future__ import annotations

import itertools
import socket
from pathlib import Path
from typing import Any

from adapters.ipc import framing
from adapters.ipc.messages import ClientSize, Request, Response
from tests.daemon.test_client_bounds import attach
from tests.helpers.daemon import InProcessDaemon
from tests.helpers.retry import retry_until

_ids = itertools.count(1)


def first_cell_cols(daemon: InProcessDaemon) -> int:
    with daemon.client() as client:
        cells: list[dict[str, Any]] = client.call("list_cells")
    return int(cells[0]["cols"])


def barrier(sock: socket.socket) -> None:
    """A request on the same connection: once answered, everything sent before it was read
    (the daemon handles one client's messages in order)."""
    wanted = next(_ids)
    sock.sendall(framing.encode(Request(id=wanted, method="version")))
    while True:
        body = framing.recv_frame(sock)
        assert body is not None, "the daemon closed the connection"
        message = framing.decode_daemon(body)
        if isinstance(message, Response) and message.id == wanted:
            assert message.error is None, message.error
            return


def test_repeating_its_own_size_does_not_make_a_client_the_latest(
        daemon: InProcessDaemon, tmp_path: Path) -> None:
    with daemon.client() as client:
        client.call("project_new", path=str(tmp_path))
    with attach(daemon, 120, 33) as big:
        retry_until(lambda: first_cell_cols(daemon) == 120 or None, 20,
                    describe=lambda: str(first_cell_cols(daemon)))
        with attach(daemon, 90, 23):
            retry_until(lambda: first_cell_cols(daemon) == 90 or None, 20,
                        describe=lambda: str(first_cell_cols(daemon)))
            big.sendall(framing.encode(ClientSize(width=120, height=33)))
            barrier(big)
            assert first_cell_cols(daemon) == 90
            # A real change of the big terminal is activity: it takes the window.
            big.sendall(framing.encode(ClientSize(width=110, height=33)))
            barrier(big)
            assert first_cell_cols(daemon) == 110
