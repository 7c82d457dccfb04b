"""Commands on agents, templates and profiles (issue 4's `idea agent|template|profile`)."""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from adapters.ipc import answers_agents as ag
from adapters.ipc import commands as rpc
from adapters.store.profiles_codec import decode_profile, encode_profile, read_profile_file
from core.agents.argv import detect_argv
from core.agents.profile import AgentProfile
from core.errors import IdeaError, StoreError
from core.layout.model import Direction
from idea_daemon.client_connection import ClientConnection
from idea_daemon.command_table import command, entries
from idea_daemon.commands import _svc, caller_window
from idea_daemon.commands_workspace import _project
from idea_daemon.errors import CommandError
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.server import DaemonServer

if TYPE_CHECKING:
    from idea_daemon.agent_admin import AgentAdmin
    from idea_daemon.agent_status import AgentStatus
    from idea_daemon.agents import AgentRuntime

DETECT_TIMEOUT = 5.0


def _agents(server: DaemonServer) -> AgentRuntime:
    agents: AgentRuntime | None = getattr(server, "agents", None)
    if agents is None:
        raise CommandError("agents are not available in this daemon")
    return agents


def _admin(server: DaemonServer) -> AgentAdmin:
    admin: AgentAdmin | None = getattr(server, "admin", None)
    if admin is None:
        raise CommandError("agents are not available in this daemon")
    return admin


def _name(value: str | None, key: str) -> str:
    """A name the command needs (`key` is its parameter, for the message)."""
    if value is None or not value.strip():
        raise CommandError(f"{key} is required")
    return value


def describe_status(status: AgentStatus, server: DaemonServer) -> ag.AgentDescription:
    agent = status.agent
    info = ag.AgentDescription(
        id=agent.id, name=agent.name, md_path=agent.md_path, profile_id=agent.profile_id,
        state=status.state, synchronized=agent.synchronized,
        template=getattr(agent.origin, "template_id", None),
        skills=[ag.SkillRefInfo(skill_id=ref.skill_id, scope=ref.scope.value)
                for ref in agent.skills])
    if status.cell is not None:
        info.cell = status.cell
        try:
            ref = _svc(server).lookups.find_cell(status.cell)
            from idea_daemon.commands import describe_cell

            info.target = describe_cell(_svc(server), ref).target
        except CommandError:
            pass
    if status.state == "running":
        info.background = status.background
    if status.exit_code is not None:
        info.exit_code = status.exit_code
    if status.error:
        info.error = status.error
    if status.conversation_id:
        info.conversation_id = status.conversation_id
    return info


TEAM_FIELDS = {"queue": "queue", "activity": "activity", "ticket": "ticket",
               "askedBy": "asked_by", "since": "since"}
"""The orchestration service's panel keys → `AgentDescription` fields."""


# ─── agents ────────────────────────────────────────────────────────────────────────────


def agent_list(server: DaemonServer, client: ClientConnection,
               p: rpc.ProjectParams) -> list[ag.AgentDescription]:
    runtime = _project(server, client, p.project)
    drifting = {d.agent_id: d for d in _admin(server).drift(runtime)}
    listed = []
    for status in _agents(server).status(runtime):
        info = describe_status(status, server)
        drift = drifting.get(status.agent.id)
        if drift is not None:
            info.update_available = ag.UpdateAvailable(from_version=drift.from_version,
                                                       to_version=drift.to_version)
        if server.orchestration is not None:
            # What it is doing for the team: idle/working/blocked, its queue, its ticket.
            team = server.orchestration.panel_info(runtime, status.agent)
            info = msgspec.structs.replace(info, **{
                field: team[key] for key, field in TEAM_FIELDS.items() if key in team})
        if server.session_limits is not None:
            # At a usage limit (issue 10): until when, and when it resumes.
            limit = server.session_limits.info(runtime, status.agent.id)
            if limit is not None:
                info.limit = limit
        listed.append(info)
    return listed


def agent_new(server: DaemonServer, client: ClientConnection,
              p: rpc.AgentNewParams) -> ag.AgentCreated:
    runtime = _project(server, client, p.project)
    agent = _admin(server).create(runtime, _name(p.name, "name"), p.profile,
                                  p.template, p.sync)
    return ag.AgentCreated(id=agent.id, name=agent.name, md_path=agent.md_path,
                           profile_id=agent.profile_id,
                           path=str(Path(runtime.root) / ".ideai" / agent.md_path))


