"""Fuzzing the daemon's socket (issue 7): malformed frames from several connections at once
against a real daemon process. It never crashes, its peak memory stays flat (a length prefix
of 4 GiB allocates nothing), and a client connected the whole time, and the shell in a cell,
keep working. The long run is `bench/fuzz_socket.py --frames 10000`."""

from __future__ import annotations

import random
import socket

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.ipc import framing
from core.version import VERSION
from idea_tui.control import ControlClient
from tests.helpers.idea import IdeaEnv, process_alive
from tests.helpers.socket_fuzz import (
    KINDS,
    Counts,
    attach_at,
    huge_length,
    play,
    rss_peak_kib,
    session,
)

pytestmark = pytest.mark.e2e

MEMORY_GROWTH_KIB = 64 * 1024
"""Peak memory the daemon may gain over the run: far below one honoured huge length."""


def test_malformed_frames_from_several_connections_never_hurt_the_daemon(
        idea: IdeaEnv) -> None:
    idea.new_project("proj")
    [cell] = idea.cells()
    pid = idea.daemon_pid()
    assert pid is not None
    peak_before = rss_peak_kib(pid)
    counts = Counts()
    with ControlClient.connect(idea.locations) as bystander:

        @settings(max_examples=40, deadline=None, derandomize=True,
                  suppress_health_check=[HealthCheck.too_slow])
        @given(st.integers(0, 2**32), st.integers(2, 4), st.integers(1, 6))
        def fuzz(seed: int, connections: int, frames: int) -> None:
            rng = random.Random(seed)
            play(idea.locations.socket, [session(rng, frames) for _ in range(connections)],
                 counts)
            assert process_alive(pid), "the daemon died"
            assert bystander.call("version")["version"] == VERSION

        fuzz()
    assert idea.daemon_pid() == pid and process_alive(pid)
    assert set(counts.frames) == set(KINDS), counts.frames
    assert sum(counts.frames.values()) >= 200
    assert counts.connections >= 80
    # The shell still runs and answers, and new clients are served (at a size of their own:
    # fuzzed tui Hellos may have left the window one row high).
    with attach_at(idea.locations.socket):
        idea.shell(cell["target"], "echo fuzz-$((6*7))", "^fuzz-42")
    assert rss_peak_kib(pid) - peak_before < MEMORY_GROWTH_KIB


def test_a_huge_length_prefix_allocates_nothing_and_ends_only_its_connection(
        idea: IdeaEnv) -> None:
    idea.new_project("proj")
    pid = idea.daemon_pid()
    assert pid is not None
    peak_before = rss_peak_kib(pid)
    rng = random.Random(7)
    with ControlClient.connect(idea.locations) as bystander:
        for _ in range(50):
            with socket.socket(socket.AF_UNIX) as sock:
                sock.settimeout(10)
                sock.connect(str(idea.locations.socket))
                # A header claiming nearly 64 MiB (under the frame limit, over the Hello one)
                # and then just a trickle: refused at once, not buffered.
                sock.sendall(framing.HEADER.pack(framing.MAX_FRAME - 1) + b"x" * 1000)
                assert sock.recv(1) == b"", "the daemon closes the connection"
            play(idea.locations.socket, [[("huge length", huge_length(rng))]] * 3, Counts())
        assert bystander.call("version")["version"] == VERSION
    assert process_alive(pid)
    assert rss_peak_kib(pid) - peak_before < MEMORY_GROWTH_KIB
