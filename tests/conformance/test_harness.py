"""The comparison itself: it must tell text, attributes and cursor apart, in that order, or
every other test here could pass without comparing anything."""

from __future__ import annotations

import pytest

from tests.adapters.emulator.tmux_reference import DEFAULT
from tests.conformance.harness import Comparison, Screen, differences
from tests.helpers.retry import WaitTimeout

pytestmark = pytest.mark.e2e

# Output that depends on which side runs it: idea sets IDEA_CELL in its cells.
ON_IDEA = '[ -n "$IDEA_CELL" ]'


def screen(text: str, style: tuple[int, int, int] = DEFAULT,
           cursor: tuple[int, int] = (0, 0)) -> Screen:
    return Screen(text=[text], cells=[[(char, style) for char in text]], cursor=cursor)


def test_differences_are_reported_text_first_then_attributes_then_cursor() -> None:
    assert differences(screen("ab"), screen("ab")) == ""
    assert differences(screen("ab"), screen("ac", (1, -1, 0), (1, 0))).startswith("text")
    assert differences(screen("ab"), screen("ab", (1, -1, 0), (1, 0))).startswith("attrib")
    assert differences(screen("ab"), screen("ab", cursor=(1, 0))).startswith("cursor")


def test_a_live_difference_fails_the_step(compare: Comparison) -> None:
    compare.type(f"{ON_IDEA} && echo idea-side || echo tmux-side\r")
    with pytest.raises(WaitTimeout, match="text differs"):
        compare.settle(timeout=1.0)
    compare.type(f"clear; {ON_IDEA} && printf '\\033[1m' || printf '\\033[4m'; "
                 "echo styled; printf '\\033[m'\r")
    with pytest.raises(WaitTimeout, match="attributes differ"):
        compare.settle(timeout=1.0)
    compare.type(f"clear; printf ab; {ON_IDEA} && printf '\\b'; read -r x\r")
    with pytest.raises(WaitTimeout, match=r"cursor differs: idea \(1, 0\), tmux \(2, 0\)"):
        compare.settle(timeout=1.0)
    compare.step("Enter", wait=r"^e2e\$")