def agent_rename(server: DaemonServer, client: ClientConnection,
                 p: rpc.AgentRenameParams) -> ag.AgentRenamed:
    runtime = _project(server, client, p.project)
    agent = _admin(server).rename(runtime, _name(p.agent, "agent"), _name(p.name, "name"))
    return ag.AgentRenamed(id=agent.id, name=agent.name)


def agent_rm(server: DaemonServer, client: ClientConnection,
             p: rpc.AgentForceParams) -> ag.AgentDeleted:
    runtime = _project(server, client, p.project)
    agent = _admin(server).delete(runtime, _name(p.agent, "agent"), p.force)
    runtime.notices = _admin(server).drift_messages(runtime)
    return ag.AgentDeleted(deleted=agent.name)


def agent_path(server: DaemonServer, client: ClientConnection,
               p: rpc.NamedAgentParams) -> ag.AgentPath:
    runtime = _project(server, client, p.project)
    return ag.AgentPath(path=_admin(server).persona_path(runtime, _name(p.agent, "agent")))


async def agent_launch(server: DaemonServer, client: ClientConnection,
                       p: rpc.AgentLaunchParams) -> ag.AgentDescription:
    """Launch into a new split (default), a chosen cell (`target`) or the background; with
    `worktree` (true, or a branch name), or `worktree: true` in agents.json, in the agent's
    own git worktree (made on first use, D28)."""
    worktree = p.worktree
    if worktree is not None and not isinstance(worktree, bool | str):
        raise CommandError("worktree must be true or a branch name")
    if server.worktrees is not None:
        if p.background or not p.target:
            runtime = _project(server, client, p.project)
        else:
            window = caller_window(server, client)
            runtime = _svc(server).lookups.resolve(p.target, window,
                                                   client.cell).runtime
        agent = _agents(server).agent(runtime, _name(p.agent, "agent"))
        wanted = worktree if worktree is not None else agent.extra.get("worktree") is True
        if wanted:
            branch = worktree if isinstance(worktree, str) and worktree else None
            await server.worktrees.ensure(runtime, agent, branch)
        await server.worktrees.check_for_launch(runtime, agent.id)
    elif worktree:
        raise CommandError("git is not available: an agent cannot get its own worktree")
    return await _launch(server, client, p)


async def _launch(server: DaemonServer, client: ClientConnection,
                  p: rpc.AgentLaunchParams) -> ag.AgentDescription:
    service = _svc(server)
    agents = _agents(server)
    name = _name(p.agent, "agent")
    if p.background:
        runtime = _project(server, client, p.project)
        status = await agents.launch_async(runtime, name, where="background", resume=p.resume)
        return _launched(status, server)
    where = "cell" if p.target and not p.split else "split"
    ref = service.lookups.resolve(p.target, caller_window(server, client), client.cell)
    # The launch's file reads off the loop; the cell is looked up again afterwards (the
    # layout may have changed meanwhile).
    knowledge = await agents.knowledge_for(ref.runtime, agents.agent(ref.runtime, name))
    ref = service.lookups.resolve(p.target, caller_window(server, client), client.cell)
    direction = Direction.COLUMN if p.direction == "down" else Direction.ROW
    status = agents.launch(ref.runtime, name, where=where, cell=ref, direction=direction,
                           resume=p.resume, force=p.force, move=p.move, knowledge=knowledge)
    if status.cell is not None and where == "split":
        service.cells.select(service.lookups.find_cell(status.cell))
    return _launched(status, server)


def _launched(status: AgentStatus, server: DaemonServer) -> ag.AgentDescription:
    """The status of a launch, or an error when the program could not start (exit 1)."""
    if status.state == "failed":
        raise CommandError(f"{status.agent.name} did not start: {status.error}",
                           "launch_failed")
    return describe_status(status, server)


def agent_stop(server: DaemonServer, client: ClientConnection,
               p: rpc.NamedAgentParams) -> ag.AgentDescription:
    runtime = _project(server, client, p.project)
    return describe_status(_agents(server).stop(runtime, _name(p.agent, "agent")), server)


async def agent_restart(server: DaemonServer, client: ClientConnection,
                        p: rpc.AgentRestartParams) -> ag.AgentDescription:
    runtime = _project(server, client, p.project)
    name = _name(p.agent, "agent")
    if server.worktrees is not None:
        agent = _agents(server).agent(runtime, name)
        await server.worktrees.check_for_launch(runtime, agent.id)
    status = await _agents(server).restart_async(runtime, name, resume=p.resume)
    return describe_status(status, server)


