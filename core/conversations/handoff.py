"""The handoff: a conversation's distilled, bounded summary (FEATURES.md §3.11, LOG-2, LOG-3).

    ---
    upTo: <id of the last folded turn>
    objective: <the first prompt, 200 characters at most>
    ---
    **Objective:** <the same>

    - **Prompt:** <a turn, newlines collapsed, 240 characters at most>
    - **Response:** <…>

It is folded incrementally, one turn at a time (`fold`), never by re-reading the log, and
bounded after each fold (`bound`): the whole text stays within `HANDOFF_MAX_CHARS`; on
overflow the objective stays and the oldest turns go, so what is left is the most recent
part of the thread. The seed's own files predate the bounds (lines of 4,000 characters,
files of 20 KiB): `parse` reads them and `bound` is applied again at injection. The seed
wrote the objective's label in French (`**Objectif :**`); both labels are read.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.conversations.turns import Turn

HANDOFF_MAX_CHARS = 4096
"""The whole handoff text (HANDOFF_SUMMARY_MAX_CHARS)."""
TURN_LINE_MAX_CHARS = 240
"""The text of one turn line (TURN_LINE_MAX_CHARS)."""
OBJECTIVE_MAX_CHARS = 200
"""The objective: the thread's first prompt, cut."""

OBJECTIVE_LABEL = "**Objective:** "
_OBJECTIVE_LABELS = (OBJECTIVE_LABEL, "**Objectif :** ")
_BULLETS = {"prompt": "- **Prompt:** ", "response": "- **Response:** "}
ELLIPSIS = "…"


class BadHandoff(ValueError):
    """A handoff file that cannot be read (the message says where and why)."""


@dataclass(frozen=True, slots=True)
class Handoff:
    """A parsed handoff.

    Attributes:
        up_to: The id of the last turn folded (None for a handoff that folded nothing).
        objective: The first prompt of the thread, collapsed and cut.
        lines: The turn bullets, oldest first, each `- **Prompt:** …` or `- **Response:** …`.
    """

    up_to: str | None = None
    objective: str = ""
    lines: tuple[str, ...] = ()


EMPTY = Handoff()


def collapse(text: str, limit: int) -> str:
    """`text` on one line (runs of whitespace become one space), at most `limit` characters
    (a cut one ends with an ellipsis)."""
    # A reply may be megabytes: only a prefix can reach the cut, unless it is mostly blanks.
    head = text[: limit * 8]
    flat = " ".join(head.split())
    if len(head) < len(text) and len(flat) <= limit:
        flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[: max(0, limit - 1)].rstrip() + ELLIPSIS


def turn_line(turn: Turn) -> str:
    return _BULLETS[turn.role] + collapse(turn.text, TURN_LINE_MAX_CHARS)


def fold(handoff: Handoff, turn: Turn, max_chars: int = HANDOFF_MAX_CHARS) -> Handoff:
    """The handoff once `turn` is folded in (only this turn is looked at), bounded."""
    objective = handoff.objective
    if not objective and turn.role == "prompt":
        objective = collapse(turn.text, OBJECTIVE_MAX_CHARS)
    # The lines already there were bounded when they were folded: only the new one is cut,
    # then the oldest go while the whole is too long (linear in the few lines kept).
    return _trim(Handoff(turn.id, objective, (*handoff.lines, turn_line(turn))), max_chars)


def bound(
    handoff: Handoff, max_chars: int = HANDOFF_MAX_CHARS, *, frontmatter: bool = True
) -> Handoff:
    """The handoff within `max_chars` once rendered (`render`, or `body` without the
    frontmatter): lines and objective cut to their bounds, then the oldest lines dropped
    until it fits (the objective always stays)."""
    objective = collapse(handoff.objective, OBJECTIVE_MAX_CHARS)
    lines = tuple(_cap_line(line) for line in handoff.lines)
    return _trim(Handoff(handoff.up_to, objective, lines), max_chars, frontmatter=frontmatter)


def _trim(handoff: Handoff, max_chars: int, *, frontmatter: bool = True) -> Handoff:
    """The oldest lines dropped until the rendered text fits."""
    empty = Handoff(handoff.up_to, handoff.objective, ())
    fixed = len(render(empty) if frontmatter else body(empty))
    lines = handoff.lines
    # Each line costs its length plus a newline (`render` and `body` end every line).
    total = fixed + sum(len(line) + 1 for line in lines)
    start = 0
    while start < len(lines) and total > max_chars:
        total -= len(lines[start]) + 1
        start += 1
    return handoff if start == 0 else Handoff(handoff.up_to, handoff.objective, lines[start:])


def _cap_line(line: str) -> str:
    for bullet in _BULLETS.values():
        if line.startswith(bullet):
            return bullet + collapse(line[len(bullet):], TURN_LINE_MAX_CHARS)
    return collapse(line, TURN_LINE_MAX_CHARS)


def body(handoff: Handoff) -> str:
    """What an agent is given: the objective line and the turn lines (no frontmatter)."""
    head = f"{OBJECTIVE_LABEL}{handoff.objective}\n\n" if handoff.objective else ""
    return head + "".join(f"{line}\n" for line in handoff.lines)


def render(handoff: Handoff) -> str:
    """The file's text."""
    front = f"---\nupTo: {handoff.up_to or ''}\nobjective: {handoff.objective}\n---\n"
    if not handoff.objective:
        return front + "\n" + "".join(f"{line}\n" for line in handoff.lines)
    return front + body(handoff)


def parse(text: str) -> Handoff:
    """A handoff from its file's text (ours or the seed's).

    Raises:
        BadHandoff: No frontmatter, no `upTo`, or a line that is not part of the format.
    """
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != "---":
        raise BadHandoff("it does not start with a '---' frontmatter")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise BadHandoff("its frontmatter is not closed by '---'") from None
    fields: dict[str, str] = {}
    for number, line in enumerate(lines[1:end], start=2):
        key, sep, value = line.partition(":")
        if not sep or key.strip() not in ("upTo", "objective"):
            raise BadHandoff(f"line {number}: expected 'upTo:' or 'objective:'")
        fields[key.strip()] = value.strip()
    if "upTo" not in fields:
        raise BadHandoff("its frontmatter has no 'upTo'")
    bullets: list[str] = []
    for number, line in enumerate(lines[end + 1:], start=end + 2):
        if not line.strip() or line.startswith(_OBJECTIVE_LABELS):
            continue
        if not line.startswith(tuple(_BULLETS.values())):
            raise BadHandoff(f"line {number}: not a '- **Prompt:**' or '- **Response:**' line")
        bullets.append(line)
    return Handoff(fields["upTo"] or None, fields.get("objective", ""), tuple(bullets))
