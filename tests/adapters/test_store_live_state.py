"""`.ideai/live-state.json` on real files (LIV-1, LIV-3, LIV-8, D12, D13): the seed shape,
missing file, damaged files never overwritten, atomic writes, gitignored, survives a restart;
and the daemon's writer: coalesced, off the loop, the rest working when the file is damaged."""

from __future__ import annotations

import asyncio
import functools
import json
import subprocess
import threading
from collections.abc import Mapping
from pathlib import Path

import pytest

from adapters.store.live_state_store import LiveStateStore
from adapters.store.project_codec import ProjectStore
from core.errors import CorruptFile, NewerVersion
from core.live_state.model import Delegation, LiveRow, WorkStatus
from core.live_state.policy import agent_update
from idea_daemon.orchestration.live_state import LiveStates, LiveStateUnavailable
from tests.helpers.programs import require_program

NOW = 1_800_000_000_000


def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    (root / ".ideai").mkdir(parents=True)
    return root


def test_missing_file_is_empty_and_rows_round_trip(tmp_path: Path) -> None:
    root = project(tmp_path)
    store = LiveStateStore()
    assert store.load(root) == {}
    rows = {
        "b": LiveRow(status=WorkStatus.WORKING, task="review", updated_at_ms=NOW,
                     last_delegation=Delegation(from_="a", ticket="T1", at_ms=NOW)),
        "a": LiveRow(status=WorkStatus.WAITING, note="waiting for Bob", updated_at_ms=NOW),
    }
    store.save(root, rows)
    assert store.load(root) == rows
    on_disk = json.loads((root / ".ideai/live-state.json").read_text())
    assert on_disk == {
        "version": 1,
        "entries": {
            "a": {"status": "waiting", "note": "waiting for Bob", "updatedAtMs": NOW},
            "b": {"status": "working", "task": "review",
                  "lastDelegation": {"from": "a", "ticket": "T1", "atMs": NOW},
                  "updatedAtMs": NOW},
        },
    }
    assert [p.name for p in (root / ".ideai").iterdir()] == ["live-state.json"]


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        ("{not json", "invalid JSON"),
        ("", "empty"),
        ("[]", "not a JSON object"),
        ('{"version": 1, "entries": []}', "entries: expected an object"),
        ('{"version": 1, "entries": {"a": {"status": "asleep"}}}', "entries.a.status"),
        ('{"version": 1, "entries": {"a": {"status": "idle", "task": 5}}}', "entries.a.task"),
    ],
)
def test_a_damaged_file_is_named_and_never_overwritten(
    tmp_path: Path, content: str, detail: str
) -> None:
    root = project(tmp_path)
    path = root / ".ideai/live-state.json"
    path.write_text(content)
    store = LiveStateStore()
    with pytest.raises(CorruptFile) as caught:
        store.load(root)
    assert str(path) in caught.value.message and detail in caught.value.message
    with pytest.raises(CorruptFile):
        store.save(root, {"a": LiveRow(status=WorkStatus.IDLE, updated_at_ms=NOW)})
    assert path.read_text() == content


@pytest.mark.parametrize("in_place", [True, False])
def test_a_file_damaged_after_idea_wrote_it_is_still_never_overwritten(
    tmp_path: Path, in_place: bool
) -> None:
    """The store skips reading back a file that is still the one it wrote; one changed by
    anyone since (edited in place, or replaced) is checked again before any write."""
    root = project(tmp_path)
    path = root / ".ideai/live-state.json"
    store = LiveStateStore()
    store.save(root, {"a": LiveRow(status=WorkStatus.IDLE, updated_at_ms=NOW)})
    store.save(root, {"a": LiveRow(status=WorkStatus.WORKING, updated_at_ms=NOW)})
    assert store.load(root)["a"].status is WorkStatus.WORKING
    if in_place:
        with open(path, "r+") as handle:  # same inode, same size, new bytes and mtime
            text = handle.read()
            handle.seek(0)
            handle.write(text.replace('"working"', '"xorking"'))
    else:
        damaged = path.with_name("damaged")
        damaged.write_text("{not json")
        damaged.replace(path)
    before = path.read_bytes()
    with pytest.raises(CorruptFile):
        store.save(root, {"a": LiveRow(status=WorkStatus.DONE, updated_at_ms=NOW)})
    assert path.read_bytes() == before


