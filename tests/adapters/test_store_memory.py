"""The memory store on real files, the seed's memory as fixtures (§3.9)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from adapters.store.memory_store import FsMemoryStore
from core.agents.errors import UnsafePath
from core.errors import CorruptFile, FileAccessError
from core.knowledge.errors import InvalidSlug, NoteNotFound
from core.knowledge.limits import MEMORY_NOTE_MAX_BYTES

SEED = Path(__file__).parents[1] / "fixtures" / "seed_memory"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(SEED, root / ".ideai" / "memory")
    return root


def test_the_seed_memory_lists_whole(project: Path) -> None:
    rows = FsMemoryStore().notes(project)
    assert rows[0].slug == "agent-context-memory-and-profile-handoff"
    assert len(rows) == 7 and all(r.indexed and r.present and r.problem is None for r in rows)
    assert {r.type for r in rows} == {"project", "feedback"}


def test_files_the_index_misses_and_entries_without_a_file_are_shown(project: Path) -> None:
    folder = project / ".ideai" / "memory"
    (folder / "stray.md").write_text("---\nname: stray\ndescription: Not indexed\n---\nx\n")
    (folder / "permissions-sandbox-system-state.md").unlink()
    (folder / "not a slug.md").write_text("ignored")
    rows = {r.slug: r for r in FsMemoryStore().notes(project)}
    assert rows["stray"].indexed is False and rows["stray"].description == "Not indexed"
    assert rows["permissions-sandbox-system-state"].present is False
    assert "not a slug" not in rows


def test_a_broken_note_is_listed_with_its_problem(project: Path) -> None:
    path = project / ".ideai" / "memory" / "session-limit-handling-design.md"
    path.write_bytes(b"---\nname: x\n\xff\xfe\n")
    row = {r.slug: r for r in FsMemoryStore().notes(project)}["session-limit-handling-design"]
    assert row.problem is not None and "not UTF-8" in row.problem
    with pytest.raises(CorruptFile):
        FsMemoryStore().note(project, "session-limit-handling-design")


def test_a_folder_where_a_note_should_be_is_listed_with_its_problem(project: Path) -> None:
    path = project / ".ideai" / "memory" / "git-owns-commit-merge-decisions.md"
    path.unlink()
    path.mkdir()
    rows = {r.slug: r for r in FsMemoryStore().notes(project)}
    problem = rows["git-owns-commit-merge-decisions"].problem
    assert problem is not None and "Is a directory" in problem, rows
    assert len(rows) == 7 and path.is_dir()
    with pytest.raises(FileAccessError, match=r"git-owns-commit-merge-decisions\.md"):
        FsMemoryStore().note(project, "git-owns-commit-merge-decisions")


def test_oversized_notes_are_refused_unread(project: Path) -> None:
    path = project / ".ideai" / "memory" / "huge.md"
    path.write_bytes(b"x" * (MEMORY_NOTE_MAX_BYTES + 1))
    with pytest.raises(CorruptFile, match="larger than"):
        FsMemoryStore().note_text(project, "huge")


def test_paths_never_leave_the_memory_folder(project: Path, tmp_path: Path) -> None:
    store = FsMemoryStore()
    with pytest.raises(InvalidSlug):
        store.note_text(project, "../agents")
    secret = tmp_path / "secret.md"
    secret.write_text("---\nname: leak\ndescription: d\n---\nsecret\n")
    os.symlink(secret, project / ".ideai" / "memory" / "leak.md")
    with pytest.raises(UnsafePath):
        store.note_text(project, "leak")
    with pytest.raises(NoteNotFound):
        store.note_text(project, "absent")


def test_a_memory_folder_that_is_a_link_out_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "clone"
    (root / ".ideai").mkdir(parents=True)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, root / ".ideai" / "memory")
    with pytest.raises(UnsafePath):
        FsMemoryStore().index(root)
