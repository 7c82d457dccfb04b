"""The daemon's FileGuard (CTX-3): leases released whatever happens, waiters served in turn,
a held file answered with Busy after the bounded wait, Forbidden at once."""

from __future__ import annotations

import asyncio

import pytest

from core.knowledge.errors import Busy, Forbidden
from core.knowledge.guard import USER_PARTY, Memory, Party, ProjectContext
from idea_daemon.file_guard import FileGuard

DEV = Party("a-dev", "Dev")
QA = Party("a-qa", "QA")


def test_a_second_writer_waits_for_the_first_then_goes() -> None:
    async def body() -> list[str]:
        guard = FileGuard()
        order: list[str] = []
        release = asyncio.Event()

        async def first() -> None:
            async with guard.write(DEV, Memory("x")):
                order.append("dev in")
                await release.wait()
                order.append("dev out")

        async def second() -> None:
            async with guard.write(QA, Memory("x")):
                order.append("qa in")

        one = asyncio.create_task(first())
        while not order:
            await asyncio.sleep(0)
        two = asyncio.create_task(second())
        while guard.waits == 0:
            await asyncio.sleep(0)
        assert guard.table.holders(Memory("x")) == (0, True)
        release.set()
        await asyncio.gather(one, two)
        assert guard.table.held() == 0
        return order

    assert asyncio.run(body()) == ["dev in", "dev out", "qa in"]


def test_a_file_held_too_long_is_busy_and_the_lease_is_released_on_errors() -> None:
    async def body() -> None:
        guard = FileGuard(wait=0.05)
        hold = asyncio.Event()

        async def holder() -> None:
            async with guard.write(DEV, Memory("x")):
                await hold.wait()

        task = asyncio.create_task(holder())
        while guard.table.holders(Memory("x")) == (0, False):
            await asyncio.sleep(0)
        with pytest.raises(Busy, match="memory note 'x' is being written by Dev"):
            async with guard.read(QA, Memory("x")):
                pass
        with pytest.raises(Busy):
            async with guard.write(QA, Memory("x")):
                pass
        hold.set()
        await task
        with pytest.raises(RuntimeError):
            async with guard.write(QA, Memory("x")):
                raise RuntimeError("the write failed")
        assert guard.table.held() == 0

    asyncio.run(body())


def test_a_cancelled_waiter_leaves_nothing_behind() -> None:
    async def body() -> None:
        guard = FileGuard()
        hold = asyncio.Event()

        async def holder() -> None:
            async with guard.read(DEV, Memory("x")):
                await hold.wait()

        async def writer() -> None:
            async with guard.write(QA, Memory("x")):
                pass

        task = asyncio.create_task(holder())
        while guard.table.holders(Memory("x")) == (0, False):
            await asyncio.sleep(0)
        waiting = asyncio.create_task(writer())
        while guard.waits == 0:
            await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        # The cancelled writer no longer holds readers back.
        async with guard.read(USER_PARTY, Memory("x")):
            pass
        hold.set()
        await task
        assert guard.table.held() == 0

    asyncio.run(body())


def test_the_project_context_is_forbidden_to_agents_without_waiting() -> None:
    async def body() -> None:
        guard = FileGuard()
        with pytest.raises(Forbidden):
            async with guard.write(DEV, ProjectContext()):
                pass
        assert guard.waits == 0 and guard.table.held() == 0
        async with guard.write(USER_PARTY, ProjectContext()):
            pass

    asyncio.run(body())
