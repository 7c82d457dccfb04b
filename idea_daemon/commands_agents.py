"""Commands on agents, templates and profiles (issue 4's `idea agent|template|profile`)."""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adapters.store.profiles_codec import decode_profile, encode_profile, read_profile_file
from core.agents.argv import detect_argv
from core.agents.profile import AgentProfile
from core.errors import IdeaError, StoreError
from core.layout.model import Direction
from idea_daemon.client_connection import ClientConnection
from idea_daemon.commands import Handler, _svc, caller_window
from idea_daemon.commands_workspace import _project
from idea_daemon.errors import CommandError
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


def _name(params: dict[str, Any], key: str = "agent") -> str:
    value = params.get(key)
    if not isinstance(value, str) or not value.strip():
        raise CommandError(f"{key} is required")
    return value


def describe_status(status: AgentStatus, server: DaemonServer) -> dict[str, Any]:
    agent = status.agent
    info: dict[str, Any] = {
        "id": agent.id, "name": agent.name, "mdPath": agent.md_path,
        "profileId": agent.profile_id, "state": status.state,
        "synchronized": agent.synchronized,
        "template": getattr(agent.origin, "template_id", None),
    }
    if status.cell is not None:
        info["cell"] = status.cell
        try:
            ref = _svc(server).lookups.find_cell(status.cell)
            from idea_daemon.commands import describe_cell

            info["target"] = describe_cell(_svc(server), ref)["target"]
        except CommandError:
            pass
    if status.state == "running":
        info["background"] = status.background
    if status.exit_code is not None:
        info["exitCode"] = status.exit_code
    if status.error:
        info["error"] = status.error
    if status.conversation_id:
        info["conversationId"] = status.conversation_id
    return info


# ─── agents ────────────────────────────────────────────────────────────────────────────


