"""Answers of the commands on project memory, the project context, skills and
conversations, as msgspec Structs (see `adapters.ipc.answers`). The wire shape is the one
the Memory, Context, Skills and conversation panels and `idea memory|context|skill|
conversation … --json` always read: camelCase names, keys that do not apply left out.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from adapters.ipc.answers_git import Hunk
from adapters.ipc.params import Answer

# ─── memory ────────────────────────────────────────────────────────────────────────────


class MemoryNote(Answer, kw_only=True):
    """One row of the Memory panel / `idea memory list`."""

    slug: str
    description: str
    type: str
    indexed: bool
    """Listed in MEMORY.md."""
    present: bool
    """The note file exists."""
    problem: str | None
    """Why the file cannot be read (shown; the file is left alone)."""
    size: int


class MemoryList(Answer, kw_only=True):
    folder: str
    problem: str | None
    """The index cannot be used (the files are still listed)."""
    notes: list[MemoryNote]


class MemoryText(Answer, kw_only=True):
    """`memory_read`: the note's Markdown and its revision ("" when there is none)."""

    slug: str
    path: str
    exists: bool
    content: str
    revision: str


class MemoryChanged(Answer, kw_only=True):
    """`memory_write|delete`: what was done, in words."""

    slug: str
    message: str


# ─── project context ───────────────────────────────────────────────────────────────────


class FileText(Answer, kw_only=True):
    """A file read for an editor (`context_read`: CONTEXT.md, `agent_persona_read`: a
    persona): its Markdown and the revision an edit is saved over ("" when missing)."""

    path: str
    exists: bool
    content: str
    revision: str


ContextText = FileText


class ContextWritten(Answer, kw_only=True):
    message: str
    revision: str


class ProposalDiff(Answer, kw_only=True):
    """A proposal's change to CONTEXT.md, in the diff viewer's shape (a file of
    `git_diff`, without `binary`; `truncated` only when it was cut)."""

    path: str
    change: str
    added: int
    removed: int
    hunks: list[Hunk]
    truncated: bool | UnsetType = UNSET


class Proposal(Answer, kw_only=True):
    id: str
    author: str
    author_id: str = msgspec.field(name="authorId")
    at_ms: int = msgspec.field(name="atMs")
    reason: str
    stale: bool
    """CONTEXT.md changed since the proposal was made."""
    content: str
    diff: ProposalDiff


class BrokenProposal(Answer, kw_only=True):
    file: str
    problem: str


class Proposals(Answer, kw_only=True):
    proposals: list[Proposal]
    broken: list[BrokenProposal]
    """Proposal files that cannot be read (left alone)."""


class Said(Answer, kw_only=True):
    """`context_accept|reject`: what was done, in words."""

    message: str


class Orchestrator(Answer, kw_only=True):
    orchestrator: str | None
    """The agent that may write CONTEXT.md, by name; None: only the user."""


# ─── skills ────────────────────────────────────────────────────────────────────────────


class Skill(Answer, kw_only=True):
    """A skill as `skill_new` describes it (and the start of every skill answer)."""

    id: str
    name: str
    scope: str
    """project or global."""
    description: str
    content_hash: str = msgspec.field(name="contentHash")
    lines: int


class ListedSkill(Skill, kw_only=True):
    assigned_to: list[str] = msgspec.field(name="assignedTo")
    """The names of the project's agents it is assigned to."""


class SkillList(Answer, kw_only=True):
    skills: list[ListedSkill]
    problems: list[str]
    """Stores that cannot be read (the other scope is still listed)."""
    project: str | None


class SkillText(Skill, kw_only=True):
    """`skill_show`: the skill with its Markdown, file and revision."""

    content: str
    path: str
    revision: str


class SkillUpdated(Skill, kw_only=True):
    revision: str


class SkillDeleted(Answer, kw_only=True):
    deleted: str
    """The skill's id."""
    name: str
    scope: str


class SkillAssignment(Answer, kw_only=True):
    """`skill_assign|unassign` (doing it twice changes nothing: `changed` false)."""

    skill: str
    skill_id: str = msgspec.field(name="skillId")
    scope: str
    agent: str
    assigned: bool
    changed: bool
    skills: list[str]
    """The agent's skill ids now."""


# ─── conversations ─────────────────────────────────────────────────────────────────────


class ConversationSummary(Answer, kw_only=True):
    """One conversation of `conversation_list`, most recent first."""

    conversation: str
    parties: list[str] | None
    """Both sides' names (None: a side is no longer known)."""
    party_ids: list[str] | None = msgspec.field(name="partyIds")
    segments: int
    """Archived segments (`log.N.jsonl`) besides the active log."""
    changed_at_ms: int = msgspec.field(name="changedAtMs")


class Turn(Answer, kw_only=True):
    id: str
    at_ms: int = msgspec.field(name="atMs")
    source: str
    """The side that wrote it, by name."""
    role: str
    """prompt or response."""
    text: str


class ConversationPage(Answer, kw_only=True):
    """One log file of a pair: the active one, or archived `segment`."""

    conversation: str
    parties: list[str]
    segments: list[int]
    segment: int | None
    turns: list[Turn]
    problems: list[str]
    """Lines of the log that cannot be read (left out)."""


class SearchHit(Answer, kw_only=True):
    """A turn that holds the query (the fields of `Turn`, after where it is)."""

    segment: int | None
    """The archived segment it is in (None: the active log)."""
    index: int
    """Its place in that segment."""
    id: str
    at_ms: int = msgspec.field(name="atMs")
    source: str
    role: str
    text: str


class ConversationSearch(Answer, kw_only=True):
    conversation: str
    query: str
    hits: list[SearchHit]
