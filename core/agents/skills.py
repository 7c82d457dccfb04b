"""Skills: reusable procedures assigned to agents (FEATURES.md SKL-1..SKL-5, PRF-7).

A skill is a named Markdown body, global (idea's data dir, every project) or project
(`.ideai/skills/`, versioned with the project). Agents receive the skills assigned to them in
`agents.json` (`skills: [{skillId, scope}]`, manifest order) at launch. This module is pure:
`adapters.store.skills_store` reads and writes the files, the daemon composes the launch.

Decisions where the seed is silent:

- A skill is named by its id (a slug of its name, `core.ids` rule) or by its name, without
  regard to case. A name is one line of at most `MAX_NAME` characters; the body is at most
  `MAX_CONTENT` characters: a skill is read by a model, and a bigger one would crowd its
  context out. Limits are given in the messages that refuse them.
- The one-line description an agent sees is the `description:` of a leading YAML front
  matter when there is one (the shape of Claude Code's SKILL.md), else the first line of
  text with Markdown heading marks dropped, cut at `MAX_DESCRIPTION`.
- Injection (PRF-7, D7): `# Available skills` always lists the assigned skills (name and
  description). An agent with MCP reads a body with `idea_skill_read(name=…)`; an agent
  without gets the bodies at the end of its context, under `# Skills`, in manifest order,
  within `BODIES_MAX_CHARS` in all (a body that does not fit is cut and says how to read
  the rest). A reference to a skill that no longer exists is skipped.
- The same name may exist in both scopes; where a name must pick one (a tool call, the
  command line without `--global`), the project's skill wins: it is the nearer one, as a
  project's settings win over the user's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from core.agents.agent import AgentManifest, SkillRef, SkillScope, replace_agent
from core.agents.errors import AmbiguousSkill, InvalidSkill, SkillNotFound, UnsafePath
from core.agents.naming import unique_slug
from core.agents.templates import HASH_PREFIX, content_hash
from core.ids import id_problem
from core.layout.model import EMPTY_EXTRA

MAX_NAME = 80
"""Characters of a skill name."""

MAX_CONTENT = 64 * 1024
"""Characters of a skill body."""

MAX_DESCRIPTION = 120
"""Characters of the one-line description an agent sees."""

BODIES_MAX_CHARS = 24_000
"""Characters of skill bodies an agent without MCP receives in all."""

LIST_MAX = 50
"""Assigned skills listed at most (the rest are named by count)."""

HASH_LENGTH = 16
"""Hex digits of `contentHash` (§3.8: a 64-bit digest)."""

DEFAULT_ID = "skill"


def skill_hash(text: str) -> str:
    """The 16-hex `contentHash` of a body: the first 64 bits of `content_hash` (line endings
    normalised, so an editor's CRLF is no change).

    >>> skill_hash("a\\r\\nb") == skill_hash("a\\nb"), len(skill_hash("x"))
    (True, 16)
    """
    return content_hash(text).removeprefix(HASH_PREFIX)[:HASH_LENGTH]


def name_problem(name: object) -> str | None:
    """Why `name` cannot name a skill, or None."""
    if not isinstance(name, str):
        return "must be text"
    if not name.strip():
        return "must not be empty"
    if len(name.strip()) > MAX_NAME:
        return f"is {len(name.strip())} characters long; the limit is {MAX_NAME}"
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        return "must be one line, without control characters"
    return None


def content_problem(content: object) -> str | None:
    """Why `content` cannot be a skill body, or None."""
    if not isinstance(content, str):
        return "must be text"
    if not content.strip():
        return "must not be empty"
    if len(content) > MAX_CONTENT:
        return f"is {len(content):,} characters long; the limit is {MAX_CONTENT:,}"
    if "\x00" in content:
        return "must not contain NUL characters"
    return None


def check_draft(name: object, content: object) -> None:
    """Refuse a name or a body that breaks a rule (SKL-1).

    Raises:
        InvalidSkill: Names the field and the rule (with its limit).
    """
    for what, problem in (("name", name_problem(name)), ("content", content_problem(content))):
        if problem is not None:
            raise InvalidSkill(what, problem)


@dataclass(frozen=True, slots=True)
class Skill:
    """A skill (SKL-1).

    Attributes:
        id: Stable id; also the file stem of `md/<id>.md`.
        name: Display name, what agents call it by.
        content_md: The body.
        scope: Global or project (implied by where it is stored).
        content_hash: What the index records (`skill_hash` of the body when idea wrote it).
        extra: Keys of the index entry this version does not know, written back unchanged.

    Raises:
        UnsafePath: The id cannot be a file name.
        InvalidSkill: The name is empty or not one line.
    """

    id: str
    name: str
    content_md: str
    scope: SkillScope
    content_hash: str
    extra: Mapping[str, object] = field(default=EMPTY_EXTRA, compare=False)

    def __post_init__(self) -> None:
        problem = id_problem(self.id)
        if problem is not None:
            raise UnsafePath(self.id, "skill id", problem)
        trouble = name_problem(self.name)
        if trouble is not None:
            raise InvalidSkill("name", trouble)

    @property
    def ref(self) -> SkillRef:
        """How an agent's manifest entry points at it."""
        return SkillRef(self.id, self.scope)

    @property
    def description(self) -> str:
        return describe(self.content_md, self.name)


def new_skill(skill_id: str, name: str, content: str, scope: SkillScope) -> Skill:
    """A skill as idea creates it (name and body checked, hash computed).

    Raises:
        InvalidSkill: See `check_draft`.
        UnsafePath: The id cannot be a file name.
    """
    check_draft(name, content)
    return Skill(skill_id, name.strip(), content, scope, skill_hash(content))


def edit_skill(skill: Skill, *, name: str | None = None, content: str | None = None) -> Skill:
    """The skill with a new name and/or body (its id and scope stay).

    Raises:
        InvalidSkill: See `check_draft`.
    """
    new_name = skill.name if name is None else name
    new_content = skill.content_md if content is None else content
    check_draft(new_name, new_content)
    changed = content is not None and skill_hash(content) != skill_hash(skill.content_md)
    return replace(
        skill,
        name=new_name.strip(),
        content_md=new_content,
        content_hash=skill_hash(new_content) if changed else skill.content_hash,
    )


def skill_id_for(name: str, taken: Iterable[str]) -> str:
    """A readable id for a new skill: its name as a slug, numbered when taken ("Release
    checklist" → `release-checklist`, then `release-checklist-2`)."""
    return unique_slug(name, taken, DEFAULT_ID)


def describe(content: str, name: str = "") -> str:
    """The one-line description of a body (module docstring); a first line that only repeats
    the skill's name is passed over.

    >>> describe("---\\nname: x\\ndescription: Build the AppImage\\n---\\n# Title\\n")
    'Build the AppImage'
    >>> describe("\\n# Build de l'AppImage IdeA (Linux)\\n\\nCommande...")
    "Build de l'AppImage IdeA (Linux)"
    """
    lines = content.replace("\r\n", "\n").split("\n")
    if lines and lines[0].strip() == "---":
        try:
            end = lines.index("---", 1)
        except ValueError:
            end = 0
        for line in lines[1:end]:
            key, _, value = line.partition(":")
            if key.strip().lower() == "description" and value.strip():
                return _cut(value.strip().strip("\"'"))
        lines = lines[end + 1 :] if end else lines
    for line in lines:
        text = line.strip().lstrip("#").strip()
        if text and text.casefold() != name.strip().casefold():
            return _cut(text)
    return ""


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 1] + "…"


