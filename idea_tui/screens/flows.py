"""The multi-step dialogs behind the agents and templates panels (and the palette).

Each flow asks its questions with modal screens (`Runner.ask`), calls the daemon
(`Runner.call`, whose confirmation flow asks before anything destructive), and reports
what happened with `Runner.report`: on the status line and in the message line of the
panel on top. They run in workers, never in a key handler.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING, Any

import msgspec

from adapters.ipc.answers_agents import (
    AgentCreated,
    AgentDescription,
    AgentRenamed,
    AgentSynced,
    PersonaText,
    PersonaWritten,
    ProfileList,
    TemplateList,
    TemplateNamed,
    TemplateSummary,
    TemplateText,
)
from idea_tui.cli_orchestration import team_activity
from idea_tui.ports import attempt_as, call_as, call_list
from idea_tui.screens.choice import ChoiceScreen
from idea_tui.screens.confirm import ConfirmScreen
from idea_tui.screens.editor import EditorScreen, edit_revised
from idea_tui.screens.external_editor import edit_externally
from idea_tui.screens.external_editor import editor_command as editor_command  # (re-exported)
from idea_tui.screens.prompt import PromptScreen

if TYPE_CHECKING:
    from idea_tui.ports import Runner

Agent = dict[str, Any]


# ─── describing agents ────────────────────────────────────────────────────────────────


def agent_status(agent: Agent, elapsed: float = 0.0) -> str:
    """An agent's state in words: stopped, running in cell X / in the background, exited
    with code N, failed: why, resumable; then its usage limit and the countdown to its
    resume (`elapsed`: seconds since `agent` was read)."""
    from idea_tui.limit_words import limit_words

    words = _plain_status(agent)
    limited = limit_words(agent, elapsed)
    return f"{limited} · {words}" if limited else words


def _plain_status(agent: Agent) -> str:
    state = agent.get("state")
    if state == "running":
        if agent.get("background") or not agent.get("cell"):
            where = "running in background"
        else:
            where = f"running in cell {agent.get('target') or agent.get('cell')}"
        return where + team_activity(agent)
    if state == "exited":
        code = agent.get("exitCode")
        return "exited" if code is None else f"exited with code {code}"
    if state == "failed":
        return f"failed: {agent.get('error') or 'unknown error'}"
    if state == "resumable":
        return "resumable (was running)"
    return "stopped"


def update_badge(agent: Agent) -> str | None:
    """'update available v1→v2' for an agent whose template moved on (TPL-4), else None."""
    update = agent.get("updateAvailable")
    if not update:
        return None
    return f"update available v{update.get('from')}→v{update.get('to')}"


def template_label(agent: Agent) -> str:
    template = agent.get("template")
    if not template:
        return "scratch"
    return f"{template} ({'sync' if agent.get('synchronized') else 'copy'})"


# ─── launching, going to, stopping ────────────────────────────────────────────────────


async def changes(runner: Runner, agent: Agent) -> bool:
    """What the agent changed in its worktree: its commits and uncommitted files, as diffs."""
    from adapters.ipc.answers_git import AgentChanges
    from idea_tui.screens.agent_changes import AgentChangesScreen

    answer, found = await attempt_as(runner, AgentChanges, "agent_changes", agent=agent["id"])
    if found is None:
        runner.report(answer.error or "", "error")
        return False
    runner.app.push_screen(AgentChangesScreen(agent["name"], found))
    return True


async def launch(runner: Runner, agent: Agent, where: str, worktree: bool = False) -> bool:
    """Launch `agent` in a new split next to the focused cell ("split"), in the focused cell
    ("cell") or in the background ("background"); with `worktree`, in its own git worktree
    (D28). An agent already running in another cell offers to go there (AGT-6)."""
    params: dict[str, Any] = {"agent": agent["id"]}
    if worktree:
        params["worktree"] = True
    focused = runner.focused_target()
    if where == "background":
        params["background"] = True
    elif where == "cell":
        if focused is None:
            runner.report("no focused cell to launch into: b launches in the background",
                          "error")
            return False
        params["target"] = focused
    elif focused is not None:
        params.update(target=focused, split=True)
    answer, launched = await attempt_as(runner, AgentDescription, "agent_launch", **params)
    if answer.declined:
        return False
    if launched is None:
        if answer.code == "AGENT_ALREADY_RUNNING":
            if await runner.ask(ConfirmScreen(f"{answer.error}\n\nGo to its cell?")):
                return await go_to(runner, agent, refresh=True)
            return False
        runner.report(answer.error or "the launch failed", "error")
        return False
    # A map, as `agent_status` reads the Agents panel's rows: the daemon's own, from the Struct.
    status: Agent = msgspec.to_builtins(launched)
    if launched.state == "failed":
        # The daemon's reason, without its advice (the panel's detail line has it all).
        reason = agent_status(status).split(" — ", 1)[0]
        runner.report(f"{agent['name']}: {reason}", "error")
    else:
        runner.report(f"{agent['name']}: {agent_status(status)}")
    return True


async def go_to(runner: Runner, agent: Agent, *, refresh: bool = False) -> bool:
    """Show the agent's cell (its page and project too)."""
    name, cell, state = agent["name"], agent.get("cell"), agent.get("state")
    if refresh:
        listed = await call_list(runner, AgentDescription, "agent_list") or []
        found = next((a for a in listed if a.id == agent["id"]), None)
        if found is not None:
            name, cell, state = found.name, found.cell or None, found.state
    if not cell:
        if state == "running":
            runner.report(f"{name} runs in the background: c brings it into the focused cell")
        else:
            runner.report(f"{name} has no cell: Enter launches it in a split")
        return False
    return await runner.call("select", target=f"%{cell}") is not None


