"""The daemon's command table: each command's name, parameter Struct and handler.

Like tmux's `cmd_table`, one entry per command; the composition root merges the entries of
each command module (`COMMANDS`) into the server's table. A typed entry names its parameter
Struct (`adapters.ipc.commands`): the request's map is decoded into it at the boundary, and
mypy checks the handler against it (`command("split", SplitParams, split)` does not type-check
if `split` takes other parameters). An entry without a Struct (`untyped`) gets the raw map.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic

from adapters.ipc.commands import BadParams, P, Params, decode_params
from idea_daemon.client_connection import ClientConnection
from idea_daemon.errors import CommandError

if TYPE_CHECKING:
    from idea_daemon.server import DaemonServer

RawHandler = Callable[["DaemonServer", ClientConnection, dict[str, Any]], Any]


@dataclass(frozen=True, slots=True)
class Command(Generic[P]):
    name: str
    params: type[P] | None
    run: Callable[[DaemonServer, ClientConnection, P], Any]
    raw: RawHandler | None = None

    def invoke(self, server: DaemonServer, client: ClientConnection,
               params: dict[str, Any]) -> Any:
        """Run the handler on a request's parameters (decoded first when typed).

        Raises:
            CommandError: code `bad_request`, the parameters do not fit (names the field).
        """
        if self.raw is not None:
            return self.raw(server, client, params)
        assert self.params is not None
        try:
            decoded = decode_params(self.params, params)
        except BadParams as exc:
            raise CommandError(str(exc), "bad_request") from None
        return self.run(server, client, decoded)


def command(name: str, params: type[P],
            run: Callable[[DaemonServer, ClientConnection, P], Any]) -> Command[P]:
    return Command(name, params, run)


def _no_typed_run(server: DaemonServer, client: ClientConnection, params: Params) -> Any:
    raise AssertionError("an untyped command runs its raw handler")


def untyped(name: str, run: RawHandler) -> Command[Params]:
    """A command whose handler reads the request's map itself (not converted yet)."""
    return Command(name, None, _no_typed_run, run)


def table(*parts: Mapping[str, Command[Any]]) -> dict[str, Command[Any]]:
    """Every command the daemon answers, by wire name (a name defined twice is a bug)."""
    merged: dict[str, Command[Any]] = {}
    for part in parts:
        for name, entry in part.items():
            assert name not in merged, f"command {name} is defined twice"
            merged[name] = entry
    return merged


def entries(*commands: Command[Any]) -> dict[str, Command[Any]]:
    """A command module's table."""
    return {entry.name: entry for entry in commands}
