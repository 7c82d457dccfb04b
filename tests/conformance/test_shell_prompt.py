from __future__ import annotations

from tests.conformance.harness import Comparison


def test_prompt(compare: Comparison) -> None:
    compare.step("echo hi-$((1+2))", "Enter", wait="hi-3")
    compare.step("printf '\\e[1;31mred\\e[0m \\e[4;44mul\\e[m\\n'", "Enter", wait="ul")