def agent_set_profile(server: DaemonServer, client: ClientConnection,
                      p: rpc.AgentProfileParams) -> ag.AgentDescription:
    runtime = _project(server, client, p.project)
    status = _agents(server).set_profile(runtime, _name(p.agent, "agent"),
                                         _name(p.profile, "profile"), p.force)
    return describe_status(status, server)


def agent_resumable(server: DaemonServer, client: ClientConnection,
                    p: rpc.AgentsParams) -> list[ag.ResumableAgent]:
    service = _svc(server)
    runtimes = (list(service.projects.values()) if p.all
                else [_project(server, client, p.project)])
    found = []
    for runtime in runtimes:
        for entry in _agents(server).resumable(runtime):
            found.append(ag.ResumableAgent(
                agent=entry["agent"], agent_id=entry["agentId"], cell=entry["cell"],
                background=entry["background"], conversation_id=entry["conversationId"],
                resume_supported=entry["resumeSupported"], project=runtime.name,
                root=runtime.root))
    return found


async def agent_resume(server: DaemonServer, client: ClientConnection,
                       p: rpc.AgentsParams) -> list[ag.AgentDescription]:
    service = _svc(server)
    names = p.agents
    if names is not None and not isinstance(names, list):
        raise CommandError("agents must be a list of names")
    runtimes = (list(service.projects.values()) if p.all
                else [_project(server, client, p.project)])
    done: list[ag.AgentDescription] = []
    for runtime in runtimes:
        allowed = await _worktrees_checked(server, runtime, names, done)
        for status in await _agents(server).resume_async(runtime, allowed):
            done.append(describe_status(status, server))
    return done


async def _worktrees_checked(server: DaemonServer, runtime: ProjectRuntime,
                             names: list[str] | None,
                             done: list[ag.AgentDescription]) -> list[str] | None:
    """The agents to resume less those whose recorded worktree is refused (each of those
    is reported as failed, with the reason); the others are resumed all the same."""
    if server.worktrees is None:
        return names
    allowed: list[str] = []
    refused = False
    for entry in _agents(server).resumable(runtime):
        if names is not None and entry["agent"] not in names and entry["agentId"] not in names:
            continue
        try:
            await server.worktrees.check_for_launch(runtime, entry["agentId"])
        except CommandError as exc:
            refused = True
            done.append(ag.AgentDescription(id=entry["agentId"], name=entry["agent"],
                                            state="failed", error=str(exc)))
            continue
        allowed.append(entry["agentId"])
    return allowed if refused else names


def agent_sync(server: DaemonServer, client: ClientConnection,
               p: rpc.AgentForceParams) -> ag.AgentSynced:
    runtime = _project(server, client, p.project)
    result = _admin(server).sync(runtime, _name(p.agent, "agent"), p.force)
    runtime.notices = _admin(server).drift_messages(runtime)
    return ag.AgentSynced(agent=result["agent"], template=result["template"],
                          version=result["version"], status=result["status"],
                          backup=result["backup"])


def agent_set_sync(server: DaemonServer, client: ClientConnection,
                   p: rpc.AgentSetSyncParams) -> ag.AgentSyncSet:
    runtime = _project(server, client, p.project)
    agent = _admin(server).set_synchronized(runtime, _name(p.agent, "agent"), p.on)
    runtime.notices = _admin(server).drift_messages(runtime)
    return ag.AgentSyncSet(name=agent.name, synchronized=agent.synchronized)


# ─── templates ─────────────────────────────────────────────────────────────────────────


def template_list(server: DaemonServer, client: ClientConnection,
                  p: rpc.NoParams) -> ag.TemplateList:
    listing = _admin(server).template_list()
    return msgspec.convert(listing, ag.TemplateList)


def template_new(server: DaemonServer, client: ClientConnection,
                 p: rpc.TemplateNewParams) -> ag.TemplateNamed:
    template = _admin(server).template_new(_name(p.name, "name"), p.content,
                                           p.profile)
    return ag.TemplateNamed(id=template.id, name=template.name, version=template.version)


