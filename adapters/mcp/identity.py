"""Who is calling: an agent's identity comes from its secret only (D11).

A secret is generated when the agent launches, written 0600 into its run dir, and handed to
the CLI through the MCP config idea generates. Tool arguments never name the caller. Lookup
compares the presented secret with every known one in constant time (hmac.compare_digest,
no early exit), so timing tells nothing about how much of a guess was right.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass

SECRET_BYTES = 32


@dataclass(frozen=True, slots=True)
class Caller:
    """An authenticated agent: its id, display name and project."""

    agent_id: str
    name: str
    project_root: str


class SecretRegistry:
    def __init__(self) -> None:
        self._secrets: dict[str, tuple[bytes, Caller]] = {}

    def issue(self, caller: Caller) -> str:
        """A fresh secret for the agent; its previous one stops working."""
        token = secrets.token_urlsafe(SECRET_BYTES)
        self.grant(caller, token)
        return token

    def grant(self, caller: Caller, token: str) -> None:
        """Accept `token` for the agent (the MCP worker learns the daemon's secrets so)."""
        self._secrets[self._key(caller)] = (token.encode(), caller)

    def revoke(self, caller: Caller) -> None:
        self._secrets.pop(self._key(caller), None)

    def resolve(self, token: str | None) -> Caller | None:
        if not token:
            return None
        presented = token.encode("utf-8", "surrogateescape")
        found: Caller | None = None
        for known, caller in list(self._secrets.values()):
            if hmac.compare_digest(presented, known):
                found = caller
        return found

    @staticmethod
    def _key(caller: Caller) -> str:
        return f"{caller.project_root}\0{caller.agent_id}"
