"""The daemon process: single instance lock, daemonizing, logging, signals, the loop.

Started by the client (`python -m idea_daemon`) when no daemon answers. It forks twice so
it belongs to no terminal, takes an exclusive lock (a second daemon started by a racing
client exits at once), removes a stale socket left by a killed daemon, and serves until
`idea kill-server` or SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import logging
import os
import signal
import sys
from typing import IO

from adapters.gc_pauses import freeze_startup_objects
from adapters.ipc.peer import UnsafeRuntimePath, check_reusable
from adapters.locations import Locations, RuntimeDirError, ensure_dirs, locate
from adapters.private_log import PrivateRotatingFileHandler, open_private
from idea_daemon import late_imports, preload

log = logging.getLogger("idea_daemon")


def _daemonize(log_path: str) -> None:
    if os.fork() > 0:
        os._exit(0)
    os.setsid()
    if os.fork() > 0:
        os._exit(0)
    os.chdir("/")
    devnull = os.open(os.devnull, os.O_RDWR)
    log_fd = open_private(log_path)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    # Anything written to stderr (a crash in a C extension, say) lands in the log.
    os.dup2(log_fd, 2)
    os.close(devnull)
    os.close(log_fd)


def _lock(locations: Locations) -> IO[str] | None:
    fd = os.open(locations.lock_file, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                 0o644)
    handle = os.fdopen(fd, "a+")  # held for the daemon's life
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    return handle


def _setup_logging(locations: Locations, foreground: bool) -> None:
    # Files 0600, rotated ones too; stderr (fd 2, daemonized) follows the current file.
    handler = PrivateRotatingFileHandler(
        locations.log_file, 2_000_000, 2, mirror_fd=None if foreground else 2
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if os.environ.get("IDEA_DEBUG") else logging.INFO)


# Signals a program in a cell must receive as any program in a terminal does. A daemon
# started where they are ignored (a script's `idea new … &`, nohup) or blocked would pass
# that on to every shell and agent it starts: Ctrl-C would do nothing in a cell, and bash
# cannot undo a signal ignored on entry. tmux resets them in its children for the same
# reason; Popen cannot (no preexec_fn in a threaded daemon), so the daemon resets its own
# before any thread exists. The ones it handles itself (INT, TERM, HUP) need nothing:
# their handlers on the loop replace an inherited SIG_IGN, and exec resets handlers.
_TERMINAL_SIGNALS = (signal.SIGQUIT, signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU,
                     signal.SIGWINCH)


def _default_signals() -> None:
    for signum in _TERMINAL_SIGNALS:
        if signal.getsignal(signum) == signal.SIG_IGN:
            signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())


def _write_pid(locations: Locations) -> None:
    fd = os.open(locations.pid_file,
                 os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "w") as handle:
        handle.write(f"{os.getpid()}\n")


async def _serve(locations: Locations) -> None:
    from idea_daemon.bootstrap import build

    server = build(locations)
    assert server.service is not None
    loop = asyncio.get_running_loop()
    if os.environ.get("IDEA_DEBUG"):
        # asyncio names every callback that holds the loop longer than the watchdog allows.
        from idea_daemon.watchdog import THRESHOLD

        loop.set_debug(True)
        loop.slow_callback_duration = THRESHOLD
    server.late_imports = late = late_imports.shared()
    server.service.restore(loop)
    await server.start()
    server.preloading = preloading = preload.start(loop)
    # Once the preloaded modules are in, full GC passes need not walk them (nor the rest of
    # what startup built) again.
    preloading.add_done_callback(lambda _done: freeze_startup_objects())
    late.arm()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, server.request_stop, "the daemon received a signal")
    loop.add_signal_handler(signal.SIGHUP, lambda: None)
    await server.stopped.wait()
    preloading.cancel()
    server.service.shutdown()
    log.info("daemon stopped")


def run(foreground: bool) -> int:
    locations = locate()
    try:
        ensure_dirs(locations)
    except (RuntimeDirError, OSError) as exc:
        print(f"idea daemon: {exc}", file=sys.stderr)
        return 1
    try:
        # Reused paths of the runtime folder (it may be /tmp/idea-$UID): ours, of the right
        # kind, no symbolic link (adapters.ipc.peer).
        for path in (locations.lock_file, locations.pid_file):
            check_reusable(path, "file")
        check_reusable(locations.socket, "socket")
    except UnsafeRuntimePath as exc:
        print(f"idea daemon: {exc}", file=sys.stderr)
        return 1
    if not foreground:
        _daemonize(str(locations.log_file))
    _default_signals()
    lock = _lock(locations)
    if lock is None:
        # Another daemon holds the lock: it serves the socket, nothing to do here.
        return 0
    _setup_logging(locations, foreground)
    _write_pid(locations)
    log.info("daemon %s starting (socket %s)", os.getpid(), locations.socket)
    try:
        asyncio.run(_serve(locations))
    except Exception:
        log.exception("daemon crashed")
        return 1
    finally:
        with contextlib.suppress(FileNotFoundError):
            locations.pid_file.unlink()
        lock.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="idea-daemon", description="The idea daemon.")
    parser.add_argument("--foreground", action="store_true", help="do not detach")
    args = parser.parse_args(argv)
    return run(args.foreground)
