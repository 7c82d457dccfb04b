"""The composed context an agent receives at launch (FEATURES.md PRF-7, DECISIONS D7).

Every injection strategy gets the same text (D7). Sections come in a fixed order, each under
its heading, except the persona, which is the agent's Markdown as written (it carries its
own headings). A section with no content yet is left out, heading included, so an agent
never reads an empty "# Project memory". The result is deterministic: the same sections
give the same bytes, which keeps convention files stable and tests exact.
"""

from __future__ import annotations

from dataclasses import dataclass

TITLES: tuple[tuple[str, str | None], ...] = (
    ("project_root", "Project root"),
    ("orchestration", "idea orchestration"),
    ("skills", "Available skills"),
    ("project_context", "Project context"),
    ("persona", None),
    ("memory", "Project memory"),
    ("state", "Project state"),
    ("resume", "Conversation resume"),
    ("skill_bodies", "Skills"),
)
"""(field, heading) in composition order; the persona has no heading of its own. The skill
bodies of an agent without MCP come last (PRF-7: "full dump at the END of the file")."""


@dataclass(frozen=True, slots=True)
class ContextSections:
    """The parts of a composed context; None or blank means "nothing yet".

    Attributes:
        project_root: The project folder, and what it means to the agent.
        orchestration: How to delegate and reply through idea (MCP or file protocol).
        skills: The skills the agent may use.
        project_context: `.ideai/CONTEXT.md`, shared by every agent.
        persona: The agent's own Markdown, as is.
        memory: The project memory index (pointers).
        state: Who is doing what now (bounded live-state).
        resume: The bounded handoff of the conversation being resumed.
        skill_bodies: The assigned skills' text, for an agent without MCP (one with MCP
            reads them with `idea_skill_read`).
    """

    project_root: str | None = None
    orchestration: str | None = None
    skills: str | None = None
    project_context: str | None = None
    persona: str | None = None
    memory: str | None = None
    state: str | None = None
    resume: str | None = None
    skill_bodies: str | None = None


def compose_context(sections: ContextSections) -> str:
    """The context text: present sections in D7 order, a blank line between them.

    Leading and trailing blank lines of each part are dropped so the spacing is uniform;
    the rest of each part is kept byte for byte. The text ends with one newline, or is empty
    when every section is.
    """
    parts: list[str] = []
    for name, title in TITLES:
        value: str | None = getattr(sections, name)
        if value is None or not value.strip():
            continue
        body = _trim_blank_lines(value)
        parts.append(body if title is None else f"# {title}\n\n{body}")
    return "\n\n".join(parts) + "\n" if parts else ""


def _trim_blank_lines(text: str) -> str:
    lines = text.replace("\r\n", "\n").split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)
