"""The git service's watching, on fakes: a burst of file events makes one `Changed` per
watching client, ignored paths make none, a client that leaves stops the watch."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from idea_daemon.git_service import GitService, relevant


class FakeWatch:
    def __init__(self, root: str, on_event: Callable[[str], None]) -> None:
        self.root, self.on_event, self.stopped = root, on_event, False

    def stop(self) -> None:
        self.stopped = True


def service() -> tuple[GitService, list[FakeWatch], list[tuple[str, set[str]]]]:
    watches: list[FakeWatch] = []
    told: list[tuple[str, set[str]]] = []

    def factory(root: str, on_event: Callable[[str], None]) -> FakeWatch:
        watches.append(FakeWatch(root, on_event))
        return watches[-1]

    port: Any = object()
    return GitService(port, factory, lambda root, clients: told.append((root, clients))), \
        watches, told


async def _until(check: Callable[[], bool]) -> None:
    for _ in range(500):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never held")


def test_a_burst_of_events_makes_one_notice_per_client() -> None:
    async def scenario() -> None:
        git, watches, told = service()
        assert git.watch("/r", "1") and git.watch("/r", "2")
        assert len(watches) == 1  # one watch per repository, whoever watches
        for n in range(50):
            watches[0].on_event(f"/r/src/file{n}.py")
        await _until(lambda: bool(told))
        await asyncio.sleep(0.05)
        assert told == [("/r", {"1", "2"})]

    asyncio.run(scenario())


def test_git_internals_and_idea_runtime_files_are_ignored() -> None:
    assert not relevant("/r", "/r/.git/objects/ab/cdef")
    assert not relevant("/r", "/r/.git/index.lock")
    assert not relevant("/r", "/r/.ideai/run/agent/report.json")
    assert relevant("/r", "/r/.git/index") and relevant("/r", "/r/.git/HEAD")
    assert relevant("/r", "/r/app.py")


def test_the_last_client_leaving_stops_the_watch() -> None:
    async def scenario() -> None:
        git, watches, _ = service()
        git.watch("/r", "1")
        git.watch("/r", "2")
        git.unwatch("1")
        assert not watches[0].stopped
        git.unwatch("2")
        assert watches[0].stopped

    asyncio.run(scenario())


def test_an_agent_turn_touches_the_repository_it_works_in() -> None:
    async def scenario() -> None:
        git, _, told = service()
        git.watch("/r", "1")
        git.touch_path("/r/sub")  # an agent working below the root
        git.touch_path("/other")
        await _until(lambda: bool(told))
        assert told == [("/r", {"1"})]

    asyncio.run(scenario())
