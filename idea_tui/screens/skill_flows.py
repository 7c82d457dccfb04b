"""What the Skills panel and the Agents panel's skill keys do (FEATURES.md SKL-6): dialogs
first, then one daemon command. Every function reports its outcome on the status line."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from adapters.ipc.answers_agents import AgentDescription
from adapters.ipc.answers_knowledge import Skill as SkillAnswer
from adapters.ipc.answers_knowledge import SkillAssignment, SkillList, SkillText, SkillUpdated
from idea_tui.ports import call_as, call_list
from idea_tui.screens.choice import ChoiceScreen
from idea_tui.screens.confirm import ConfirmScreen
from idea_tui.screens.editor import EditorScreen, edit_revised
from idea_tui.screens.external_editor import edit_externally
from idea_tui.screens.prompt import PromptScreen

if TYPE_CHECKING:
    from idea_tui.ports import Runner

Skill = dict[str, Any]
Agent = dict[str, Any]


def label(skill: Skill) -> str:
    """`Name` for a project skill, `Name (global)` for a global one."""
    return str(skill["name"]) + (" (global)" if skill.get("scope") == "global" else "")


def exact(skill: Skill) -> dict[str, Any]:
    """The parameters naming exactly this skill."""
    return {"skill": skill["id"], "scope": skill["scope"]}


def starter(name: str) -> str:
    return (f"# {name}\n\nWhen to use it: (one line; agents see it in their list)\n\n"
            "## Steps\n\n1. \n\n## Done means\n\n")


async def new_skill(runner: Runner, scope: str) -> bool:
    where = "every project" if scope == "global" else "this project"
    name = await runner.ask(PromptScreen(f"Name of the new skill for {where} "
                                         "(e.g. Release checklist):"))
    if not name:
        return False

    async def save(text: str) -> bool:
        created = await call_as(runner, SkillAnswer, "skill_new", name=name, content=text,
                                scope=scope)
        if created is not None:
            runner.report(f"{created.scope} skill {created.name} created (a on it "
                          "assigns it to an agent)")
        return created is not None

    saved = await runner.ask(EditorScreen(f" New {scope} skill {name} ", starter(name),
                                          save=save))
    return saved is not None


async def edit_skill(runner: Runner, skill: Skill) -> bool:
    """The skill's Markdown in the built-in editor; the daemon asks before saving over a
    change made meanwhile (an agent, another editor)."""
    shown = await call_as(runner, SkillText, "skill_show", **exact(skill))
    if shown is None:
        return False

    async def write(text: str, base: str) -> str | None:
        updated = await call_as(runner, SkillUpdated, "skill_update", content=text,
                                revision=base, **exact(skill))
        if updated is None:
            return None
        runner.report(f"skill {updated.name} saved (agents get it from their next launch)")
        return updated.revision

    return await edit_revised(runner, f" Skill {label(skill)} — {shown.path} ",
                              shown.content, shown.revision, write,
                              unchanged=f"skill {shown.name}: no change")


async def edit_skill_external(runner: Runner, skill: Skill) -> None:
    shown = await call_as(runner, SkillText, "skill_show", **exact(skill))
    if shown is None:
        return
    text = await edit_externally(runner, f"{skill['id']}.md", shown.content)
    if text is None:
        return
    if text == shown.content:
        runner.report(f"skill {shown.name}: no change")
        return
    updated = await call_as(runner, SkillUpdated, "skill_update", content=text,
                            revision=shown.revision, **exact(skill))
    if updated is not None:
        runner.report(f"skill {updated.name} saved")


async def delete_skill(runner: Runner, skill: Skill) -> bool:
    holders = skill.get("assignedTo") or []
    question = f"Delete the {skill['scope']} skill {skill['name']}?"
    if holders:
        question += f" It is unassigned from {', '.join(holders)}."
    question += " Its Markdown stays in md/ (the index forgets it)."
    if not await runner.ask(ConfirmScreen(question)):
        return False
    if await runner.call("skill_rm", force=True, **exact(skill)) is None:
        return False
    runner.report(f"skill {skill['name']} deleted")
    return True


async def _assign(runner: Runner, skill: Skill, agent_name: str, on: bool) -> bool:
    method = "skill_assign" if on else "skill_unassign"
    result = await call_as(runner, SkillAssignment, method, agent=agent_name, **exact(skill))
    if result is None:
        return False
    verb = "assigned to" if on else "unassigned from"
    runner.report(f"skill {label(skill)} {verb} {result.agent} (from its next launch)")
    return True


async def assign_to_agent_of_choice(runner: Runner, skill: Skill) -> bool:
    """The Skills panel's `a`: pick an agent that does not have it yet."""
    agents = await call_list(runner, AgentDescription, "agent_list")
    if agents is None:
        return False
    holders = set(skill.get("assignedTo") or [])
    options = [(a.name, a.name) for a in agents if a.name not in holders]
    if not options:
        runner.report("every agent of this project has it already" if agents
                      else "no agent yet: create one in the Agents panel", "error")
        return False
    name = await runner.ask(ChoiceScreen(f"Assign {label(skill)} to which agent?", options))
    return bool(name) and await _assign(runner, skill, name, True)


