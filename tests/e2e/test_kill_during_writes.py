"""`kill -9` of the daemon in the middle of a storm of layout edits (issue 7): after every
round every committed file still parses and decodes, and the next `idea` restores the
workspace the files describe, with no file reported unreadable. The long run (200 rounds)
is `bench/kill_during_writes.py`."""

from __future__ import annotations

import random

import pytest

from tests.helpers.idea import IdeaEnv
from tests.helpers.kill_rounds import RoundStats, build, check_files, check_restored, one_round

pytestmark = pytest.mark.e2e

ROUNDS = 6


@pytest.mark.parametrize("seed", [1])
def test_kill_9_during_layout_writes_loses_no_file(idea: IdeaEnv, seed: int) -> None:
    roots = build(idea)
    rng = random.Random(seed)
    stats = RoundStats()
    for _ in range(ROUNDS):
        one_round(idea, roots, rng, stats)
    assert stats.rounds == ROUNDS
    assert sum(stats.edits.values()) > ROUNDS * 3, stats.edits
    # The files the last kill left are what the next daemon shows.
    check_files(idea, roots)
    idea.run("open", str(roots[0]))
    check_restored(idea, roots)
