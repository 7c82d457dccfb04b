"""One turn of a conversation, as one line of `log.jsonl` (FEATURES.md §3.10, LOG-1).

    {"id":…,"conversation":…,"atMs":…,"source":{"kind":"agent","agentId":…},"role":"prompt",
     "text":…}

`role` is `prompt` for a task delivered to a party and `response` for the reply it returned;
`source` is who wrote the turn: an agent, or the user (`{"kind":"user"}`). The text is kept
raw, newlines included: the transcript is for humans and is never injected into an agent.
Decoding checks every field, so a damaged line is reported and skipped, never guessed at.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from core.conversations.ids import USER

Role = Literal["prompt", "response"]
ROLES: tuple[Role, ...] = ("prompt", "response")


class BadTurn(ValueError):
    """A log line that is not a turn (the message says what is wrong)."""


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn.

    Attributes:
        id: The turn's UUID (unique in its conversation).
        conversation: The conversation id.
        at_ms: When it was recorded, epoch milliseconds.
        source: The party that wrote it: an agent id, or `USER`.
        role: `prompt` (a task) or `response` (a reply).
        text: The text, raw.
    """

    id: str
    conversation: str
    at_ms: int
    source: str
    role: Role
    text: str

    @property
    def by_user(self) -> bool:
        return self.source == USER


def encode_turn(turn: Turn) -> str:
    """The turn as one JSON line (no newline), fields in the seed's order."""
    source: dict[str, str] = (
        {"kind": "user"} if turn.by_user else {"kind": "agent", "agentId": turn.source}
    )
    return json.dumps(
        {
            "id": turn.id,
            "conversation": turn.conversation,
            "atMs": turn.at_ms,
            "source": source,
            "role": turn.role,
            "text": turn.text,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )


def decode_turn(line: str | bytes) -> Turn:
    """A turn from one line of `log.jsonl`.

    Raises:
        BadTurn: The line is not JSON or not a turn.
    """
    try:
        data = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as error:
        raise BadTurn(f"not JSON ({error})") from None
    if not isinstance(data, dict):
        raise BadTurn("not a JSON object")
    return Turn(
        id=_text(data, "id"),
        conversation=_text(data, "conversation"),
        at_ms=_at_ms(data),
        source=_source(data.get("source")),
        role=_role(data.get("role")),
        text=_text(data, "text", allow_empty=True),
    )


def _text(data: dict[str, Any], key: str, allow_empty: bool = False) -> str:
    value = data.get(key)
    if not isinstance(value, str) or (not value and not allow_empty):
        raise BadTurn(f"{key!r} must be a non-empty string")
    return value


def _at_ms(data: dict[str, Any]) -> int:
    value = data.get("atMs")
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BadTurn("'atMs' must be a non-negative integer")
    return value


def _source(value: object) -> str:
    if not isinstance(value, dict):
        raise BadTurn("'source' must be an object")
    kind = value.get("kind")
    if kind == "user":
        return USER
    agent = value.get("agentId")
    if kind == "agent" and isinstance(agent, str) and agent and agent != USER:
        return agent
    raise BadTurn("'source' must be {kind: agent, agentId} or {kind: user}")


def _role(value: object) -> Role:
    for role in ROLES:
        if value == role:
            return role
    raise BadTurn("'role' must be 'prompt' or 'response'")
