"""Commands on skills (`idea skill list|show|new|edit|rm|assign|unassign`, FEATURES.md SKL-6).

Wire names follow the seed's commands (§3.17: `list_skills`, `create_skill`, …) in idea's
`noun_verb` form: `skill_list`, `skill_show`, `skill_new`, `skill_update`, `skill_rm`,
`skill_assign`, `skill_unassign`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.ipc import answers_knowledge as kn
from adapters.ipc import commands as rpc
from core.agents.agent import SkillScope
from idea_daemon.client_connection import ClientConnection
from idea_daemon.command_table import command, entries
from idea_daemon.commands_agents import _name
from idea_daemon.commands_workspace import _project
from idea_daemon.errors import CommandError
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.server import DaemonServer
from idea_daemon.skills import describe, fields_of, parse_scope, revision

if TYPE_CHECKING:
    from idea_daemon.skills import SkillAdmin


def _skills(server: DaemonServer) -> SkillAdmin:
    skills: SkillAdmin | None = getattr(server, "skills", None)
    if skills is None:
        raise CommandError("skills are not available in this daemon")
    return skills


def _runtime(server: DaemonServer, client: ClientConnection, p: rpc.SkillScopeParams,
             *, required: bool = False) -> ProjectRuntime | None:
    """The project of the command; None when only global skills are concerned and no
    project is open (or named) for this caller."""
    if required or p.project is not None or parse_scope(p.scope) is SkillScope.PROJECT:
        return _project(server, client, p.project)
    try:
        return _project(server, client, None)
    except CommandError:
        return None


def skill_list(server: DaemonServer, client: ClientConnection,
               p: rpc.SkillScopeParams) -> kn.SkillList:
    listing = _skills(server).listing(_runtime(server, client, p))
    scope = parse_scope(p.scope)
    if scope is not None:
        listing.skills = [s for s in listing.skills if s.scope == scope.value]
    return listing


def skill_show(server: DaemonServer, client: ClientConnection,
               p: rpc.SkillParams) -> kn.SkillText:
    return _skills(server).show(_runtime(server, client, p), _name(p.skill, "skill"),
                                parse_scope(p.scope))


def skill_new(server: DaemonServer, client: ClientConnection,
              p: rpc.SkillNewParams) -> kn.Skill:
    scope = parse_scope(p.scope) or SkillScope.PROJECT
    skill = _skills(server).create(_runtime(server, client, p), p.name or "",
                                   p.content or "", scope)
    return describe(skill)


def skill_update(server: DaemonServer, client: ClientConnection,
                 p: rpc.SkillUpdateParams) -> kn.SkillUpdated:
    if p.name is None and p.content is None:
        raise CommandError("nothing to change: give a name or content")
    skill = _skills(server).update(
        _runtime(server, client, p), _name(p.skill, "skill"), parse_scope(p.scope),
        name=p.name, content=p.content, base=p.revision, force=p.force)
    return kn.SkillUpdated(**fields_of(skill), revision=revision(skill.content_md))


def skill_rm(server: DaemonServer, client: ClientConnection,
             p: rpc.SkillRmParams) -> kn.SkillDeleted:
    skill = _skills(server).delete(_runtime(server, client, p), _name(p.skill, "skill"),
                                   parse_scope(p.scope), p.force)
    return kn.SkillDeleted(deleted=skill.id, name=skill.name, scope=skill.scope.value)


def _assign(server: DaemonServer, client: ClientConnection, p: rpc.SkillAssignParams,
            on: bool) -> kn.SkillAssignment:
    runtime = _runtime(server, client, p, required=True)
    assert runtime is not None
    return _skills(server).assign(runtime, _name(p.skill, "skill"), parse_scope(p.scope),
                                  _name(p.agent, "agent"), on)


def skill_assign(server: DaemonServer, client: ClientConnection,
                 p: rpc.SkillAssignParams) -> kn.SkillAssignment:
    return _assign(server, client, p, True)


def skill_unassign(server: DaemonServer, client: ClientConnection,
                   p: rpc.SkillAssignParams) -> kn.SkillAssignment:
    return _assign(server, client, p, False)


COMMANDS = entries(
    command("skill_list", rpc.SkillScopeParams, kn.SkillList, skill_list),
    command("skill_show", rpc.SkillParams, kn.SkillText, skill_show),
    command("skill_new", rpc.SkillNewParams, kn.Skill, skill_new),
    command("skill_update", rpc.SkillUpdateParams, kn.SkillUpdated, skill_update),
    command("skill_rm", rpc.SkillRmParams, kn.SkillDeleted, skill_rm),
    command("skill_assign", rpc.SkillAssignParams, kn.SkillAssignment, skill_assign),
    command("skill_unassign", rpc.SkillAssignParams, kn.SkillAssignment, skill_unassign),
)
"""The commands of this module (the composition root merges the tables)."""
