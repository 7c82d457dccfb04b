"""The daemon's command table: each command's name, parameter Struct, answer type and handler.

Like tmux's `cmd_table`, one entry per command; the composition root merges the entries of
each command module (`COMMANDS`) into the server's table. An entry names its parameter
Struct (`adapters.ipc.commands`) and its answer type (`adapters.ipc.answers`: a Struct, a
list of them, or None): the request's map is decoded into the parameters at the boundary,
and mypy checks the handler against both (`command("split", SplitParams, CellsAnswer,
split)` does not type-check if `split` takes other parameters or returns anything but a
`CellsAnswer`, or a coroutine of one). Every command has both: there is no entry that reads
the raw map or answers a free-form value (a handler that did would escape the checks).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from adapters.ipc.commands import BadParams, P, decode_params
from idea_daemon.client_connection import ClientConnection
from idea_daemon.errors import CommandError

if TYPE_CHECKING:
    from idea_daemon.server import DaemonServer

A = TypeVar("A")
"""A command's answer type."""

Handler = Callable[["DaemonServer", ClientConnection, P], A | Awaitable[A]]
"""A command's handler: its answer, or (a command that waits) a coroutine of it."""


@dataclass(frozen=True, slots=True)
class Command(Generic[P, A]):
    name: str
    params: type[P]
    answer: type[A]
    run: Handler[P, A]

    def invoke(self, server: DaemonServer, client: ClientConnection,
               params: dict[str, Any]) -> A | Awaitable[A]:
        """Run the handler on a request's parameters, decoded into the Struct first.

        Raises:
            CommandError: code `bad_request`, the parameters do not fit (names the field).
        """
        try:
            decoded = decode_params(self.params, params)
        except BadParams as exc:
            raise CommandError(str(exc), "bad_request") from None
        return self.run(server, client, decoded)


def command(name: str, params: type[P], answer: type[A], run: Handler[P, A]) -> Command[P, A]:
    return Command(name, params, answer, run)


def table(*parts: Mapping[str, Command[Any, Any]]) -> dict[str, Command[Any, Any]]:
    """Every command the daemon answers, by wire name (a name defined twice is a bug)."""
    merged: dict[str, Command[Any, Any]] = {}
    for part in parts:
        for name, entry in part.items():
            assert name not in merged, f"command {name} is defined twice"
            merged[name] = entry
    return merged


def entries(*commands: Command[Any, Any]) -> dict[str, Command[Any, Any]]:
    """A command module's table."""
    return {entry.name: entry for entry in commands}
