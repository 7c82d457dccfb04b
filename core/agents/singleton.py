"""One live session per agent: what a launch request does (FEATURES.md AGT-6, PRN-4).

An agent is a singleton: one process, shown in at most one cell, or running in the
background. Given where the live sessions are and where a launch is asked, `decide_launch`
says whether to spawn, to rebind the existing session (no respawn), or to refuse. Pure: the
daemon owns the sessions and applies the decision.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True, slots=True)
class InCell:
    """A session shown in a cell of a layout."""

    cell_id: str


@dataclass(frozen=True, slots=True)
class Background:
    """A session running with no cell (AGT-4)."""


Location = InCell | Background

BACKGROUND = Background()


class LaunchAction(Enum):
    """What the daemon does with a launch request."""

    LAUNCH = "launch"
    """Nothing runs: spawn the CLI at the requested location."""
    REATTACH = "reattach"
    """The session runs: show it at `location` without respawning (or leave it where it is)."""
    REFUSE_ALREADY_RUNNING = "refuseAlreadyRunning"
    """The session runs in another cell: refuse, pointing at it (AGENT_ALREADY_RUNNING)."""


@dataclass(frozen=True, slots=True)
class LaunchDecision:
    """The outcome of `decide_launch`.

    Attributes:
        action: What to do.
        location: LAUNCH and REATTACH: where the session lives afterwards.
            REFUSE_ALREADY_RUNNING: where it runs now ("go to its cell").
        previous: Where the live session was before, or None when nothing ran. A REATTACH
            from another cell (a move) frees that cell.
    """

    action: LaunchAction
    location: Location
    previous: Location | None = None


def decide_launch(
    live: Mapping[str, Location],
    agent_id: str,
    target: Location,
    *,
    move: bool = False,
) -> LaunchDecision:
    """The singleton rule for launching `agent_id` at `target`.

    - Not running: LAUNCH at the target.
    - Running in the target cell: REATTACH there (a relaunch in its own cell rebinds).
    - Running in the background, target a cell: REATTACH into that cell (no respawn).
    - Target the background while running anywhere: REATTACH where it is (idempotent).
    - Running in another cell: REFUSE_ALREADY_RUNNING, unless `move` (the user chose
      "move here"): then REATTACH into the target cell.

    Args:
        live: Agent id → location of every live session of the project.
        agent_id: The agent to launch.
        target: Where the launch was asked.
        move: The user asked to move a session shown in another cell.
    """
    current = live.get(agent_id)
    if current is None:
        return LaunchDecision(LaunchAction.LAUNCH, target)
    if isinstance(target, Background):
        return LaunchDecision(LaunchAction.REATTACH, current, current)
    if isinstance(current, Background) or current == target or move:
        return LaunchDecision(LaunchAction.REATTACH, target, current)
    return LaunchDecision(LaunchAction.REFUSE_ALREADY_RUNNING, current, current)
