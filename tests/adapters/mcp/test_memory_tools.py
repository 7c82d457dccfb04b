"""`idea_memory_read` / `idea_memory_write` through the real SDK client, on real files
(the seed's memory as the starting point), including two agents writing at once."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from core.knowledge.limits import MEMORY_DESCRIPTION_MAX, MEMORY_NOTE_MAX_CHARS
from core.knowledge.memory_index import parse_index
from core.knowledge.note import parse_note
from tests.adapters.mcp.knowledge_rig import knowledge_rig, run, text

SEED = Path(__file__).parents[2] / "fixtures" / "seed_memory"


def seeded(tmp_path: Path) -> Path:
    project = tmp_path / "shop"
    shutil.copytree(SEED, project / ".ideai" / "memory")
    return project


def test_tools_are_listed_with_what_is_worth_saving(tmp_path: Path) -> None:
    async def body() -> None:
        async with knowledge_rig(tmp_path / "p") as r, r.client("Dev") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert {"idea_memory_read", "idea_memory_write"} <= set(tools)
            write = tools["idea_memory_write"]
            assert set(write.input_schema["required"]) == {"slug", "content"}
            assert "Never save raw conversations" in (write.description or "")
            assert tools["idea_memory_read"].input_schema.get("required") in (None, [])

    run(body)


def test_read_the_seed_index_and_a_note(tmp_path: Path) -> None:
    project = seeded(tmp_path)

    async def body() -> None:
        async with knowledge_rig(project) as r, r.client("Dev") as client:
            index = await client.call_tool("idea_memory_read", {})
            assert not index.is_error
            assert text(index) == (SEED / "MEMORY.md").read_text()
            note = await client.call_tool("idea_memory_read",
                                          {"slug": "git-owns-commit-merge-decisions"})
            assert text(note) == (SEED / "git-owns-commit-merge-decisions.md").read_text()
            missing = await client.call_tool("idea_memory_read", {"slug": "nothing-here"})
            assert missing.is_error and "no memory note 'nothing-here'" in text(missing)

    run(body)


def test_first_save_creates_the_folder_and_the_index(tmp_path: Path) -> None:
    project = tmp_path / "fresh"

    async def body() -> None:
        async with knowledge_rig(project) as r, r.client("Dev") as client:
            empty = await client.call_tool("idea_memory_read", {})
            assert "no memory notes yet" in text(empty)
            assert not (project / ".ideai" / "memory").exists()
            saved = await client.call_tool("idea_memory_write", {
                "slug": "build-commands", "content": "# Build\n\n`make check` runs the tests.\n",
                "description": "How to build and test the shop"})
            assert not saved.is_error, text(saved)
            assert "saved memory note 'build-commands'" in text(saved)

    run(body)
    folder = project / ".ideai" / "memory"
    assert (folder / "MEMORY.md").read_text() == (
        "# Memory Index\n\n- [build-commands](build-commands.md) — How to build and test the "
        "shop\n")
    note = parse_note("build-commands", (folder / "build-commands.md").read_text())
    assert note.description == "How to build and test the shop" and note.type == "project"


def test_update_keeps_the_seed_index_in_step(tmp_path: Path) -> None:
    project = seeded(tmp_path)
    folder = project / ".ideai" / "memory"

    async def body() -> None:
        async with knowledge_rig(project) as r, r.client("QA") as client:
            updated = await client.call_tool("idea_memory_write", {
                "slug": "session-limit-handling-design",
                "content": "# Session limits\n\nThe resume is cancellable.\n",
                "description": "Session limits: detection and a cancellable resume"})
            assert "updated memory note" in text(updated)
            added = await client.call_tool("idea_memory_write", {
                "slug": "qa-checklist.md", "content": "Run the e2e suite.", "type": "feedback"})
            assert not added.is_error, text(added)

    run(body)
    index = parse_index((folder / "MEMORY.md").read_text())
    assert [e.slug for e in index.entries][-2:] == ["git-owns-commit-merge-decisions",
                                                    "qa-checklist"]
    assert index.find("session-limit-handling-design") is not None
    seed_lines = (SEED / "MEMORY.md").read_text().splitlines()
    lines = (folder / "MEMORY.md").read_text().splitlines()
    # Only the updated line changed, in place; the new note was appended.
    assert [a == b for a, b in zip(seed_lines, lines, strict=False)].count(False) == 1
    assert lines[7] == ("- [session-limit-handling-design](session-limit-handling-design.md) "
                        "— Session limits: detection and a cancellable resume")
    qa = parse_note("qa-checklist", (folder / "qa-checklist.md").read_text())
    assert (qa.type, qa.description) == ("feedback", "Run the e2e suite.")


@pytest.mark.parametrize("arguments, expected", [
    ({"slug": "", "content": "x"}, "'slug' is required"),
    ({"slug": "../../etc/passwd", "content": "x"}, "refused"),
    ({"slug": "MEMORY", "content": "x"}, "index itself"),
    ({"slug": "a", "content": "   "}, "'content' is required"),
    ({"slug": "a", "content": "x" * (MEMORY_NOTE_MAX_CHARS + 1)}, f"{MEMORY_NOTE_MAX_CHARS:,}"),
    ({"slug": "a", "content": "x", "description": "d" * (MEMORY_DESCRIPTION_MAX + 1)},
     f"{MEMORY_DESCRIPTION_MAX:,}"),
    ({"slug": "a", "content": "x", "type": "diary"}, "type 'diary'"),
    ({"slug": 7, "content": "x"}, "slug"),
    ({"slug": "a", "content": ["x"]}, "content"),
    ({"content": "x"}, "slug"),
])
def test_bad_arguments_are_error_results(tmp_path: Path, arguments: dict[str, object],
                                         expected: str) -> None:
    project = tmp_path / "p"

    async def body() -> None:
        async with knowledge_rig(project) as r, r.client("Dev") as client:
            result = await client.call_tool("idea_memory_write", arguments)
            assert result.is_error, text(result)
            assert expected in text(result)
            bad_read = await client.call_tool("idea_memory_read", {"slug": "a/b"})
            assert bad_read.is_error and "refused" in text(bad_read)

    run(body)
    assert not (project / ".ideai" / "memory").exists()
    assert not list(tmp_path.rglob("passwd*"))


def test_a_corrupt_index_is_reported_and_never_overwritten(tmp_path: Path) -> None:
    project = seeded(tmp_path)
    index = project / ".ideai" / "memory" / "MEMORY.md"
    broken = index.read_text() + "- [oops](elsewhere.md) — a link to another file\n"
    index.write_text(broken)

    async def body() -> None:
        async with knowledge_rig(project) as r, r.client("Dev") as client:
            result = await client.call_tool("idea_memory_write",
                                            {"slug": "new-note", "content": "Body"})
            assert result.is_error
            assert "MEMORY.md cannot be read: line 10" in text(result)
            assert "will not overwrite it" in text(result)
            # Notes still read.
            note = await client.call_tool("idea_memory_read",
                                          {"slug": "permissions-sandbox-system-state"})
            assert not note.is_error

    run(body)
    assert index.read_text() == broken
    assert not (project / ".ideai" / "memory" / "new-note.md").exists()


def test_a_note_with_broken_frontmatter_is_never_overwritten(tmp_path: Path) -> None:
    project = seeded(tmp_path)
    note = project / ".ideai" / "memory" / "git-owns-commit-merge-decisions.md"
    broken = "---\nname: git-owns-commit-merge-decisions\nthis line is not yaml\n---\nbody\n"
    note.write_text(broken)

    async def body() -> None:
        async with knowledge_rig(project) as r, r.client("Dev") as client:
            result = await client.call_tool("idea_memory_write", {
                "slug": "git-owns-commit-merge-decisions", "content": "replacement"})
            assert result.is_error and "line 3" in text(result)

    run(body)
    assert note.read_text() == broken


def test_two_agents_writing_the_same_note_at_once_never_tear_it(tmp_path: Path) -> None:
    project = tmp_path / "race"
    bodies = {name: (f"# {name}'s version\n\n" + f"{name} line\n" * 2000) for name in ("Dev", "QA")}

    async def body() -> None:
        async with knowledge_rig(project) as r, r.client("Dev") as dev, r.client("QA") as qa:
            for round_number in range(6):
                calls = [
                    client.call_tool("idea_memory_write", {
                        "slug": "shared", "content": bodies[name] + f"round {round_number}\n",
                        "description": f"{name} round {round_number}"})
                    for name, client in (("Dev", dev), ("QA", qa))
                ] + [
                    client.call_tool("idea_memory_write", {
                        "slug": f"{name.lower()}-{round_number}", "content": "own note",
                        "description": "own"})
                    for name, client in (("Dev", dev), ("QA", qa))
                ]
                results = await asyncio.gather(*calls)
                assert not any(result.is_error for result in results), [text(x) for x in results]
                stored = (project / ".ideai" / "memory" / "shared.md").read_text()
                note = parse_note("shared", stored)
                winner = note.description.split()[0]
                assert note.body == bodies[winner] + f"round {round_number}\n"
                index = parse_index((project / ".ideai" / "memory" / "MEMORY.md").read_text())
                # The index line is the winner's too: note and index were written together.
                line = index.find("shared")
                assert line is not None and line.description == note.description
            assert r.knowledge.guard.waits > 0  # the writers really met in the guard
            assert r.knowledge.guard.table.held() == 0

    run(body)
    index = parse_index((project / ".ideai" / "memory" / "MEMORY.md").read_text())
    # No lost update of the index: every note written is listed once.
    assert sorted(e.slug for e in index.entries) == sorted(
        ["shared"] + [f"{n}-{i}" for n in ("dev", "qa") for i in range(6)])
    assert not list((project / ".ideai" / "memory").glob(".*.tmp"))
