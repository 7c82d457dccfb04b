"""Answers of the commands on agents, their personas, templates and profiles, as msgspec
Structs (see `adapters.ipc.answers`). The wire shape is unchanged: camelCase names, keys
that do not apply left out (a stopped agent has no `cell`).
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from adapters.ipc.answers_knowledge import FileText
from adapters.ipc.answers_limits import LimitInfo
from adapters.ipc.params import Answer

# ─── agents ────────────────────────────────────────────────────────────────────────────


class SkillRefInfo(Answer, kw_only=True):
    skill_id: str = msgspec.field(name="skillId")
    scope: str


class UpdateAvailable(Answer, kw_only=True):
    """The agent's template moved on (TPL-4): from its version to the template's."""

    from_version: int = msgspec.field(name="from")
    to_version: int = msgspec.field(name="to")


class AgentDescription(Answer, kw_only=True):
    """An agent and its state, as `agent_list`, `agent_launch|stop|restart|set_profile`
    and `agent_resume` describe it. An agent whose resume was refused has only `id`,
    `name`, `state` ("failed") and `error`."""

    id: str
    name: str
    state: str
    """stopped, running, exited, failed or resumable."""
    md_path: str | UnsetType = msgspec.field(default=UNSET, name="mdPath")
    profile_id: str | UnsetType = msgspec.field(default=UNSET, name="profileId")
    synchronized: bool | UnsetType = UNSET
    template: str | UnsetType | None = UNSET
    skills: list[SkillRefInfo] | UnsetType = UNSET
    cell: str | UnsetType = UNSET
    target: str | UnsetType = UNSET
    background: bool | UnsetType = UNSET
    exit_code: int | UnsetType | None = msgspec.field(default=UNSET, name="exitCode")
    error: str | UnsetType = UNSET
    conversation_id: str | UnsetType = msgspec.field(default=UNSET, name="conversationId")
    update_available: UpdateAvailable | UnsetType = msgspec.field(default=UNSET,
                                                                  name="updateAvailable")
    # What it does for the team (delegation, issue 8), `agent_list` only.
    queue: int | UnsetType = UNSET
    activity: str | UnsetType = UNSET
    ticket: str | UnsetType = UNSET
    asked_by: str | UnsetType | None = msgspec.field(default=UNSET, name="askedBy")
    since: int | float | UnsetType = UNSET
    limit: LimitInfo | UnsetType = UNSET
    """At a usage limit (issue 10)."""


class AgentCreated(Answer, kw_only=True):
    id: str
    name: str
    md_path: str = msgspec.field(name="mdPath")
    profile_id: str = msgspec.field(name="profileId")
    path: str
    """The persona file."""


class AgentRenamed(Answer, kw_only=True):
    id: str
    name: str


class AgentDeleted(Answer, kw_only=True):
    deleted: str
    """The agent's name."""


class AgentPath(Answer, kw_only=True):
    path: str


class ResumableAgent(Answer, kw_only=True):
    """An agent that was running when the daemon (or its project) last stopped."""

    agent: str
    """Its name."""
    agent_id: str = msgspec.field(name="agentId")
    cell: str | None
    background: bool
    conversation_id: str | None = msgspec.field(name="conversationId")
    resume_supported: bool = msgspec.field(name="resumeSupported")
    project: str
    root: str


class AgentSynced(Answer, kw_only=True):
    """`agent_sync`: the template version the persona now follows."""

    agent: str
    template: str
    version: int
    status: str
    backup: str | None
    """Where the edited persona was kept, when it was."""


class AgentSyncSet(Answer, kw_only=True):
    name: str
    synchronized: bool


# ─── personas ──────────────────────────────────────────────────────────────────────────


PersonaText = FileText
"""`agent_persona_read`: the persona's Markdown and its revision."""


class PersonaWritten(Answer, kw_only=True):
    path: str
    changed: bool
    revision: str


# ─── templates ─────────────────────────────────────────────────────────────────────────


class TemplateNamed(Answer, kw_only=True):
    """`template_new|update` and each template of `template_install_pack`."""

    id: str
    name: str
    version: int


class TemplateSummary(TemplateNamed, kw_only=True):
    content_hash: str = msgspec.field(name="contentHash")
    default_profile_id: str | None = msgspec.field(name="defaultProfileId")
    lines: int


class TemplateList(Answer, kw_only=True):
    templates: list[TemplateSummary]
    edited_outside: list[str] = msgspec.field(name="editedOutside")
    """Templates whose file was edited outside idea (their version not bumped yet)."""
    problems: list[str]


class TemplateText(TemplateNamed, kw_only=True):
    content: str
    default_profile_id: str | None = msgspec.field(name="defaultProfileId")


class TemplateDeleted(Answer, kw_only=True):
    deleted: str


# ─── profiles ──────────────────────────────────────────────────────────────────────────

ProfileMap = dict[str, Any]
"""A profile in the profiles.json format (the profiles codec is its schema)."""


class ProfileList(Answer, kw_only=True):
    configured: bool
    """Whether profiles.json exists (else the built-in profiles are offered)."""
    profiles: list[ProfileMap]
    """Each in the profiles.json format, with its `source` (configured or built-in)."""


class ProfilesSaved(Answer, kw_only=True):
    saved: int


class ProfileRemoved(Answer, kw_only=True):
    removed: str
    used_by: list[str] = msgspec.field(name="usedBy")
    """"project:agent" of the agents that still name it."""


class ProfileDetection(Answer, kw_only=True):
    id: str
    name: str
    found: bool | None
    """None: the profile has no detect command."""
    detail: str
