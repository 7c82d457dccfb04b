"""A daemon started where terminal signals are ignored or blocked (a script's
`idea new … &` ignores SIGINT and SIGQUIT, nohup ignores SIGHUP) must not pass that on:
programs in its cells get Ctrl-C, Ctrl-\\ and the rest as in any terminal. Before the fix,
SIGQUIT stayed ignored and a blocked signal stayed blocked in every shell and agent (bash
cannot undo a signal ignored on entry); SIGINT was only spared because the daemon happens
to handle it itself."""

from __future__ import annotations

import re
import signal
import subprocess

import pytest

from tests.helpers.idea import IDEA_BIN, IdeaEnv

pytestmark = pytest.mark.e2e


def _as_a_background_job_would() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGQUIT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})


def signal_sets(status: str) -> dict[str, int]:
    return {name: int(mask, 16) for name, mask in re.findall(r"(Sig(?:Ign|Blk)):\s+([0-9a-f]+)",
                                                               status)}


def test_ctrl_c_reaches_a_program_in_a_cell_of_a_daemon_started_ignoring_it(
        idea: IdeaEnv) -> None:
    project = idea.root / "proj"
    project.mkdir()
    # The first command starts the daemon: it inherits this process's dispositions.
    subprocess.run([IDEA_BIN, "new", str(project)], env=idea.env, cwd=idea.root,
                   stdin=subprocess.DEVNULL, capture_output=True, check=True, timeout=60,
                   preexec_fn=_as_a_background_job_would)
    screen = idea.shell("0", "grep -E '^Sig(Ign|Blk)' /proc/self/status; echo shown-$((2*3))",
                        r"shown-6")
    sets = signal_sets(screen)
    assert set(sets) == {"SigIgn", "SigBlk"}, screen
    for signum in (signal.SIGINT, signal.SIGQUIT):
        assert not sets["SigIgn"] & (1 << (signum - 1)), (signum, screen)
    assert sets["SigBlk"] == 0, screen

    idea.send_keys("0", "sleep 120", "Enter")
    idea.capture("0", wait=r"sleep 120")
    idea.send_keys("0", "C-c")
    # Typed ahead: runs once `sleep` is gone, at once if Ctrl-C killed it (status 130),
    # after two minutes if the signal was ignored.
    idea.send_keys("0", "echo status-$?", "Enter")
    idea.capture("0", wait=r"status-130", timeout=30)
