"""The Agents panel's (and the palette's) controls of an agent at a usage limit (issue 10):
when to resume it, now, cancel the resume, "not a limit" (a suspected one), or continue on
another profile."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from msgspec import UNSET

from adapters.ipc.answers_agents import ProfileList
from adapters.ipc.answers_limits import LimitAnswer, LimitRow
from idea_tui.ports import call_as, call_list
from idea_tui.screens.choice import ChoiceScreen
from idea_tui.screens.prompt import PromptScreen

if TYPE_CHECKING:
    from idea_tui.ports import Runner

Agent = dict[str, Any]


NOT_A_LIMIT = frozenset({"no", "not a limit"})
"""Answers to the suspected prompt that say it is not a limit."""


def suspected(agent: Agent) -> bool:
    return bool((agent.get("limit") or {}).get("state") == "suspected")


def limit_question(agent: Agent) -> str:
    """The prompt's question: for a suspected agent, the "asking = arming" one (SLM-4),
    which also takes "no" (not a limit: its task goes on)."""
    if suspected(agent):
        return (f"{agent['name']} seems stuck in a task with no limit message. If it hit a "
                "usage limit, when should idea resume it? (HH:MM, 3:40am, in 20m; a past time "
                "means now) Not a limit: answer no, its task goes on.")
    return f"Resume {agent['name']} at (HH:MM, 3:40am, in 20m; a past time means now):"


async def set_time(runner: Runner, agent: Agent) -> None:
    at = await runner.ask(PromptScreen(limit_question(agent), ""))
    if not at:
        return
    if suspected(agent) and at.lower() in NOT_A_LIMIT:
        await not_limited(runner, agent)
        return
    result = await call_as(runner, LimitAnswer, "set_resume_at", agent=agent["id"], at=at,
                           project=agent.get("root"))
    if result is not None:
        limit = result.limit
        text = limit.text if limit is not None else "armed"
        countdown = (limit.countdown if limit is not None and limit.countdown is not UNSET
                     else "a moment")
        runner.report(f"{agent['name']}: {text}, resumes in {countdown}")


async def resume_now(runner: Runner, agent: Agent) -> None:
    result = await runner.call("resume_now", agent=agent["id"], project=agent.get("root"))
    if result is not None:
        runner.report(f"{agent['name']} resumed")


async def cancel(runner: Runner, agent: Agent) -> None:
    result = await call_as(runner, LimitAnswer, "cancel_resume", agent=agent["id"],
                           project=agent.get("root"))
    if result is not None:
        runner.report(f"{agent['name']}: resume cancelled, still limited"
                      if result.cancelled is True
                      else f"{agent['name']}: no resume was armed")


async def not_limited(runner: Runner, agent: Agent) -> None:
    """The agent is not at a limit: a suspected one's task goes on; a limited one (it went
    on by itself unseen) is held no longer. Nothing restarts."""
    state = (agent.get("limit") or {}).get("state")
    if state not in ("suspected", "limited"):
        runner.report(f"{agent['name']} is " + ("on its fallback profile (N brings it back)"
                                                if state == "swapped"
                                                else "not at a usage limit"), "error")
        return
    result = await call_as(runner, LimitAnswer, "not_limited", agent=agent["id"],
                           project=agent.get("root"))
    if result is not None:
        runner.report(f"{agent['name']}: not a limit, its task goes on"
                      if result.was == "suspected"
                      else f"{agent['name']}: no longer limited, its queue moves")


def fallback_options(agent: Agent, profiles: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Every other profile, to continue the agent on (its own is not offered)."""
    return [(p["id"], f"{p['name']}  ({p['command']})") for p in profiles
            if p["id"] != agent.get("profileId")]


def fallback_question(agent: Agent) -> str:
    limit = agent.get("limit") or {}
    until = limit.get("text", "at a usage limit")
    return (f"{agent['name']} is {until}. Continue on which profile? Its persona, memory "
            "and conversation handoff go along; it comes back at the reset.")


async def continue_on(runner: Runner, agent: Agent) -> None:
    if not agent.get("limit"):
        runner.report(f"{agent['name']} is not at a usage limit (p changes its profile)",
                      "error")
        return
    info = await call_as(runner, ProfileList, "profile_list")
    if info is None:
        return
    options = fallback_options(agent, info.profiles)
    if not options:
        runner.report("no other profile to continue on", "error")
        return
    chosen = await runner.ask(ChoiceScreen(fallback_question(agent), options))
    if not chosen:
        return
    result = await runner.call("limit_swap", agent=agent["id"], profile=chosen,
                               project=agent.get("root"))
    if result is not None:
        runner.report(f"{agent['name']} continues on {chosen}")


MISSED_OPTIONS = [
    ("now", "Resume it now"),
    ("later", "Resume it at a time I choose…"),
    ("keep", "Keep it stopped (cancel its resume)"),
]


async def answer_missed(runner: Runner, entry: LimitRow) -> None:
    """A resume that came due long ago while idea was not running (more than
    `ask_after`) was not fired: the user is asked (asking = arming, SLM-4). Escape leaves
    the question open (the Agents panel and `idea agent list` still show it)."""
    missed = entry.missed or f"{entry.agent}'s resume was missed"
    chosen = await runner.ask(ChoiceScreen(f"{missed}, at a usage limit. What should idea "
                                           "do?", MISSED_OPTIONS))
    # The agent as the controls read it (a limit row's own state is not an agent's
    # `limit`: a missed resume is never a suspected limit).
    agent: Agent = {"id": entry.id, "name": entry.agent, "root": entry.root}
    if chosen == "now":
        await resume_now(runner, agent)
    elif chosen == "later":
        await set_time(runner, agent)
    elif chosen == "keep":
        await cancel(runner, agent)


async def ask_missed_resumes(runner: Runner) -> None:
    """At attach: ask about every missed resume of the open projects, one at a time."""
    listed = await call_list(runner, LimitRow, "limit_status", all=True) or []
    for entry in listed:
        if entry.overdue:
            await answer_missed(runner, entry)
