"""`idea` / `idea attach`: make sure a daemon runs, then show the workspace screen."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from adapters.config import load_config
from adapters.locations import locate
from idea_tui.control import DaemonError, VersionMismatch, ensure_daemon, terminate_daemon
from idea_tui.gateway import Gateway, GatewayPort


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


def attach(window: str | None) -> int:
    from idea_tui.app import IdeaApp

    locations = locate()
    config, problem = load_config(locations.config_file)
    if problem is not None:
        print(f"idea: {problem}", file=sys.stderr)
    try:
        ensure_daemon(locations)
    except DaemonError as exc:
        print(f"idea: {exc}", file=sys.stderr)
        return 1

    async def connect(width: int, height: int) -> GatewayPort:
        return await Gateway.connect(locations, window=window, width=width, height=height,
                                     refresh_env=config.refresh_env)

    for _attempt in range(2):
        # The log file once the first frame is shown (logging.handlers is not needed
        # for it); nothing is logged before that but a failure to connect, said on stderr.
        app = IdeaApp(connect, prefix=config.prefix,
                      after_first_frame=lambda: _log_to_file(locations.state / "client.log"))
        result = app.run()
        error = app.connect_error
        if isinstance(error, VersionMismatch):
            if not _ask_restart(error):
                return 1
            terminate_daemon(locations)
            ensure_daemon(locations)
            continue
        if error is not None:
            print(f"idea: {error}", file=sys.stderr)
            return 1
        if app.return_code not in (0, None):
            return app.return_code or 1
        if app.detach_error:
            print(f"idea: {app.detach_reason}", file=sys.stderr)
            return 1
        print(f"[{result or app.detach_reason}]")
        return 0
    return 1