def agent_list(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    runtime = _project(server, client, params)
    drifting = {d.agent_id: d for d in _admin(server).drift(runtime)}
    listed = []
    for status in _agents(server).status(runtime):
        info = describe_status(status, server)
        drift = drifting.get(status.agent.id)
        if drift is not None:
            info["updateAvailable"] = {"from": drift.from_version, "to": drift.to_version}
        if server.orchestration is not None:
            # What it is doing for the team: idle/working/blocked, its queue, its ticket.
            info.update(server.orchestration.panel_info(runtime, status.agent))
        listed.append(info)
    return listed


def agent_new(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    runtime = _project(server, client, params)
    agent = _admin(server).create(runtime, _name(params, "name"), params.get("profile"),
                                  params.get("template"), bool(params.get("sync")))
    return {"id": agent.id, "name": agent.name, "mdPath": agent.md_path,
            "profileId": agent.profile_id,
            "path": str(Path(runtime.root) / ".ideai" / agent.md_path)}


def agent_rename(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    runtime = _project(server, client, params)
    agent = _admin(server).rename(runtime, _name(params), _name(params, "name"))
    return {"id": agent.id, "name": agent.name}


def agent_rm(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    runtime = _project(server, client, params)
    agent = _admin(server).delete(runtime, _name(params), bool(params.get("force")))
    runtime.notices = _admin(server).drift_messages(runtime)
    return {"deleted": agent.name}


def agent_path(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    runtime = _project(server, client, params)
    return {"path": _admin(server).persona_path(runtime, _name(params))}


async def agent_launch(
    server: DaemonServer, client: ClientConnection, params: dict[str, Any]
) -> Any:
    """Launch into a new split (default), a chosen cell (`target`) or the background; with
    `worktree` (true, or a branch name), or `worktree: true` in agents.json, in the agent's
    own git worktree (made on first use, D28)."""
    worktree = params.get("worktree")
    if worktree is not None and not isinstance(worktree, bool | str):
        raise CommandError("worktree must be true or a branch name")
    if server.worktrees is not None:
        if params.get("background") or not params.get("target"):
            runtime = _project(server, client, params)
        else:
            window = caller_window(server, client)
            runtime = _svc(server).lookups.resolve(params.get("target"), window,
                                                   client.cell).runtime
        agent = _agents(server).agent(runtime, _name(params))
        wanted = worktree if worktree is not None else agent.extra.get("worktree") is True
        if wanted:
            branch = worktree if isinstance(worktree, str) and worktree else None
            await server.worktrees.ensure(runtime, agent, branch)
    elif worktree:
        raise CommandError("git is not available: an agent cannot get its own worktree")
    return _launch(server, client, params)


def _launch(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    agents = _agents(server)
    name = _name(params)
    if params.get("background"):
        runtime = _project(server, client, params)
        status = agents.launch(runtime, name, where="background", resume=bool(params.get("resume")))
        return _launched(status, server)
    where = "cell" if params.get("target") and not params.get("split") else "split"
    ref = service.lookups.resolve(params.get("target"), caller_window(server, client), client.cell)
    direction = Direction.COLUMN if params.get("direction") == "down" else Direction.ROW
    status = agents.launch(ref.runtime, name, where=where, cell=ref, direction=direction,
                           resume=bool(params.get("resume")), force=bool(params.get("force")),
                           move=bool(params.get("move")))
    if status.cell is not None and where == "split":
        service.cells.select(service.lookups.find_cell(status.cell))
    return _launched(status, server)


def _launched(status: AgentStatus, server: DaemonServer) -> dict[str, Any]:
    """The status of a launch, or an error when the program could not start (exit 1)."""
    if status.state == "failed":
        raise CommandError(f"{status.agent.name} did not start: {status.error}",
                           "launch_failed")
    return describe_status(status, server)


def agent_stop(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    runtime = _project(server, client, params)
    return describe_status(_agents(server).stop(runtime, _name(params)), server)


def agent_restart(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    runtime = _project(server, client, params)
    status = _agents(server).restart(runtime, _name(params), resume=bool(params.get("resume")))
    return describe_status(status, server)


def agent_set_profile(server: DaemonServer, client: ClientConnection,
                      params: dict[str, Any]) -> Any:
    runtime = _project(server, client, params)
    status = _agents(server).set_profile(runtime, _name(params), _name(params, "profile"),
                                         bool(params.get("force")))
    return describe_status(status, server)


def agent_resumable(server: DaemonServer, client: ClientConnection,
                    params: dict[str, Any]) -> Any:
    service = _svc(server)
    if params.get("all"):
        runtimes = list(service.projects.values())
    else:
        runtimes = [_project(server, client, params)]
    found = []
    for runtime in runtimes:
        for entry in _agents(server).resumable(runtime):
            found.append({**entry, "project": runtime.name, "root": runtime.root})
    return found


def agent_resume(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    names = params.get("agents")
    if names is not None and not isinstance(names, list):
        raise CommandError("agents must be a list of names")
    runtimes = (list(service.projects.values()) if params.get("all")
                else [_project(server, client, params)])
    done = []
    for runtime in runtimes:
        for status in _agents(server).resume(runtime, names):
            done.append(describe_status(status, server))
    return done


def agent_sync(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    runtime = _project(server, client, params)
    result = _admin(server).sync(runtime, _name(params), bool(params.get("force")))
    runtime.notices = _admin(server).drift_messages(runtime)
    return result


def agent_set_sync(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    runtime = _project(server, client, params)
    agent = _admin(server).set_synchronized(runtime, _name(params), bool(params.get("on")))
    runtime.notices = _admin(server).drift_messages(runtime)
    return {"name": agent.name, "synchronized": agent.synchronized}


# ─── templates ─────────────────────────────────────────────────────────────────────────


def template_list(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    return _admin(server).template_list()


def template_new(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    template = _admin(server).template_new(_name(params, "name"), str(params.get("content", "")),
                                           params.get("profile"))
    return {"id": template.id, "name": template.name, "version": template.version}


def template_show(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    template = _admin(server)._template(_name(params, "template"))
    return {"id": template.id, "name": template.name, "version": template.version,
            "content": template.content_md, "defaultProfileId": template.default_profile_id}


def template_update(server: DaemonServer, client: ClientConnection,
                    params: dict[str, Any]) -> Any:
    admin = _admin(server)
    template = admin.template_update(_name(params, "template"), params.get("content"),
                                     params.get("name"))
    _refresh_drift(server)
    return {"id": template.id, "name": template.name, "version": template.version}


def template_rm(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    template = _admin(server).template_delete(_name(params, "template"))
    return {"deleted": template.id}


def template_install_pack(server: DaemonServer, client: ClientConnection,
                          params: dict[str, Any]) -> Any:
    installed = _admin(server).install_team_pack()
    _refresh_drift(server)
    return [{"id": t.id, "name": t.name, "version": t.version} for t in installed]


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


def profile_list(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    agents = _agents(server)
    configured = {p.id for p in agents.profile_store.load()} if agents.profile_store.exists() \
        else set()
    return {
        "configured": agents.profile_store.exists(),
        "profiles": [{**encode_profile(p), "source": "configured" if p.id in configured
                      else "built-in"} for p in agents.profiles()],
    }


def profile_save(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    """Write profiles.json (the first-run wizard's result; an empty list records a skip)."""
    items = params.get("profiles")
    if not isinstance(items, list):
        raise CommandError("profiles must be a list of profiles in the profiles.json format")
    profiles = [_profile_from(item, index) for index, item in enumerate(items)]
    _agents(server).profile_store.save(profiles)
    return {"saved": len(profiles)}


def profile_add(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    store = _agents(server).profile_store
    if "file" in params:
        profile = store.add_profile_from_file(Path(str(params["file"])))
    else:
        profile = store.add(_profile_from(params.get("profile")))
    return encode_profile(profile)


def profile_edit(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    """Replace a profile (configuring a built-in one takes it into profiles.json)."""
    store = _agents(server).profile_store
    if "file" in params:
        profile = read_profile_file(Path(str(params["file"])))
    else:
        profile = _profile_from(params.get("profile"))
    existing = {p.id for p in store.load()} if store.exists() else set()
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


def profile_rm(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    """Remove a configured profile (a built-in one stays available from the catalogue)."""
    store = _agents(server).profile_store
    profile_id = _name(params, "profile")
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
    return {"removed": removed.id, "usedBy": in_use}


async def profile_detect(server: DaemonServer, client: ClientConnection,
                         params: dict[str, Any]) -> Any:
    """Which CLIs are installed: every profile's `detect` command, run with a timeout."""
    profiles = _agents(server).profiles()
    results = await asyncio.gather(*(detect(profile) for profile in profiles))
    return [{"id": p.id, "name": p.name, **result} for p, result in zip(profiles, results,
                                                                          strict=True)]


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


# The commands of this module, by wire name (the composition root merges the tables).
COMMANDS: dict[str, Handler] = {
    "agent_list": agent_list,
    "agent_new": agent_new,
    "agent_rename": agent_rename,
    "agent_rm": agent_rm,
    "agent_path": agent_path,
    "agent_launch": agent_launch,
    "agent_stop": agent_stop,
    "agent_restart": agent_restart,
    "agent_set_profile": agent_set_profile,
    "agent_resumable": agent_resumable,
    "agent_resume": agent_resume,
    "agent_sync": agent_sync,
    "agent_set_sync": agent_set_sync,
    "template_list": template_list,
    "template_new": template_new,
    "template_show": template_show,
    "template_update": template_update,
    "template_rm": template_rm,
    "template_install_pack": template_install_pack,
    "profile_list": profile_list,
    "profile_save": profile_save,
    "profile_add": profile_add,
    "profile_edit": profile_edit,
    "profile_rm": profile_rm,
    "profile_detect": profile_detect,
}
