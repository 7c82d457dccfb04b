"""Malformed traffic for the daemon's socket (issue 7), shared by the hypothesis test
(`tests/daemon/test_fuzz_socket.py`) and the long run (`bench/fuzz_socket.py`).

A *session* is what one connection sends: a list of byte chunks, each one of the kinds in
`KINDS`. Every builder takes a `random.Random`, so a hypothesis test draws the seed (and
shrinks it) and the bench script draws thousands from one seed; both reach the same shapes:
random bytes, a length prefix cut short, a huge length, valid msgpack of the wrong shape, a
wrong Hello, a message before the Hello, and a good Hello followed by bad messages.
"""

from __future__ import annotations

import random
import socket
import struct
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from adapters.ipc.framing import MAX_FRAME
from adapters.ipc.messages import PROTOCOL_VERSION, Hello, KeyInput, Request
from core.version import VERSION

_pack = msgspec.msgpack.Encoder().encode


def frame(body: bytes) -> bytes:
    return struct.pack("!I", len(body)) + body


def hello(**fields: Any) -> bytes:
    """A control Hello frame, with `fields` replacing or adding keys."""
    message = Hello(protocol=PROTOCOL_VERSION, client_version=VERSION, kind="control")
    return frame(_pack({**msgspec.to_builtins(message), **fields}))


def _value(rng: random.Random, depth: int = 0) -> Any:
    """A msgpack-able value of any shape (ints past 64 bits excluded: msgpack has none)."""
    choice = rng.randrange(9 if depth < 3 else 6)
    if choice == 0:
        return None
    if choice == 1:
        return rng.choice([True, False])
    if choice == 2:
        return rng.choice([0, -1, 1, 2**31, -(2**63), 2**64 - 1, rng.randrange(-999, 999)])
    if choice == 3:
        return rng.random() * rng.choice([1, 1e300, -1e-300])
    if choice == 4:
        return "".join(chr(rng.randrange(0, 0x2FFF)) for _ in range(rng.randrange(12)))
    if choice == 5:
        return rng.randbytes(rng.randrange(16))
    if choice == 6:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = ["t", "id", "method", "params", "cell", "key", "width", "height", "text", "x"]
    return {rng.choice(keys): _value(rng, depth + 1) for _ in range(rng.randrange(5))}


def random_bytes(rng: random.Random) -> bytes:
    return rng.randbytes(rng.randrange(1, 200))


def truncated_prefix(rng: random.Random) -> bytes:
    return struct.pack("!I", rng.randrange(1, 2**32))[: rng.randrange(1, 4)]


def huge_length(rng: random.Random) -> bytes:
    """A length far beyond what follows (up to 4 GiB): nothing may be allocated for it."""
    length = rng.choice([MAX_FRAME, MAX_FRAME + 1, 2**32 - 1, rng.randrange(2**20, 2**32)])
    return struct.pack("!I", length) + rng.randbytes(rng.randrange(32))


def wrong_shape(rng: random.Random) -> bytes:
    return frame(_pack(_value(rng)))


def wrong_hello(rng: random.Random) -> bytes:
    bad: dict[str, Any] = rng.choice([
        {"protocol": _value(rng)},
        {"width": _value(rng)}, {"height": rng.choice([-1, 0, 2**40, "80"])},
        {"env": _value(rng)}, {"kind": _value(rng)}, {"window": _value(rng)},
        {"cell": _value(rng)}, {"client_version": _value(rng)},
        {"t": rng.choice(["hello ", "HELLO", "req", "welcome"])},
    ])
    return hello(**{"kind": rng.choice(["control", "tui"]), **bad})


def before_hello(rng: random.Random) -> bytes:
    # Harmless methods: chunks share a connection, so after an earlier good Hello this is
    # a real request (a `kill_server` there would stop the daemon as asked).
    message: Any = rng.choice([Request(id=1, method="ls"), Request(id=2, method="version"),
                               KeyInput(cell="x", key="enter")])
    return frame(_pack(message))


