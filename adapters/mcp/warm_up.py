"""What the mcp SDK (and the anyio and uvicorn under it) would otherwise import or set up
the first time an agent connects: done once, when the MCP worker starts.

A first-time import runs on the thread that asks for it. The SDK asks for a few modules
lazily — anyio's socket and stream modules on the first session, Rich when a server is
built — and on a serving loop each holds every connection for as long as it takes (a second
for Rich on a loaded machine). `warm_up` is called by the MCP worker (`adapters/mcp/
worker.py`) before the server is built or served.

Rich: `MCPServer` configures the process's logging when it is built, importing Rich to make
a `RichHandler` that `logging.basicConfig` then drops, because the worker's root logger has
its handler already (its records go to the daemon's log). `warm_up` turns that off (idea
never loads Rich there), so building a server costs what the server costs.
"""

from __future__ import annotations

import importlib
from typing import Literal

from mcp.server.mcpserver import server as sdk_server

Level = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]

LAZY_MODULES = (
    "anyio._core._sockets",
    "anyio._core._streams",
    "anyio.streams.stapled",
    "anyio.streams.tls",
    "adapters.mcp.config",
)
"""Imported by the first session, not when the SDK is (found by `bench/bench_loop.py`'s
first-use phase, which lists the modules the loop imported)."""


def _leave_logging_alone(level: Level = "INFO") -> None:
    """What `basicConfig` did there for a program that has a root handler: nothing."""


def keep_our_logging() -> None:
    """From now on, a new `MCPServer` leaves logging as the program configured it."""
    # The server module calls the name it imported from its logging utilities.
    setattr(sdk_server, "configure_logging", _leave_logging_alone)  # noqa: B010


def warm_up() -> None:
    """Import what the first session needs and keep the SDK off the logging (a worker
    thread's job: this takes a while)."""
    keep_our_logging()
    for name in LAZY_MODULES:
        importlib.import_module(name)
