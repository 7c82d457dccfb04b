"""The daemon's git service: the one place daemon code reaches the git port, and the watcher
that tells clients when a repository changed.

Operations are coroutines on the port (the git program as asyncio subprocesses, or dulwich
in worker threads): nothing here blocks the loop. Watching: while a client shows a
repository (the git panel, the graph page), a directory watcher (watchdog, in its own
thread) reports file events; they are coalesced (one refresh per `DEBOUNCE` seconds at
most) and each watching client gets a `Changed("git", root)` and asks again. An agent's
finished turn calls `touch` the same way. Nothing polls.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Protocol, TypeVar

from core.git.errors import GitCancelled
from core.git.port import GitPort

T = TypeVar("T")

log = logging.getLogger(__name__)

DEBOUNCE = 0.3
"""Seconds of quiet after a file event before clients are told: a build writing a thousand
files makes one refresh, not a thousand."""

_IGNORED_PARTS = ("/.git/objects/", "/.git/logs/", "/.ideai/", "/.git/lfs/")


class Watch(Protocol):
    def stop(self) -> None: ...


WatchFactory = Callable[[str, Callable[[str], None]], Watch]
"""`(root, on_event(path))` → a running watch. `on_event` is called from another thread."""


def relevant(root: str, path: str) -> bool:
    """File events that can change what git shows (not git's object writes or locks, not
    idea's own runtime files)."""
    tail = "/" + path[len(root):].lstrip("/") if path.startswith(root) else path
    if any(part in tail + "/" for part in _IGNORED_PARTS):
        return False
    return not tail.endswith(".lock")


class GitService:
    def __init__(
        self,
        port: GitPort,
        watch_factory: WatchFactory | None,
        tell: Callable[[str, set[str]], None],
    ) -> None:
        """`tell(root, client ids)` sends `Changed` to those clients."""
        self.port = port
        self._watch_factory = watch_factory
        self._tell = tell
        self._watches: dict[str, Watch] = {}
        self._watchers: dict[str, set[str]] = {}
        self._pending: dict[str, asyncio.TimerHandle] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._running: dict[str, set[asyncio.Task[Any]]] = {}
        """The long operations (fetch, pull, push) of each client, for `cancel`."""
        self._stopped: set[asyncio.Task[Any]] = set()

    async def cancellable(self, client_id: str, operation: str,
                          work: Coroutine[Any, Any, T]) -> T:
        """Run `work` as its own task that `cancel(client_id)` can stop. Only that inner
        task is cancelled, so the command itself goes on to answer `GitCancelled` (the
        client is told, instead of waiting for an answer that never comes)."""
        task = asyncio.ensure_future(work)
        tasks = self._running.setdefault(client_id, set())
        tasks.add(task)
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if task in self._stopped:
                raise GitCancelled(operation) from None
            # The command's own task was cancelled (its client left): stop the work too.
            task.cancel()
            raise
        finally:
            self._stopped.discard(task)
            tasks.discard(task)
            if not tasks:
                self._running.pop(client_id, None)

    def cancel(self, client_id: str) -> int:
        """Stop the client's running long operations (the git process group is killed by
        the port); how many there were."""
        tasks = [t for t in self._running.get(client_id, ()) if not t.done()]
        for task in tasks:
            self._stopped.add(task)
            task.cancel()
        return len(tasks)

    def watch(self, root: str, client_id: str) -> bool:
        """`client_id` wants to hear of changes to `root`; True when a watcher runs."""
        self._loop = asyncio.get_running_loop()
        self._watchers.setdefault(root, set()).add(client_id)
        if root not in self._watches and self._watch_factory is not None:
            loop = self._loop

            def on_event(path: str) -> None:
                if relevant(root, path):
                    loop.call_soon_threadsafe(self.touch, root)

            try:
                self._watches[root] = self._watch_factory(root, on_event)
            except OSError as error:  # too many inotify watches, a vanished folder
                log.warning("cannot watch %s: %s", root, error)
                return False
        return root in self._watches

    def unwatch(self, client_id: str, root: str | None = None) -> None:
        for key in [root] if root is not None else list(self._watchers):
            clients = self._watchers.get(key)
            if clients is None:
                continue
            clients.discard(client_id)
            if not clients:
                self._drop(key)

    def _drop(self, root: str) -> None:
        self._watchers.pop(root, None)
        watch = self._watches.pop(root, None)
        if watch is not None:
            watch.stop()
        timer = self._pending.pop(root, None)
        if timer is not None:
            timer.cancel()

    def touch(self, root: str | None = None) -> None:
        """Something may have changed `root` (every watched root when None): tell its
        watchers once things are quiet for `DEBOUNCE` seconds."""
        try:
            loop = self._loop or asyncio.get_running_loop()
        except RuntimeError:
            return
        for key in [root] if root is not None else list(self._watchers):
            if key not in self._watchers:
                continue
            timer = self._pending.pop(key, None)
            if timer is not None:
                timer.cancel()
            self._pending[key] = loop.call_later(DEBOUNCE, self._fire, key)

    def touch_path(self, path: str) -> None:
        """A change under `path` (an agent's cwd): touch the watched roots containing it."""
        for root in list(self._watchers):
            inside = path == root or path.startswith(root.rstrip("/") + "/")
            if inside or root.startswith(path.rstrip("/") + "/"):
                self.touch(root)

    def _fire(self, root: str) -> None:
        self._pending.pop(root, None)
        clients = self._watchers.get(root)
        if clients:
            self._tell(root, set(clients))

    def close(self) -> None:
        for root in list(self._watchers):
            self._drop(root)
