"""Parameters of the session-limit commands (issue 10, SLM-7): `set_resume_at`,
`resume_now`, `cancel_resume`, `not_limited`, `limit_swap`, `limit_fallback`,
`limit_status`, and the test clock, as msgspec Structs (see `adapters.ipc.params`).

An agent is named by its name or id; a command that acts on one agent requires it (a blank
name is refused at the boundary, naming the field, before the daemon looks anything up).
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from adapters.ipc.params import Params

Text = Annotated[str, msgspec.Meta(pattern=r"\S")]
"""Text with something in it besides blanks."""


class LimitParams(Params, kw_only=True):
    project: str | None = None
    """A project by name, id or root; else the caller's."""


class LimitAgentParams(LimitParams, kw_only=True):
    """One agent at a usage limit (`resume_now`, `cancel_resume`, `not_limited`)."""

    agent: Text


class ResumeAtParams(LimitAgentParams, kw_only=True):
    """`set_resume_at` (SLM-4, asking = arming): `at` is HH:MM (its next occurrence),
    3:40am, RFC 3339 or "in 20m"; a past time means now."""

    at: Text


class LimitSwapParams(LimitAgentParams, kw_only=True):
    """`limit_swap`: continue the agent on `profile` now; `swap_back` brings it back to its
    own profile at the reset."""

    profile: Text
    swap_back: bool = True


class LimitStatusParams(LimitParams, kw_only=True):
    """`limit_status`: every limited agent of the project, or only this one; with `all`,
    of every open project (a client asks about missed resumes when it attaches)."""

    agent: Text | None = None
    all: bool = False


class FallbackParams(LimitParams, kw_only=True):
    """`limit_fallback`: an agent's (or with no agent, the project's) fallback profile;
    `off` removes it; neither reads the policy."""

    agent: Text | None = None
    profile: Text | None = None
    off: bool = False


class TestClockParams(Params, kw_only=True):
    """`test_clock` (only in a daemon started with IDEA_TEST_CLOCK): an RFC 3339 instant
    with its timezone."""

    at: Text


LIMITS_PARAMS: dict[str, type[Params]] = {
    "set_resume_at": ResumeAtParams,
    "resume_now": LimitAgentParams,
    "cancel_resume": LimitAgentParams,
    "not_limited": LimitAgentParams,
    "limit_swap": LimitSwapParams,
    "limit_fallback": FallbackParams,
    "limit_status": LimitStatusParams,
    "test_clock": TestClockParams,
}
