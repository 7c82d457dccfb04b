"""Global agent templates: versions, content hashes, drift and sync plans (FEATURES.md TPL).

A template is a Markdown persona kept in idea's data dir. Agents created from it record the
version and the content hash they received (TPL-3, D24). This module is pure: the store
(`adapters.store.templates_store`) reads and writes the files, the daemon runs the plans.

Decisions where the seed is silent:

- Only a change of the content bumps the version. The version tells synced agents that
  their Markdown is out of date; a new name or default profile changes nothing an existing
  agent received (an agent's profile is its own choice), so it does not bump.
- Drift (TPL-4) is `synchronized and fromTemplate and template.version > synced_version`,
  and also a known synced hash that differs from the template's hash: the store reports a
  template edited outside idea as version + 1 until its index is next written, so two such
  edits in a row show the same version; the hash still tells them apart.
- A sync never loses text (D24). The agent's Markdown is compared with the hash recorded at
  the last sync: different means the user edited it, and the plan backs the file up first
  (`<mdPath>.bak-<syncedVersion>-<UTC stamp>`). When no hash was recorded and the file
  differs from the new content, it is backed up too: nothing tells whether it was edited.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import Enum
from typing import Any, Final

from core.agents.agent import Agent, AgentManifest, FromTemplate, replace_agent
from core.agents.errors import EmptyName, NotFromTemplate, NotSynchronized, UnsafePath
from core.ids import id_problem
from core.layout.model import EMPTY_EXTRA

HASH_PREFIX = "sha256:"

def template_id_problem(template_id: str) -> str | None:
    """Why a template id cannot name `templates/md/<id>.md`, or None when it can (the one
    rule of `core.ids`)."""
    return id_problem(template_id)


def content_hash(text: str) -> str:
    """A stable digest of Markdown content: `sha256:<hex>` of its UTF-8 bytes.

    Line endings are normalised first (CRLF and CR become LF), so a file that only went
    through an editor or a checkout with other line endings keeps its hash.

    >>> content_hash("a\\r\\nb") == content_hash("a\\nb")
    True
    """
    normalised = text.replace("\r\n", "\n").replace("\r", "\n")
    return HASH_PREFIX + hashlib.sha256(normalised.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class TemplateDraft:
    """What a new template is made of (the team pack yields these)."""

    name: str
    content_md: str
    default_profile_id: str | None = None


@dataclass(frozen=True, slots=True)
class AgentTemplate:
    """A global template (TPL-1).

    Attributes:
        id: Stable id; also the file stem of `templates/md/<id>.md`.
        name: Display name.
        content_md: The persona Markdown agents receive.
        version: Monotonic, from 1; +1 on each content change.
        default_profile_id: The profile proposed for agents made from it, or None.
        content_hash: `content_hash(content_md)`.
        extra: Keys of the index this version does not know, written back unchanged.

    Raises:
        UnsafePath: The id cannot be a file name.
        EmptyName: The name is blank.
    """

    id: str
    name: str
    content_md: str
    version: int
    default_profile_id: str | None
    content_hash: str
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)

    def __post_init__(self) -> None:
        problem = template_id_problem(self.id)
        if problem is not None:
            raise UnsafePath(self.id, "template id", problem)
        if not self.name.strip():
            raise EmptyName("template")
        if self.version < 1:
            raise ValueError(f"template versions start at 1, not {self.version}")


def create_template(template_id: str, draft: TemplateDraft) -> AgentTemplate:
    """A new template, version 1 (TPL-1)."""
    return AgentTemplate(
        template_id,
        draft.name.strip(),
        draft.content_md,
        1,
        draft.default_profile_id,
        content_hash(draft.content_md),
    )


class Keep:
    """The type of `KEEP`: "leave this field as it is", where None is a real value."""

    def __repr__(self) -> str:
        return "KEEP"


KEEP: Final = Keep()


def update_template(
    template: AgentTemplate,
    *,
    name: str | None = None,
    content_md: str | None = None,
    default_profile_id: str | Keep | None = KEEP,
) -> AgentTemplate:
    """The template with new values; the version goes up only if the content changed (TPL-2).

    Args:
        template: The current template.
        name: A new name, or None to keep it.
        content_md: New content, or None to keep it. Content with the same hash (only line
            endings differ) is not a change.
        default_profile_id: A new default profile (None clears it), or `KEEP`.
    """
    new_hash = template.content_hash if content_md is None else content_hash(content_md)
    changed = content_md is not None and new_hash != template.content_hash
    return replace(
        template,
        name=template.name if name is None else name.strip(),
        content_md=content_md if content_md is not None and changed else template.content_md,
        version=template.version + 1 if changed else template.version,
        default_profile_id=(
            template.default_profile_id
            if isinstance(default_profile_id, Keep)
            else default_profile_id
        ),
        content_hash=new_hash,
    )


# ─── Drift ───────────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class Drift:
    """An agent whose template moved on since its last sync ("update available", TPL-4).

    Attributes:
        agent_id: The agent.
        template_id: Its template.
        from_version: The version its Markdown holds.
        to_version: The template's current version.
        synchronized: False only when asked to report agents with sync off (info only).
    """

    agent_id: str
    template_id: str
    from_version: int
    to_version: int
    synchronized: bool = True


def drift(
    agent: Agent, templates: Mapping[str, AgentTemplate], *, include_unsynced: bool = False
) -> Drift | None:
    """Whether an agent's template has content the agent did not receive (module docstring).

    Scratch agents, agents of a deleted template and agents up to date have none; agents
    with sync off have none unless `include_unsynced` (the "a new version exists" notice).
    """
    origin = agent.origin
    if not isinstance(origin, FromTemplate) or not (agent.synchronized or include_unsynced):
        return None
    template = templates.get(origin.template_id)
    if template is None:
        return None
    newer = template.version > origin.synced_version
    rewritten = origin.synced_hash is not None and origin.synced_hash != template.content_hash
    if not (newer or rewritten):
        return None
    return Drift(agent.id, template.id, origin.synced_version, template.version, agent.synchronized)


def detect_drift(
    manifest: AgentManifest,
    templates: Mapping[str, AgentTemplate],
    *,
    include_unsynced: bool = False,
) -> list[Drift]:
    """Every drifting agent of a project, in manifest order (at project open, after updates)."""
    found = (
        drift(agent, templates, include_unsynced=include_unsynced) for agent in manifest.agents
    )
    return [item for item in found if item is not None]


# ─── Sync ────────────────────────────────────────────────────────────────────────────────


class SyncStatus(Enum):
    """What a sync finds in the agent's Markdown before replacing it."""

    CLEAN = "clean"
    """The file holds what the last sync wrote: replace it."""
    CONFLICT = "conflict"
    """The file was edited since the last sync: back it up, then replace it (D24)."""
    UNKNOWN_HISTORY = "unknownHistory"
    """No hash was recorded and the file differs: back it up, then replace it."""
    MISSING = "missing"
    """The file does not exist: write it."""
    UP_TO_DATE = "upToDate"
    """The file already holds the template's content: only the manifest is updated."""


