"""Parameters of the delegation commands (`ask`, `agent_send`, `agent_interrupt`,
`agent_state`, `tickets`, `team_monitor`), as msgspec Structs (see `adapters.ipc.params`)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from adapters.ipc.params import Params

Text = Annotated[str, msgspec.Meta(pattern=r"\S")]
"""Text with something in it besides blanks."""


class DelegationParams(Params, kw_only=True):
    project: str | None = None


class TargetAgentParams(DelegationParams, kw_only=True):
    agent: Text
    """The agent's name or id."""


class AskParams(TargetAgentParams, kw_only=True):
    task: Text
    timeout: Annotated[float, msgspec.Meta(gt=0)] | None = None
    """Seconds to wait for the reply (none: the configured limit)."""


class SendParams(TargetAgentParams, kw_only=True):
    text: Text


class CellAgentParams(DelegationParams, kw_only=True):
    """An agent by name or id, or the agent running in the cell `target` (the client's
    enqueue and interrupt keys act on the focused cell)."""

    agent: Text | None = None
    target: str | None = None


class CellSendParams(CellAgentParams, kw_only=True):
    text: Text


ORCHESTRATION_PARAMS: dict[str, type[Params]] = {
    "ask": AskParams,
    "agent_send": CellSendParams,
    "agent_interrupt": CellAgentParams,
    "agent_state": TargetAgentParams,
    "tickets": DelegationParams,
    "team_monitor": DelegationParams,
}