async def stop(runner: Runner, agent: Agent) -> None:
    if await runner.call("agent_stop", agent=agent["id"]) is not None:
        runner.report(f"{agent['name']} stopped")


async def restart(runner: Runner, agent: Agent) -> None:
    restarted = await call_as(runner, AgentDescription, "agent_restart", agent=agent["id"])
    if restarted is not None:
        status: Agent = msgspec.to_builtins(restarted)
        runner.report(f"{agent['name']} restarted: {agent_status(status)}")


# ─── creating, renaming, deleting, profiles ───────────────────────────────────────────


async def pick_profile(runner: Runner, question: str,
                       current: str | None = None) -> str | None:
    """A profile id chosen from profile_list (configured ones, then the built-in ones)."""
    info = await call_as(runner, ProfileList, "profile_list")
    if info is None:
        return None
    options = []
    for profile in info.profiles:
        label = f"{profile['name']}  ({profile['command']})"
        if profile.get("source") == "built-in" and info.configured:
            label += "  built-in"
        if profile["id"] == current:
            label += "  ← current"
        options.append((profile["id"], label))
    if not options:
        runner.report("no profile: add one in Profiles (prefix S)", "error")
        return None
    chosen: str | None = await runner.ask(ChoiceScreen(question, options, highlighted=current))
    return chosen


