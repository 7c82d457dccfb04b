"""The idle compaction of cells' scrollback: which cells, when, and one step per loop turn."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

import pytest

from idea_daemon.history_compaction import IDLE, HistoryCompactor


@dataclass
class _Emulator:
    """Counts its steps; `remaining` steps report more work, then it is done."""

    remaining: int
    log: list[str]
    name: str
    fail: bool = False

    def compact_step(self) -> bool:
        if self.fail:
            raise RuntimeError("broken")
        self.log.append(self.name)
        if self.remaining <= 0:
            return False
        self.remaining -= 1
        return self.remaining > 0


@dataclass
class _Session:
    id: str
    emulator: Any
    last_output: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def _turns(count: int) -> None:
    for _ in range(count):
        await asyncio.sleep(0)


def test_only_cells_quiet_for_the_idle_delay_are_compacted() -> None:
    asyncio.run(_only_cells_quiet_for_the_idle_delay_are_compacted())


async def _only_cells_quiet_for_the_idle_delay_are_compacted() -> None:
    steps: list[str] = []
    clock = _Clock()
    quiet = _Session("quiet", _Emulator(3, steps, "quiet"), last_output=clock.now - IDLE)
    busy = _Session("busy", _Emulator(3, steps, "busy"), last_output=clock.now - 0.5)
    compactor = HistoryCompactor(asyncio.get_running_loop(), clock)
    compactor.poll([quiet, busy])
    await _turns(10)
    assert steps == ["quiet", "quiet", "quiet"]
    assert compactor.steps == 2  # the third call said there was nothing more
    compactor.stop()


def test_each_loop_turn_runs_one_step_and_the_cells_take_turns() -> None:
    asyncio.run(_each_loop_turn_runs_one_step_and_the_cells_take_turns())


async def _each_loop_turn_runs_one_step_and_the_cells_take_turns() -> None:
    steps: list[str] = []
    clock = _Clock()
    sessions = [_Session(name, _Emulator(4, steps, name)) for name in ("a", "b")]
    compactor = HistoryCompactor(asyncio.get_running_loop(), clock)
    compactor.poll(sessions)
    assert steps == []  # the first step is scheduled, not run inside poll
    await _turns(1)
    assert steps == ["a"]
    await _turns(1)
    assert steps == ["a", "b"]
    await _turns(20)
    assert steps == ["a", "b"] * 4
    compactor.stop()


def test_a_cell_that_prints_again_leaves_the_queue_until_its_next_quiet_spell() -> None:
    asyncio.run(_a_cell_that_prints_again_leaves_the_queue_until_its_next_quiet_spell())


async def _a_cell_that_prints_again_leaves_the_queue_until_its_next_quiet_spell() -> None:
    steps: list[str] = []
    clock = _Clock()
    session = _Session("cell", _Emulator(10, steps, "cell"))
    compactor = HistoryCompactor(asyncio.get_running_loop(), clock)
    compactor.poll([session])
    await _turns(3)
    done = len(steps)
    assert 0 < done < 10
    session.last_output = clock.now  # output resumed
    await _turns(5)
    assert len(steps) == done
    compactor.poll([session])  # still not quiet long enough
    await _turns(5)
    assert len(steps) == done
    clock.now += IDLE
    compactor.poll([session])
    await _turns(20)
    assert len(steps) == 10
    compactor.stop()


def test_a_failing_emulator_is_logged_and_the_others_go_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    asyncio.run(_failing(caplog))


async def _failing(caplog: pytest.LogCaptureFixture) -> None:
    steps: list[str] = []
    clock = _Clock()
    broken = _Session("broken", _Emulator(3, steps, "broken", fail=True))
    fine = _Session("fine", _Emulator(2, steps, "fine"))
    compactor = HistoryCompactor(asyncio.get_running_loop(), clock)
    with caplog.at_level(logging.ERROR):
        compactor.poll([broken, fine])
        await _turns(10)
    assert steps == ["fine", "fine"]
    assert "session broken: compacting its history failed" in caplog.text
    compactor.stop()


def test_stop_cancels_the_pending_step() -> None:
    asyncio.run(_stop_cancels_the_pending_step())


async def _stop_cancels_the_pending_step() -> None:
    steps: list[str] = []
    compactor = HistoryCompactor(asyncio.get_running_loop(), _Clock())
    compactor.poll([_Session("cell", _Emulator(5, steps, "cell"))])
    compactor.stop()
    await _turns(5)
    assert steps == []