def bad_after_hello(rng: random.Random) -> bytes:
    """A good control Hello, then messages of the protocol with wrong values."""
    messages = [
        {"t": "req", "id": _value(rng), "method": _value(rng), "params": _value(rng)},
        # Reading commands with random parameters; commands that change something only
        # at a cell that does not exist (a random target could be the shell under test).
        {"t": "req", "id": 1, "method": rng.choice(["capture", "history", "ls", "list_cells"]),
         "params": {k: _value(rng) for k in ("target", "count", "start", "history", "wait")}},
        {"t": "req", "id": 1, "method": rng.choice(["split", "send_keys", "paste", "resize"]),
         "params": {"target": "%ffffffff",
                    **{k: _value(rng) for k in ("count", "keys", "text", "cells")}}},
        {"t": "key", "cell": _value(rng), "key": _value(rng)},
        {"t": "mouse", "cell": "x", "kind": _value(rng), "button": _value(rng), "x": 2**40,
         "y": -(2**40)},
        {"t": "size", "width": rng.choice([0, -5, 2**31, 2**40]), "height": _value(rng)},
        {"t": "paste", "cell": "x", "text": "x" * rng.randrange(100)},
        {"t": "hello", "protocol": PROTOCOL_VERSION, "client_version": "again"},
    ]
    return hello() + b"".join(frame(_pack(rng.choice(messages))) for _ in range(3))


KINDS: dict[str, Callable[[random.Random], bytes]] = {
    "random bytes": random_bytes,
    "truncated length prefix": truncated_prefix,
    "huge length": huge_length,
    "valid msgpack of a wrong shape": wrong_shape,
    "wrong hello": wrong_hello,
    "message before hello": before_hello,
    "bad messages after a good hello": bad_after_hello,
}


def session(rng: random.Random, frames: int) -> list[tuple[str, bytes]]:
    """What one connection sends: `frames` chunks of random kinds."""
    names = list(KINDS)
    chosen = [rng.choice(names) for _ in range(frames)]
    return [(name, KINDS[name](rng)) for name in chosen]


@dataclass
class Counts:
    """What a fuzz run did, by kind."""

    frames: Counter[str] = field(default_factory=Counter)
    connections: int = 0
    closed_by_daemon: int = 0
    send_errors: int = 0


def play(socket_path: Path, sessions: list[list[tuple[str, bytes]]], counts: Counts,
         timeout: float = 10.0) -> None:
    """Open one connection per session at once, send each session's chunks round-robin,
    then close our side and read until the daemon closes (or `timeout`)."""
    socks: list[socket.socket] = []
    try:
        for _ in sessions:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(timeout)
            sock.connect(str(socket_path))
            socks.append(sock)
            counts.connections += 1
        alive = [True] * len(socks)
        for step in range(max((len(s) for s in sessions), default=0)):
            for index, (sock, chunks) in enumerate(zip(socks, sessions, strict=True)):
                if step >= len(chunks) or not alive[index]:
                    continue
                name, data = chunks[step]
                counts.frames[name] += 1
                try:
                    sock.sendall(data)
                except OSError:
                    counts.send_errors += 1
                    alive[index] = False
        for sock in socks:
            try:
                sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        deadline = time.monotonic() + timeout
        for sock in socks:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                while sock.recv(65536):
                    pass
                counts.closed_by_daemon += 1
            except TimeoutError:
                pass
            except OSError:
                counts.closed_by_daemon += 1
    finally:
        for sock in socks:
            sock.close()


def attach_at(socket_path: Path, width: int = 100, height: int = 30) -> socket.socket:
    """An attached client of a sane size: fuzzed Hellos of kind `tui` resize the window
    (to one row, say) as any client may; the latest client's size wins, so this one gives
    the cells a screen to check again. Close it when done."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(str(socket_path))
    sock.sendall(hello(kind="tui", width=width, height=height))
    return sock


def rss_peak_kib(pid: int) -> int:
    """The peak resident memory of a process (VmHWM), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmHWM for pid {pid}")
