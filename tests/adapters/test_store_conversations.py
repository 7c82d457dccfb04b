"""Conversation files on a real disk, with the seed's own logs and handoffs as fixtures."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from adapters.conversations.store import ConversationFiles
from core.agents.errors import UnsafePath
from core.conversations import handoff as h
from core.conversations.ids import USER, conversation_id
from core.conversations.turns import Turn, encode_turn
from core.errors import CorruptFile, FileAccessError

SEEDS = Path(__file__).parent.parent / "fixtures" / "seed_conversations"
A = "a6ced819-b893-4213-b003-9e9dc79b9641"
B = "af7f86da-76bc-48e1-9900-71f45a624800"
CID = conversation_id(A, B)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".ideai").mkdir()
    return tmp_path


def seeded(project: Path) -> ConversationFiles:
    shutil.copytree(SEEDS, project / ".ideai" / "conversations")
    return ConversationFiles(project)


def turn(n: int, text: str = "hello", role: str = "prompt", source: str = A) -> Turn:
    return Turn(f"00000000-0000-4000-8000-{n:012d}", CID, 1_000 + n, source,
                "prompt" if role == "prompt" else "response", text)


def write_log(files: ConversationFiles, count: int) -> h.Handoff:
    """A log of `count` turns written at once (appending one by one fsyncs each), and the
    handoff folded from them."""
    files.folder(CID).mkdir(parents=True, exist_ok=True)
    turns = [turn(n, f"turn {n}") for n in range(count)]
    (files.folder(CID) / "log.jsonl").write_text("".join(encode_turn(t) + "\n" for t in turns))
    folded = h.EMPTY
    for t in turns:
        folded = h.fold(folded, t)
    return folded


def test_seed_logs_and_handoffs_read(project: Path) -> None:
    files = seeded(project)
    assert len(files.conversations()) == 5
    read = files.read(CID)
    assert len(read.turns) == 12 and not read.skipped
    assert read.turns[2].text == "123 × 4 = 492" and read.turns[2].source == B
    handoff = files.read_handoff(CID)
    assert handoff is not None and handoff.up_to == read.turns[-1].id
    assert files.read_since(CID, read.turns[9].id) == read.turns[10:]
    assert files.read_since(CID, "not-there") == []


def test_append_is_one_line_and_keeps_existing_bytes(project: Path) -> None:
    files = seeded(project)
    log = project / ".ideai" / "conversations" / CID / "log.jsonl"
    before = log.read_bytes()
    files.append(turn(1, "multi\nline ✓"))
    after = log.read_bytes()
    assert after.startswith(before)
    assert after[len(before):] == (encode_turn(turn(1, "multi\nline ✓")) + "\n").encode()
    assert files.read(CID).turns[-1].text == "multi\nline ✓"


def test_a_new_conversation_is_created_on_first_append(project: Path) -> None:
    files = ConversationFiles(project)
    cid = conversation_id(USER, A)
    files.append(Turn("t1", cid, 5, USER, "prompt", "from the user"))
    line = (project / ".ideai" / "conversations" / cid / "log.jsonl").read_text()
    assert json.loads(line)["source"] == {"kind": "user"}
    assert files.conversations() == [cid]


def test_a_torn_last_line_is_skipped_and_the_next_append_starts_afresh(project: Path) -> None:
    files = ConversationFiles(project)
    files.append(turn(1))
    log = project / ".ideai" / "conversations" / CID / "log.jsonl"
    with open(log, "ab") as handle:
        handle.write(encode_turn(turn(2)).encode()[:40])  # a crash in the middle of a write
    read = files.read(CID)
    assert [t.id for t in read.turns] == [turn(1).id]
    assert read.skipped == [2] and "cut by a crash" in read.problems[0]
    files.append(turn(3))
    read = files.read(CID)
    assert [t.id for t in read.turns] == [turn(1).id, turn(3).id]
    assert read.skipped == [2] and len(log.read_bytes().splitlines()) == 3


def test_a_bad_line_in_the_middle_is_reported_and_the_rest_read(project: Path) -> None:
    files = ConversationFiles(project)
    files.append(turn(1))
    log = project / ".ideai" / "conversations" / CID / "log.jsonl"
    with open(log, "ab") as handle:
        handle.write(b'{"id": 3}\n\xff\xfe\n')
    files.append(turn(2))
    read = files.read(CID)
    assert len(read.turns) == 2 and read.skipped == [2, 3]
    assert "'id' must be" in read.problems[0] and "not JSON" in read.problems[1]


def test_handoff_round_trip_is_atomic_and_bounded(project: Path) -> None:
    files = ConversationFiles(project)
    folded = h.EMPTY
    for n in range(50):
        folded = h.fold(folded, turn(n, "z" * 400))
    stamp = files.write_handoff(CID, folded)
    assert stamp == files.handoff_stamp(CID)
    text = files.handoff_path(CID).read_text()
    assert len(text) <= h.HANDOFF_MAX_CHARS and files.read_handoff(CID) == folded
    leftovers = [p.name for p in files.folder(CID).iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_a_corrupt_handoff_is_refused_with_its_path(project: Path) -> None:
    files = ConversationFiles(project)
    files.folder(CID).mkdir(parents=True)
    files.handoff_path(CID).write_text("no frontmatter here\n")
    with pytest.raises(CorruptFile) as caught:
        files.read_handoff(CID)
    assert str(files.handoff_path(CID)) in caught.value.message
    assert "will not overwrite" in caught.value.message


def test_ids_that_are_not_uuids_or_escape_ideai_are_refused(project: Path, tmp_path: Path) -> None:
    files = ConversationFiles(project)
    for bad in ("../../etc", "A6CED819-B893-4213-B003-9E9DC79B9641", "x", ""):
        with pytest.raises(UnsafePath):
            files.folder(bad)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (project / ".ideai" / "conversations").symlink_to(outside)
    with pytest.raises(UnsafePath, match=r"outside \.ideai"):
        files.append(turn(1))
    assert list(outside.iterdir()) == []


def test_providers_are_kept_per_profile_and_a_bad_file_is_left_alone(project: Path) -> None:
    files = ConversationFiles(project)
    files.set_provider(CID, "claude-code", "0f6e-session")
    files.set_provider(CID, "codex", "019a-thread")
    assert files.providers(CID) == {"claude-code": "0f6e-session", "codex": "019a-thread"}
    path = files.folder(CID) / "providers.json"
    path.write_text("{oops")
    with pytest.raises(CorruptFile):
        files.set_provider(CID, "claude-code", "other")
    assert path.read_text() == "{oops"


def test_rotation_moves_old_turns_and_keeps_up_to_active(project: Path) -> None:
    files = ConversationFiles(project)
    files.write_handoff(CID, write_log(files, 620))
    plan = files.rotate(CID)
    assert plan.move == 619 and plan.new_segment == 1
    assert [t.id for t in files.read(CID).turns] == [turn(619).id]
    archived = files.read(CID, 1).turns
    assert len(archived) == 619 and archived[0].id == turn(0).id
    assert files.rotate(CID).nothing  # idempotent
    files.append(turn(620))
    assert len(files.read(CID).turns) == 2


def test_rotation_after_a_crash_between_its_two_writes_keeps_one_copy(project: Path) -> None:
    files = ConversationFiles(project)
    files.write_handoff(CID, write_log(files, 1100))
    log = files.folder(CID) / "log.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    (files.folder(CID) / "log.1.jsonl").write_bytes(b"".join(lines[:300]))  # then "killed"
    plan = files.rotate(CID)
    assert plan.drop == 300 and plan.move == 799 and plan.new_segment == 2
    every = [t.id for seg in (1, 2) for t in files.read(CID, seg).turns]
    every += [t.id for t in files.read(CID).turns]
    assert every == [turn(n).id for n in range(1100)]


def test_no_handoff_no_rotation_and_old_segments_are_pruned(project: Path) -> None:
    files = ConversationFiles(project)
    write_log(files, 700)
    assert files.rotate(CID).nothing
    for number in range(1, 22):
        (files.folder(CID) / f"log.{number}.jsonl").write_text(encode_turn(turn(10_000 + number))
                                                             + "\n")
    files.write_handoff(CID, h.fold(h.EMPTY, turn(699, "turn 699")))
    plan = files.rotate(CID)
    assert plan.new_segment == 22 and plan.prune == (1, 2)
    assert files.segments(CID) == list(range(3, 23))


def test_seed_handoffs_are_bounded_on_the_way_out(project: Path) -> None:
    files = seeded(project)
    for cid in files.conversations():
        handoff = files.read_handoff(cid)
        assert handoff is not None
        assert len(h.render(h.bound(handoff))) <= h.HANDOFF_MAX_CHARS
    assert os.path.getsize(files.handoff_path("6bc594e8-a37c-0dbd-1de6-6e3b73002cb4")) > 30_000


def test_files_that_are_links_are_never_followed(project: Path, tmp_path: Path) -> None:
    """A cloned project may commit `log.jsonl` or `handoff.md` as a link to a user's file:
    appending would write into it, reading would show it (or inject it into an agent)."""
    files = ConversationFiles(project)
    secret = tmp_path / "secret.txt"
    secret.write_text("---\nupTo: x\n---\n- **Prompt:** the user's secret\n")
    files.folder(CID).mkdir(parents=True)
    (files.folder(CID) / "log.jsonl").symlink_to(secret)
    (files.folder(CID) / "handoff.md").symlink_to(secret)
    with pytest.raises(FileAccessError, match="symbolic link"):
        files.append(turn(1))
    with pytest.raises(FileAccessError, match="symbolic link"):
        files.read(CID)
    with pytest.raises(FileAccessError, match="symbolic link"):
        files.read_handoff(CID)
    files.write_handoff(CID, h.fold(h.EMPTY, turn(2)))  # replaces the link, not its target
    assert not files.handoff_path(CID).is_symlink()
    assert secret.read_text().endswith("the user's secret\n")
