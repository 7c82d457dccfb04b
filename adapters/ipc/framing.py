"""Length-prefixed msgpack frames over a stream (asyncio or a blocking socket).

asyncio is not imported here (only named for mypy): the command-line client and the early
frame of an attach (`idea_tui.first_paint`) use blocking sockets and start faster without.
"""

from __future__ import annotations

import socket
import struct
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from adapters.ipc import msgpack_lite
from adapters.ipc.messages import ClientMessage, DaemonMessage

if TYPE_CHECKING:
    import asyncio

HEADER = struct.Struct("!I")
MAX_FRAME = 64 * 1024 * 1024  # a huge paste fits; a garbage length does not allocate GBs
MAX_HELLO = 1024 * 1024
"""The first frame of a connection: a Hello is small, so a peer that has not said who it is
cannot make the daemon buffer 64 MiB (per connection) before it does."""

T = TypeVar("T")

_encoder = msgspec.msgpack.Encoder()
_client_decoder = msgspec.msgpack.Decoder(ClientMessage)
_daemon_decoder = msgspec.msgpack.Decoder(DaemonMessage)


class FrameError(Exception):
    """A peer sent something that is not a frame of this protocol."""


def encode(message: Any) -> bytes:
    body = _encoder.encode(message)
    return HEADER.pack(len(body)) + body


def decode_client(body: bytes) -> ClientMessage:
    try:
        return _client_decoder.decode(body)
    except msgspec.DecodeError as exc:
        raise FrameError(f"bad client message: {exc}") from exc


def decode_daemon(body: bytes) -> DaemonMessage:
    try:
        return _daemon_decoder.decode(body)
    except msgspec.DecodeError as exc:
        raise FrameError(f"bad daemon message: {exc}") from exc


def peek_handshake(body: bytes) -> dict[str, Any]:
    """Decode a handshake frame loosely, so that a peer of another version is understood."""
    try:
        value = msgspec.msgpack.decode(body)
    except msgspec.DecodeError as exc:
        raise FrameError(f"bad handshake: {exc}") from exc
    if not isinstance(value, dict):
        raise FrameError("bad handshake: not a map")
    return value


async def read_frame(reader: asyncio.StreamReader, limit: int = MAX_FRAME) -> bytes | None:
    """The next frame body, or None at a clean end of stream; a frame over `limit` bytes
    is refused from its header, before anything is read or allocated for it."""
    # asyncio.IncompleteReadError is an EOFError (caught as such: asyncio is not imported).
    try:
        header = await reader.readexactly(HEADER.size)
    except EOFError as exc:
        if getattr(exc, "partial", b""):
            raise FrameError("connection closed inside a frame header") from exc
        return None
    (length,) = HEADER.unpack(header)
    if length > limit:
        raise FrameError(f"frame of {length} bytes exceeds the {limit} limit")
    try:
        return await reader.readexactly(length)
    except EOFError as exc:
        raise FrameError("connection closed inside a frame") from exc


def split_frames(buffer: bytearray, limit: int = MAX_FRAME) -> list[bytes]:
    """The complete frames at the start of `buffer`, removed from it (a partial one stays
    for the next read); a frame over `limit` bytes is refused from its header. The one
    splitter is msgpack_lite's (the early attach path reads frames before msgspec loads)."""
    try:
        return msgpack_lite.split_frames(buffer, limit)
    except msgpack_lite.LiteError as exc:
        raise FrameError(str(exc)) from None


def _recv_exactly(sock: socket.socket, size: int) -> bytes | None:
    chunks = bytearray()
    while len(chunks) < size:
        chunk = sock.recv(size - len(chunks))
        if not chunk:
            if chunks:
                raise FrameError("connection closed inside a frame")
            return None
        chunks += chunk
    return bytes(chunks)


def recv_frame(sock: socket.socket) -> bytes | None:
    """Blocking variant of `read_frame` for the command-line client."""
    header = _recv_exactly(sock, HEADER.size)
    if header is None:
        return None
    (length,) = HEADER.unpack(header)
    if length > MAX_FRAME:
        raise FrameError(f"frame of {length} bytes exceeds the {MAX_FRAME} limit")
    body = _recv_exactly(sock, length)
    if body is None:
        raise FrameError("connection closed inside a frame")
    return body
