"""One live session per agent: launch, re-attach or refuse (AGT-6, PRN-4)."""

from __future__ import annotations

import pytest

from core.agents.errors import AgentAlreadyRunning
from core.agents.singleton import (
    BACKGROUND,
    InCell,
    LaunchAction,
    LaunchDecision,
    Location,
    decide_launch,
)

LIVE: dict[str, Location] = {"qa": InCell("c1"), "git": BACKGROUND}


@pytest.mark.parametrize(
    ("agent", "target", "expected"),
    [
        # Not running: spawn where asked.
        ("dev", InCell("c9"), LaunchDecision(LaunchAction.LAUNCH, InCell("c9"))),
        ("dev", BACKGROUND, LaunchDecision(LaunchAction.LAUNCH, BACKGROUND)),
        # A relaunch in its own cell rebinds.
        ("qa", InCell("c1"), LaunchDecision(LaunchAction.REATTACH, InCell("c1"), InCell("c1"))),
        # Another cell: refused, pointing at the cell that shows it.
        (
            "qa",
            InCell("c2"),
            LaunchDecision(LaunchAction.REFUSE_ALREADY_RUNNING, InCell("c1"), InCell("c1")),
        ),
        # A background launch is idempotent: the session stays where it is.
        ("qa", BACKGROUND, LaunchDecision(LaunchAction.REATTACH, InCell("c1"), InCell("c1"))),
        ("git", BACKGROUND, LaunchDecision(LaunchAction.REATTACH, BACKGROUND, BACKGROUND)),
        # A background agent is brought into a cell without respawning.
        ("git", InCell("c3"), LaunchDecision(LaunchAction.REATTACH, InCell("c3"), BACKGROUND)),
    ],
)
def test_decisions(agent: str, target: Location, expected: LaunchDecision) -> None:
    assert decide_launch(LIVE, agent, target) == expected


def test_move_here_rebinds_into_the_new_cell() -> None:
    decision = decide_launch(LIVE, "qa", InCell("c2"), move=True)
    assert decision == LaunchDecision(LaunchAction.REATTACH, InCell("c2"), InCell("c1"))
    # "move" changes nothing for an agent that is not running.
    assert decide_launch(LIVE, "dev", InCell("c2"), move=True).action is LaunchAction.LAUNCH


def test_the_refusal_error_says_where_it_runs() -> None:
    in_cell = AgentAlreadyRunning("QA", "c1")
    assert "in cell c1" in in_cell.message and in_cell.code == "AGENT_ALREADY_RUNNING"
    assert "in the background" in AgentAlreadyRunning("Git", None).message
