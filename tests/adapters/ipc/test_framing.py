"""Frames of the client ⇄ daemon protocol."""

from __future__ import annotations

import asyncio
import socket

import pytest

from adapters.ipc import framing
from adapters.ipc.messages import CellFrame, Hello, KeyInput, Refused, Request


def test_messages_round_trip() -> None:
    frame = CellFrame(cell="c", cols=3, rows=1, lines=[(0, (("abc", -1, 2, 1),))],
                      cursor=(1, 0, True, 2), full=True)
    body = framing.encode(frame)[framing.HEADER.size:]
    assert framing.decode_daemon(body) == frame
    key = KeyInput(cell="c", key="ctrl+a")
    assert framing.decode_client(framing.encode(key)[framing.HEADER.size:]) == key


def test_handshake_is_readable_whatever_the_version() -> None:
    body = framing.encode(Hello(protocol=999, client_version="9.9"))[framing.HEADER.size:]
    assert framing.peek_handshake(body)["protocol"] == 999
    refused = framing.encode(Refused(protocol=1, daemon_version="x", reason="r"))
    assert framing.peek_handshake(refused[framing.HEADER.size:])["t"] == "refused"


def test_garbage_is_a_frame_error() -> None:
    with pytest.raises(framing.FrameError):
        framing.decode_client(b"\xc1\xc1")
    with pytest.raises(framing.FrameError):
        framing.decode_client(framing.encode({"t": "nope"})[framing.HEADER.size:])
    with pytest.raises(framing.FrameError):
        framing.peek_handshake(framing.encode([1, 2])[framing.HEADER.size:])


def test_blocking_and_async_readers_agree() -> None:
    left, right = socket.socketpair()
    message = Request(id=1, method="ls")
    left.sendall(framing.encode(message) + framing.encode(message))
    assert framing.decode_client(framing.recv_frame(right) or b"") == message

    async def read_async() -> bytes | None:
        reader, writer = await asyncio.open_connection(sock=right)
        body = await framing.read_frame(reader)
        writer.close()
        return body

    assert framing.decode_client(asyncio.run(read_async()) or b"") == message
    left.close()


def test_oversized_length_is_refused_before_allocating() -> None:
    left, right = socket.socketpair()
    left.sendall(framing.HEADER.pack(framing.MAX_FRAME + 1))
    with pytest.raises(framing.FrameError, match="exceeds"):
        framing.recv_frame(right)
    left.close()
    right.close()


def test_truncated_frame_is_an_error_not_a_hang() -> None:
    left, right = socket.socketpair()
    left.sendall(framing.encode(Request(id=1, method="ls"))[:-2])
    left.close()
    with pytest.raises(framing.FrameError):
        framing.recv_frame(right)
    right.close()