# ─── finding ─────────────────────────────────────────────────────────────────────────────


def find_skill(
    skills: Sequence[Skill], query: str, scope: SkillScope | None = None
) -> Skill:
    """The skill a user or an agent means: an exact id, else a name (any case); with no
    scope given the project's skill wins over a global one (module docstring).

    Raises:
        SkillNotFound: Nothing matches.
        AmbiguousSkill: Two skills of the same scope share the name (a hand-edited index).
    """
    pool = [s for s in skills if scope is None or s.scope is scope]
    key = query.strip().casefold()
    for matches in (
        [s for s in pool if s.id == query.strip()],
        [s for s in pool if s.name.casefold() == key],
    ):
        if not matches:
            continue
        for wanted in (SkillScope.PROJECT, SkillScope.GLOBAL):
            of_scope = [s for s in matches if s.scope is wanted]
            if len(of_scope) == 1:
                return of_scope[0]
            if of_scope:
                raise AmbiguousSkill(query, [s.id for s in of_scope])
    raise SkillNotFound(query, None if scope is None else scope.value)


def assigned_skills(refs: Sequence[SkillRef], skills: Sequence[Skill]) -> list[Skill]:
    """The skills `refs` point at, in their order; a reference to a skill that no longer
    exists is skipped (PRF-7), one listed twice counts once."""
    by_ref = {(s.scope, s.id): s for s in skills}
    found: list[Skill] = []
    seen: set[tuple[SkillScope, str]] = set()
    for ref in refs:
        key = (ref.scope, ref.skill_id)
        if key in by_ref and key not in seen:
            seen.add(key)
            found.append(by_ref[key])
    return found


