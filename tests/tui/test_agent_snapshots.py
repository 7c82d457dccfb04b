"""SVG snapshots of the agents, templates and profiles screens at a fixed 100x30.

Screens get their data passed in (no daemon, no worker): the first-run wizard with detection
results (and while detection is still running), the custom profile form, the Agents panel
with every status and a drift badge, the templates screen and the Markdown editor. Stored
under `snapshots/test_agent_snapshots/`; see snapshots/README.md to update them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, TextArea

from idea_tui.screens.agents import AgentsScreen
from idea_tui.screens.custom_profile import CustomProfileScreen
from idea_tui.screens.editor import EditorScreen
from idea_tui.screens.profiles import ProfilesScreen
from idea_tui.screens.templates import TemplatesScreen
from tests.helpers.fake_gateway import FakeGateway
from tests.helpers.pilot import SIZE, make_app, settle
from tests.tui.agent_data import AGENTS, DETECTION, PERSONA, PROFILES, TEMPLATES
from tests.tui.test_snapshots import with_workspace

SnapCompare = Callable[..., bool]


def showing(make: Callable[[], Screen[Any]], *keys: str) -> Callable[[Pilot[str]], Any]:
    """Show the workspace, push the screen `make` builds, press `keys`, freeze cursors."""
    async def run_before(pilot: Pilot[str]) -> None:
        await with_workspace(pilot)
        pilot.app.push_screen(make())
        await settle(pilot)
        await pilot.press(*keys)
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        for area in pilot.app.screen.query(TextArea):
            area.cursor_blink = False
        await settle(pilot)

    return run_before


def app() -> Any:
    return make_app(FakeGateway())


def test_first_run_wizard_with_detection_results(snap_compare: SnapCompare) -> None:
    """Claude Code ticked (Space), found / not found / no detect command shown."""
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: ProfilesScreen(None, PROFILES, DETECTION, first_run=True), "space"))


def test_first_run_wizard_while_detecting(snap_compare: SnapCompare) -> None:
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: ProfilesScreen(None, PROFILES, first_run=True)))


def test_custom_profile_form(snap_compare: SnapCompare) -> None:
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: CustomProfileScreen(set()), *"My CLI", "enter", *"mycli"))


def test_agents_panel_every_status_and_drift_badge(snap_compare: SnapCompare) -> None:
    """Running in a cell, in the background (with "update available"), exited with a code,
    failed with the reason, resumable, stopped; the second agent selected."""
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: AgentsScreen(None, AGENTS, project="web"), "down"))


def test_agents_panel_empty(snap_compare: SnapCompare) -> None:
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: AgentsScreen(None, [], project="web")))


def test_templates_screen(snap_compare: SnapCompare) -> None:
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: TemplatesScreen(None, TEMPLATES)))


def test_markdown_editor(snap_compare: SnapCompare) -> None:
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: EditorScreen(" Developer — /home/user/web/.ideai/agents/developer.md ",
                             PERSONA)))
