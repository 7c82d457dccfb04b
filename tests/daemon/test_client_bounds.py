"""Client-supplied sizes and counts are bounded (issue 7): a window of 10^9 cells, an
environment of thousands of variables, a NaN or endless timeout, a megabyte pattern. The
daemon clamps or refuses them with a message, stays responsive, and its screens stay sane."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from adapters.ipc import framing
from adapters.ipc.messages import PROTOCOL_VERSION, ClientSize, Hello
from core.limits import MAX_COLUMNS, MAX_ENV_VARIABLES, MAX_ROWS, bounded_env, wait_seconds
from core.version import VERSION
from idea_tui.control import CommandFailed
from tests.helpers.daemon import InProcessDaemon
from tests.helpers.retry import retry_until

HUGE = 10**9


def attach(daemon: InProcessDaemon, width: int, height: int,
           env: dict[str, str] | None = None) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(20)
    sock.connect(str(daemon.locations.socket))
    sock.sendall(framing.encode(Hello(protocol=PROTOCOL_VERSION, client_version=VERSION,
                                      kind="tui", width=width, height=height, env=env or {})))
    body = framing.recv_frame(sock)
    assert body is not None and framing.peek_handshake(body)["t"] == "welcome"
    return sock


def cell_sizes(daemon: InProcessDaemon) -> list[tuple[int, int]]:
    with daemon.client() as client:
        cells: list[dict[str, Any]] = client.call("list_cells")
    return [(cell["cols"], cell["rows"]) for cell in cells]


def test_a_huge_window_is_clamped(daemon: InProcessDaemon, tmp_path: Path) -> None:
    with daemon.client() as client:
        client.call("project_new", path=str(tmp_path))
    def wider_than(width: int) -> list[tuple[int, int]] | None:
        sizes = cell_sizes(daemon)
        return sizes if sizes and sizes[0][0] > width else None

    with attach(daemon, HUGE, HUGE):
        [(cols, rows)] = retry_until(lambda: wider_than(80), 20,
                                     describe=lambda: str(cell_sizes(daemon)))
        assert cols <= MAX_COLUMNS and rows <= MAX_ROWS
    with attach(daemon, 100, 30) as sock:
        retry_until(lambda: cell_sizes(daemon)[0][0] == 100 or None, 20,
                    describe=lambda: str(cell_sizes(daemon)))
        sock.sendall(framing.encode(ClientSize(width=HUGE, height=-5)))
        [(cols, rows)] = retry_until(lambda: wider_than(100), 20,
                                     describe=lambda: str(cell_sizes(daemon)))
        assert cols <= MAX_COLUMNS and 1 <= rows <= MAX_ROWS
    assert daemon.running


def test_a_huge_environment_is_cut_down() -> None:
    env = {f"V{i}": "x" for i in range(10_000)}
    env["BIG"] = "y" * 10**6
    env["A=B"] = "no"
    kept = bounded_env(env)
    assert len(kept) == MAX_ENV_VARIABLES
    assert "BIG" not in kept and "A=B" not in kept


def test_a_huge_hello_environment_leaves_the_daemon_working(
        daemon: InProcessDaemon, tmp_path: Path) -> None:
    with daemon.client() as client:
        client.call("project_new", path=str(tmp_path))
    env = {f"V{i}": "x" * 100 for i in range(5_000)}  # ~0.6 MB: under the Hello limit
    with attach(daemon, 80, 24, env), daemon.client() as client:
        assert client.call("version")["version"] == VERSION
    assert daemon.running


@pytest.mark.parametrize("timeout", ["nan", "inf", -1, "soon", True])
def test_a_capture_timeout_that_is_not_a_duration_is_refused(
        daemon: InProcessDaemon, tmp_path: Path, timeout: object) -> None:
    with daemon.client() as client:
        client.call("project_new", path=str(tmp_path))
        with pytest.raises(CommandFailed) as caught:
            client.call("capture", wait="never-shows", timeout=timeout)
        assert "--timeout must be a number" in str(caught.value)
        with pytest.raises(CommandFailed) as caught:
            client.call("capture", wait="x" * 100_000, timeout=1)
        assert "longer than" in str(caught.value)
        assert client.call("version")["version"] == VERSION


def test_wait_seconds_bounds() -> None:
    assert wait_seconds(2) == 2.0 and wait_seconds("1.5") == 1.5
    assert wait_seconds(1e12) == 24 * 3600.0
    assert wait_seconds(float("nan")) is None and wait_seconds(None) is None
