"""The git panel and the Git Graph page against a recording gateway: what each key asks of
the daemon, the confirmation before a discard, the refresh on `Changed` (no polling), and
the graph's lazy paging and Enter."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from adapters.ipc.messages import Changed
from idea_tui.app import IdeaApp
from idea_tui.control import CommandFailed
from idea_tui.screens.confirm import ConfirmScreen
from idea_tui.screens.git_diff import CommitDiffScreen
from idea_tui.screens.git_panel import GitScreen
from idea_tui.widgets.message_line import MessageLine
from tests.helpers.fake_gateway import FakeGateway
from tests.helpers.pilot import drive, make_app, settle, show, wait_for_screen
from tests.helpers.scenes import grid_scene
from tests.tui.git_data import APP_DIFF, HISTORY, STATUS
from tests.tui.test_git_snapshots import GRAPH_SCENE

SCENE = grid_scene(100, 28, 1, 1)
ROOT = STATUS["root"]


def panel_gateway(**extra: Any) -> FakeGateway:
    def discard(params: dict[str, Any]) -> Any:
        if not params.get("force"):
            raise CommandFailed("confirm", "Discarding throws away the changes.")
        return {"paths": len(params["paths"])}

    return FakeGateway(results={
        "git_watch": {"root": ROOT, "watching": True},
        "git_status": STATUS,
        "git_log": {"entries": HISTORY[:3], "lanes": [], "more": True},
        "git_diff": {"files": APP_DIFF},
        "git_stage": {"paths": 1},
        "git_unstage": {"paths": 1},
        "git_discard": discard,
        "git_commit": {"oid": "abcdef1234567890"},
        "git_hunk": None,
        **extra,
    })


async def open_panel(pilot: Pilot[str], gateway: FakeGateway) -> GitScreen:
    await show(pilot, SCENE)
    await settle(pilot)
    gateway.calls.clear()
    await pilot.press("ctrl+b", "G")
    screen = await wait_for_screen(pilot, GitScreen)
    await settle(pilot)
    return screen


def test_the_panel_watches_then_reads_and_stages_the_selected_file() -> None:
    gateway = panel_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_panel(pilot, gateway)
        assert gateway.methods()[:3] == ["git_watch", "git_status", "git_log"]
        await pilot.press("down", "down", "down")  # past the staged section: src/app.py
        await settle(pilot)
        gateway.calls.clear()
        await pilot.press("s")
        await settle(pilot)
        method, params = gateway.calls[0]
        assert (method, params["paths"]) == ("git_stage", [{"path": "src/app.py"}])
        assert "git_status" in gateway.methods()  # refreshed after the action

    drive(make_app(gateway), scenario)


def test_unstage_in_the_staged_section_and_stage_a_hunk() -> None:
    gateway = panel_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_panel(pilot, gateway)
        gateway.calls.clear()
        await pilot.press("u")  # the first staged file is selected at first
        await settle(pilot)
        assert gateway.calls[0][0] == "git_unstage"
        assert gateway.calls[0][1]["paths"] == [{"path": "src/auth.py"}]
        gateway.calls.clear()
        await pilot.press("right_square_bracket", "h")
        await settle(pilot)
        method, params = gateway.calls[0]
        assert method == "git_hunk"
        assert (params["hunk"], params["header"], params["unstage"]) == (
            1, "@@ -20,3 +21,4 @@ def index():", True)

    drive(make_app(gateway), scenario)


def test_discard_asks_and_declining_sends_nothing_more() -> None:
    gateway = panel_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_panel(pilot, gateway)
        await pilot.press("down", "down", "down")
        await settle(pilot)
        gateway.calls.clear()
        await pilot.press("d")
        await wait_for_screen(pilot, ConfirmScreen)
        await pilot.press("n")
        await settle(pilot)
        assert [p.get("force") for m, p in gateway.calls if m == "git_discard"] == [None]
        await pilot.press("d")
        await wait_for_screen(pilot, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert [p.get("force") for m, p in gateway.calls if m == "git_discard"] == [
            None, None, True]

    drive(make_app(gateway), scenario)


def test_commit_from_the_message_box() -> None:
    gateway = panel_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_panel(pilot, gateway)
        gateway.calls.clear()
        await pilot.press("c", *"Add login", "enter")
        await settle(pilot)
        assert ("git_commit", {"message": "Add login"}) in gateway.calls

    drive(make_app(gateway), scenario)


def test_changed_refreshes_the_panel_and_nothing_polls() -> None:
    gateway = panel_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_panel(pilot, gateway)
        gateway.calls.clear()
        for _ in range(5):
            await pilot.pause(0.05)
        assert gateway.calls == []  # no timer asks again
        app = pilot.app
        assert isinstance(app, IdeaApp)
        app.handle_message(Changed(topic="git", key="/somewhere/else"))
        await settle(pilot)
        assert gateway.calls == []
        app.handle_message(Changed(topic="git", key=ROOT))
        await settle(pilot)
        assert gateway.methods()[0] == "git_status"

    drive(make_app(gateway), scenario)


def test_not_a_repository_offers_init() -> None:
    refused = CommandFailed("NotARepository", "/p is not a git repository")
    gateway = panel_gateway(git_status=refused, git_init={"root": "/p"})

    async def scenario(pilot: Pilot[str]) -> None:
        screen = await open_panel(pilot, gateway)
        assert "i: make it one" in screen.problem
        await pilot.press("i")
        await settle(pilot)
        assert "git_init" in gateway.methods()

    drive(make_app(gateway), scenario)


def test_graph_page_pages_lazily_and_enter_shows_the_commit() -> None:
    pages = [HISTORY[:5], HISTORY[5:]]

    def log(params: dict[str, Any]) -> Any:
        page = pages[0] if params["skip"] == 0 else pages[1]
        return {"entries": page, "lanes": ["x"] if page is pages[0] else [],
                "more": page is pages[0]}

    gateway = FakeGateway(results={"git_watch": {"root": ROOT, "watching": True},
                                   "git_log": log, "git_diff": {"files": APP_DIFF}})

    async def scenario(pilot: Pilot[str]) -> None:
        await show(pilot, GRAPH_SCENE)
        await settle(pilot)
        logs = [p for m, p in gateway.calls if m == "git_log"]
        assert [p["skip"] for p in logs] == [0]
        # Near the end of what is loaded, the next page is asked for, with the lanes.
        await pilot.press("end")
        await settle(pilot)
        logs = [p for m, p in gateway.calls if m == "git_log"]
        assert [(p["skip"], p["lanes"]) for p in logs] == [(0, []), (5, ["x"])]
        app = pilot.app
        assert isinstance(app, IdeaApp) and len(app.graph.entries) == len(HISTORY)
        assert gateway.keys == []  # the graph's keys never reach a program
        await pilot.press("enter")
        screen = await wait_for_screen(pilot, CommitDiffScreen)
        await settle(pilot)
        assert screen.entry["oid"] == HISTORY[-1]["oid"]
        assert ("git_diff", {"target": "commit", "new": HISTORY[-1]["oid"]}) in gateway.calls

    drive(make_app(gateway), scenario)


def test_fetch_pull_push_keys() -> None:
    done = {"summary": "", "lines": []}
    gateway = panel_gateway(git_fetch=done, git_pull=done, git_push=done)

    async def scenario(pilot: Pilot[str]) -> None:
        await open_panel(pilot, gateway)
        gateway.calls.clear()
        await pilot.press("F", "P", "p")
        await settle(pilot)
        assert [m for m in gateway.methods() if m in ("git_fetch", "git_pull", "git_push")] == [
            "git_fetch", "git_pull", "git_push"]

    drive(make_app(gateway), scenario)


def test_a_refresh_keeps_the_cursor_on_the_section_header() -> None:
    """A refresh between two keys (the watcher fired) must not move the cursor: `u` on the
    Staged header unstages the whole section, not its first file."""
    gateway = panel_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_panel(pilot, gateway)
        await pilot.press("up")  # from the first staged file to the section's header
        app = pilot.app
        assert isinstance(app, IdeaApp)
        app.handle_message(Changed(topic="git", key=ROOT))
        await settle(pilot)
        gateway.calls.clear()
        await pilot.press("u")
        await settle(pilot)
        assert gateway.calls[0] == ("git_unstage", {
            "paths": [{"path": "src/auth.py"}, {"path": "docs/login.md"}]})

    drive(make_app(gateway), scenario)


def test_esc_cancels_a_running_push_and_the_panel_says_so() -> None:
    """While a push runs the hint line offers Esc; Esc sends `git_cancel` (the panel stays
    open) and the push's GitCancelled answer is worded in the panel."""
    cancelled = asyncio.Event()

    async def push(params: dict[str, Any]) -> Any:
        await cancelled.wait()
        raise CommandFailed("GitCancelled", "git push was cancelled.")

    def cancel(params: dict[str, Any]) -> Any:
        cancelled.set()
        return {"cancelled": 1}

    gateway = panel_gateway(git_push=push, git_cancel=cancel)

    async def scenario(pilot: Pilot[str]) -> None:
        screen = await open_panel(pilot, gateway)
        await pilot.press("p")
        # Not `settle`: it waits for every worker, and the push's waits for the cancel.
        for _ in range(300):
            if "cancel the push" in str(screen.query_one("#git-hint", Static).render()):
                break
            await pilot.pause()
        hint = str(screen.query_one("#git-hint", Static).render())
        assert "Esc or ctrl+c: cancel the push" in hint
        assert "git_cancel" not in gateway.methods()
        await pilot.press("escape")
        await settle(pilot)
        assert "git_cancel" in gateway.methods()
        assert pilot.app.screen is screen
        assert screen.query_one(MessageLine).message == "push cancelled"
        assert "F: fetch" in str(screen.query_one("#git-hint", Static).render())
        # With nothing running, Esc closes the panel again.
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, GitScreen)

    drive(make_app(gateway), scenario)
