"""SVG snapshots of the Skills panel and the Agents panel's skill chips at a fixed 100x30.

Screens get their data passed in (no daemon, no worker): the Skills panel with project and
global skills and the agents that have them, with a damaged index reported, and empty; the
Agents panel with the selected agent's chips (a project skill, a global one, and one whose
skill was deleted). Stored under `snapshots/test_skill_snapshots/`.
"""

from __future__ import annotations

from collections.abc import Callable

from idea_tui.screens.agents import AgentsScreen
from idea_tui.screens.skills import SkillsScreen
from tests.helpers.pilot import SIZE
from tests.tui.skill_data import AGENTS_WITH_SKILLS, BROKEN_SKILLS, SKILLS
from tests.tui.test_agent_snapshots import app, showing

SnapCompare = Callable[..., bool]


def test_skills_panel(snap_compare: SnapCompare) -> None:
    """Two project skills and a global one; the first has two agents."""
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: SkillsScreen(None, SKILLS)))


def test_skills_panel_with_a_damaged_index(snap_compare: SnapCompare) -> None:
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: SkillsScreen(None, BROKEN_SKILLS)))


def test_skills_panel_empty(snap_compare: SnapCompare) -> None:
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: SkillsScreen(None, {"skills": [], "problems": [], "project": "web"})))


def test_agents_panel_skill_chips(snap_compare: SnapCompare) -> None:
    """Conductor selected: a project skill, a global one and a deleted one as chips."""
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: AgentsScreen(None, AGENTS_WITH_SKILLS, project="web",
                             skills=SKILLS["skills"])))


def test_agents_panel_agent_without_skills(snap_compare: SnapCompare) -> None:
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: AgentsScreen(None, AGENTS_WITH_SKILLS, project="web",
                             skills=SKILLS["skills"]), "down"))
