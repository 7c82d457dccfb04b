"""Target strings users pass with -t (core.targets)."""

from __future__ import annotations

import pytest

from core.targets import BadTarget, TargetSpec, parse_target


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (None, TargetSpec()),
        ("", TargetSpec()),
        ("3", TargetSpec(index=3)),
        (".3", TargetSpec(index=3)),
        ("Build.3", TargetSpec(page="Build", index=3)),
        ("web:3", TargetSpec(project="web", index=3)),
        ("web:Build.3", TargetSpec(project="web", page="Build", index=3)),
        ("web:", TargetSpec(project="web")),
        ("web:Build", TargetSpec(project="web", page="Build")),
        ("%ab12", TargetSpec(cell_id="ab12")),
        ("1a2b3c4d", TargetSpec(cell_id="1a2b3c4d")),
        ("1A2B3C4D-99", TargetSpec(cell_id="1a2b3c4d-99")),
        # Words made of hex letters stay page names without the % sigil.
        ("cafe", TargetSpec(page="cafe")),
        ("deadbeef", TargetSpec(page="deadbeef")),
        ("my.page.2", TargetSpec(page="my.page", index=2)),
    ],
)
def test_parse_target(text: str | None, expected: TargetSpec) -> None:
    assert parse_target(text) == expected


@pytest.mark.parametrize("text", [":3", "%"])
def test_bad_targets_are_refused_with_a_message(text: str) -> None:
    with pytest.raises(BadTarget) as info:
        parse_target(text)
    assert repr(text) in info.value.message


def test_current_target_is_recognised() -> None:
    assert parse_target(None).is_current
    assert not parse_target("1").is_current
