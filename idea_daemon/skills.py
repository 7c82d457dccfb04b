"""Skills in the daemon: the two stores, assignment to agents, what a launch injects and the
two MCP tools (FEATURES.md SKL-1..SKL-6).

The pure rules live in `core.agents.skills`; the files in `adapters.store.skills_store`.
Assignments live in the project's `agents.json` (`skills: [{skillId, scope}]`, AGT-2). A
launch never fails because of skills: a store that cannot be read gives no skills (and the
problem is shown by `idea skill list` and the Skills panel).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from adapters.ipc import answers_knowledge as kn
from adapters.mcp.identity import Caller
from adapters.store.skills_store import SkillSnapshot, SkillStore
from core.agents.agent import Agent, AgentManifest, SkillScope, find_agent
from core.agents.errors import InvalidSkill
from core.agents.skills import (
    Skill,
    SkillSections,
    assign,
    assigned_skills,
    check_draft,
    find_skill,
    skill_sections,
    unassign,
)
from core.errors import IdeaError, StoreError
from idea_daemon.errors import CommandError, ConfirmationNeeded
from idea_daemon.runtime import ProjectRuntime

if TYPE_CHECKING:
    from idea_daemon.agents import AgentRuntime
    from idea_daemon.service import WorkspaceService

log = logging.getLogger(__name__)


def parse_scope(value: str | None) -> SkillScope | None:
    """`"global"`/`"project"` (any case) as a scope, None for none.

    Raises:
        InvalidSkill: Anything else.
    """
    if value is None or not value.strip():
        return None
    try:
        return SkillScope(value.strip().lower())
    except ValueError:
        raise InvalidSkill("scope", f"must be 'project' or 'global', not {value[:40]!r}") \
            from None


def revision(text: str) -> str:
    """A digest of a body, for edits that must not overwrite a change made meanwhile."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class SkillAdmin:
    """The skill operations of one daemon. Created by the composition root.

    Args:
        agents: The agent runtime (manifests).
        global_store: `<data>/skills/`.
    """

    def __init__(self, agents: AgentRuntime, global_store: SkillStore) -> None:
        self.agents = agents
        self.global_store = global_store

    @property
    def service(self) -> WorkspaceService:
        return self.agents.service

    def store(self, runtime: ProjectRuntime | None, scope: SkillScope) -> SkillStore:
        if scope is SkillScope.GLOBAL:
            return self.global_store
        if runtime is None:
            raise CommandError("project skills need a project: open one, or pass --global")
        return SkillStore.project_skills(Path(runtime.root))

    def snapshots(self, runtime: ProjectRuntime | None) -> list[SkillSnapshot]:
        """Both scopes, project first. A store that cannot be read raises."""
        scopes = [SkillScope.PROJECT, SkillScope.GLOBAL] if runtime else [SkillScope.GLOBAL]
        return [self.store(runtime, scope).load() for scope in scopes]

    def skills(self, runtime: ProjectRuntime | None) -> list[Skill]:
        return [skill for snap in self.snapshots(runtime) for skill in snap.skills]

    def find(self, runtime: ProjectRuntime | None, query: str,
             scope: SkillScope | None = None) -> Skill:
        pool = (self.store(runtime, scope).load().skills if scope is not None
                else self.skills(runtime))
        return find_skill(pool, query, scope)

    # ─── listing and editing ─────────────────────────────────────────────────────────

    def listing(self, runtime: ProjectRuntime | None) -> kn.SkillList:
        """Every skill of both scopes with the agents it is assigned to; a store that cannot
        be read is a problem line, and the other scope is still listed."""
        skills: list[kn.ListedSkill] = []
        problems: list[str] = []
        manifest = self._manifest_or_none(runtime, problems)
        scopes = [SkillScope.PROJECT, SkillScope.GLOBAL] if runtime else [SkillScope.GLOBAL]
        for scope in scopes:
            try:
                snapshot = self.store(runtime, scope).load()
            except (StoreError, IdeaError) as exc:
                problems.append(exc.message)
                continue
            problems.extend(problem.message for problem in snapshot.problems)
            for skill in snapshot.skills:
                skills.append(kn.ListedSkill(**fields_of(skill), assigned_to=[
                    agent.name for agent in (manifest.agents if manifest else ())
                    if skill.ref in agent.skills]))
        return kn.SkillList(skills=skills, problems=problems,
                            project=runtime.name if runtime else None)

    def _manifest_or_none(self, runtime: ProjectRuntime | None,
                          problems: list[str]) -> AgentManifest | None:
        if runtime is None:
            return None
        try:
            return self.agents.manifest(runtime)
        except CommandError as exc:
            problems.append(exc.message)
            return None

    def show(self, runtime: ProjectRuntime | None, query: str,
             scope: SkillScope | None) -> kn.SkillText:
        skill = self.find(runtime, query, scope)
        store = self.store(runtime, skill.scope)
        return kn.SkillText(**fields_of(skill), content=skill.content_md,
                            path=str(store.md_path(skill.id)),
                            revision=revision(skill.content_md))

    def create(self, runtime: ProjectRuntime | None, name: str, content: str,
               scope: SkillScope) -> Skill:
        return self.store(runtime, scope).create(name, content)

    def update(self, runtime: ProjectRuntime | None, query: str, scope: SkillScope | None, *,
               name: str | None, content: str | None, base: str | None = None,
               force: bool = False) -> Skill:
        skill = self.find(runtime, query, scope)
        if base is not None and revision(skill.content_md) != base and not force:
            raise ConfirmationNeeded(
                f"skill {skill.name} changed since you opened it (another editor, or an "
                "agent). Overwrite it with your version?")
        return self.store(runtime, skill.scope).update(skill.id, name=name, content=content)

    def delete(self, runtime: ProjectRuntime | None, query: str, scope: SkillScope | None,
               force: bool) -> Skill:
        """Remove a skill; in this project its assignments go too (other projects skip a
        global skill that is gone, PRF-7)."""
        skill = self.find(runtime, query, scope)
        holders: list[Agent] = []
        if runtime is not None:
            holders = [a for a in self.agents.manifest(runtime).agents if skill.ref in a.skills]
        if holders and not force:
            names = ", ".join(a.name for a in holders)
            raise ConfirmationNeeded(f"Delete the {skill.scope.value} skill {skill.name}? "
                                     f"It is assigned to {names}.")
        self.store(runtime, skill.scope).delete(skill.id)
        if runtime is not None and holders:
            manifest = self.agents.manifest(runtime)
            for agent in holders:
                manifest, _ = unassign(manifest, agent.id, skill.ref)
            self.agents.save_manifest(runtime, manifest)
        return skill

    # ─── assignment (SKL-3) ──────────────────────────────────────────────────────────

    def assign(self, runtime: ProjectRuntime, query: str, scope: SkillScope | None,
               agent_name: str, on: bool) -> kn.SkillAssignment:
        """Assign (on) or unassign a skill; doing it twice changes nothing (idempotent).
        Unassigning works for a skill that no longer exists, by its id."""
        manifest = self.agents.manifest(runtime)
        agent = find_agent(manifest, agent_name)
        try:
            skill = self.find(runtime, query, scope)
            ref, label = skill.ref, skill.name
        except IdeaError:
            # A skill deleted meanwhile can still be taken off the agent, by its id.
            dangling = [held for held in agent.skills if held.skill_id == query.strip()
                        and (scope is None or held.scope is scope)]
            if on or not dangling:
                raise
            ref, label = dangling[0], query.strip()
        change = assign if on else unassign
        manifest, changed = change(manifest, agent.id, ref)
        if changed:
            self.agents.save_manifest(runtime, manifest)
        return kn.SkillAssignment(skill=label, skill_id=ref.skill_id, scope=ref.scope.value,
                                  agent=agent.name, assigned=on, changed=changed,
                                  skills=[r.skill_id for r in manifest.get(agent.id).skills])

    # ─── launches (SKL-4) ────────────────────────────────────────────────────────────

    def sections(self, runtime: ProjectRuntime, agent: Agent, mcp: bool) -> SkillSections:
        """The skill parts of an agent's context; never fails a launch."""
        if not agent.skills:
            return SkillSections(None, None)
        pool: list[Skill] = []
        scopes = {ref.scope for ref in agent.skills}
        for scope in (SkillScope.PROJECT, SkillScope.GLOBAL):
            if scope not in scopes:
                continue
            try:
                pool.extend(self.store(runtime, scope).load().skills)
            except (IdeaError, OSError) as exc:
                log.warning("skills of %s left out of %s's launch: %s", scope.value,
                            agent.name, exc)
        return skill_sections(assigned_skills(agent.skills, pool), mcp=mcp)

    # ─── MCP tools (SKL-4, SKL-5) ────────────────────────────────────────────────────

    def _runtime_of(self, caller: Caller) -> ProjectRuntime:
        runtime = self.service.projects.get(caller.project_root)
        if runtime is None:
            raise CommandError("This agent's project is not open in idea any more.")
        return runtime

    async def read_skill(self, caller: Caller, name: str) -> str:
        """The body of a skill by name or id: the caller's assigned skills first, then the
        project's, then the global ones."""
        runtime = self._runtime_of(caller)
        # Reading both folders is file work: off the loop (a create writes on the loop, one
        # file replaced atomically, so a read sees the old index or the new one).
        skills = await asyncio.get_running_loop().run_in_executor(None, self.skills, runtime)
        try:
            me = self.agents.manifest(runtime).get(caller.agent_id)
            mine = assigned_skills(me.skills, skills)
        except IdeaError:
            mine = []
        try:
            skill = find_skill(mine, name)
        except IdeaError:
            skill = find_skill(skills, name)
        return f"# Skill: {skill.name} ({skill.scope.value})\n\n{skill.content_md}"

    async def create_skill(self, caller: Caller, name: str, content: str,
                           scope: str | None) -> str:
        runtime = self._runtime_of(caller)
        check_draft(name, content)
        where = parse_scope(scope) or SkillScope.PROJECT
        skill = self.create(runtime, name, content, where)
        log.info("skill %s (%s) created by agent %s", skill.name, where.value, caller.name)
        return (f"Created the {where.value} skill {skill.name!r} (id {skill.id}). The user "
                "can assign it to agents (Skills panel, `idea skill assign`); anyone can read "
                f"it with idea_skill_read(name={skill.name!r}).")


class SkillFields(TypedDict):
    """What every skill answer starts with (`adapters.ipc.answers_knowledge.Skill`)."""

    id: str
    name: str
    scope: str
    description: str
    content_hash: str
    lines: int


def fields_of(skill: Skill) -> SkillFields:
    return SkillFields(
        id=skill.id,
        name=skill.name,
        scope=skill.scope.value,
        description=skill.description,
        content_hash=skill.content_hash,
        lines=skill.content_md.count("\n") + (0 if skill.content_md.endswith("\n") else 1),
    )


def describe(skill: Skill) -> kn.Skill:
    return kn.Skill(**fields_of(skill))
