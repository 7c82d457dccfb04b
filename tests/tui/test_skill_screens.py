"""The Skills panel and the Agents panel's skill keys against a recording gateway (SKL-6).

The real client (`IdeaApp`) driven with keys; the daemon's answers are canned per command.
"""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable, Static, TextArea

from idea_tui.screens.agents import AgentsScreen
from idea_tui.screens.choice import ChoiceScreen
from idea_tui.screens.confirm import ConfirmScreen
from idea_tui.screens.editor import EditorScreen
from idea_tui.screens.prompt import PromptScreen
from idea_tui.screens.skills import SkillsScreen
from tests.helpers.pilot import drive, make_app, show
from tests.tui.skill_data import AGENTS_WITH_SKILLS, SKILLS
from tests.tui.test_agent_screens import (
    SCENE,
    Gateway,
    _no_refresh_timer,
    called,
    message,
    screen,
    typed,
    until,
)

__all__ = ["_no_refresh_timer"]  # the autouse fixture, for this module too

BODY = "# Release checklist\n\nBefore tagging a version.\n"


def assignment(params: dict[str, Any], on: bool) -> dict[str, Any]:
    """`skill_assign|unassign`'s answer, as the daemon words it."""
    return {"skill": params["skill"], "skillId": params["skill"], "scope": params["scope"],
            "agent": params["agent"], "assigned": on, "changed": True,
            "skills": [params["skill"]] if on else []}


def gateway(**results: Any) -> Gateway:
    base: dict[str, Any] = {
        "skill_list": SKILLS,
        "agent_list": AGENTS_WITH_SKILLS,
        "skill_show": lambda params: {**SKILLS["skills"][0], "content": BODY,
                                      "path": "/p/.ideai/skills/md/release-checklist.md",
                                      "revision": "rev-1"},
        "skill_update": lambda params: {**SKILLS["skills"][0], "revision": "rev-2"},
        "skill_new": lambda params: {"id": "deploy", "name": params["name"],
                                     "scope": params["scope"], "description": "",
                                     "contentHash": "0000000000000000", "lines": 9},
        "skill_rm": lambda params: {"deleted": params["skill"], "scope": params["scope"]},
        "skill_assign": lambda params: assignment(params, True),
        "skill_unassign": lambda params: assignment(params, False),
    }
    base.update(results)
    return Gateway(base)


async def open_skills(pilot: Pilot[str], row: int = 0) -> SkillsScreen:
    await show(pilot, SCENE)
    await pilot.press("ctrl+b", "K")
    panel = await screen(pilot, SkillsScreen)
    assert isinstance(panel, SkillsScreen)
    await until(pilot, lambda: panel.query_one(DataTable).row_count == 3, "rows")
    panel.query_one(DataTable).move_cursor(row=row)
    await pilot.pause()
    return panel


def test_prefix_k_lists_both_scopes_with_their_agents() -> None:
    recorder = gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        panel = await open_skills(pilot)
        table = panel.query_one(DataTable)
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        assert [row[:2] for row in rows] == [["Release checklist", "project"],
                                             ["build-appimage", "project"],
                                             ["Code review", "global"]]
        assert rows[0][3] == "Conductor, QA" and rows[1][3] == "—"

    drive(make_app(recorder), scenario)


def test_a_assigns_the_selected_skill_to_an_agent_that_lacks_it() -> None:
    recorder = gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_skills(pilot, row=0)
        await pilot.press("a")
        choice = await screen(pilot, ChoiceScreen)
        # Conductor and QA have it already: only the others are offered.
        assert [key for key, _ in choice.options] == ["Architect", "Developer"]
        await pilot.press("down", "enter")
        await called(pilot, recorder, "skill_assign")
        await until(pilot, lambda: "assigned to Developer" in message(pilot))
        await called(pilot, recorder, "skill_list", 2)

    drive(make_app(recorder), scenario)
    assert recorder.params("skill_assign") == [
        {"agent": "Developer", "skill": "release-checklist", "scope": "project"}]


def test_u_takes_it_off_one_of_its_agents() -> None:
    recorder = gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_skills(pilot, row=2)
        await pilot.press("u")
        choice = await screen(pilot, ChoiceScreen)
        assert [key for key, _ in choice.options] == ["Conductor"]
        await pilot.press("enter")
        await called(pilot, recorder, "skill_unassign")

    drive(make_app(recorder), scenario)
    assert recorder.params("skill_unassign") == [
        {"agent": "Conductor", "skill": "code-review", "scope": "global"}]


