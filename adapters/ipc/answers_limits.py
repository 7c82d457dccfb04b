"""Answers of the session-limit commands (issue 10: `idea agent resume NAME --at|--now|
--cancel|--not-limited`, continuing on another profile, the fallback policy, the test
clock), and the `limit` block an agent of `agent_list` carries while it is at a usage limit.
Times are RFC 3339 texts; keys that do not apply are left out.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from adapters.ipc.params import Answer


class LimitInfo(Answer, kw_only=True):
    """An agent at a usage limit: what the CLI said, until when, and when idea resumes it."""

    state: str
    """limited, suspected or swapped."""
    text: str
    """As the cell's border says it: "rate_limited (until 17:00)"."""
    level: int
    """How it was learnt: 1 data the CLI wrote, 2 its screen, 3 the user (lower is surer)."""
    source: str
    message: str
    """The CLI's words."""
    since: str
    resets_at: str | None = msgspec.field(name="resetsAt")
    resume_at: str | None = msgspec.field(name="resumeAt")
    armed_by: str | None = msgspec.field(name="armedBy")
    """Who armed the resume: auto or user."""
    resume_in: float | UnsetType = msgspec.field(default=UNSET, name="resumeIn")
    """Seconds until the resume, while one is armed."""
    countdown: str | UnsetType = UNSET
    overdue: str | UnsetType = UNSET
    """When an armed resume was missed (idea was down, the machine slept)."""
    missed: str | UnsetType = UNSET
    question: str | UnsetType = UNSET
    """What the user is asked about a missed resume."""
    swapped_from: str | UnsetType = msgspec.field(default=UNSET, name="swappedFrom")
    swapped_to: str | UnsetType | None = msgspec.field(default=UNSET, name="swappedTo")


class LimitAnswer(Answer, kw_only=True):
    """`set_resume_at`, `resume_now`, `cancel_resume`, `not_limited`, `limit_swap`: the agent
    and its limit now (None: no longer limited)."""

    agent: str
    """The agent's name."""
    resumed: bool | UnsetType = UNSET
    """`resume_now`: it was resumed at once."""
    cancelled: bool | UnsetType = UNSET
    """`cancel_resume`: a resume was armed and is now disarmed."""
    profile: str | UnsetType = UNSET
    """`limit_swap`: the profile it continues on."""
    was: str | UnsetType = UNSET
    """`not_limited`: the state the limit had (suspected or limited)."""
    limit: LimitInfo | None


class LimitRow(LimitInfo, kw_only=True):
    """One limited agent of `limit_status`."""

    agent: str
    id: str
    project: str
    root: str

    @classmethod
    def of(cls, info: LimitInfo, *, agent: str, id: str, project: str,
           root: str) -> LimitRow:
        # Every field of `info` is one of this row's (it is a LimitInfo).
        return cls(**msgspec.structs.asdict(info), agent=agent, id=id, project=project,
                   root=root)


class FallbackPolicy(Answer, kw_only=True):
    """`limit_fallback` (`.ideai/fallback.json`): the profile a limited agent continues on,
    for the project and per agent (by name; None: wait for the reset)."""

    project: str | None
    agents: dict[str, str | None]
    swap_back: bool = msgspec.field(name="swapBack")


class ClockSet(Answer, kw_only=True):
    now: str
