"""The Memory and Context panels driven with keys on the real client; the daemon's answers
are canned (tests/helpers/fake_gateway.py) and the calls they make are checked."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, TextArea

from idea_tui.screens.confirm import ConfirmScreen
from idea_tui.screens.context import ContextScreen
from idea_tui.screens.editor import EditorScreen
from idea_tui.screens.memory import MemoryScreen
from idea_tui.screens.prompt import PromptScreen
from tests.helpers.pilot import drive, make_app, show
from tests.tui.test_agent_screens import SCENE, Gateway, called, screen, until
from tests.tui.test_knowledge_snapshots import CURRENT, proposals

NOTES = {"folder": "/p/.ideai/memory", "problem": None, "notes": [
    {"slug": "deploy-rules", "description": "Deploy from main only", "type": "project",
     "indexed": True, "present": True, "problem": None, "size": 90},
    {"slug": "user-prefers-french", "description": "Commit messages in French",
     "type": "feedback", "indexed": True, "present": True, "problem": None, "size": 70},
]}
NOTE_TEXT = ("---\nname: deploy-rules\ndescription: Deploy from main only\nmetadata:\n"
             "  type: project\n---\n# Deploy\n")


def memory_gateway() -> Gateway:
    return Gateway(results={
        "memory_list": NOTES,
        "memory_read": lambda p: {"slug": p["slug"], "path": f"/p/{p['slug']}.md",
                                  "exists": p["slug"] == "deploy-rules",
                                  "content": NOTE_TEXT if p["slug"] == "deploy-rules" else "",
                                  "revision": "r1" if p["slug"] == "deploy-rules" else ""},
        "memory_write": lambda p: {"slug": p["slug"], "message": f"saved {p['slug']}"},
        "memory_delete": lambda p: {"slug": p["slug"], "message": f"deleted {p['slug']}"},
    })


async def open_memory(pilot: Pilot[str]) -> MemoryScreen:
    await show(pilot, SCENE)
    await pilot.press("ctrl+b", "N")
    panel = await screen(pilot, MemoryScreen)
    await until(pilot, lambda: panel.query_one(DataTable).row_count == 2, "rows")
    assert isinstance(panel, MemoryScreen)
    return panel


def test_memory_panel_edits_a_note_with_its_revision() -> None:
    gateway = memory_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_memory(pilot)
        await pilot.press("enter")
        editor = await screen(pilot, EditorScreen)
        assert editor.text == NOTE_TEXT
        editor.query_one(TextArea).insert("More.\n", editor.query_one(TextArea).document.end)
        await pilot.press("ctrl+s")
        await called(pilot, gateway, "memory_write")

    drive(make_app(gateway), scenario)
    [written] = gateway.params("memory_write")
    assert written["slug"] == "deploy-rules" and written["revision"] == "r1"
    assert written["content"] == NOTE_TEXT + "More.\n"


def test_memory_panel_new_note_starts_from_a_frontmatter() -> None:
    gateway = memory_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_memory(pilot)
        await pilot.press("n")
        await screen(pilot, PromptScreen)
        await pilot.press(*"release-steps", "enter")
        editor = await screen(pilot, EditorScreen)
        assert editor.text.startswith("---\nname: release-steps\ndescription: \n")
        await pilot.press("ctrl+s")
        await called(pilot, gateway, "memory_write")

    drive(make_app(gateway), scenario)
    assert gateway.params("memory_write")[0]["revision"] == ""


def test_memory_panel_delete_asks_first() -> None:
    gateway = memory_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        panel = await open_memory(pilot)
        panel.query_one(DataTable).move_cursor(row=1)
        await pilot.pause()
        await pilot.press("d")
        confirm = await screen(pilot, ConfirmScreen)
        assert "Delete memory note user-prefers-french?" in confirm.question
        await pilot.press("y")
        await called(pilot, gateway, "memory_delete")

    drive(make_app(gateway), scenario)
    assert gateway.params("memory_delete") == [{"slug": "user-prefers-french"}]


def context_gateway() -> Gateway:
    return Gateway(results={
        "context_read": {"path": "/p/.ideai/CONTEXT.md", "exists": True, "content": CURRENT,
                         "revision": "c1"},
        "context_proposals": proposals(),
        "context_accept": lambda p: {"message": f"accepted proposal {p['id']}"},
        "context_reject": lambda p: {"message": f"rejected proposal {p['id']}"},
        "context_write": lambda p: {"message": "wrote", "revision": "c2"},
    })


async def open_context(pilot: Pilot[str]) -> ContextScreen:
    await show(pilot, SCENE)
    await pilot.press("ctrl+b", "C")
    panel = await screen(pilot, ContextScreen)
    await until(pilot, lambda: panel.query_one(DataTable).row_count == 2, "rows")
    assert isinstance(panel, ContextScreen)
    return panel


def test_context_panel_accepts_the_selected_proposal_after_asking() -> None:
    gateway = context_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_context(pilot)
        await pilot.press("a")
        confirm = await screen(pilot, ConfirmScreen)
        assert "Accept P1a2b3c4d5e from Dev?" in confirm.question
        await pilot.press("y")
        await called(pilot, gateway, "context_accept")

    drive(make_app(gateway), scenario)
    assert gateway.params("context_accept") == [{"id": "P1a2b3c4d5e"}]


def test_context_panel_rejects_and_a_no_changes_nothing() -> None:
    gateway = context_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        panel = await open_context(pilot)
        panel.query_one(DataTable).move_cursor(row=1)
        await pilot.pause()
        await pilot.press("r")
        await screen(pilot, ConfirmScreen)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(pilot.app.screen, ContextScreen), "back")
        await pilot.press("r")
        await screen(pilot, ConfirmScreen)
        await pilot.press("y")
        await called(pilot, gateway, "context_reject")

    drive(make_app(gateway), scenario)
    assert gateway.params("context_reject") == [{"id": "P9f8e7d6c5b"}]
    assert gateway.params("context_accept") == []


def test_context_panel_edits_context_md_with_its_revision() -> None:
    gateway = context_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_context(pilot)
        await pilot.press("e")
        editor = await screen(pilot, EditorScreen)
        assert editor.text == CURRENT
        area = editor.query_one(TextArea)
        area.insert("- New rule.\n", area.document.end)
        await pilot.press("ctrl+s")
        await called(pilot, gateway, "context_write")

    drive(make_app(gateway), scenario)
    [written] = gateway.params("context_write")
    assert written == {"content": CURRENT + "- New rule.\n", "revision": "c1"}


def test_memory_panel_shift_e_edits_a_note_in_the_users_editor(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """E hands the note to $EDITOR (the client suspended meanwhile) and writes what the
    editor saved, with the revision it read."""
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nprintf "Edited outside.\\n" >> "$1"\n')
    editor.chmod(0o755)
    monkeypatch.setenv("VISUAL", str(editor))
    gateway = memory_gateway()
    app = make_app(gateway)
    # The test's headless driver cannot hand the terminal over: the editor runs as is.
    monkeypatch.setattr(app, "suspend", contextlib.nullcontext)

    async def scenario(pilot: Pilot[str]) -> None:
        await open_memory(pilot)
        await pilot.press("E")
        await called(pilot, gateway, "memory_write")

    drive(app, scenario)
    [written] = gateway.params("memory_write")
    assert written["slug"] == "deploy-rules" and written["revision"] == "r1"
    assert written["content"] == NOTE_TEXT + "Edited outside.\n"
