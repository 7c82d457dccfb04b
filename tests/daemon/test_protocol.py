"""The socket protocol against the real daemon: handshake, versions and bad input.

A client of another protocol version gets a `Refused` that says what to do; garbage on the
socket ends that one connection and nothing else.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from adapters.ipc import framing
from adapters.ipc.messages import PROTOCOL_VERSION, Hello, Request
from core.version import VERSION
from idea_tui.control import CommandFailed, VersionMismatch
from idea_tui.gateway import Gateway
from tests.daemon.conftest import CliRunner
from tests.helpers.daemon import InProcessDaemon

TIMEOUT = 5.0


def raw_connect(daemon: InProcessDaemon) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(TIMEOUT)
    sock.connect(str(daemon.locations.socket))
    return sock


def read_reply(sock: socket.socket) -> dict[str, Any]:
    body = framing.recv_frame(sock)
    assert body is not None, "the daemon closed the connection without an answer"
    return framing.peek_handshake(body)


def closed_by_daemon(sock: socket.socket) -> bool:
    """Whether the daemon ended the connection (reads until EOF, at most TIMEOUT)."""
    try:
        while chunk := sock.recv(65536):
            del chunk
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return True


def test_a_hello_of_another_protocol_is_refused_with_a_reason(daemon: InProcessDaemon) -> None:
    with raw_connect(daemon) as sock:
        sock.sendall(framing.encode(Hello(protocol=999, client_version="9.0.0")))
        reply = read_reply(sock)
        assert reply == {
            "t": "refused", "protocol": PROTOCOL_VERSION, "daemon_version": VERSION,
            "reason": f"protocol 999 is not the daemon's protocol {PROTOCOL_VERSION}",
        }
        assert closed_by_daemon(sock)


def test_a_future_hello_with_unknown_fields_is_still_understood(
        daemon: InProcessDaemon) -> None:
    hello = {"t": "hello", "protocol": 7, "client_version": "7.0", "capabilities": [1, 2]}
    body = msgspec.msgpack.encode(hello)
    with raw_connect(daemon) as sock:
        sock.sendall(struct.pack("!I", len(body)) + body)
        reply = read_reply(sock)
        assert reply["t"] == "refused" and "protocol 7" in reply["reason"]


@pytest.fixture
def newer_daemon(daemon: InProcessDaemon, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The running daemon pretends to be version 9.9.9 speaking the next protocol."""
    monkeypatch.setattr("idea_daemon.server.PROTOCOL_VERSION", PROTOCOL_VERSION + 1)
    monkeypatch.setattr(daemon.server, "version", "9.9.9")
    yield


@pytest.mark.usefixtures("newer_daemon")
def test_control_client_reports_a_version_mismatch_with_what_to_do(
        daemon: InProcessDaemon) -> None:
    with pytest.raises(VersionMismatch) as caught:
        daemon.client()
    error = caught.value
    assert (error.daemon_version, error.daemon_protocol) == ("9.9.9", PROTOCOL_VERSION + 1)
    message = str(error)
    assert f"version 9.9.9 (protocol {PROTOCOL_VERSION + 1})" in message
    assert f"this idea is {VERSION} (protocol {PROTOCOL_VERSION})" in message
    assert "idea kill-server" in message


@pytest.mark.usefixtures("newer_daemon")
def test_gateway_reports_a_version_mismatch(daemon: InProcessDaemon) -> None:
    async def connect() -> None:
        await Gateway.connect(daemon.locations, window=None, width=80, height=24)

    with pytest.raises(VersionMismatch, match=r"version 9\.9\.9"):
        asyncio.run(connect())


@pytest.mark.usefixtures("newer_daemon")
def test_the_command_line_prints_the_mismatch_not_a_traceback(run_cli: CliRunner) -> None:
    result = run_cli("ls")
    assert result.code == 1
    assert result.err.startswith("idea: the running idea daemon is version 9.9.9")
    assert "Traceback" not in result.err


GARBAGE = {
    "text instead of frames": b"GET / HTTP/1.0\r\n\r\n",
    "a huge length header": b"\xff\xff\xff\xff" + b"x" * 64,
    "a body that is not msgpack": struct.pack("!I", 4) + b"\xc1\xc1\xc1\xc1",
    "a frame that is not a map": struct.pack("!I", 1) + b"\x07",
    "a request before the hello": framing.encode(Request(id=1, method="ls")),
    "a header cut short": b"\x00\x00",
    "a frame cut short": struct.pack("!I", 100) + b"abc",
}


@pytest.mark.parametrize("case", list(GARBAGE))
def test_garbage_ends_only_that_connection(daemon: InProcessDaemon, case: str) -> None:
    with daemon.client() as bystander:
        assert bystander.call("version")["version"] == VERSION
        with raw_connect(daemon) as sock:
            sock.sendall(GARBAGE[case])
            if case.endswith("cut short"):
                sock.shutdown(socket.SHUT_WR)
            assert closed_by_daemon(sock)
        # The connection that was open before still works, and new ones too.
        assert bystander.call("version")["version"] == VERSION
    with daemon.client() as fresh:
        assert fresh.call("ls")["windows"] == []
    assert daemon.running


def test_garbage_after_a_good_hello_ends_that_connection(daemon: InProcessDaemon) -> None:
    with raw_connect(daemon) as sock:
        sock.sendall(framing.encode(Hello(protocol=PROTOCOL_VERSION, client_version=VERSION,
                                          kind="control")))
        assert read_reply(sock)["t"] == "welcome"
        sock.sendall(struct.pack("!I", 3) + b"\x93\x01\x02")  # an array, not a message
        assert closed_by_daemon(sock)
    with daemon.client() as fresh:
        assert fresh.call("version")["protocol"] == PROTOCOL_VERSION


def test_an_unknown_command_is_an_error_with_its_own_code(daemon: InProcessDaemon) -> None:
    with daemon.client() as client:
        with pytest.raises(CommandFailed) as caught:
            client.call("frobnicate", x=1)
        assert caught.value.code == "unknown_command"
        assert str(caught.value) == "unknown command: frobnicate"
        # The connection survives a failed command.
        assert client.call("version")["version"] == VERSION


def test_bad_parameters_are_errors_not_crashes(daemon: InProcessDaemon, tmp_path: Path) -> None:
    with daemon.client() as client:
        client.call("project_new", path=str(tmp_path))
        with pytest.raises(CommandFailed) as caught:
            client.call("split", direction="diagonal")
        assert caught.value.code == "error"
        assert "direction must be one of right, left, down, up" in str(caught.value)
        with pytest.raises(CommandFailed) as caught:
            client.call("capture", target=42)
        assert str(caught.value) == "target must be a string"
        with pytest.raises(CommandFailed) as caught:
            client.call("set_border")  # no container
        assert caught.value.code == "bad_request"
        with pytest.raises(CommandFailed) as caught:
            client.call("split", target="%ffffffff")
        assert caught.value.code == "not_found"
        assert len(client.call("list_cells")) == 1
