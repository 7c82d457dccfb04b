"""What the screens, flows and actions need of the app and of the action runner.

Screens and flows type against `Runner`, the runner against `AppHost`: none of them imports
`idea_tui.app` or `idea_tui.actions`, which import them (no import circle; a screen can be
tested with any object that has these members).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from textual.screen import Screen

    from idea_tui.gateway import GatewayPort
    from idea_tui.widgets.bars import StatusBar
    from idea_tui.widgets.workspace_view import WorkspaceView

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Answer:
    """What `Runner.attempt` got: a result, or an error message and its code."""

    result: Any = None
    error: str | None = None
    code: str | None = None
    declined: bool = False
    """The daemon asked for a confirmation and the user said no."""

    @property
    def ok(self) -> bool:
        return self.error is None


class AppHost(Protocol):
    """The attached app (`idea_tui.app.IdeaApp`) as the action runner uses it."""

    gateway: GatewayPort | None
    prefix: str
    detach_reason: str

    @property
    def view(self) -> WorkspaceView: ...

    @property
    def status(self) -> StatusBar: ...

    @property
    def screen_stack(self) -> list[Screen[Any]]: ...

    def start_mode(self, mode: str, label: str) -> None: ...

    def push_screen(self, screen: Screen[Any],
                    callback: Callable[[Any], None] | None = None) -> object: ...

    def exit(self, result: str | None = None) -> None: ...

    def copy_to_clipboard(self, text: str) -> None: ...

    def run_worker(self, work: Any, *, group: str = "default") -> object: ...

    def suspend(self) -> AbstractContextManager[None]: ...


class Runner(Protocol):
    """The action runner (`idea_tui.actions.ActionRunner`) as screens and flows use it."""

    @property
    def app(self) -> AppHost: ...

    async def call(self, method: str, **params: Any) -> Any:
        """Run a daemon command; a failure is reported and gives None."""

    async def attempt(self, method: str, **params: Any) -> Answer:
        """Run a daemon command; a failure is returned for the caller to word."""

    def report(self, message: str, level: str = "info") -> None: ...

    async def ask(self, screen: Screen[Any]) -> Any:
        """Show a modal screen and wait for what it is dismissed with."""

    def focused_target(self) -> str | None: ...


async def call_as(runner: Runner, answer: type[T], method: str, /, **params: Any) -> T | None:
    """`runner.call` of a command whose answer is the Struct `answer` (`adapters.ipc.answers`),
    decoded: screens read its fields, which mypy checks, not a map. None when the call failed
    (reported) or its result does not fit (reported as the "bad_answer" it is)."""
    from idea_tui.control import CommandFailed, decoded

    result = await runner.call(method, **params)
    if result is None:
        return None
    try:
        return decoded(answer, method, result)
    except CommandFailed as exc:
        runner.report(str(exc), "error")
        return None


async def call_list(runner: Runner, answer: type[T], method: str, /,
                    **params: Any) -> list[T] | None:
    """`call_as` for a command whose answer is a list of the Struct `answer`."""
    from idea_tui.control import CommandFailed, decoded_list

    result = await runner.call(method, **params)
    if result is None:
        return None
    try:
        return decoded_list(answer, method, result)
    except CommandFailed as exc:
        runner.report(str(exc), "error")
        return None



async def attempt_as(runner: Runner, answer: type[T], method: str, /,
                     **params: Any) -> tuple[Answer, T | None]:
    """`runner.attempt` of a command whose answer is the Struct `answer`, decoded: the
    `Answer` (for its error, code and `declined`) and the Struct, None when the command
    failed. A result that does not fit is the failure it is: an `Answer` with the
    "bad_answer" code and the message naming what does not fit, for the caller to word."""
    from idea_tui.control import CommandFailed, decoded

    got = await runner.attempt(method, **params)
    if not got.ok:
        return got, None
    try:
        return got, decoded(answer, method, got.result)
    except CommandFailed as exc:
        return Answer(error=str(exc), code=exc.code), None


async def attempt_list(runner: Runner, answer: type[T], method: str, /,
                       **params: Any) -> tuple[Answer, list[T] | None]:
    """`attempt_as` for a command whose answer is a list of the Struct `answer`."""
    from idea_tui.control import CommandFailed, decoded_list

    got = await runner.attempt(method, **params)
    if not got.ok:
        return got, None
    try:
        return got, decoded_list(answer, method, got.result)
    except CommandFailed as exc:
        return Answer(error=str(exc), code=exc.code), None
