"""Agents of a project and their manifest, `.ideai/agents.json` (FEATURES.md AGT, §3.2).

An agent is a project-scoped persona: a Markdown file under `.ideai/` run through an AI
profile. This module owns the value objects, their invariants and the pure operations that
return a new `AgentManifest`. Files are read and written by `adapters.store.agents_codec`.

Decisions where the seed is silent:

- Renaming an agent keeps its Markdown file. The file is the agent's identity on disk: it
  is referenced from commits, from the user's editor, from sync backups, and the agent id
  (not the path) links layouts and conversations; a rename that moved the file would break
  those for a cosmetic change.
- Names are unique in a project, without regard to case, because delegations and the
  command line name agents (`idea agent launch QA`). The check is made by `create_agent`,
  `add_agent` and `rename_agent`, not on load: a hand-edited file with a duplicate name still
  opens, and `find_agent` then reports the ambiguity.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from core.agents.errors import (
    AgentNotFound,
    AmbiguousAgent,
    DuplicateAgent,
    EmptyName,
    SynchronizedWithoutTemplate,
    UnsafePath,
)
from core.agents.naming import relative_path_problem, unique_md_path
from core.ids import id_problem
from core.layout.model import EMPTY_EXTRA

MANIFEST_VERSION = 1


@dataclass(frozen=True, slots=True)
class Scratch:
    """The agent was written from scratch (or its origin is unknown: the seed's own file)."""

    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


@dataclass(frozen=True, slots=True)
class FromTemplate:
    """The agent was created from a global template (TPL-3).

    Attributes:
        template_id: The template's id (it may have been deleted since).
        synced_version: The template version the agent's Markdown last received.
        synced_hash: The content hash of that template content (D24), or None when unknown
            (agents written before idea recorded it).
    """

    template_id: str
    synced_version: int
    synced_hash: str | None = None
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


Origin = Scratch | FromTemplate

SCRATCH = Scratch()


class SkillScope(str, Enum):  # noqa: UP042
    """Where a skill lives (FEATURES.md SKL)."""

    GLOBAL = "global"
    PROJECT = "project"


@dataclass(frozen=True, slots=True)
class SkillRef:
    """A skill assigned to an agent."""

    skill_id: str
    scope: SkillScope
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


@dataclass(frozen=True, slots=True)
class Agent:
    """An agent of a project (AGT-1).

    Attributes:
        id: Stable id (a UUID in the seed); layouts and conversations refer to it.
        name: Display name, unique in the project without regard to case.
        md_path: The persona, relative to `.ideai/` (e.g. `agents/backend-dev.md`).
        profile_id: The AI profile it runs with (may be an alias, see `find_profile`).
        origin: Scratch, or the template it came from.
        synchronized: Keep the Markdown in sync with the template (only from a template).
        skills: Assigned skills, in manifest order.
        extra: Keys of `agents.json` this version does not know, written back unchanged.

    Raises:
        EmptyName: The id or the name is blank.
        UnsafePath: `md_path` could leave `.ideai/`.
        SynchronizedWithoutTemplate: `synchronized` on an agent not made from a template.
    """

    id: str
    name: str
    md_path: str
    profile_id: str
    origin: Origin = SCRATCH
    synchronized: bool = False
    skills: tuple[SkillRef, ...] = ()
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)

    def __post_init__(self) -> None:
        if not self.id.strip():
            raise EmptyName("agent id")
        # The id names the agent's run dir (`.ideai/run/<id>/`): one safe path component.
        id_trouble = id_problem(self.id)
        if id_trouble is not None:
            raise UnsafePath(self.id, "agent id", id_trouble)
        if not self.name.strip():
            raise EmptyName("agent")
        problem = relative_path_problem(self.md_path)
        if problem is not None:
            raise UnsafePath(self.md_path, "persona path", problem)
        if self.synchronized and not isinstance(self.origin, FromTemplate):
            raise SynchronizedWithoutTemplate(self.name)


@dataclass(frozen=True, slots=True)
class AgentManifest:
    """The content of `.ideai/agents.json`: every agent of a project, in order.

    Raises:
        DuplicateAgent: Two agents share an id or a Markdown file (AGT-2).
    """

    agents: tuple[Agent, ...] = ()
    version: int = MANIFEST_VERSION
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)

    def __post_init__(self) -> None:
        ids: set[str] = set()
        paths: set[str] = set()
        for agent in self.agents:
            if agent.id in ids:
                raise DuplicateAgent("id", agent.id)
            path = posixpath.normpath(agent.md_path)
            if path in paths:
                raise DuplicateAgent("mdPath", agent.md_path)
            ids.add(agent.id)
            paths.add(path)

    def get(self, agent_id: str) -> Agent:
        """The agent with that exact id.

        Raises:
            AgentNotFound: No agent has that id.
        """
        for agent in self.agents:
            if agent.id == agent_id:
                return agent
        raise AgentNotFound(agent_id)

    @property
    def md_paths(self) -> tuple[str, ...]:
        """The persona paths in use."""
        return tuple(agent.md_path for agent in self.agents)