async def new_agent(runner: Runner, template_id: str | None = None) -> AgentCreated | None:
    """Name, then scratch or a template (keep in sync on or off), then the profile.

    From the templates screen (`template_id` given) the template is chosen already and
    its default profile is used (p in the Agents panel changes it later).
    """
    name = await runner.ask(PromptScreen("Name of the new agent (e.g. Backend Dev):"))
    if not name:
        return None
    listing = await call_as(runner, TemplateList, "template_list")
    templates = {t.id: t for t in listing.templates} if listing is not None else {}
    template: TemplateSummary | None = None
    if template_id is not None:
        template = templates.get(template_id)
        if template is None:
            runner.report(f"no template {template_id}", "error")
            return None
    elif templates:
        options = [("scratch", "From scratch: a starter persona you write yourself")]
        options += [(t.id, f"From template {t.name} (v{t.version})")
                    for t in templates.values()]
        choice = await runner.ask(ChoiceScreen(f"Start {name} from:", options))
        if choice is None:
            return None
        template = templates.get(choice)
    sync = False
    if template is not None:
        choice = await runner.ask(ChoiceScreen(
            f"Keep {name} in sync with template {template.name}?",
            [("on", "Keep in sync: template updates show a badge and u replaces the Markdown "
                    "(your edits are backed up first)"),
             ("off", "Copy once: the Markdown is the agent's own from now on")],
            highlighted="on"))
        if choice is None:
            return None
        sync = choice == "on"
    params: dict[str, Any] = {"name": name}
    if template_id is None:
        default = template.default_profile_id if template else None
        profile = await pick_profile(runner, f"Which CLI runs {name}?", default)
        if profile is None:
            return None
        params["profile"] = profile
    if template is not None:
        params.update(template=template.id, sync=sync)
    created = await call_as(runner, AgentCreated, "agent_new", **params)
    if created is not None:
        runner.report(f"agent {created.name} created: .ideai/{created.md_path} "
                      "(e edits it, Enter launches it)")
        await offer_launch(runner, msgspec.to_builtins(created))
    return created


LAUNCH_CHOICES = [
    ("later", "Not now: Enter in the Agents panel launches it"),
    ("split", "Launch it now in a split"),
    ("worktree", "Launch it now in a split, in its own git worktree (its own branch)"),
]


async def offer_launch(runner: Runner, agent: Agent) -> bool:
    """The end of the new-agent flow: launch now, in the project's checkout or in its own
    worktree (the same launch as W in the Agents panel), or later."""
    choice = await runner.ask(ChoiceScreen(f"Launch {agent['name']}?", LAUNCH_CHOICES,
                                           highlighted="later"))
    if choice not in ("split", "worktree"):
        return False
    return await launch(runner, agent, "split", worktree=choice == "worktree")


async def rename(runner: Runner, agent: Agent) -> None:
    name = await runner.ask(PromptScreen(f"New name for {agent['name']}:", agent["name"]))
    if name and name != agent["name"]:
        renamed = await call_as(runner, AgentRenamed, "agent_rename", agent=agent["id"],
                                name=name)
        if renamed is not None:
            runner.report(f"{agent['name']} is now {renamed.name} (its file keeps its name)")


async def delete(runner: Runner, agent: Agent) -> None:
    # The daemon asks first ("confirm"): it says whether the agent runs and where the
    # Markdown goes.
    if await runner.call("agent_rm", agent=agent["id"]) is not None:
        runner.report(f"agent {agent['name']} deleted")


async def change_profile(runner: Runner, agent: Agent) -> None:
    """Another CLI for the agent; a running one is relaunched in place after a
    confirmation that its provider conversation is lost (SWP-1)."""
    current = agent.get("profileId")
    profile = await pick_profile(runner, f"Which CLI should run {agent['name']}?", current)
    if profile is None:
        return
    if profile == current:
        runner.report(f"{agent['name']} already uses {profile}")
        return
    status = await runner.call("agent_set_profile", agent=agent["id"], profile=profile)
    if status is not None:
        runner.report(f"{agent['name']} now uses {profile}")


async def sync(runner: Runner, agent: Agent) -> None:
    """Replace the agent's Markdown with its template's (TPL-5); local edits are shown as
    a conflict (the daemon asks) and backed up (D24)."""
    result = await call_as(runner, AgentSynced, "agent_sync", agent=agent["id"])
    if result is None:
        return
    message = f"{agent['name']} synced with template {result.template} v{result.version}"
    if result.status == "up_to_date":
        message += " (its Markdown already matched)"
    if result.backup:
        message += f"; your version is kept in .ideai/{result.backup}"
    runner.report(message)


async def toggle_sync(runner: Runner, agent: Agent) -> None:
    on = not agent.get("synchronized")
    result = await runner.call("agent_set_sync", agent=agent["id"], on=on)
    if result is not None:
        runner.report(f"{agent['name']}: " + ("kept in sync with its template" if on
                                              else "no longer kept in sync"))


