"""The agents, templates and profiles screens against a recording gateway.

Each test drives the real client (`IdeaApp`) with keys; the daemon's answers are canned per
command (`FakeGateway.results`), a "confirm" answer is a `CommandFailed` with that code until
the command comes back with `force`.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import DataTable, Input, Select, Static, TextArea

from idea_tui.app import IdeaApp
from idea_tui.control import CommandFailed
from idea_tui.screens.agents import AgentsScreen
from idea_tui.screens.choice import ChoiceScreen
from idea_tui.screens.confirm import ConfirmScreen
from idea_tui.screens.custom_profile import CustomProfileScreen
from idea_tui.screens.editor import EditorScreen
from idea_tui.screens.palette import PaletteScreen
from idea_tui.screens.profiles import ProfilesScreen
from idea_tui.screens.prompt import PromptScreen
from idea_tui.screens.templates import TemplatesScreen
from idea_tui.widgets.message_line import MessageLine
from idea_tui.widgets.profile_row import ProfileRow, clean_error
from tests.helpers.fake_gateway import FakeGateway
from tests.helpers.pilot import drive, make_app, show, wait_for_screen
from tests.helpers.scenes import grid_scene
from tests.tui.agent_data import AGENTS, DETECTION, PERSONA, PROFILES, TEMPLATES

SCENE = grid_scene(100, 28, 1, 2, focused=1)
FOCUSED = "%cell-1"


class Gateway(FakeGateway):
    """A FakeGateway whose canned answers may also be awaitables (a slow daemon), and
    which looks like a live connection so the app runs its start-up hook (first run)."""

    def __init__(self, results: dict[str, Any] | None = None, *, live: bool = False) -> None:
        super().__init__(results=dict(results or {}))
        if live:
            self.on_message: Any = lambda message: None
            self.on_closed: Any = lambda reason: None

    def start(self) -> None:
        pass

    async def call(self, method: str, **params: Any) -> Any:
        result = await super().call(method, **params)
        if inspect.isawaitable(result):
            return await result
        return result

    def params(self, method: str) -> list[dict[str, Any]]:
        return [params for name, params in self.calls if name == method]


def confirm_first(message: str, result: Any) -> Callable[[dict[str, Any]], Any]:
    """A daemon command that asks for confirmation unless called with force."""
    def answer(params: dict[str, Any]) -> Any:
        if not params.get("force"):
            raise CommandFailed("confirm", message)
        return result

    return answer


def app_of(pilot: Pilot[str]) -> IdeaApp:
    app = pilot.app
    assert isinstance(app, IdeaApp)
    return app


async def until(pilot: Pilot[str], predicate: Callable[[], bool], what: str = "",
                turns: int = 300) -> None:
    for _ in range(turns):
        if predicate():
            return
        await pilot.pause()
    raise AssertionError(f"timed out waiting for {what or predicate}")


async def called(pilot: Pilot[str], gateway: Gateway, method: str, count: int = 1) -> None:
    await until(pilot, lambda: len(gateway.params(method)) >= count, f"{method} x{count}")


async def typed(pilot: Pilot[str], text: str) -> None:
    await pilot.press(*text)


async def screen(pilot: Pilot[str], kind: type[Screen[Any]]) -> Any:
    shown = await wait_for_screen(pilot, kind)
    await pilot.pause()
    return shown


def message(pilot: Pilot[str]) -> str:
    lines = list(pilot.app.screen.query(MessageLine))
    return lines[0].message if lines else ""


@pytest.fixture(autouse=True)
def _no_refresh_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(AgentsScreen, "REFRESH_SECONDS", 1000.0)


# ─── first run ──────────────────────────────────────────────────────────────────────────


def wizard_gateway(**results: Any) -> Gateway:
    base: dict[str, Any] = {
        "profile_list": {"configured": False, "profiles": PROFILES},
        "profile_detect": DETECTION,
        "profile_save": lambda params: {"saved": len(params["profiles"])},
    }
    base.update(results)
    return Gateway(base, live=True)


def rows(pilot: Pilot[str]) -> list[ProfileRow]:
    return list(pilot.app.screen.query(ProfileRow))


def test_the_wizard_appears_at_start_when_no_profiles_json_exists() -> None:
    gateway = wizard_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await screen(pilot, ProfilesScreen)
        await called(pilot, gateway, "profile_detect")
        await until(pilot, lambda: "found" in str(rows(pilot)[0].detection))
        assert [row.profile["name"] for row in rows(pilot)] == \
            ["Claude Code", "Codex CLI", "Gemini CLI", "Aider"]
        assert not any(row.ticked for row in rows(pilot)), "nothing is assumed (FRW-1)"

    drive(make_app(gateway), scenario)


def test_no_wizard_once_profiles_json_exists() -> None:
    gateway = wizard_gateway(profile_list={"configured": True, "profiles": PROFILES})

    async def scenario(pilot: Pilot[str]) -> None:
        await called(pilot, gateway, "profile_list")
        for _ in range(20):
            await pilot.pause()
        assert not isinstance(pilot.app.screen, ProfilesScreen)

    drive(make_app(gateway), scenario)
    assert gateway.methods() == ["profile_list"]


def first_scene_watch(app: IdeaApp) -> list[bool]:
    """Records, each time the grid gets a scene, whether the wizard was already on top."""
    seen: list[bool] = []
    view = app.view
    original = view.set_scene

    def set_scene(scene: Any) -> None:
        seen.append(any(isinstance(s, ProfilesScreen) for s in app.screen_stack))
        original(scene)

    view.set_scene = set_scene  # type: ignore[method-assign]
    return seen


def test_the_wizard_comes_with_the_first_frame_and_keys_typed_before_go_to_the_shell(
) -> None:
    """Issue 7: the wizard used to appear a moment after the first frame and catch keys the
    user was typing into the shell. Now the first frame waits for the first-run answer:
    keys typed before it go to the shell, in order; once the wizard shows, keys are its."""
    answered = asyncio.Event()

    async def profile_list(params: dict[str, Any]) -> Any:
        await answered.wait()
        return {"configured": False, "profiles": PROFILES}

    gateway = wizard_gateway(profile_list=profile_list)

    async def scenario(pilot: Pilot[str]) -> None:
        app = app_of(pilot)
        seen = first_scene_watch(app)
        await called(pilot, gateway, "profile_list")
        await show(pilot, SCENE)  # the daemon's first scene arrives before the answer
        await pilot.press("l", "s", "enter")
        await pilot.pause()
        assert app.view.scene is None, "nothing is drawn before the first-run answer"
        assert gateway.keys == [], "keys wait for the first frame"
        # The grid's size (a relayout in the daemon) goes after the first-run request.
        assert len(gateway.sizes) == 1, "only the size the connection was opened with"
        answered.set()
        await screen(pilot, ProfilesScreen)
        assert len(gateway.sizes) == 2
        assert seen == [True], "the wizard is on top when the first scene is drawn"
        assert [(cell, key) for cell, key, _ in gateway.keys] == [
            ("cell-1", "l"), ("cell-1", "s"), ("cell-1", "enter")]
        await pilot.press("x")
        await pilot.pause()
        assert len(gateway.keys) == 3, "with the wizard on screen, keys are the wizard's"

    drive(make_app(gateway), scenario)


def test_without_a_wizard_keys_typed_before_the_first_frame_reach_the_shell_in_order(
) -> None:
    answered = asyncio.Event()

    async def profile_list(params: dict[str, Any]) -> Any:
        await answered.wait()
        return {"configured": True, "profiles": PROFILES}

    gateway = wizard_gateway(profile_list=profile_list)

    async def scenario(pilot: Pilot[str]) -> None:
        app = app_of(pilot)
        await called(pilot, gateway, "profile_list")
        await show(pilot, SCENE)
        await pilot.press("e", "c")
        await pilot.pause()
        assert gateway.keys == []
        answered.set()
        await until(pilot, lambda: app.view.scene is not None, "the first scene")
        await pilot.press("h")
        await until(pilot, lambda: len(gateway.keys) == 3, "three keys")
        assert [key for _, key, _ in gateway.keys] == ["e", "c", "h"]
        assert not isinstance(app.screen, ProfilesScreen)

    drive(make_app(gateway), scenario)


def test_no_wizard_for_a_test_gateway_without_a_connection() -> None:
    """The hook runs once the live gateway starts: not for a plain FakeGateway."""
    gateway = Gateway({"profile_list": {"configured": False, "profiles": PROFILES}})

    async def scenario(pilot: Pilot[str]) -> None:
        await show(pilot, SCENE)
        await pilot.pause()

    drive(make_app(gateway), scenario)
    assert "profile_list" not in gateway.methods()


def test_wizard_saves_the_ticked_profiles_with_edited_command_and_args() -> None:
    gateway = wizard_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await screen(pilot, ProfilesScreen)
        await until(pilot, lambda: rows(pilot)[0].detection is not None, "detection")
        await pilot.press("space")  # tick Claude Code (focused first)
        await pilot.press("tab")  # its command
        command = pilot.app.focused
        assert isinstance(command, Input)
        command.value = ""
        await typed(pilot, "claude-beta")
        await pilot.press("tab")  # its args
        await typed(pilot, "--model 'opus 4'")
        await pilot.press("tab", "space")  # tick Codex CLI
        await pilot.press("ctrl+s")
        await called(pilot, gateway, "profile_save")
        await until(pilot, lambda: not isinstance(pilot.app.screen, ProfilesScreen))

    drive(make_app(gateway), scenario)
    saved = gateway.params("profile_save")[0]["profiles"]
    assert [profile["id"] for profile in saved] == ["claude-code", "codex"]
    assert saved[0]["command"] == "claude-beta"
    assert saved[0]["args"] == ["--model", "opus 4"]
    assert "source" not in saved[0]
    expected = {k: v for k, v in PROFILES[0].items() if k not in ("source", "command", "args")}
    assert {k: v for k, v in saved[0].items() if k not in ("command", "args")} == expected


def test_wizard_save_with_nothing_ticked_says_what_to_do() -> None:
    gateway = wizard_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await screen(pilot, ProfilesScreen)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "tick the profiles" in message(pilot))
        assert isinstance(pilot.app.screen, ProfilesScreen)

    drive(make_app(gateway), scenario)
    assert "profile_save" not in gateway.methods()


def test_wizard_skip_saves_an_empty_list() -> None:
    gateway = wizard_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await screen(pilot, ProfilesScreen)
        await pilot.press("escape")
        confirm = await screen(pilot, ConfirmScreen)
        assert "will not appear again" in confirm.question
        await pilot.press("y")
        await called(pilot, gateway, "profile_save")
        await until(pilot, lambda: not isinstance(pilot.app.screen, ProfilesScreen))
        assert "skipped" in app_of(pilot).status.message

    drive(make_app(gateway), scenario)
    assert gateway.params("profile_save") == [{"profiles": []}]


def test_declining_the_skip_keeps_the_wizard() -> None:
    gateway = wizard_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await screen(pilot, ProfilesScreen)
        await pilot.press("escape")
        await screen(pilot, ConfirmScreen)
        await pilot.press("n")
        await screen(pilot, ProfilesScreen)

    drive(make_app(gateway), scenario)
    assert "profile_save" not in gateway.methods()


def test_detection_arriving_late_never_blocks_the_wizard() -> None:
    detected: asyncio.Future[Any] | None = None

    def slow(params: dict[str, Any]) -> Any:
        nonlocal detected
        detected = asyncio.get_running_loop().create_future()
        return detected

    gateway = wizard_gateway(profile_detect=slow)

    async def scenario(pilot: Pilot[str]) -> None:
        await screen(pilot, ProfilesScreen)
        await called(pilot, gateway, "profile_detect")
        first = rows(pilot)[0]
        assert "detecting…" in str(first.query_one(".detect", Static).render())
        # Still usable meanwhile: tick, type.
        await pilot.press("space")
        assert first.ticked
        assert detected is not None
        detected.set_result(DETECTION)
        await until(pilot, lambda: first.detection is not None, "late detection")
        assert "found: 2.0.14" in str(first.query_one(".detect", Static).render())
        assert "not found" in str(rows(pilot)[3].query_one(".detect", Static).render())
        await pilot.press("ctrl+s")
        await called(pilot, gateway, "profile_save")

    drive(make_app(gateway), scenario)
    assert [p["id"] for p in gateway.params("profile_save")[0]["profiles"]] == ["claude-code"]


def test_a_custom_profile_is_added_ticked_and_saved() -> None:
    gateway = wizard_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await screen(pilot, ProfilesScreen)
        await pilot.press("ctrl+n")
        await screen(pilot, CustomProfileScreen)
        await typed(pilot, "My CLI")
        await pilot.press("enter")
        await typed(pilot, "mycli")
        await pilot.press("enter")
        await typed(pilot, "--fast")
        form = pilot.app.screen
        form.query_one("#custom-strategy", Select).value = "env"
        await pilot.pause()
        form.query_one("#custom-value", Input).value = "MYCLI_CONTEXT"
        await pilot.press("ctrl+s")
        await screen(pilot, ProfilesScreen)
        assert rows(pilot)[-1].ticked
        await pilot.press("ctrl+s")
        await called(pilot, gateway, "profile_save")

    drive(make_app(gateway), scenario)
    saved = gateway.params("profile_save")[0]["profiles"]
    assert saved == [{"id": "my-cli", "name": "My CLI", "command": "mycli", "args": ["--fast"],
                      "contextInjection": {"strategy": "env", "var": "MYCLI_CONTEXT"},
                      "cwd": "{projectRoot}"}]


def test_the_custom_form_says_what_is_missing() -> None:
    gateway = wizard_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await screen(pilot, ProfilesScreen)
        await pilot.press("ctrl+n")
        await screen(pilot, CustomProfileScreen)
        await typed(pilot, "X")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "a name and a command" in message(pilot))
        form = pilot.app.screen
        form.query_one("#custom-command", Input).value = "x"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "target is needed" in message(pilot))
        await pilot.press("escape")
        await screen(pilot, ProfilesScreen)

    drive(make_app(gateway), scenario)


def test_the_daemon_refusing_a_profile_keeps_the_wizard_open_with_its_message() -> None:
    refusal = CommandFailed("error", "wizard cannot be read: [1].contextInjection.target: "
                            "'../x' is refused: it must not contain '..'. idea left the file "
                            "untouched and will not overwrite it; fix or remove it, then reopen.")
    gateway = wizard_gateway(profile_save=refusal)

    async def scenario(pilot: Pilot[str]) -> None:
        await screen(pilot, ProfilesScreen)
        await pilot.press("space", "tab", "tab", "tab", "space")
        await pilot.press("ctrl+s")
        await called(pilot, gateway, "profile_save")
        await until(pilot, lambda: bool(message(pilot)))
        assert message(pilot) == "Codex CLI: contextInjection.target: '../x' is refused: " \
                                 "it must not contain '..'."
        assert isinstance(pilot.app.screen, ProfilesScreen)

    drive(make_app(gateway), scenario)


def test_clean_error_names_the_profile() -> None:
    assert clean_error("wizard cannot be read: [0].command: must not be empty. idea left the "
                       "file untouched and will not overwrite it; fix or remove it, then "
                       "reopen.", ["Mine"]) == "Mine: command: must not be empty."
    assert clean_error("plain message", []) == "plain message"


# ─── profiles settings ─────────────────────────────────────────────────────────────────


def settings_gateway(**results: Any) -> Gateway:
    base: dict[str, Any] = {
        "profile_list": {"configured": True, "profiles": PROFILES},
        "profile_detect": DETECTION,
        "profile_edit": lambda params: params["profile"],
        "profile_add": lambda params: params["profile"],
    }
    base.update(results)
    return Gateway(base)


async def open_settings(pilot: Pilot[str]) -> None:
    await show(pilot, SCENE)
    await pilot.press("ctrl+b", "S")
    await screen(pilot, ProfilesScreen)
    await until(pilot, lambda: len(rows(pilot)) == 4, "rows")


def test_settings_edit_a_profile_command() -> None:
    gateway = settings_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_settings(pilot)
        command = rows(pilot)[1].query_one(".command", Input)
        command.value = "/opt/codex/bin/codex"
        await pilot.press("ctrl+s")
        await called(pilot, gateway, "profile_edit")
        await until(pilot, lambda: not isinstance(pilot.app.screen, ProfilesScreen))

    drive(make_app(gateway), scenario)
    edited = gateway.params("profile_edit")
    assert len(edited) == 1
    assert edited[0]["profile"]["id"] == "codex"
    assert edited[0]["profile"]["command"] == "/opt/codex/bin/codex"
    assert "source" not in edited[0]["profile"]
    assert gateway.methods().count("profile_detect") == 1


def test_settings_add_a_custom_profile_goes_to_the_daemon_at_once() -> None:
    gateway = settings_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_settings(pilot)
        await pilot.press("ctrl+n")
        form = await screen(pilot, CustomProfileScreen)
        form.query_one("#custom-name", Input).value = "Local LLM"
        form.query_one("#custom-command", Input).value = "llm"
        form.query_one("#custom-value", Input).value = "LLM.md"
        await pilot.press("ctrl+s")
        await called(pilot, gateway, "profile_add")
        await screen(pilot, ProfilesScreen)
        await called(pilot, gateway, "profile_detect", 2)

    drive(make_app(gateway), scenario)
    assert gateway.params("profile_add")[0]["profile"]["contextInjection"] == \
        {"strategy": "conventionFile", "target": "LLM.md"}


def test_settings_escape_with_changes_asks() -> None:
    gateway = settings_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_settings(pilot)
        rows(pilot)[0].query_one(".args", Input).value = "--verbose"
        await pilot.press("escape")
        await screen(pilot, ConfirmScreen)
        await pilot.press("y")
        await until(pilot, lambda: not isinstance(pilot.app.screen, (ProfilesScreen,
                                                                      ConfirmScreen)))

    drive(make_app(gateway), scenario)
    assert "profile_edit" not in gateway.methods()


def test_the_palette_reaches_the_profiles_screen() -> None:
    gateway = settings_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await show(pilot, SCENE)
        await pilot.press("ctrl+b", "colon")
        await screen(pilot, PaletteScreen)
        await typed(pilot, "profiles")
        await pilot.press("enter")
        await screen(pilot, ProfilesScreen)

    drive(make_app(gateway), scenario)


# ─── agents panel ───────────────────────────────────────────────────────────────────────


def agents_gateway(**results: Any) -> Gateway:
    base: dict[str, Any] = {
        "agent_list": AGENTS,
        "agent_launch": lambda params: {**AGENTS[5], "state": "running",
                                        "background": bool(params.get("background"))},
        "agent_stop": {**AGENTS[0], "state": "stopped"},
        "agent_restart": AGENTS[0],
        "profile_list": {"configured": True, "profiles": PROFILES},
        "template_list": TEMPLATES,
        "select": {"id": "cell-0"},
    }
    base.update(results)
    return Gateway(base)


async def open_agents(pilot: Pilot[str], row: int = 0) -> AgentsScreen:
    await show(pilot, SCENE)
    await pilot.press("ctrl+b", "A")
    panel = await screen(pilot, AgentsScreen)
    assert isinstance(panel, AgentsScreen)
    await until(pilot, lambda: panel.query_one(DataTable).row_count == len(AGENTS), "rows")
    panel.query_one(DataTable).move_cursor(row=row)
    await pilot.pause()
    return panel


def test_agents_panel_lists_every_status_and_the_drift_badge() -> None:
    gateway = agents_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        panel = await open_agents(pilot)
        table = panel.query_one(DataTable)
        statuses = [str(table.get_row_at(i)[2]) for i in range(table.row_count)]
        assert statuses[0] == "running in cell web:Default.0"
        assert statuses[1] == "running in background"
        assert statuses[2] == "exited with code 2"
        assert statuses[3].startswith("failed: aider")
        assert statuses[4].startswith("resumable")
        assert statuses[5] == "stopped"
        assert "update v1→v3" in str(table.get_row_at(1)[4])

    drive(make_app(gateway), scenario)


def test_enter_launches_in_a_split_next_to_the_focused_cell_and_closes() -> None:
    gateway = agents_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=5)
        await pilot.press("enter")
        await called(pilot, gateway, "agent_launch")
        await until(pilot, lambda: not isinstance(pilot.app.screen, AgentsScreen), "closed")

    drive(make_app(gateway), scenario)
    assert gateway.params("agent_launch") == [{"agent": "a6", "target": FOCUSED, "split": True}]


def test_b_launches_in_the_background_and_the_panel_stays() -> None:
    gateway = agents_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=5)
        await pilot.press("b")
        await called(pilot, gateway, "agent_launch")
        await called(pilot, gateway, "agent_list", 2)
        assert isinstance(pilot.app.screen, AgentsScreen)
        assert message(pilot) == "Docs Writer: running in background"

    drive(make_app(gateway), scenario)
    assert gateway.params("agent_launch") == [{"agent": "a6", "background": True}]


def test_c_launches_into_the_focused_cell_with_the_busy_cell_confirmation() -> None:
    gateway = agents_gateway(agent_launch=confirm_first(
        "cell 1 runs vim: replace it with Docs Writer?", {**AGENTS[5], "state": "running",
                                                           "cell": "cell-1"}))

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=5)
        await pilot.press("c")
        confirm = await screen(pilot, ConfirmScreen)
        assert "runs vim" in confirm.question
        await pilot.press("y")
        await called(pilot, gateway, "agent_launch", 2)
        await until(pilot, lambda: not isinstance(pilot.app.screen, AgentsScreen), "closed")

    drive(make_app(gateway), scenario)
    assert gateway.params("agent_launch") == [
        {"agent": "a6", "target": FOCUSED},
        {"agent": "a6", "target": FOCUSED, "force": True},
    ]


def test_an_agent_running_elsewhere_offers_to_go_to_its_cell() -> None:
    refusal = CommandFailed("AGENT_ALREADY_RUNNING", "Conductor is already running in "
                            "web:Default.0 (`idea select -t web:Default.0`)")
    gateway = agents_gateway(agent_launch=refusal)

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=0)
        await pilot.press("l")
        confirm = await screen(pilot, ConfirmScreen)
        assert "Go to its cell?" in confirm.question
        await pilot.press("y")
        await called(pilot, gateway, "select")
        await until(pilot, lambda: not isinstance(pilot.app.screen, AgentsScreen), "closed")

    drive(make_app(gateway), scenario)
    assert gateway.params("select") == [{"target": "%cell-0"}]


def test_g_goes_to_the_agents_cell_and_s_stops_it() -> None:
    gateway = agents_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=0)
        await pilot.press("s")
        await called(pilot, gateway, "agent_stop")
        await until(pilot, lambda: message(pilot) == "Conductor stopped")
        await pilot.press("g")
        await called(pilot, gateway, "select")

    drive(make_app(gateway), scenario)
    assert gateway.params("agent_stop") == [{"agent": "a1"}]
    assert gateway.params("select") == [{"target": "%cell-0"}]


def test_g_on_a_background_agent_says_how_to_bring_it_in() -> None:
    gateway = agents_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=1)
        await pilot.press("g")
        await until(pilot, lambda: "runs in the background" in message(pilot))
        assert isinstance(pilot.app.screen, AgentsScreen)

    drive(make_app(gateway), scenario)
    assert "select" not in gateway.methods()


def test_sync_shows_the_conflict_and_asks() -> None:
    conflict = ("agents/architect.md was edited since its last sync: syncing replaces it with "
                "template Architect v3; your version is kept in "
                "agents/.backup/architect-1.md. Continue?")
    gateway = agents_gateway(agent_sync=confirm_first(conflict, {
        "agent": "Architect", "template": "Architect", "version": 3, "status": "conflict",
        "backup": "agents/.backup/architect-1.md"}))

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=1)
        await pilot.press("u")
        confirm = await screen(pilot, ConfirmScreen)
        assert confirm.question == conflict
        await pilot.press("y")
        await called(pilot, gateway, "agent_sync", 2)
        await until(pilot, lambda: "synced" in message(pilot))
        assert "agents/.backup/architect-1.md" in message(pilot)

    drive(make_app(gateway), scenario)
    assert gateway.params("agent_sync") == [{"agent": "a2"}, {"agent": "a2", "force": True}]


def test_declining_the_sync_conflict_writes_nothing() -> None:
    gateway = agents_gateway(agent_sync=confirm_first("edited since its last sync", {}))

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=1)
        await pilot.press("u")
        await screen(pilot, ConfirmScreen)
        await pilot.press("n")
        await screen(pilot, AgentsScreen)

    drive(make_app(gateway), scenario)
    assert gateway.params("agent_sync") == [{"agent": "a2"}]


def test_p_changes_the_profile_with_the_conversation_lost_confirmation() -> None:
    gateway = agents_gateway(agent_set_profile=confirm_first(
        "Conductor is running: switching to Codex CLI restarts it and its provider "
        "conversation is lost (its Markdown is kept). Continue?", AGENTS[0]))

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=0)
        await pilot.press("p")
        choice = await screen(pilot, ChoiceScreen)
        assert choice.initial == "claude-code"
        await pilot.press("down", "enter")
        confirm = await screen(pilot, ConfirmScreen)
        assert "conversation is lost" in confirm.question
        await pilot.press("y")
        await called(pilot, gateway, "agent_set_profile", 2)

    drive(make_app(gateway), scenario)
    assert gateway.params("agent_set_profile")[-1] == \
        {"agent": "a1", "profile": "codex", "force": True}


def test_n_creates_an_agent_from_a_template_kept_in_sync() -> None:
    gateway = agents_gateway(agent_new=lambda params: {
        "id": "a9", "name": params["name"], "mdPath": "agents/backend-dev.md",
        "profileId": params.get("profile"), "path": "/src/web/.ideai/agents/backend-dev.md"})

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot)
        await pilot.press("n")
        await screen(pilot, PromptScreen)
        await typed(pilot, "Backend Dev")
        await pilot.press("enter")
        origin = await screen(pilot, ChoiceScreen)
        assert [key for key, _ in origin.options][:2] == ["scratch", "conductor"]
        await pilot.press("down", "down", "down", "enter")  # developer
        await until(pilot, lambda: isinstance(pilot.app.screen, ChoiceScreen)
                    and pilot.app.screen is not origin, "sync question")
        await pilot.press("enter")  # keep in sync (highlighted)
        await until(pilot, lambda: isinstance(pilot.app.screen, ChoiceScreen)
                    and "Which CLI" in pilot.app.screen.question, "profile question")
        profiles = pilot.app.screen
        assert isinstance(profiles, ChoiceScreen)
        assert profiles.initial == "codex"  # the template's default profile
        await pilot.press("enter")
        await called(pilot, gateway, "agent_new")
        await until(pilot, lambda: isinstance(pilot.app.screen, ChoiceScreen)
                    and pilot.app.screen.question == "Launch Backend Dev?", "launch question")
        await pilot.press("enter")  # not now (highlighted)
        await until(pilot, lambda: "created" in message(pilot))

    drive(make_app(gateway), scenario)
    assert gateway.params("agent_new") == [
        {"name": "Backend Dev", "profile": "codex", "template": "developer", "sync": True}]


def test_n_from_scratch() -> None:
    gateway = agents_gateway(agent_new=lambda params: {
        "id": "a9", "name": params["name"], "mdPath": "agents/ops.md", "profileId": "aider",
        "path": "/src/web/.ideai/agents/ops.md"})

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot)
        await pilot.press("n")
        await screen(pilot, PromptScreen)
        await typed(pilot, "Ops")
        await pilot.press("enter")
        await screen(pilot, ChoiceScreen)
        await pilot.press("enter")  # from scratch
        await until(pilot, lambda: isinstance(pilot.app.screen, ChoiceScreen)
                    and "Which CLI" in pilot.app.screen.question, "profile question")
        await pilot.press("up", "enter")  # last one: aider
        await called(pilot, gateway, "agent_new")

    drive(make_app(gateway), scenario)
    assert gateway.params("agent_new") == [{"name": "Ops", "profile": "aider"}]


def test_n_ends_by_offering_a_launch_in_its_own_worktree() -> None:
    """The new-agent flow's last question: launch now in its own worktree is the same
    `agent_launch … worktree` as W; "not now" launches nothing."""
    gateway = agents_gateway(agent_new=lambda params: {
        "id": "a9", "name": params["name"], "mdPath": "agents/ops.md", "profileId": "aider",
        "path": "/src/web/.ideai/agents/ops.md"})

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot)
        for pick in ("enter", "down down enter"):
            await pilot.press("n")
            await screen(pilot, PromptScreen)
            await typed(pilot, "Ops")
            await pilot.press("enter")
            await screen(pilot, ChoiceScreen)
            await pilot.press("enter")  # from scratch
            await until(pilot, lambda: isinstance(pilot.app.screen, ChoiceScreen)
                        and "Which CLI" in pilot.app.screen.question, "profile question")
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(pilot.app.screen, ChoiceScreen)
                        and pilot.app.screen.question == "Launch Ops?", "launch question")
            await pilot.press(*pick.split())
            await until(pilot, lambda: not isinstance(pilot.app.screen, ChoiceScreen),
                        "the launch question answered")
        await called(pilot, gateway, "agent_launch")

    drive(make_app(gateway), scenario)
    assert len(gateway.params("agent_new")) == 2
    assert gateway.params("agent_launch") == [
        {"agent": "a9", "worktree": True, "target": FOCUSED, "split": True}]


def test_d_deletes_after_the_daemons_question() -> None:
    gateway = agents_gateway(agent_rm=confirm_first(
        "Delete agent QA? Its Markdown is kept in .ideai/trash/.", {"deleted": "QA"}))

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=3)
        await pilot.press("d")
        confirm = await screen(pilot, ConfirmScreen)
        assert "Delete agent QA?" in confirm.question
        await pilot.press("y")
        await called(pilot, gateway, "agent_rm", 2)
        await until(pilot, lambda: message(pilot) == "agent QA deleted")

    drive(make_app(gateway), scenario)
    assert gateway.params("agent_rm")[-1] == {"agent": "a4", "force": True}


def test_shift_r_renames() -> None:
    gateway = agents_gateway(agent_rename=lambda params: {"id": "a4", "name": params["name"]})

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=3)
        await pilot.press("R")
        prompt = await screen(pilot, PromptScreen)
        prompt.query_one(Input).value = "Tester"
        await pilot.press("enter")
        await called(pilot, gateway, "agent_rename")

    drive(make_app(gateway), scenario)
    assert gateway.params("agent_rename") == [{"agent": "a4", "name": "Tester"}]


# The persona lives with the daemon (maybe on another machine): a path that does not exist
# here, so that a client reading or writing it itself would fail these tests.
REMOTE_PERSONA = "/nonexistent-remote-project/.ideai/agents/developer.md"


def persona_read(content: str = PERSONA) -> dict[str, Any]:
    return {"path": REMOTE_PERSONA, "exists": True, "content": content, "revision": "rev-1"}


def persona_written(params: dict[str, Any]) -> dict[str, Any]:
    return {"path": REMOTE_PERSONA, "changed": True, "revision": "rev-2"}


def test_e_edits_the_persona_in_the_built_in_editor_through_the_daemon() -> None:
    gateway = agents_gateway(agent_persona_read=persona_read(),
                             agent_persona_write=persona_written)

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=2)
        await pilot.press("e")
        editor = await screen(pilot, EditorScreen)
        assert editor.text == PERSONA
        area = editor.query_one(TextArea)
        area.move_cursor(area.document.end)
        await typed(pilot, "- keep commits small")
        await pilot.press("enter")
        await pilot.press("ctrl+s")
        await screen(pilot, AgentsScreen)
        await until(pilot, lambda: message(pilot) == f"saved {REMOTE_PERSONA}")

    drive(make_app(gateway), scenario)
    assert gateway.params("agent_persona_read") == [{"agent": "a3"}]
    assert gateway.params("agent_persona_write") == [
        {"agent": "a3", "content": PERSONA + "- keep commits small\n", "revision": "rev-1"}]
    assert not Path(REMOTE_PERSONA).parent.exists()


def test_leaving_the_editor_with_changes_asks() -> None:
    gateway = agents_gateway(agent_persona_read=persona_read(),
                             agent_persona_write=persona_written)

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=2)
        await pilot.press("e")
        await screen(pilot, EditorScreen)
        await typed(pilot, "oops")
        await pilot.press("escape")
        confirm = await screen(pilot, ConfirmScreen)
        assert confirm.question == "Discard your changes?"
        await pilot.press("y")
        await screen(pilot, AgentsScreen)

    drive(make_app(gateway), scenario)
    assert "agent_persona_write" not in gateway.methods()


def test_saving_over_a_file_changed_on_disk_asks_and_no_keeps_the_editor() -> None:
    def write(params: dict[str, Any]) -> dict[str, Any]:
        if not params.get("force"):
            raise CommandFailed("confirm", "developer.md changed on disk since you opened it "
                                "(a sync, or another editor). Overwrite it with your version?")
        return persona_written(params)

    gateway = agents_gateway(agent_persona_read=persona_read(), agent_persona_write=write)

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=2)
        await pilot.press("e")
        await screen(pilot, EditorScreen)
        await typed(pilot, "x")
        await pilot.press("ctrl+s")
        confirm = await screen(pilot, ConfirmScreen)
        assert "changed on disk" in confirm.question
        await pilot.press("n")
        await screen(pilot, EditorScreen)
        await pilot.press("ctrl+s")
        await screen(pilot, ConfirmScreen)
        await pilot.press("y")
        await screen(pilot, AgentsScreen)

    drive(make_app(gateway), scenario)
    sent = gateway.params("agent_persona_write")
    assert [params.get("force") for params in sent] == [None, None, True]
    assert {params["revision"] for params in sent} == {"rev-1"}


def test_shift_e_without_a_real_terminal_says_so() -> None:
    gateway = agents_gateway(agent_persona_read=persona_read())

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=2)
        await pilot.press("E")
        await until(pilot, lambda: "$EDITOR" in message(pilot))
        assert isinstance(pilot.app.screen, AgentsScreen)

    drive(make_app(gateway), scenario)
    assert "agent_persona_write" not in gateway.methods()


def test_an_empty_project_says_how_to_create_an_agent() -> None:
    gateway = agents_gateway(agent_list=[])

    async def scenario(pilot: Pilot[str]) -> None:
        await show(pilot, SCENE)
        await pilot.press("ctrl+b", "A")
        panel = await screen(pilot, AgentsScreen)
        await until(pilot, lambda: "n creates one" in str(
            panel.query_one("#agent-detail", Static).render()))
        await pilot.press("s")
        await until(pilot, lambda: "no agent selected" in message(pilot))

    drive(make_app(gateway), scenario)
    assert "agent_stop" not in gateway.methods()


def test_agent_list_failing_is_reported_in_the_panel() -> None:
    gateway = agents_gateway(agent_list=CommandFailed("error", "no project is open"))

    async def scenario(pilot: Pilot[str]) -> None:
        await show(pilot, SCENE)
        await pilot.press("ctrl+b", "A")
        await screen(pilot, AgentsScreen)
        await until(pilot, lambda: message(pilot) == "no project is open")
        assert app_of(pilot).status.message == "no project is open"

    drive(make_app(gateway), scenario)


# ─── templates ──────────────────────────────────────────────────────────────────────────


def templates_gateway(**results: Any) -> Gateway:
    base: dict[str, Any] = {
        "template_list": TEMPLATES,
        "template_show": lambda params: {"id": params["template"], "name": "Conductor",
                                         "version": 3, "content": "# Conductor\n",
                                         "defaultProfileId": "claude-code"},
        "template_update": lambda params: {"id": params["template"], "name": "Conductor",
                                           "version": 4},
        "template_new": lambda params: {"id": "reviewer-2", "name": params["name"],
                                        "version": 1},
        "template_rm": lambda params: {"deleted": params["template"]},
        "template_install_pack": [{"id": "conductor", "name": "Conductor", "version": 3}],
        "agent_new": lambda params: {"id": "a9", "name": params["name"],
                                     "mdPath": "agents/x.md", "profileId": "claude-code"},
    }
    base.update(results)
    return Gateway(base)


async def open_templates(pilot: Pilot[str]) -> TemplatesScreen:
    await show(pilot, SCENE)
    await pilot.press("ctrl+b", "T")
    panel = await screen(pilot, TemplatesScreen)
    assert isinstance(panel, TemplatesScreen)
    await until(pilot, lambda: panel.query_one(DataTable).row_count == 4, "rows")
    return panel


def test_templates_edit_saves_a_new_version() -> None:
    gateway = templates_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_templates(pilot)
        await pilot.press("enter")
        editor = await screen(pilot, EditorScreen)
        assert editor.text == "# Conductor\n"
        editor.query_one(TextArea).move_cursor((1, 0))
        await typed(pilot, "Lead the team.")
        await pilot.press("enter")
        await pilot.press("ctrl+s")
        await called(pilot, gateway, "template_update")
        await screen(pilot, TemplatesScreen)
        await until(pilot, lambda: "now v4" in message(pilot))

    drive(make_app(gateway), scenario)
    assert gateway.params("template_update") == [
        {"template": "conductor", "content": "# Conductor\nLead the team.\n"}]
    assert gateway.methods().count("template_list") == 2


def test_templates_save_without_a_change_does_not_bump_the_version() -> None:
    gateway = templates_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_templates(pilot)
        await pilot.press("e")
        await screen(pilot, EditorScreen)
        await pilot.press("ctrl+s")
        await screen(pilot, TemplatesScreen)

    drive(make_app(gateway), scenario)
    assert "template_update" not in gateway.methods()


def test_templates_new_writes_name_and_content() -> None:
    gateway = templates_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_templates(pilot)
        await pilot.press("n")
        await screen(pilot, PromptScreen)
        await typed(pilot, "Reviewer")
        await pilot.press("enter")
        editor = await screen(pilot, EditorScreen)
        editor.query_one(TextArea).text = "# Reviewer\n\nReview every change.\n"
        await pilot.press("ctrl+s")
        await called(pilot, gateway, "template_new")
        await screen(pilot, TemplatesScreen)

    drive(make_app(gateway), scenario)
    assert gateway.params("template_new") == [
        {"name": "Reviewer", "content": "# Reviewer\n\nReview every change.\n"}]


def test_templates_delete_asks_first() -> None:
    gateway = templates_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        panel = await open_templates(pilot)
        panel.query_one(DataTable).move_cursor(row=3)
        await pilot.pause()
        await pilot.press("d")
        confirm = await screen(pilot, ConfirmScreen)
        assert "Delete template Reviewer?" in confirm.question
        await pilot.press("y")
        await called(pilot, gateway, "template_rm")

    drive(make_app(gateway), scenario)
    assert gateway.params("template_rm") == [{"template": "reviewer"}]


def test_templates_install_the_team_pack() -> None:
    gateway = templates_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_templates(pilot)
        await pilot.press("i")
        await called(pilot, gateway, "template_install_pack")
        await until(pilot, lambda: "software team templates installed" in message(pilot))

    drive(make_app(gateway), scenario)


def test_templates_create_an_agent_from_one() -> None:
    gateway = templates_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        panel = await open_templates(pilot)
        panel.query_one(DataTable).move_cursor(row=1)
        await pilot.pause()
        await pilot.press("a")
        await screen(pilot, PromptScreen)
        await typed(pilot, "Lead Architect")
        await pilot.press("enter")
        choice = await screen(pilot, ChoiceScreen)
        assert "Keep Lead Architect in sync with template Architect?" in choice.question
        await pilot.press("down", "enter")  # copy once
        await called(pilot, gateway, "agent_new")

    drive(make_app(gateway), scenario)
    assert gateway.params("agent_new") == [
        {"name": "Lead Architect", "template": "architect", "sync": False}]


def test_templates_list_problems_are_shown() -> None:
    gateway = templates_gateway(template_list={
        "templates": [], "editedOutside": [],
        "problems": ["templates/index.json cannot be read: not JSON"]})

    async def scenario(pilot: Pilot[str]) -> None:
        await show(pilot, SCENE)
        await pilot.press("ctrl+b", "T")
        panel = await screen(pilot, TemplatesScreen)
        await until(pilot, lambda: "cannot be read" in str(
            panel.query_one("#templates-note", Static).render()))

    drive(make_app(gateway), scenario)


def test_shift_w_launches_in_its_own_worktree() -> None:
    gateway = agents_gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=5)
        await pilot.press("W")
        await called(pilot, gateway, "agent_launch")

    drive(make_app(gateway), scenario)
    assert gateway.params("agent_launch") == [
        {"agent": "a6", "worktree": True, "target": FOCUSED, "split": True}]


def test_w_shows_what_the_agent_changed() -> None:
    from idea_tui.screens.agent_changes import AgentChangesScreen
    from tests.tui.git_data import APP_DIFF, HISTORY

    changes = {"agent": "a6", "path": "/home/user/web-worktrees/docs-writer",
               "branch": "idea/docs-writer", "base": "main", "baseOid": "c4" + "0" * 38,
               "commits": HISTORY[:2], "committed": APP_DIFF, "staged": [], "unstaged": []}
    gateway = agents_gateway(agent_changes=changes)

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=5)
        await pilot.press("w")
        shown = await screen(pilot, AgentChangesScreen)
        assert shown.changes.branch == "idea/docs-writer"
        text = str(shown.query(Static).first().render())
        assert "2 commit(s)" in text and "Log in with a token" in text

    drive(make_app(gateway), scenario)
    assert gateway.params("agent_changes") == [{"agent": "a6"}]
