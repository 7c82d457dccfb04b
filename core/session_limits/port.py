"""The port for level-1 sources: files a CLI writes that say, without the model, that it hit
a limit and when it resets (SLM-2; Claude Code transcripts, Codex session files).

Readers live in `adapters/limits/`; the daemon calls them in an executor (they read files)
when a cell goes quiet or its screen shows a limit, and prefers their exact time to a
screen capture.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Protocol

from core.agents.profile import AgentProfile
from core.session_limits.signal import LimitSignal


@dataclass(frozen=True, slots=True)
class LimitQuery:
    """What a reader is told about one running agent.

    Attributes:
        agent_id: The agent's id (its run dir is `.ideai/run/<agent_id>/`).
        profile: The profile it was launched with (a reader checks `applies` on it).
        project_root: The agent's working directory (Claude keys its transcripts by it).
        run_dir: The agent's run dir.
        conversation_id: The provider's conversation/session id when known (Claude's is
            chosen at launch, Codex's discovered after it).
        env: The environment the CLI was launched with (CLAUDE_CONFIG_DIR, CODEX_HOME, HOME
            decide where it writes).
        since: Ignore anything recorded before this instant (the launch or the last resume),
            so an old limit line does not limit the agent again.
        now: The caller's clock (timezone-aware), for relative times.
    """

    agent_id: str
    profile: AgentProfile
    project_root: Path
    run_dir: Path
    conversation_id: str | None
    since: datetime
    now: datetime
    env: Mapping[str, str] = field(default_factory=dict)


class LimitReader(Protocol):
    """A level-1 source for the CLIs it knows."""

    @property
    def name(self) -> str:
        """Short name for logs and `LimitSignal.source` prefixes (`claude-transcript`)."""
        ...

    def applies(self, profile: AgentProfile) -> bool:
        """Whether this reader knows the CLI this profile runs."""
        ...

    def read(self, query: LimitQuery) -> LimitSignal | None:
        """The newest limit signal recorded since `query.since`, or None.

        Blocking (reads files): called in an executor. Never raises for a missing, partial
        or malformed file: that is "no signal".
        """
        ...

    def went_on(self, query: LimitQuery) -> datetime | None:
        """When the model answered normally again (the CLI got past its limit by itself, as
        Claude Code does at the reset): the first answer after the newest limit record, else
        (a limit idea saw only on the screen) the newest answer, if after `query.since` (the
        caller passes when it learnt of the limit). None: the newest limit record stands, no
        answer since `query.since`, or no file.

        Blocking like `read`, and as forgiving of a missing or malformed file.
        """
        ...