def template_show(server: DaemonServer, client: ClientConnection,
                  p: rpc.TemplateParams) -> ag.TemplateText:
    template = _admin(server)._template(_name(p.template, "template"))
    return ag.TemplateText(id=template.id, name=template.name, version=template.version,
                           content=template.content_md,
                           default_profile_id=template.default_profile_id)


def template_update(server: DaemonServer, client: ClientConnection,
                    p: rpc.TemplateUpdateParams) -> ag.TemplateNamed:
    admin = _admin(server)
    template = admin.template_update(_name(p.template, "template"), p.content,
                                     p.name)
    _refresh_drift(server)
    return ag.TemplateNamed(id=template.id, name=template.name, version=template.version)


def template_rm(server: DaemonServer, client: ClientConnection,
                p: rpc.TemplateParams) -> ag.TemplateDeleted:
    template = _admin(server).template_delete(_name(p.template, "template"))
    return ag.TemplateDeleted(deleted=template.id)


def template_install_pack(server: DaemonServer, client: ClientConnection,
                          p: rpc.NoParams) -> list[ag.TemplateNamed]:
    installed = _admin(server).install_team_pack()
    _refresh_drift(server)
    return [ag.TemplateNamed(id=t.id, name=t.name, version=t.version) for t in installed]


def _refresh_drift(server: DaemonServer) -> None:
    """After a template changed: tell every open project's clients what can be updated."""
    service = _svc(server)
    for runtime in service.projects.values():
        messages = _admin(server).drift_messages(runtime)
        runtime.notices = messages
        window = service.lookups.window_of_project(runtime)
        for message in messages:
            server.frames.notify(window.id if window else None, message)
    service.programs.notify_scene()


# ─── profiles ──────────────────────────────────────────────────────────────────────────


def profile_list(server: DaemonServer, client: ClientConnection,
                 p: rpc.NoParams) -> ag.ProfileList:
    agents = _agents(server)
    configured = {p.id for p in agents.profile_store.load()} if agents.profile_store.exists() \
        else set()
    return ag.ProfileList(
        configured=agents.profile_store.exists(),
        profiles=[{**encode_profile(p), "source": "configured" if p.id in configured
                   else "built-in"} for p in agents.profiles()])


def profile_save(server: DaemonServer, client: ClientConnection,
                 p: rpc.ProfileSaveParams) -> ag.ProfilesSaved:
    """Write profiles.json (the first-run wizard's result; an empty list records a skip)."""
    items = p.profiles
    if not isinstance(items, list):
        raise CommandError("profiles must be a list of profiles in the profiles.json format")
    profiles = [_profile_from(item, index) for index, item in enumerate(items)]
    _agents(server).profile_store.save(profiles)
    return ag.ProfilesSaved(saved=len(profiles))


def profile_add(server: DaemonServer, client: ClientConnection,
                p: rpc.ProfileFileParams) -> ag.ProfileMap:
    store = _agents(server).profile_store
    if p.file is not None:
        profile = store.add_profile_from_file(Path(p.file))
    else:
        profile = store.add(_profile_from(p.profile))
    return encode_profile(profile)


def profile_edit(server: DaemonServer, client: ClientConnection,
                 p: rpc.ProfileFileParams) -> ag.ProfileMap:
    """Replace a profile (configuring a built-in one takes it into profiles.json)."""
    store = _agents(server).profile_store
    profile = (read_profile_file(Path(p.file)) if p.file is not None
               else _profile_from(p.profile))
    existing = {known.id for known in store.load()} if store.exists() else set()
    saved = store.update(profile) if profile.id in existing else store.add(profile)
    return encode_profile(saved)


def _profile_from(data: Any, index: int | None = None) -> AgentProfile:
    """A profile sent by a client, or a clear refusal naming it (not a "corrupt file")."""
    label = f"profile {index + 1}" if index is not None else "the profile"
    if isinstance(data, dict) and isinstance(data.get("name"), str):
        label += f" ({data['name']})"
    try:
        return decode_profile(data, label)
    except StoreError as exc:
        detail = getattr(exc, "detail", None) or exc.message
        raise CommandError(f"{label}: {detail}", "invalid_profile") from exc
    except IdeaError as exc:
        raise CommandError(f"{label}: {exc.message}", "invalid_profile") from exc