def test_n_and_shift_n_create_in_the_project_and_globally() -> None:
    recorder = gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_skills(pilot)
        for key in ("n", "N"):
            await pilot.press(key)
            await screen(pilot, PromptScreen)
            await typed(pilot, "Deploy")
            await pilot.press("enter")
            editor = await screen(pilot, EditorScreen)
            assert editor.text.startswith("# Deploy\n\nWhen to use it:")
            await pilot.press("ctrl+s")
            await screen(pilot, SkillsScreen)
        await called(pilot, recorder, "skill_new", 2)

    drive(make_app(recorder), scenario)
    assert [(p["name"], p["scope"]) for p in recorder.params("skill_new")] == [
        ("Deploy", "project"), ("Deploy", "global")]


def test_e_edits_with_the_revision_it_started_from_and_no_change_writes_nothing() -> None:
    recorder = gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_skills(pilot)
        await pilot.press("e")
        await screen(pilot, EditorScreen)
        await pilot.press("ctrl+s")  # unchanged
        await screen(pilot, SkillsScreen)
        assert "skill_update" not in recorder.methods()
        await pilot.press("e")
        editor = await screen(pilot, EditorScreen)
        area = editor.query_one(TextArea)
        area.move_cursor(area.document.end)
        await typed(pilot, "1. tag")
        await pilot.press("ctrl+s")
        await called(pilot, recorder, "skill_update")
        await until(pilot, lambda: "saved" in message(pilot))

    drive(make_app(recorder), scenario)
    assert recorder.params("skill_update") == [
        {"content": BODY + "1. tag", "revision": "rev-1", "skill": "release-checklist",
         "scope": "project"}]


def test_d_deletes_after_saying_who_loses_it() -> None:
    recorder = gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_skills(pilot, row=0)
        await pilot.press("d")
        confirm = await screen(pilot, ConfirmScreen)
        assert "unassigned from Conductor, QA" in confirm.question
        await pilot.press("y")
        await called(pilot, recorder, "skill_rm")

    drive(make_app(recorder), scenario)
    assert recorder.params("skill_rm") == [
        {"force": True, "skill": "release-checklist", "scope": "project"}]


# ─── the Agents panel ────────────────────────────────────────────────────────────────────


async def open_agents(pilot: Pilot[str], row: int) -> AgentsScreen:
    await show(pilot, SCENE)
    await pilot.press("ctrl+b", "A")
    panel = await screen(pilot, AgentsScreen)
    assert isinstance(panel, AgentsScreen)
    await until(pilot, lambda: panel.query_one(DataTable).row_count == 4, "rows")
    await until(pilot, lambda: panel.skills is not None, "skills")
    panel.query_one(DataTable).move_cursor(row=row)
    await pilot.pause()
    return panel


def detail(panel: AgentsScreen) -> str:
    return str(panel.query_one("#agent-detail", Static).render())


def test_the_selected_agents_skills_show_as_chips() -> None:
    recorder = gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        panel = await open_agents(pilot, row=0)
        assert ("Skills:  Release checklist   Code review (global)   old-one (deleted) "
                in detail(panel))
        panel.query_one(DataTable).move_cursor(row=1)
        await until(pilot, lambda: "Skills: none (k gives one)" in detail(panel))

    drive(make_app(recorder), scenario)


def test_k_gives_a_skill_the_agent_lacks_and_shift_k_takes_one_off() -> None:
    recorder = gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=3)  # QA: has Release checklist
        await pilot.press("k")
        choice = await screen(pilot, ChoiceScreen)
        assert [label for _, label in choice.options] == ["build-appimage",
                                                          "Code review (global)"]
        await pilot.press("down", "enter")
        await called(pilot, recorder, "skill_assign")
        await screen(pilot, AgentsScreen)
        await pilot.press("K")
        choice = await screen(pilot, ChoiceScreen)
        assert [label for _, label in choice.options] == ["Release checklist"]
        await pilot.press("enter")
        await called(pilot, recorder, "skill_unassign")

    drive(make_app(recorder), scenario)
    assert recorder.params("skill_assign") == [
        {"agent": "QA", "skill": "code-review", "scope": "global"}]
    assert recorder.params("skill_unassign") == [
        {"agent": "QA", "skill": "release-checklist", "scope": "project"}]


def test_k_without_any_skill_says_how_to_make_one() -> None:
    recorder = gateway(skill_list={"skills": [], "problems": [], "project": "web"})

    async def scenario(pilot: Pilot[str]) -> None:
        await open_agents(pilot, row=1)
        await pilot.press("k")
        await until(pilot, lambda: "prefix K opens the Skills panel" in message(pilot))

    drive(make_app(recorder), scenario)
    assert "skill_assign" not in recorder.methods()
