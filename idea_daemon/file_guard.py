"""The FileGuard in the daemon (FEATURES.md CTX-3): leases of `core.knowledge.guard`, with
a bounded wait.

`async with guard.write(party, resource):` waits while someone else holds the file (N
readers or one writer), at most `wait` seconds, then raises `Busy`; a party that may never
write it gets `Forbidden` at once. The leases are released when the block ends, whatever
happens inside (RAII, as in the seed). Everything runs on the daemon's loop; the file I/O
done under a lease goes to a worker thread, so holding a lease never blocks the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from core.knowledge.errors import Busy
from core.knowledge.guard import GuardedResource, GuardTable, Lease, Party

GUARD_WAIT = 10.0
"""Longest wait for a lease: a write takes milliseconds, so a file held this long is held
by something stuck, and the caller is better told (Busy) than left waiting."""


class FileGuard:
    def __init__(self, wait: float = GUARD_WAIT) -> None:
        self.table = GuardTable()
        self.wait = wait
        self._changed = asyncio.Condition()
        self.waits = 0
        """How many acquisitions had to wait (tests check that a race really met)."""

    async def _acquire(self, try_lease: Callable[[], Lease], resource: GuardedResource,
                       writer: bool) -> Lease:
        try:
            return try_lease()
        except Busy:
            pass
        self.waits += 1
        deadline = time.monotonic() + self.wait
        async with self._changed:
            while True:
                if writer:
                    # Readers arriving while we wait queue behind us (no writer starvation).
                    self.table.wait_to_write(resource)
                try:
                    left = deadline - time.monotonic()
                    if left > 0:
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(self._changed.wait(), left)
                finally:
                    if writer:
                        self.table.stop_waiting(resource)
                try:
                    return try_lease()
                except Busy:
                    if time.monotonic() >= deadline:
                        self._changed.notify_all()  # readers held back by our wait may go
                        raise

    async def _release(self, lease: Lease) -> None:
        self.table.release(lease)
        async with self._changed:
            self._changed.notify_all()

    @asynccontextmanager
    async def read(self, party: Party, resource: GuardedResource) -> AsyncIterator[Lease]:
        lease = await self._acquire(lambda: self.table.try_read(party, resource), resource,
                                    writer=False)
        try:
            yield lease
        finally:
            await self._release(lease)

    @asynccontextmanager
    async def write(self, party: Party, resource: GuardedResource) -> AsyncIterator[Lease]:
        self.table.check_write_allowed(party, resource)
        lease = await self._acquire(lambda: self.table.try_write(party, resource), resource,
                                    writer=True)
        try:
            yield lease
        finally:
            await self._release(lease)