def profile_rm(server: DaemonServer, client: ClientConnection,
               p: rpc.ProfileIdParams) -> ag.ProfileRemoved:
    """Remove a configured profile (a built-in one stays available from the catalogue)."""
    store = _agents(server).profile_store
    profile_id = _name(p.profile, "profile")
    if not store.exists():
        raise CommandError(f"no profiles are configured: {profile_id!r} is not in profiles.json")
    removed = store.remove(profile_id)
    in_use: list[str] = []
    for runtime in _svc(server).projects.values():
        try:
            manifest = _agents(server).manifest(runtime)
        except CommandError:
            continue
        in_use.extend(f"{runtime.name}:{a.name}" for a in manifest.agents
                      if a.profile_id == removed.id)
    return ag.ProfileRemoved(removed=removed.id, used_by=in_use)


async def profile_detect(server: DaemonServer, client: ClientConnection,
                         p: rpc.NoParams) -> list[ag.ProfileDetection]:
    """Which CLIs are installed: every profile's `detect` command, run with a timeout."""
    profiles = _agents(server).profiles()
    results = await asyncio.gather(*(detect(profile) for profile in profiles))
    return [ag.ProfileDetection(id=p.id, name=p.name, found=result["found"],
                                detail=result["detail"])
            for p, result in zip(profiles, results, strict=True)]


async def detect(profile: AgentProfile) -> dict[str, Any]:
    argv = detect_argv(profile)
    if argv is None:
        return {"found": None, "detail": "no detect command"}
    try:
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT)
    except OSError as exc:
        return {"found": False, "detail": f"{argv[0]}: {exc.strerror or exc}"}
    try:
        output, _ = await asyncio.wait_for(process.communicate(), DETECT_TIMEOUT)
    except TimeoutError:
        process.kill()
        await process.wait()
        return {"found": False, "detail": f"`{shlex.join(argv)}` did not answer within "
                                          f"{DETECT_TIMEOUT:g} s"}
    text = output.decode(errors="replace").strip().splitlines()
    return {"found": process.returncode == 0, "detail": text[0][:200] if text else ""}



COMMANDS = entries(
    command("agent_list", rpc.ProjectParams, list[ag.AgentDescription], agent_list),
    command("agent_new", rpc.AgentNewParams, ag.AgentCreated, agent_new),
    command("agent_rename", rpc.AgentRenameParams, ag.AgentRenamed, agent_rename),
    command("agent_rm", rpc.AgentForceParams, ag.AgentDeleted, agent_rm),
    command("agent_path", rpc.NamedAgentParams, ag.AgentPath, agent_path),
    command("agent_launch", rpc.AgentLaunchParams, ag.AgentDescription, agent_launch),
    command("agent_stop", rpc.NamedAgentParams, ag.AgentDescription, agent_stop),
    command("agent_restart", rpc.AgentRestartParams, ag.AgentDescription, agent_restart),
    command("agent_set_profile", rpc.AgentProfileParams, ag.AgentDescription, agent_set_profile),
    command("agent_resumable", rpc.AgentsParams, list[ag.ResumableAgent], agent_resumable),
    command("agent_resume", rpc.AgentsParams, list[ag.AgentDescription], agent_resume),
    command("agent_sync", rpc.AgentForceParams, ag.AgentSynced, agent_sync),
    command("agent_set_sync", rpc.AgentSetSyncParams, ag.AgentSyncSet, agent_set_sync),
    command("template_list", rpc.NoParams, ag.TemplateList, template_list),
    command("template_new", rpc.TemplateNewParams, ag.TemplateNamed, template_new),
    command("template_show", rpc.TemplateParams, ag.TemplateText, template_show),
    command("template_update", rpc.TemplateUpdateParams, ag.TemplateNamed, template_update),
    command("template_rm", rpc.TemplateParams, ag.TemplateDeleted, template_rm),
    command("template_install_pack", rpc.NoParams, list[ag.TemplateNamed], template_install_pack),
    command("profile_list", rpc.NoParams, ag.ProfileList, profile_list),
    command("profile_save", rpc.ProfileSaveParams, ag.ProfilesSaved, profile_save),
    command("profile_add", rpc.ProfileFileParams, ag.ProfileMap, profile_add),
    command("profile_edit", rpc.ProfileFileParams, ag.ProfileMap, profile_edit),
    command("profile_rm", rpc.ProfileIdParams, ag.ProfileRemoved, profile_rm),
    command("profile_detect", rpc.NoParams, list[ag.ProfileDetection], profile_detect),
)
"""The commands of this module (the composition root merges the tables)."""
