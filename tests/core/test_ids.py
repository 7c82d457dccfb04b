"""The one rule for ids that become paths (core.ids, issue 7)."""

from __future__ import annotations

import pytest

from core.agents.agent import Agent
from core.agents.errors import UnsafePath
from core.agents.templates import template_id_problem
from core.ids import MAX_ID_LENGTH, id_problem, is_safe_id

GOOD = ["a6ced819-b893-4213-b003-9e9dc79b9641", "qa", "backend-dev-2", "v1.2_beta",
        "A" * MAX_ID_LENGTH, "a3f1..."]

HOSTILE = [
    "", " ", "..", ".", "../../../x", "../x", "a/b", "a\\b", "/etc/passwd", "~root",
    ".hidden", "-rf", "--dangerously-skip-permissions", "a\x00b", "a\nb", "x\n", "a b",
    "\x1b]0;t\x07", "a\u009b31m", "caf\u00e9", "\u0430dmin", "\uff0e\uff0e",
    "A" * (MAX_ID_LENGTH + 1),
]


@pytest.mark.parametrize("value", GOOD)
def test_uuids_and_slugs_are_safe(value: str) -> None:
    assert id_problem(value) is None
    assert is_safe_id(value)
    assert template_id_problem(value) is None


@pytest.mark.parametrize("value", HOSTILE)
def test_anything_else_is_refused_with_the_rule(value: str) -> None:
    assert id_problem(value) is not None
    assert "letters, digits" in (id_problem(value) or "")
    assert not is_safe_id(value)
    # Templates follow the same rule (one rule for every id that becomes a path).
    assert template_id_problem(value) == id_problem(value)


def test_non_strings_are_not_safe() -> None:
    assert not is_safe_id(None)
    assert not is_safe_id(3)


@pytest.mark.parametrize("value", ["../../../x", "a/b", "-x", ".."])
def test_an_agent_cannot_hold_an_unsafe_id(value: str) -> None:
    with pytest.raises(UnsafePath) as caught:
        Agent(id=value, name="A", md_path="agents/a.md", profile_id="p")
    assert caught.value.what == "agent id"
