"""`idea` / `idea attach`: make sure a daemon runs, then show the workspace screen.

The connection comes first, before asyncio and Textual are imported: the daemon's first
scene and frames are painted at once (`idea_tui.early_attach`), then the app is loaded,
adopts the connection and the messages read so far, and paints the same frame on top.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from adapters.gc_pauses import freeze_startup_objects
from adapters.locations import Locations, locate
from idea_tui import early_attach
from idea_tui.daemon_socket import DaemonError, NoDaemon, VersionMismatch
from idea_tui.early_attach import EarlyConnection, QuietTerminal

TYPE_CHECKING = False  # typing is not imported before the first frame
if TYPE_CHECKING:
    from idea_tui.app import IdeaApp
    from idea_tui.gateway import GatewayPort

DEFAULT_PREFIX = "ctrl+b"
"""`adapters.config.Config.prefix`'s default (the tests hold them equal)."""


class AttachSettings:
    """What the attach takes from the settings: the prefix key, the extra variables."""

    def __init__(self, prefix: str = DEFAULT_PREFIX,
                 refresh_env: list[str] | None = None) -> None:
        self.prefix = prefix
        self.refresh_env = refresh_env or []


def _settings(locations: Locations) -> AttachSettings:
    """The settings, read (with msgspec) only when there is a settings file: without one,
    the first frame is painted before msgspec is even imported."""
    if not os.path.lexists(locations.config_file):
        return AttachSettings()
    from adapters.config import load_config

    config, problem = load_config(locations.config_file)
    if problem is not None:
        print(f"idea: {problem}", file=sys.stderr)
    return AttachSettings(config.prefix, config.refresh_env)

def _ask_restart(error: VersionMismatch) -> bool:
    print(f"idea: {error}", file=sys.stderr)
    try:
        answer = input("Restart the daemon now? This ends every program running in it. [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def _log_to_file(path: Path) -> None:
    """The client's own log (never the terminal the screen owns). Set up after the first
    frame: the rotating handler (logging.handlers) is not needed before."""
    import logging

    from adapters.private_log import PrivateRotatingFileHandler

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = PrivateRotatingFileHandler(path, 1_000_000, 1)  # 0600, rotated ones too
    except OSError:
        return
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def _terminal_size(fd: int) -> tuple[int, int]:
    """The terminal's columns and rows (80×24 when it cannot say)."""
    try:
        size = os.get_terminal_size(fd)
    except OSError:
        return 80, 24
    return size.columns or 80, size.lines or 24


async def _run_app(early: EarlyConnection, locations: Locations, config: AttachSettings,
                   size: tuple[int, int], painted: bool) -> IdeaApp:
    from idea_tui.gateway import Gateway

    gateway = await Gateway.adopt(early.sock, early.welcome(), unread=early.unread,
                                  ended=early.ended, held=early.messages())
    from idea_tui.app import IdeaApp

    connected = (size[0], max(size[1] - 2, 1))

    async def connect(width: int, height: int) -> GatewayPort:
        # Sized for the terminal when it connected; the app's layout has the last word.
        if (width, height) != connected:
            gateway.resize(width, height)
        return gateway

    # The log file once the first frame is shown (logging.handlers is not needed
    # for it); nothing is logged before that but a failure to connect, said on stderr.
    def after_first_frame() -> None:
        _log_to_file(locations.state / "client.log")
        freeze_startup_objects()  # full GC passes then skip Textual and the widgets

    app = IdeaApp(connect, prefix=config.prefix,
                  after_first_frame=after_first_frame,
                  wizard_due=early.first_run_due if painted else None)
    await app.run_async()
    return app


def _show(early: EarlyConnection, locations: Locations, config: AttachSettings) -> IdeaApp:
    """Paint the early frame, then run the app on the connection."""
    out = sys.stdout
    size = _terminal_size(out.fileno())
    terminal = QuietTerminal(out.fileno())

    def write(text: str) -> None:
        out.write(text)
        out.flush()

    painted = False
    started = False
    try:
        painted = early_attach.paint(early, size, write, terminal, prefix_label=config.prefix)
        import asyncio

        started = True
        return asyncio.run(_run_app(early, locations, config, size, painted))
    finally:
        if painted:
            if not started:
                write(early_attach.LEAVE)
            terminal.restore()
        early.sock.close()


def refuse_attach(force: bool) -> bool:
    """Whether attaching here is refused (said on stderr): inside a cell, or with no TTY."""
    if os.environ.get("IDEA_CELL") and not force:
        print(
            "idea: refusing to attach inside an idea cell (this would nest the screen in "
            "itself); use -f to force",
            file=sys.stderr,
        )
        return True
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        print("idea: attaching needs a terminal (stdin and stdout must be a TTY)", file=sys.stderr)
        return True
    return False


def attach(window: str | None) -> int:
    locations = locate()
    config = _settings(locations)
    size = _terminal_size(sys.stdout.fileno())
    for _attempt in range(2):
        try:
            try:
                early = early_attach.connect(locations, window, size, config.refresh_env)
            except NoDaemon:
                from idea_tui.control import start_daemon

                start_daemon(locations)
                early = early_attach.connect(locations, window, size, config.refresh_env)
        except VersionMismatch as mismatch:
            if not _ask_restart(mismatch):
                return 1
            from idea_tui.control import ensure_daemon, terminate_daemon

            terminate_daemon(locations)
            ensure_daemon(locations)
            continue
        except DaemonError as exc:
            print(f"idea: {exc}", file=sys.stderr)
            return 1
        if early.frame.refusal is not None:
            # Refused before anything was shown (no such window): no screen to set up.
            early.sock.close()
            print(f"idea: {early.frame.refusal}", file=sys.stderr)
            return 1
        app = _show(early, locations, config)
        error = app.connect_error
        if error is not None:
            print(f"idea: {error}", file=sys.stderr)
            return 1
        if app.return_code not in (0, None):
            return app.return_code or 1
        if app.detach_error:
            print(f"idea: {app.detach_reason}", file=sys.stderr)
            return 1
        print(f"[{app.return_value or app.detach_reason}]")
        return 0
    return 1