# ─── editing personas ─────────────────────────────────────────────────────────────────


async def edit_persona(runner: Runner, agent: Agent) -> bool:
    """The agent's Markdown in the built-in editor, read and written by the daemon (the
    project may be on another machine than this client)."""
    shown = await call_as(runner, PersonaText, "agent_persona_read", agent=agent["id"])
    if shown is None:
        return False
    name = PurePath(shown.path).name
    note = "" if shown.exists else f"{shown.path} does not exist: saving creates it"
    if agent.get("synchronized") and not note:
        note = (f"kept in sync with template {agent.get('template')}: a sync backs up your "
                "edits and replaces them")

    async def write(text: str, base: str) -> str | None:
        written = await call_as(runner, PersonaWritten, "agent_persona_write",
                                agent=agent["id"], content=text, revision=base)
        if written is None:
            return None
        runner.report(f"saved {written.path}")
        return written.revision

    return await edit_revised(runner, f" {agent['name']} — {shown.path} ", shown.content,
                              shown.revision, write, unchanged=f"{name}: no change",
                              note=note)


async def edit_persona_external(runner: Runner, agent: Agent) -> None:
    """The agent's Markdown in $VISUAL / $EDITOR, with the client suspended meanwhile: the
    editor works on a copy here, which the daemon then writes (asking if it changed)."""
    shown = await call_as(runner, PersonaText, "agent_persona_read", agent=agent["id"])
    if shown is None:
        return
    name = PurePath(shown.path).name
    text = await edit_externally(runner, name, shown.content)
    if text is None:
        return
    if text == shown.content:
        runner.report(f"{name}: no change")
        return
    written = await call_as(runner, PersonaWritten, "agent_persona_write", agent=agent["id"],
                            content=text, revision=shown.revision)
    if written is not None:
        runner.report(f"edited {written.path}")


# ─── templates ────────────────────────────────────────────────────────────────────────


async def new_template(runner: Runner) -> bool:
    name = await runner.ask(PromptScreen("Name of the new template (e.g. Reviewer):"))
    if not name:
        return False

    async def save(text: str) -> bool:
        created = await call_as(runner, TemplateNamed, "template_new", name=name, content=text)
        if created is not None:
            runner.report(f"template {created.name} created (v{created.version})")
        return created is not None

    starter = f"# {name}\n\nYou are the team's {name}. Describe the role, its duties and "
    starter += "how it works with the others here.\n"
    saved = await runner.ask(EditorScreen(f" New template {name} ", starter, save=save))
    return saved is not None


async def edit_template(runner: Runner, template_id: str) -> bool:
    """The template's content in the editor; saving a change bumps its version (TPL-2)."""
    shown = await call_as(runner, TemplateText, "template_show", template=template_id)
    if shown is None:
        return False
    original = shown.content

    async def save(text: str) -> bool:
        if text == original:
            runner.report(f"template {shown.name}: no change (still v{shown.version})")
            return True
        updated = await call_as(runner, TemplateNamed, "template_update", template=shown.id,
                                content=text)
        if updated is not None:
            runner.report(f"template {updated.name} saved: now v{updated.version} "
                          "(agents kept in sync show an update)")
        return updated is not None

    title = f" Template {shown.name} v{shown.version} "
    saved = await runner.ask(EditorScreen(title, original, save=save))
    return saved is not None


async def delete_template(runner: Runner, template: dict[str, Any]) -> bool:
    question = (f"Delete template {template['name']}? Agents made from it keep their "
                "Markdown; the ones kept in sync stop getting updates.")
    if not await runner.ask(ConfirmScreen(question)):
        return False
    if await runner.call("template_rm", template=template["id"]) is None:
        return False
    runner.report(f"template {template['name']} deleted")
    return True


async def install_team_pack(runner: Runner) -> None:
    installed = await call_list(runner, TemplateNamed, "template_install_pack")
    if installed is not None:
        names = ", ".join(t.name for t in installed)
        runner.report(f"software team templates installed: {names} (in Templates, "
                      "prefix T, a creates an agent from one)")
