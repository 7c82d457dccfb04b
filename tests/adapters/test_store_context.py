"""The project context and its proposals on a real disk (CTX-1, CTX-2): `.ideai/CONTEXT.md`
and `.ideai/proposals/<id>.json`. A file that cannot be read is reported and left alone;
ids and folders never lead outside `.ideai/`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.store.context_store import FsContextStore
from core.agents.errors import UnsafePath
from core.errors import CorruptFile, FileAccessError, IdeaError
from core.knowledge.errors import ProposalNotFound
from core.knowledge.limits import CONTEXT_FILE_MAX_BYTES
from core.knowledge.proposals import Proposal, content_hash


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".ideai").mkdir(parents=True)
    return root


def proposal(number: int, at_ms: int, content: str = "# Rules\n") -> Proposal:
    return Proposal(f"P{number:08x}", at_ms, "agent-dev", "Dev", content,
                    content_hash(None), reason=f"reason {number}")


def test_context_md_is_created_only_by_a_write_and_round_trips(project: Path) -> None:
    store = FsContextStore()
    assert store.read_context(project) is None
    assert not (project / ".ideai" / "CONTEXT.md").exists()  # a read creates nothing
    store.write_context(project, "# Rules\n\nFreeze on Friday. ✓\n")
    assert store.read_context(project) == "# Rules\n\nFreeze on Friday. ✓\n"
    assert [p.name for p in (project / ".ideai").iterdir()] == ["CONTEXT.md"]  # no temp left


@pytest.mark.parametrize(("content", "error", "why"), [
    (b"\xff\xfe not utf-8", CorruptFile, "not UTF-8"),
    (b"x" * (CONTEXT_FILE_MAX_BYTES + 1), CorruptFile, "larger than"),
    (None, FileAccessError, "Is a directory"),
])
def test_an_unreadable_context_md_is_named_with_why_and_never_replaced(
        project: Path, content: bytes | None, error: type[IdeaError], why: str) -> None:
    path = project / ".ideai" / "CONTEXT.md"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    with pytest.raises(error, match=why) as raised:
        FsContextStore().read_context(project)
    assert "CONTEXT.md" in str(raised.value)
    assert path.is_dir() if content is None else path.read_bytes() == content


def test_proposals_round_trip_oldest_first_and_are_deleted_once(project: Path) -> None:
    store = FsContextStore()
    assert store.proposals(project) == ([], [])
    newer, older = proposal(2, 2_000, "# New\n"), proposal(1, 1_000)
    store.write_proposal(project, newer)
    store.write_proposal(project, older)
    pending, broken = store.proposals(project)
    assert pending == [older, newer] and broken == []
    assert store.proposal(project, newer.id) == newer
    stored = json.loads((project / ".ideai" / "proposals" / f"{newer.id}.json").read_text())
    assert stored["author"] == {"agentId": "agent-dev", "name": "Dev"}
    store.delete_proposal(project, older.id)
    with pytest.raises(ProposalNotFound):
        store.delete_proposal(project, older.id)
    assert store.proposals(project)[0] == [newer]


def test_broken_proposal_files_are_listed_with_their_problem_and_left_alone(
        project: Path) -> None:
    store = FsContextStore()
    good = proposal(1, 1_000)
    store.write_proposal(project, good)
    folder = project / ".ideai" / "proposals"
    files = {
        "P0000000a.json": b"{not json",
        "P0000000b.json": json.dumps({**proposal(12, 5).to_json(), "version": 99}).encode(),
        "P0000000c.json": json.dumps(proposal(13, 5).to_json()).encode(),  # id ≠ its name
        "notes.txt": b"ignored",
        ".P0000000d.json.tmp": b"{",
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    pending, broken = store.proposals(project)
    assert pending == [good]
    problems = {entry.name: entry.problem for entry in broken}
    assert sorted(problems) == ["P0000000a.json", "P0000000b.json", "P0000000c.json"]
    assert "P0000000a.json" in problems["P0000000a.json"]
    assert problems["P0000000c.json"] == "its id P0000000d is not its name"
    for name, data in files.items():
        assert (folder / name).read_bytes() == data  # listing never rewrites or deletes


@pytest.mark.parametrize("hostile", ["../CONTEXT", "P1234567/../../x", "x.json", "", "P12"])
def test_an_id_that_is_not_a_proposal_id_finds_nothing_and_touches_nothing(
        project: Path, hostile: str) -> None:
    store = FsContextStore()
    (project / ".ideai" / "CONTEXT.md").write_text("kept\n")
    with pytest.raises(ProposalNotFound):
        store.proposal(project, hostile)
    with pytest.raises(ProposalNotFound):
        store.delete_proposal(project, hostile)
    assert (project / ".ideai" / "CONTEXT.md").read_text() == "kept\n"


def test_folders_that_lead_out_of_ideai_are_refused(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "CONTEXT.md").write_text("the user's other file\n")
    (project / ".ideai" / "proposals").symlink_to(outside, target_is_directory=True)
    (project / ".ideai" / "CONTEXT.md").symlink_to(outside / "CONTEXT.md")
    store = FsContextStore()
    with pytest.raises(UnsafePath):
        store.proposals(project)
    with pytest.raises(UnsafePath):
        store.write_proposal(project, proposal(1, 1))
    with pytest.raises(UnsafePath):
        store.read_context(project)
    with pytest.raises(UnsafePath):
        store.write_context(project, "overwritten?\n")
    assert (outside / "CONTEXT.md").read_text() == "the user's other file\n"
    assert sorted(p.name for p in outside.iterdir()) == ["CONTEXT.md"]
