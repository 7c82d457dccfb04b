"""Finding the conversation id of a CLI that only knows it after launch (DECISIONS D20).

Codex has no flag to start with a chosen id: it writes its session to
`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` once the first message is
submitted. The profile describes where to look (`session.discover`: home variable, default
home, glob, id pattern); the daemon polls for a file created after the launch that no other
agent claimed, and records the id so a restart can resume the conversation.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0
GIVE_UP_SECONDS = 6 * 3600.0
_PENDING: set[asyncio.Task[None]] = set()


@dataclass(frozen=True, slots=True)
class DiscoveryRule:
    home_env: str
    default_home: str
    glob: str
    id_pattern: re.Pattern[str]

    @classmethod
    def from_profile_extra(cls, session_extra: Mapping[str, Any]) -> DiscoveryRule | None:
        """The rule of a profile's `session.discover` block, or None (absent or invalid)."""
        block = session_extra.get("discover")
        if not isinstance(block, Mapping):
            return None
        try:
            return cls(
                home_env=str(block.get("homeEnv", "")),
                default_home=str(block.get("defaultHome", "")),
                glob=str(block["glob"]),
                id_pattern=re.compile(str(block["idPattern"])),
            )
        except (KeyError, re.error) as exc:
            log.warning("ignoring session.discover block: %s", exc)
            return None

    def home(self, env: Mapping[str, str]) -> Path:
        value = env.get(self.home_env) if self.home_env else None
        return Path(os.path.expanduser(value or self.default_home or "~"))

    def find(self, env: Mapping[str, str], since: float, claimed: set[str]) -> str | None:
        """The id of the newest session file created after `since` and not yet claimed."""
        home = self.home(env)
        candidates = []
        for path in home.glob(self.glob):
            match = self.id_pattern.search(path.name) or self.id_pattern.search(str(path))
            if match is None:
                continue
            try:
                created = path.stat().st_mtime
            except OSError:
                continue
            found = match.group(1) if match.groups() else match.group(0)
            if created >= since and found not in claimed:
                candidates.append((created, found))
        return max(candidates)[1] if candidates else None


def watch_for_session(
    rule: DiscoveryRule,
    env: Mapping[str, str],
    since: float,
    claimed: Callable[[], set[str]],
    alive: Callable[[], bool],
    found: Callable[[str], None],
) -> None:
    """Poll in the background until the id appears, the program ends, or hours pass."""

    async def poll() -> None:
        waited = 0.0
        while alive() and waited < GIVE_UP_SECONDS:
            session_id = await asyncio.to_thread(rule.find, env, since, claimed())
            if session_id is not None:
                found(session_id)
                return
            await asyncio.sleep(POLL_SECONDS)
            waited += POLL_SECONDS

    task = asyncio.get_running_loop().create_task(poll())
    _PENDING.add(task)
    task.add_done_callback(_PENDING.discard)