def test_a_newer_file_is_left_alone(tmp_path: Path) -> None:
    root = project(tmp_path)
    path = root / ".ideai/live-state.json"
    path.write_text('{"version": 2, "entries": {}}')
    with pytest.raises(NewerVersion):
        LiveStateStore().load(root)
    with pytest.raises(NewerVersion):
        LiveStateStore().save(root, {})
    assert path.read_text() == '{"version": 2, "entries": {}}'


def test_idea_gitignores_the_file_in_a_real_repository(tmp_path: Path) -> None:
    require_program("git")
    root = project(tmp_path)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    ProjectStore().ensure_gitignore(root)
    LiveStateStore().save(root, {"a": LiveRow(status=WorkStatus.IDLE, updated_at_ms=NOW)})
    ignored = subprocess.run(
        ["git", "-C", str(root), "check-ignore", "-q", ".ideai/live-state.json"], check=False
    )
    assert ignored.returncode == 0
    status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "-uall"],
                            capture_output=True, text=True, check=True).stdout
    assert "live-state.json" not in status and ".ideai/.gitignore" in status


class CountingStore(LiveStateStore):
    """The real store, noting how often and on which thread it writes."""

    def __init__(self) -> None:
        self.threads: list[str] = []

    def save(self, root: str | Path, rows: Mapping[str, LiveRow]) -> None:
        self.threads.append(threading.current_thread().name)
        super().save(root, rows)


def test_a_burst_of_updates_is_one_write_off_the_loop_and_survives_a_restart(
    tmp_path: Path,
) -> None:
    root = str(project(tmp_path))

    async def body() -> None:
        store = CountingStore()
        states = LiveStates(store, clock_ms=lambda: NOW)
        for i in range(200):
            states.update(root, functools.partial(
                agent_update, agent_id=f"agent{i % 5}", status=WorkStatus.WORKING,
                task=f"step {i}", note=None, now_ms=NOW))
        await states.drain()
        assert len(store.threads) == 1
        assert store.threads[0] != threading.main_thread().name
        # A new daemon (a new LiveStates) reads what the last one wrote.
        again = LiveStates(LiveStateStore(), clock_ms=lambda: NOW)
        rows = again.rows(root)
        assert sorted(rows) == [f"agent{i}" for i in range(5)]
        assert rows["agent4"].task == "step 199"

    asyncio.run(body())


def test_a_damaged_file_disables_live_state_only_until_the_user_fixes_it(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    path = root / ".ideai/live-state.json"
    path.write_text("{oops")

    async def body() -> None:
        states = LiveStates(LiveStateStore(), clock_ms=lambda: NOW)
        assert states.rows(str(root)) == {}
        assert "live-state.json" in (states.problem(str(root)) or "")
        with pytest.raises(LiveStateUnavailable):
            states.update(str(root), lambda rows: agent_update(
                rows, "a", WorkStatus.IDLE, None, None, NOW))
        states.derived(str(root), lambda rows: agent_update(
            rows, "a", WorkStatus.IDLE, None, None, NOW))  # best-effort: no exception
        await states.drain()
        assert path.read_text() == "{oops"
        path.write_text('{"version": 1, "entries": {}}\n')
        states.update(str(root), lambda rows: agent_update(
            rows, "a", WorkStatus.DONE, "x", None, NOW))
        await states.drain()
        assert json.loads(path.read_text())["entries"]["a"]["status"] == "done"

    asyncio.run(body())