# ─── assignment (SKL-3) ──────────────────────────────────────────────────────────────────


def assign(manifest: AgentManifest, agent_id: str, ref: SkillRef) -> tuple[AgentManifest, bool]:
    """The manifest with the skill assigned to the agent (appended), and whether that changed
    anything: assigning twice is no change (idempotent, no duplicate).

    Raises:
        AgentNotFound: No agent has that id.
    """
    agent = manifest.get(agent_id)
    if any(_same(ref, held) for held in agent.skills):
        return manifest, False
    plain = SkillRef(ref.skill_id, ref.scope)
    return replace_agent(manifest, replace(agent, skills=(*agent.skills, plain))), True


def unassign(
    manifest: AgentManifest, agent_id: str, ref: SkillRef
) -> tuple[AgentManifest, bool]:
    """The manifest without the skill on the agent, and whether it was assigned.

    Raises:
        AgentNotFound: No agent has that id.
    """
    agent = manifest.get(agent_id)
    kept = tuple(held for held in agent.skills if not _same(ref, held))
    if len(kept) == len(agent.skills):
        return manifest, False
    return replace_agent(manifest, replace(agent, skills=kept)), True


def _same(a: SkillRef, b: SkillRef) -> bool:
    return a.skill_id == b.skill_id and a.scope is b.scope


# ─── injection (SKL-4, PRF-7) ────────────────────────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class SkillSections:
    """What an agent's context gets: the list (`# Available skills`) and, without MCP, the
    bodies (`# Skills`, at the end)."""

    listing: str | None
    bodies: str | None


def skill_sections(skills: Sequence[Skill], *, mcp: bool) -> SkillSections:
    """The skill parts of a composed context, deterministic for the same skills.

    Args:
        skills: The agent's assigned skills, in manifest order (`assigned_skills`).
        mcp: The agent reaches idea's MCP server (it reads bodies with `idea_skill_read`).
    """
    if not skills:
        return SkillSections(None, None)
    shown = skills[:LIST_MAX]
    if mcp:
        intro = (
            "These skills are assigned to you: procedures written for this team. Before a "
            "task one of them covers, read it with the MCP tool `idea_skill_read(name=NAME)` "
            "and follow it."
        )
    else:
        intro = (
            "These skills are assigned to you: procedures written for this team. Their full "
            "text is at the end of this file, under `# Skills`; follow the one that covers "
            "your task."
        )
    lines = [intro, ""]
    for skill in shown:
        description = skill.description
        lines.append(f"- {skill.name}" + (f" — {description}" if description else ""))
    if len(skills) > len(shown):
        lines.append(f"- … and {len(skills) - len(shown)} more (`idea skill list`)")
    listing = "\n".join(lines) + "\n"
    return SkillSections(listing, None if mcp else _bodies(shown))


def _bodies(skills: Sequence[Skill]) -> str:
    parts: list[str] = []
    budget = BODIES_MAX_CHARS
    for skill in skills:
        heading = f"## {skill.name}\n\n"
        body = skill.content_md.replace("\r\n", "\n").strip("\n")
        if budget <= len(heading):
            parts.append(f"## {skill.name}\n\n(left out: no room; `idea skill show "
                         f"{skill.id}` prints it)")
            continue
        room = budget - len(heading)
        if len(body) > room:
            cut = len(body) - room
            body = (body[:room].rstrip() + f"\n\n(cut here: {cut:,} more characters; "
                    f"`idea skill show {skill.id}` prints it all)")
        parts.append(heading + body)
        budget -= len(heading) + len(body)
    return "\n\n".join(parts) + "\n"
