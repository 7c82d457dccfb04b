"""The recorder: turns reach the log in order off the caller's thread, handoffs are folded
and written coalesced, pending turns are visible at once, problems never raise (LOG-1/2)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.conversations.store import ConversationFiles
from core.conversations import handoff as h
from core.conversations.ids import USER, conversation_id
from core.conversations.turns import Turn, encode_turn
from idea_daemon.conversations.recorder import ConversationRecorder

A = "a6ced819-b893-4213-b003-9e9dc79b9641"
B = "af7f86da-76bc-48e1-9900-71f45a624800"
CID = conversation_id(A, B)


class Recorded:
    def __init__(self) -> None:
        self.problems: list[tuple[str, str]] = []

    def __call__(self, root: str, message: str) -> None:
        self.problems.append((root, message))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".ideai").mkdir()
    return tmp_path


@pytest.fixture
def reports() -> Recorded:
    return Recorded()


@pytest.fixture
def recorder(reports: Recorded) -> Iterator[ConversationRecorder]:
    ticks = iter(range(1_000, 1_000_000))
    made = ConversationRecorder(reports, clock_ms=lambda: next(ticks))
    yield made
    made.close()


def hold(recorder: ConversationRecorder) -> threading.Event:
    """Keep the worker busy until the returned event is set."""
    release = threading.Event()
    started = threading.Event()

    def blocked() -> None:
        started.set()
        release.wait(30)

    recorder._worker.submit(blocked)
    assert started.wait(30)
    return release


def test_turns_land_in_order_and_a_burst_makes_few_handoff_writes(
    recorder: ConversationRecorder, project: Path
) -> None:
    release = hold(recorder)
    for n in range(20):
        recorder.record(str(project), A, B, A if n % 2 == 0 else B,
                        "prompt" if n % 2 == 0 else "response", f"turn {n}")
    assert recorder.appended == 0  # nothing was written by the caller itself
    release.set()
    recorder.drain()
    files = ConversationFiles(project)
    assert [t.text for t in files.read(CID).turns] == [f"turn {n}" for n in range(20)]
    assert recorder.handoff_writes == 1  # queued behind the burst
    handoff = files.read_handoff(CID)
    assert handoff is not None and handoff.objective == "turn 0"
    assert handoff.lines[-1] == "- **Response:** turn 19"


def test_turns_that_keep_coming_write_the_handoff_at_its_pace_and_drain_writes_the_last(
    reports: Recorded, project: Path
) -> None:
    recorder = ConversationRecorder(reports, pace=3600)  # no timer fires during the test
    try:
        _check_paced_writes(recorder, project)
    finally:
        recorder.close()


def _check_paced_writes(recorder: ConversationRecorder, project: Path) -> None:
    # Each turn reaches the worker alone (not a burst): the first is written at once, the
    # others wait for the pace, and are written together.
    for n in range(6):
        recorder.record(str(project), A, B, A if n % 2 == 0 else B,
                        "prompt" if n % 2 == 0 else "response", f"turn {n}")
        recorder._worker.submit(lambda: None).result()  # the worker took this turn
    assert recorder.handoff_writes == 1
    files = ConversationFiles(project)
    on_disk = files.read_handoff(CID)
    assert on_disk is not None and on_disk.lines[-1] == "- **Prompt:** turn 0"
    handoff, _at = recorder.handoff(str(project), CID)
    assert handoff is not None and handoff.lines[-1] == "- **Response:** turn 5"  # at once
    recorder.drain()  # does not wait for the pace: it writes what waits for it now
    assert recorder.handoff_writes == 2
    on_disk = files.read_handoff(CID)
    assert on_disk is not None and on_disk.lines[-1] == "- **Response:** turn 5"


def test_pending_turns_are_in_the_handoff_before_the_worker_reaches_them(
    recorder: ConversationRecorder, project: Path
) -> None:
    recorder.record(str(project), A, B, A, "prompt", "first")
    recorder.drain()
    release = hold(recorder)
    recorder.record(str(project), A, B, B, "response", "just now")
    handoff, at_ms = recorder.handoff(str(project), CID)
    assert handoff is not None and handoff.lines[-1] == "- **Response:** just now"
    assert at_ms > 0
    on_disk = ConversationFiles(project).read_handoff(CID)
    assert on_disk is not None and on_disk.lines[-1] == "- **Prompt:** first"
    release.set()


def test_a_handoff_behind_its_log_catches_up_at_first_use(
    recorder: ConversationRecorder, project: Path
) -> None:
    files = ConversationFiles(project)
    turns = [Turn(f"00000000-0000-4000-8000-00000000000{n}", CID, n, A, "prompt", f"t{n}")
             for n in range(3)]
    files.folder(CID).mkdir(parents=True)
    (files.folder(CID) / "log.jsonl").write_text("".join(encode_turn(t) + "\n" for t in turns))
    files.write_handoff(CID, h.fold(h.EMPTY, turns[0]))  # a crash after the first write
    recorder.record(str(project), A, B, B, "response", "t3")
    recorder.drain()
    handoff = files.read_handoff(CID)
    assert handoff is not None
    assert [line.split(" ")[-1] for line in handoff.lines] == ["t0", "t1", "t2", "t3"]


def test_an_empty_handoff_left_by_a_crash_is_rebuilt_from_the_log(
    recorder: ConversationRecorder, reports: Recorded, project: Path
) -> None:
    """handoff.md is not fsynced (the log is): a crash right after its rename may leave it
    empty, which is no handoff yet — folded again from the log, not refused as damaged."""
    files = ConversationFiles(project)
    turns = [Turn(f"00000000-0000-4000-8000-00000000000{n}", CID, n, A, "prompt", f"t{n}")
             for n in range(2)]
    files.folder(CID).mkdir(parents=True)
    (files.folder(CID) / "log.jsonl").write_text("".join(encode_turn(t) + "\n" for t in turns))
    files.handoff_path(CID).write_bytes(b"")
    recorder.record(str(project), A, B, B, "response", "t2")
    recorder.drain()
    handoff = files.read_handoff(CID)
    assert handoff is not None and handoff.objective == "t0"
    assert [line.split(" ")[-1] for line in handoff.lines] == ["t0", "t1", "t2"]
    assert reports.problems == []


def test_a_corrupt_handoff_is_reported_once_and_left_alone(
    recorder: ConversationRecorder, reports: Recorded, project: Path
) -> None:
    files = ConversationFiles(project)
    files.folder(CID).mkdir(parents=True)
    files.handoff_path(CID).write_text("garbage\n")
    for n in range(3):
        recorder.record(str(project), A, B, A, "prompt", f"turn {n}")
    recorder.drain()
    assert files.handoff_path(CID).read_text() == "garbage\n"
    assert len(files.read(CID).turns) == 3  # the log goes on
    [(root, message)] = reports.problems
    assert root == str(project) and "handoff.md" in message and "will not overwrite" in message
    assert recorder.handoff(str(project), CID)[0] is None


def test_a_handoff_broken_by_someone_else_meanwhile_is_not_overwritten(
    recorder: ConversationRecorder, reports: Recorded, project: Path
) -> None:
    recorder.record(str(project), A, B, A, "prompt", "one")
    recorder.drain()
    files = ConversationFiles(project)
    files.handoff_path(CID).write_text("---\nbroken by hand\n")
    recorder.record(str(project), A, B, B, "response", "two")
    recorder.drain()
    assert files.handoff_path(CID).read_text() == "---\nbroken by hand\n"
    assert len(reports.problems) == 1


def test_bookkeeping_that_cannot_write_never_raises(
    recorder: ConversationRecorder, reports: Recorded, project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / ".ideai" / "conversations").symlink_to(outside)
    turn = recorder.record(str(project), USER, A, USER, "prompt", "hi")
    assert turn is not None and turn.source == USER
    assert recorder.record(str(project), A, A, A, "prompt", "to myself") is None
    recorder.drain()
    assert list(outside.iterdir()) == []
    assert reports.problems and "outside .ideai" in reports.problems[0][1]


def test_providers_go_to_the_user_conversation(
    recorder: ConversationRecorder, project: Path
) -> None:
    recorder.set_provider(str(project), A, USER, "claude-code", "11111111-2222")
    recorder.drain()
    assert recorder.providers(str(project), USER, A) == {"claude-code": "11111111-2222"}
