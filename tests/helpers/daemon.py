"""`InProcessDaemon`: the real daemon (`idea_daemon.bootstrap.build`) served from a thread.

The daemon's asyncio loop runs in a background thread of the test process, so a test can
talk to it with the blocking `ControlClient`, raw sockets or the CLI's `main()` from the
main thread, and reach into `server` to change what it needs (a protocol version, say).
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from adapters.locations import Locations, ensure_dirs, locate
from idea_daemon.bootstrap import build
from idea_daemon.server import DaemonServer
from idea_tui.control import ControlClient

START_TIMEOUT = 10.0


class InProcessDaemon:
    """A daemon serving `IDEA_HOME=home` until `stop()`."""

    def __init__(self, home: Path) -> None:
        self.locations: Locations = locate({"IDEA_HOME": str(home)})
        ensure_dirs(self.locations)
        self.server: DaemonServer = build(self.locations)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="idea-daemon", daemon=True)

    def start(self) -> InProcessDaemon:
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT):
            raise AssertionError("the in-process daemon did not start")
        if self._error is not None:
            raise AssertionError("the in-process daemon failed to start") from self._error
        return self

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # reported by start() or stop()
            self._error = exc
            self._ready.set()

    async def _serve(self) -> None:
        self.loop = asyncio.get_running_loop()
        service = self.server.service
        assert service is not None
        service.restore(self.loop)
        await self.server.start()
        self._ready.set()
        await self.server.stopped.wait()
        service.shutdown()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def client(self) -> ControlClient:
        return ControlClient.connect(self.locations)

    def stop(self) -> None:
        """Stop serving, end every shell, and surface a crash of the loop as a failure."""
        if self.loop is not None and self._thread.is_alive():
            self.loop.call_soon_threadsafe(self.server.request_stop, "the test ended")
        self._thread.join(START_TIMEOUT)
        if self._thread.is_alive():
            raise AssertionError("the in-process daemon did not stop")
        if self._error is not None:
            raise AssertionError("the in-process daemon crashed") from self._error
