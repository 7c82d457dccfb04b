"""The id of a conversation: one per unordered pair of parties (CNV-1, CNV-3, D14).

An agent↔agent conversation's id is the byte-wise XOR of the two agents' UUIDs, as the seed
derived it (checked on its five samples): XOR is commutative, so the id names the unordered
pair and both sides compute it without a registry. A user↔agent conversation XORs the agent
with a fixed UUID that stands for the user, `uuid5(NAMESPACE_URL, "idea:user")` (D14).

Agent ids that are not UUIDs (a hand-written `agents.json` may use slugs) are first mapped to
one with `uuid5`, so every agent has a stable conversation id with every other party.
"""

from __future__ import annotations

import functools
import uuid

USER_UUID = uuid.uuid5(uuid.NAMESPACE_URL, "idea:user")
"""The party "the user" in id derivations (D14)."""

USER = "user"
"""How the user is named as a party (the same label tickets use for the requester)."""


class SameParty(ValueError):
    """Both sides of a conversation are the same party (CNV-1: left != right)."""


def party_uuid(party: str) -> uuid.UUID:
    """The UUID standing for a party: the user, an agent's UUID, or a slug mapped by uuid5."""
    if party == USER:
        return USER_UUID
    try:
        return uuid.UUID(party)
    except ValueError:
        return uuid.uuid5(uuid.NAMESPACE_URL, f"idea:agent:{party}")


@functools.lru_cache(maxsize=4096)
def conversation_id(a: str, b: str) -> str:
    """The conversation id of the unordered pair {a, b} (agent ids, or `USER`). Remembered:
    every recorded turn asks it on the daemon's loop, for the same few pairs.

    >>> conversation_id("a6ced819-b893-4213-b003-9e9dc79b9641",
    ...                 "af7f86da-76bc-48e1-9900-71f45a624800")
    '09b15ec3-ce2f-0af2-2903-ef699df9de41'

    Raises:
        SameParty: `a` and `b` are the same party (their XOR would be the nil UUID).
    """
    left, right = party_uuid(a), party_uuid(b)
    if left == right:
        raise SameParty(f"a conversation needs two different parties, not {a!r} twice")
    return str(uuid.UUID(bytes=bytes(x ^ y for x, y in zip(left.bytes, right.bytes, strict=True))))


def peer_of(conversation: str, party: str) -> uuid.UUID:
    """The UUID of the other side of `conversation` seen from `party` (XOR is its own inverse)."""
    mine = party_uuid(party)
    return uuid.UUID(bytes=bytes(x ^ y for x, y in zip(uuid.UUID(conversation).bytes,
                                                       mine.bytes, strict=True)))