@dataclass(frozen=True, slots=True)
class SyncPlan:
    """What syncing one agent with its template does, in order (TPL-5, D24).

    1. If `backup_path`, copy the current Markdown there (never over an existing file).
    2. If `write`, replace the Markdown at `md_path` with `content`.
    3. Record `to_version` and `to_hash` in the manifest (`apply_sync`).
    """

    agent_id: str
    template_id: str
    md_path: str
    status: SyncStatus
    content: str
    to_version: int
    to_hash: str
    backup_path: str | None

    @property
    def write(self) -> bool:
        """Whether the Markdown file is (re)written."""
        return self.status is not SyncStatus.UP_TO_DATE

    @property
    def conflict(self) -> bool:
        """Whether the user edited the file since the last sync (shown before syncing)."""
        return self.status is SyncStatus.CONFLICT


def backup_path(md_path: str, synced_version: int, now_ms: int) -> str:
    """Where a sync keeps the local version: `<mdPath>.bak-<version>-<UTC stamp>`.

    >>> backup_path("agents/qa.md", 3, 0)
    'agents/qa.md.bak-3-19700101T000000Z'
    """
    stamp = datetime.fromtimestamp(now_ms / 1000, tz=UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{md_path}.bak-{synced_version}-{stamp}"


def plan_sync(
    agent: Agent,
    template: AgentTemplate,
    current_md: str | None,
    *,
    now_ms: int,
    one_shot: bool = False,
) -> SyncPlan:
    """How to bring an agent's Markdown to its template's current content.

    Args:
        agent: An agent created from `template`.
        template: Its template, as currently stored.
        current_md: The agent's Markdown on disk, or None when the file is missing.
        now_ms: The time, epoch milliseconds, for the backup name (clocks are injected).
        one_shot: An explicit sync the user asked for, allowed with sync off (TPL-5).

    Raises:
        NotFromTemplate: The agent was not made from this template (or from any).
        NotSynchronized: Sync is off and this is not a one-shot sync.
    """
    origin = agent.origin
    if not isinstance(origin, FromTemplate) or origin.template_id != template.id:
        raise NotFromTemplate(agent.name, template.id)
    if not agent.synchronized and not one_shot:
        raise NotSynchronized(agent.name)
    backup: str | None = None
    if current_md is None:
        status = SyncStatus.MISSING
    else:
        current = content_hash(current_md)
        if current == template.content_hash:
            status = SyncStatus.UP_TO_DATE
        elif origin.synced_hash is None:
            status = SyncStatus.UNKNOWN_HISTORY
        elif current != origin.synced_hash:
            status = SyncStatus.CONFLICT
        else:
            status = SyncStatus.CLEAN
        if status in (SyncStatus.CONFLICT, SyncStatus.UNKNOWN_HISTORY):
            backup = backup_path(agent.md_path, origin.synced_version, now_ms)
    return SyncPlan(
        agent.id,
        template.id,
        agent.md_path,
        status,
        template.content_md,
        template.version,
        template.content_hash,
        backup,
    )


def apply_sync(manifest: AgentManifest, plan: SyncPlan) -> AgentManifest:
    """The manifest recording that the agent now holds the template version of `plan`.

    Raises:
        AgentNotFound: The agent is gone.
        NotFromTemplate: The agent's origin changed since the plan was made.
    """
    agent = manifest.get(plan.agent_id)
    origin = agent.origin
    if not isinstance(origin, FromTemplate) or origin.template_id != plan.template_id:
        raise NotFromTemplate(agent.name, plan.template_id)
    synced = replace(origin, synced_version=plan.to_version, synced_hash=plan.to_hash)
    return replace_agent(manifest, replace(agent, origin=synced))


def template_origin(template: AgentTemplate) -> FromTemplate:
    """The origin of an agent created now from `template` (TPL-3, D24)."""
    return FromTemplate(template.id, template.version, template.content_hash)
