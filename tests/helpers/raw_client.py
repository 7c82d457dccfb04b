"""`RawClient`: a client speaking the socket protocol by hand, recording every message.

Tests use it to see exactly what the daemon sends an attached client (scenes, frames,
titles, notices) and to pipeline requests without waiting for answers, which neither the
Textual client nor the blocking `ControlClient` can do.
"""

from __future__ import annotations

import itertools
import socket
import time
from collections.abc import Callable
from typing import Any

from adapters.ipc import framing
from adapters.ipc.messages import PROTOCOL_VERSION, DaemonMessage, Hello, Request, Response
from core.version import VERSION
from tests.helpers.retry import DEFAULT_TIMEOUT, WaitTimeout


class RawClient:
    """One connection to a daemon socket; `kind` "tui" attaches to a window."""

    def __init__(self, socket_path: str, *, kind: str = "tui", width: int = 100,
                 height: int = 30, window: str | None = None) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(DEFAULT_TIMEOUT)
        self.sock.connect(socket_path)
        self.messages: list[DaemonMessage] = []
        self._ids = itertools.count(1)
        self.send(Hello(protocol=PROTOCOL_VERSION, client_version=VERSION, kind=kind,
                        width=width, height=height, window=window))

    def __enter__(self) -> RawClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.sock.close()

    def send(self, message: Any) -> None:
        self.sock.sendall(framing.encode(message))

    def request(self, method: str, **params: Any) -> int:
        """Send a request without waiting for its answer; returns its id."""
        request_id = next(self._ids)
        self.send(Request(id=request_id, method=method, params=params))
        return request_id

    def receive(self, timeout: float) -> DaemonMessage | None:
        """The next message, or None when none came within `timeout` seconds."""
        self.sock.settimeout(max(timeout, 0.001))
        try:
            body = framing.recv_frame(self.sock)
        except TimeoutError:
            return None
        if body is None:
            raise ConnectionError("the daemon closed the connection")
        message = framing.decode_daemon(body)
        self.messages.append(message)
        return message

    def wait_for(self, predicate: Callable[[DaemonMessage], bool],
                 timeout: float = DEFAULT_TIMEOUT) -> DaemonMessage:
        """The first message received so far, or read from now on, that satisfies
        `predicate` (all are kept in `messages`)."""
        found = next((m for m in self.messages if predicate(m)), None)
        if found is not None:
            return found
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            message = self.receive(left)
            if message is not None and predicate(message):
                return message
        kinds = [type(m).__name__ for m in self.messages[-20:]]
        raise WaitTimeout(f"no such message within {timeout:g} s; last seen: {kinds}")

    def answer(self, request_id: int, timeout: float = DEFAULT_TIMEOUT) -> Response:
        """Wait for the answer to a request sent with `request`."""
        found = next((m for m in self.messages
                      if isinstance(m, Response) and m.id == request_id), None)
        if found is not None:
            return found
        message = self.wait_for(lambda m: isinstance(m, Response) and m.id == request_id,
                                timeout)
        assert isinstance(message, Response)
        return message

    def call(self, method: str, **params: Any) -> Any:
        """Send a request and return its result (an error fails the test)."""
        response = self.answer(self.request(method, **params))
        assert response.error is None, f"{method}: {response.error}"
        return response.result