def find_agent(manifest: AgentManifest, query: str) -> Agent:
    """The agent a user means: an exact id, else a name (any case), else an id prefix.

    Raises:
        AgentNotFound: Nothing matches.
        AmbiguousAgent: Two agents share the name, or the prefix matches several ids.
    """
    for agent in manifest.agents:
        if agent.id == query:
            return agent
    key = query.strip().casefold()
    if not key:
        raise AgentNotFound(query)
    for candidates in (
        [agent for agent in manifest.agents if agent.name.strip().casefold() == key],
        [agent for agent in manifest.agents if agent.id.casefold().startswith(key)],
    ):
        if len(candidates) == 1:
            return candidates[0]
        if candidates:
            raise AmbiguousAgent(query, [agent.name for agent in candidates])
    raise AgentNotFound(query)


def _check_name_free(manifest: AgentManifest, name: str, except_id: str | None = None) -> None:
    key = name.strip().casefold()
    if not key:
        raise EmptyName("agent")
    for agent in manifest.agents:
        if agent.id != except_id and agent.name.strip().casefold() == key:
            raise DuplicateAgent("name", name)


def add_agent(manifest: AgentManifest, agent: Agent) -> AgentManifest:
    """The manifest with `agent` appended.

    Raises:
        DuplicateAgent: Its id, name (any case) or Markdown file is taken.
    """
    _check_name_free(manifest, agent.name)
    return replace(manifest, agents=(*manifest.agents, agent))


def create_agent(
    manifest: AgentManifest,
    agent_id: str,
    name: str,
    profile_id: str,
    *,
    origin: Origin = SCRATCH,
    synchronized: bool = False,
    also_taken: Iterable[str] = (),
) -> tuple[AgentManifest, Agent]:
    """A new agent with a fresh persona path (`agents/<slug>.md`, unique), added (AGT-3).

    Args:
        manifest: The project's manifest.
        agent_id: Its new id (ids are injected).
        name: Its name as the user typed it (surrounding blanks are dropped).
        profile_id: The AI profile.
        origin: Scratch, or the template it comes from (TPL-3).
        synchronized: Keep in sync with the template.
        also_taken: Persona paths in use outside the manifest (files left on disk).

    Returns:
        The new manifest and the agent.

    Raises:
        EmptyName: The name is blank.
        DuplicateAgent: The id or the name is taken.
        SynchronizedWithoutTemplate: `synchronized` for a scratch agent.
    """
    name = name.strip()
    _check_name_free(manifest, name)
    md_path = unique_md_path(name, [*manifest.md_paths, *also_taken])
    agent = Agent(agent_id, name, md_path, profile_id, origin, synchronized)
    return add_agent(manifest, agent), agent


def replace_agent(manifest: AgentManifest, agent: Agent) -> AgentManifest:
    """The manifest with the agent of the same id replaced by `agent`.

    Raises:
        AgentNotFound: No agent has that id.
        DuplicateAgent: The new value takes another agent's name or Markdown file.
    """
    manifest.get(agent.id)
    _check_name_free(manifest, agent.name, except_id=agent.id)
    agents = tuple(agent if a.id == agent.id else a for a in manifest.agents)
    return replace(manifest, agents=agents)


def rename_agent(manifest: AgentManifest, agent_id: str, name: str) -> AgentManifest:
    """Give an agent a new name; its Markdown file stays where it is (module docstring).

    Raises:
        AgentNotFound: No agent has that id.
        EmptyName: The name is blank.
        DuplicateAgent: Another agent has that name.
    """
    return replace_agent(manifest, replace(manifest.get(agent_id), name=name.strip()))


def change_profile(manifest: AgentManifest, agent_id: str, profile_id: str) -> AgentManifest:
    """Switch an agent to another AI profile (SWP-1; the caller drops its conversation).

    Raises:
        AgentNotFound: No agent has that id.
    """
    return replace_agent(manifest, replace(manifest.get(agent_id), profile_id=profile_id))


def set_synchronized(manifest: AgentManifest, agent_id: str, on: bool) -> AgentManifest:
    """Turn "keep in sync with the template" on or off.

    Raises:
        AgentNotFound: No agent has that id.
        SynchronizedWithoutTemplate: Turning it on for an agent not made from a template.
    """
    return replace_agent(manifest, replace(manifest.get(agent_id), synchronized=on))


def remove_agent(manifest: AgentManifest, agent_id: str) -> AgentManifest:
    """The manifest without the agent (its Markdown file is the caller's business).

    Raises:
        AgentNotFound: No agent has that id.
    """
    manifest.get(agent_id)
    return replace(manifest, agents=tuple(a for a in manifest.agents if a.id != agent_id))


def starter_persona(name: str) -> str:
    """The Markdown a new scratch agent starts with: a heading and prompts to fill in."""
    return (
        f"# {name.strip()}\n\n"
        "## Role\n\nWhat this agent is responsible for, and what it must not do.\n\n"
        "## How to work\n\nConventions, commands to run, who to ask for what.\n\n"
        "## Done means\n\nWhat must be true before this agent reports a task finished.\n"
    )
