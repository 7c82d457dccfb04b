"""Proposals to change the project context (CTX-2): the context has a single writer (the
user, or the agent the user made orchestrator); any other agent proposes a new text, which
waits under `.ideai/proposals/<id>.json` until the user accepts or rejects it.

A proposal is the whole new text (not a patch), with a hash of the context it was made
against: if CONTEXT.md changed since, the proposal is marked stale so the user sees that the
diff shown is against today's text, not the one the agent read.

    {"version": 1, "id": "P3f9a1c2e", "atMs": 1781367769591,
     "author": {"agentId": "...", "name": "Dev"}, "reason": "one line",
     "baseHash": "0f3c…" | null, "content": "<the proposed CONTEXT.md>"}
"""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from core.knowledge.errors import InvalidArgument, TooLarge
from core.knowledge.limits import CONTEXT_MAX_CHARS

VERSION = 1
REASON_MAX = 240
_ID = re.compile(r"P[0-9a-f]{8,32}")
_HUNK = re.compile(r"@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@.*")


def content_hash(text: str | None) -> str | None:
    """A stable 16-hex digest of a context's text (None for "no CONTEXT.md")."""
    if text is None:
        return None
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def is_proposal_id(value: str) -> bool:
    return _ID.fullmatch(value) is not None


@dataclass(frozen=True, slots=True)
class Proposal:
    id: str
    at_ms: int
    author_id: str
    author_name: str
    content: str
    base_hash: str | None
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"version": VERSION, "id": self.id, "atMs": self.at_ms,
                "author": {"agentId": self.author_id, "name": self.author_name},
                "reason": self.reason, "baseHash": self.base_hash, "content": self.content}


class ProposalFormatError(ValueError):
    pass


def proposal_from_json(data: Any) -> Proposal:
    """Raises ProposalFormatError naming the bad field."""
    if not isinstance(data, dict):
        raise ProposalFormatError("expected an object")
    version = data.get("version")
    if version != VERSION:
        raise ProposalFormatError(f"version {version!r} is not {VERSION}")
    author = data.get("author")
    fields = {
        "id": data.get("id"), "content": data.get("content"),
        "author.agentId": author.get("agentId") if isinstance(author, dict) else None,
        "author.name": author.get("name") if isinstance(author, dict) else None,
    }
    for name, value in fields.items():
        if not isinstance(value, str):
            raise ProposalFormatError(f"{name}: expected a string")
    at_ms, base, reason = data.get("atMs"), data.get("baseHash"), data.get("reason", "")
    if not isinstance(at_ms, int) or isinstance(at_ms, bool):
        raise ProposalFormatError("atMs: expected a number")
    if base is not None and not isinstance(base, str):
        raise ProposalFormatError("baseHash: expected a string or null")
    if not isinstance(reason, str):
        raise ProposalFormatError("reason: expected a string")
    if not is_proposal_id(str(fields["id"])):
        raise ProposalFormatError("id: not a proposal id")
    return Proposal(str(fields["id"]), at_ms, str(fields["author.agentId"]),
                    str(fields["author.name"]), str(fields["content"]), base, reason)


def checked_proposal_text(content: str, reason: str | None) -> tuple[str, str]:
    """The content and one-line reason of a proposal, validated.

    Raises:
        InvalidArgument: The content is blank.
        TooLarge: The content or the reason is above its limit.
    """
    if not content.strip():
        raise InvalidArgument("content", "is required and must not be empty")
    if len(content) > CONTEXT_MAX_CHARS:
        raise TooLarge("content", len(content), CONTEXT_MAX_CHARS)
    line = " ".join((reason or "").split())
    if len(line) > REASON_MAX:
        raise TooLarge("reason", len(line), REASON_MAX)
    return content if content.endswith("\n") else content + "\n", line


MAX_DIFF_LINES = 4_000


def text_diff(old: str | None, new: str, path: str) -> dict[str, Any]:
    """The change from `old` to `new` as one file of the diff viewer's shape
    (`idea_tui/widgets/diff_view.py`: path, change, added, removed, hunks of
    `[kind, text, no_newline]` lines)."""
    before = (old or "").splitlines()
    after = new.splitlines()
    hunks: list[dict[str, Any]] = []
    added = removed = shown = 0
    truncated = False
    current: dict[str, Any] | None = None
    for line in difflib.unified_diff(before, after, lineterm="", n=3):
        if line.startswith(("---", "+++")) and current is None:
            continue
        if _HUNK.fullmatch(line):
            current = {"header": line, "lines": []}
            hunks.append(current)
            continue
        if current is None:
            continue
        if shown >= MAX_DIFF_LINES:
            truncated = True
            break
        kind, text = line[:1], line[1:]
        added += kind == "+"
        removed += kind == "-"
        current["lines"].append([kind if kind in "+-" else " ", text, False])
        shown += 1
    change = "A" if old is None else "M"
    item: dict[str, Any] = {"path": path, "change": change, "added": added, "removed": removed,
                            "hunks": hunks}
    if truncated:
        item["truncated"] = True
    return item
