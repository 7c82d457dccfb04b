"""The channel between the daemon and its MCP worker process (`adapters/mcp/worker.py`).

The worker runs the mcp SDK — JSON-RPC validation, streams, the tools' argument models,
uvicorn — and reaches the daemon's delegation service through this channel: one small frame
per tool call and one per answer. The daemon's loop decodes a frame and runs the call; none
of the SDK's per-call work (about 2 ms of Python a call) runs in the daemon's process, and
no thread of the daemon competes with its loop for the interpreter lock.

Frames are length-prefixed msgpack (`adapters.ipc.framing`'s header) of the tagged structs
below, over a socketpair the daemon made. Only the SDK side (the worker) and the daemon's
host (`idea_daemon/orchestration/mcp_host.py`) speak it; it never leaves the machine.
"""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

import msgspec

from adapters.ipc.framing import encode as encode_frame
from adapters.ipc.framing import read_frame
from adapters.mcp.identity import Caller

MAX_CHANNEL_FRAME = 64 * 1024 * 1024
"""A task or a reply is at most a million characters (4 MB of UTF-8); anything far larger
is a broken peer."""


class _Frame(msgspec.Struct, tag_field="op", array_like=False, omit_defaults=True):
    pass


class Who(msgspec.Struct, frozen=True):
    """A caller on the wire."""

    agent_id: str
    name: str
    project_root: str

    @classmethod
    def of(cls, caller: Caller) -> Who:
        return cls(caller.agent_id, caller.name, caller.project_root)

    def caller(self) -> Caller:
        return Caller(self.agent_id, self.name, self.project_root)


# ─── daemon → worker ─────────────────────────────────────────────────────────────────────


class Grant(_Frame, tag="grant"):
    """An agent's secret was issued (a launch): the worker accepts it from now on."""

    secret: str
    caller: Who


class Serve(_Frame, tag="serve"):
    """The answer to `Hello`: what the daemon's service offers (method paths such as `ask`
    or `knowledge.memory_read`; the worker registers the tools of the ports it finds) and
    the secrets issued so far."""

    methods: list[str]
    secrets: list[Grant] = msgspec.field(default_factory=list)


class Revoke(_Frame, tag="revoke"):
    """The agent's secret stopped working (it exited)."""

    caller: Who


class Result(_Frame, tag="result"):
    id: int
    value: Any = None


class Failure(_Frame, tag="failure"):
    """The call raised an error meant for the model (an `IdeaError`): its message."""

    id: int
    message: str
    code: str = ""


class Progress(_Frame, tag="progress"):
    """A blocking ask still waits: what its caller's progress notification says."""

    id: int
    message: str


class Synced(_Frame, tag="synced"):
    """The answer to `Sync`: every frame sent before it was sent before it."""

    id: int


# ─── worker → daemon ─────────────────────────────────────────────────────────────────────


class Hello(_Frame, tag="hello"):
    """The worker started (the SDK not loaded yet): it asks what to serve."""


class Ready(_Frame, tag="ready"):
    """The SDK is loaded and both listeners serve (or `error` says why not)."""

    error: str = ""


class Call(_Frame, tag="call"):
    """Run `method` (a path among `Serve.methods`) for `caller` with `args`; `progress`,
    when not -1, is the index in `args` of a progress callback (an ask's): the daemon puts
    one there that sends Progress frames."""

    id: int
    caller: Who
    method: str
    args: list[Any]
    progress: int = -1


class Cancel(_Frame, tag="cancel"):
    """The tool call was cancelled (Esc in the CLI, a client gone): cancel its run."""

    id: int


class Sync(_Frame, tag="sync"):
    """Answer with `Synced` (the worker has then read every grant sent before)."""

    id: int


class Connected(_Frame, tag="connected"):
    """An agent's MCP client connected (its first task can be delivered, DLG-10)."""

    caller: Who


class Log(_Frame, tag="log"):
    """A log record of the worker, for the daemon's log."""

    level: int
    name: str
    message: str


ToWorker = Serve | Grant | Revoke | Result | Failure | Progress | Synced
ToDaemon = Hello | Ready | Call | Cancel | Sync | Connected | Log

_to_worker: msgspec.msgpack.Decoder[ToWorker] = msgspec.msgpack.Decoder(ToWorker)
_to_daemon: msgspec.msgpack.Decoder[ToDaemon] = msgspec.msgpack.Decoder(ToDaemon)


class ChannelError(Exception):
    """The peer sent something that is not a frame of the channel."""


def encode(frame: _Frame) -> bytes:
    """A length-prefixed frame (the socket protocol's framing)."""
    return encode_frame(frame)


def decode_to_worker(body: bytes) -> ToWorker:
    return _decode(_to_worker, body)


def decode_to_daemon(body: bytes) -> ToDaemon:
    return _decode(_to_daemon, body)


T = TypeVar("T")


def _decode(decoder: msgspec.msgpack.Decoder[T], body: bytes) -> T:
    try:
        return decoder.decode(body)
    except msgspec.DecodeError as exc:
        raise ChannelError(str(exc)) from exc


async def read_body(reader: asyncio.StreamReader) -> bytes | None:
    """The next frame's body, None at the end of the stream."""
    try:
        return await read_frame(reader, MAX_CHANNEL_FRAME)
    except Exception as exc:  # FrameError, a reset: the channel is unusable
        raise ChannelError(str(exc)) from exc


def plain(value: Any) -> Any:
    """A call's result as msgpack can carry it (a dataclass such as AskOutcome as a map)."""
    return msgspec.to_builtins(value)