async def unassign_from_agent_of_choice(runner: Runner, skill: Skill) -> bool:
    holders = list(skill.get("assignedTo") or [])
    if not holders:
        runner.report(f"no agent has {label(skill)}", "error")
        return False
    name = await runner.ask(ChoiceScreen(f"Take {label(skill)} off which agent?",
                                         [(h, h) for h in holders]))
    return bool(name) and await _assign(runner, skill, name, False)


# ─── from the Agents panel ───────────────────────────────────────────────────────────────


def held_by(agent: Agent, skills: list[Skill]) -> list[Skill]:
    """The agent's skills, in its order; a reference to a deleted skill shows its id."""
    known = {(s["scope"], s["id"]): s for s in skills}
    held = []
    for ref in agent.get("skills") or []:
        key = (ref["scope"], ref["skillId"])
        held.append(known.get(key) or {"id": ref["skillId"], "scope": ref["scope"],
                                       "name": f"{ref['skillId']} (deleted)", "gone": True})
    return held


async def skill_rows(runner: Runner) -> list[Skill] | None:
    """The skills of `skill_list` as the panels' rows (their wire maps, which `held_by`
    mixes with the rows of deleted skills); None when the call failed (reported)."""
    listing = await call_as(runner, SkillList, "skill_list")
    if listing is None:
        return None
    rows: list[Skill] = msgspec.to_builtins(listing.skills)
    return rows


async def give_skill(runner: Runner, agent: Agent) -> bool:
    """The Agents panel's `k`: pick one of the skills the agent does not have."""
    skills = await skill_rows(runner)
    if skills is None:
        return False
    mine = {(s["scope"], s["id"]) for s in held_by(agent, skills)}
    options = [(f"{s['scope']}:{s['id']}", label(s)) for s in skills
               if (s["scope"], s["id"]) not in mine]
    if not options:
        runner.report(f"{agent['name']} has every skill already" if skills else
                      "no skill yet: prefix K opens the Skills panel (n creates one)", "error")
        return False
    picked = await runner.ask(ChoiceScreen(f"Give {agent['name']} which skill?", options))
    if not picked:
        return False
    skill = next(s for s in skills if f"{s['scope']}:{s['id']}" == picked)
    return await _assign(runner, skill, agent["name"], True)


async def take_skill(runner: Runner, agent: Agent) -> bool:
    """The Agents panel's `K`: pick one of the agent's skills to take off."""
    skills = await skill_rows(runner)
    if skills is None:
        return False
    held = held_by(agent, skills)
    if not held:
        runner.report(f"{agent['name']} has no skill", "error")
        return False
    picked = await runner.ask(ChoiceScreen(
        f"Take which skill off {agent['name']}?",
        [(f"{s['scope']}:{s['id']}", label(s)) for s in held]))
    if not picked:
        return False
    skill = next(s for s in held if f"{s['scope']}:{s['id']}" == picked)
    return await _assign(runner, skill, agent["name"], False)
