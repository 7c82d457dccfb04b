"""Hostile output through the real daemon: a flood of random bytes, absurd parameters, huge
and unterminated strings, a synchronized-output frame never closed. None of them may stall
the daemon or the cells beside them; nothing here measures speed, a follow-up command only
has to complete (within the test's timeout).
"""

from __future__ import annotations

import random
import re
import time

import pytest

from tests.conformance.harness import attach_client
from tests.helpers.idea import IdeaEnv
from tests.helpers.programs import require_tmux
from tests.helpers.retry import retry_until

pytestmark = pytest.mark.e2e

FLOOD_BYTES = 2_000_000
QUICK_S = 5.0
"""What "answers quickly" means on a noisy 2-core machine (an idle answer takes ~0.15 s)."""


def two_cells(env: IdeaEnv) -> tuple[str, str]:
    """A project with two cells side by side, both at a prompt; their targets."""
    env.new_project("proj")
    env.run("split", "-h")
    first, second = (f"%{cell['id']}" for cell in env.cells())
    for target in (first, second):
        env.capture(target, wait=r"^e2e\$")
    return first, second


def foreground(env: IdeaEnv, target: str) -> str | None:
    cell = next(c for c in env.cells() if f"%{c['id']}" == target)
    return cell.get("foreground")


def idle(env: IdeaEnv, target: str, timeout: float = 60.0) -> None:
    """Wait until the cell's shell is in front again (its command has ended)."""
    retry_until(lambda: foreground(env, target) is None, timeout,
                describe=lambda: f"still running: {foreground(env, target)}")


def answers_quickly(env: IdeaEnv) -> None:
    started = time.monotonic()
    env.run("ls", timeout=30)
    elapsed = time.monotonic() - started
    assert elapsed < QUICK_S, f"`idea ls` took {elapsed:.2f} s"


def echoes(env: IdeaEnv, target: str, word: str) -> None:
    """Typed input is echoed as typed, and the shell runs it."""
    env.send_keys(target, f"echo {word}-$((6*7))", "Enter")
    text = env.capture(target, wait=rf"^{re.escape(word)}-42$")
    assert f"e2e$ echo {word}-$((6*7))" in text.split("\n"), text


def test_random_flood_leaves_the_other_cell_responsive(idea_env: IdeaEnv,
                                                       emulator_backend: str) -> None:
    flood, other = two_cells(idea_env)
    noise = idea_env.root / "proj" / "noise.bin"
    noise.write_bytes(random.Random(20240601).randbytes(FLOOD_BYTES))
    # libghostty-vt reads the noise ~5× faster than pyte: cat it more times, so that the
    # flood still lasts while the other cell is checked.
    repeat = " noise.bin" * (8 if emulator_backend == "ghostty" else 1)

    idea_env.send_keys(flood, f"cat{repeat}", "Enter")
    retry_until(lambda: foreground(idea_env, flood) == "cat",
                describe="cat never showed as the cell's program")
    # While the flood runs, and after it: the other cell and the daemon keep answering.
    echoes(idea_env, other, "during")
    answers_quickly(idea_env)
    idle(idea_env, flood)
    echoes(idea_env, other, "after-flood-ünï✓")
    answers_quickly(idea_env)
    # Nothing of the noise reached the other cell's screen.
    rows = idea_env.screen_rows(other)
    assert rows[:5] == ["e2e$ echo during-$((6*7))", "during-42",
                        "e2e$ echo after-flood-ünï✓-$((6*7))", "after-flood-ünï✓-42", "e2e$"]
    assert not any(rows[5:]), rows
    # The flooded cell itself still works once reset (RIS clears whatever modes the noise
    # turned on; ctrl+c drops what the noise's replies left on the command line).
    idea_env.send_keys(flood, "C-c")
    idea_env.send_keys(flood, r"printf '\033c'; echo recovered-$((2*3))", "Enter")
    idea_env.capture(flood, wait=r"^recovered-6$")


ABSURD = {
    "huge parameters": r"printf '\033[999999999@\033[999999999;999999999H\033[999999999L"
                       r"\033[999999999M\033[999999999P\033[999999999X\033[999999999b"
                       r"\033[999999999S\033[999999999T\033[1;999999999r\033[r\033[H'",
    "many parameters": "printf '\\033[' ; head -c 200000 /dev/zero | tr '\\0' ';' ; printf 'm'",
    "a 1 MB OSC title": "printf '\\033]0;' ; head -c 1000000 /dev/zero | tr '\\0' x ; "
                        "printf '\\007'",
    "an unterminated DCS": "printf '\\033P1$q' ; head -c 300000 /dev/zero | tr '\\0' y",
    "an unterminated OSC": "printf '\\033]8;;' ; head -c 300000 /dev/zero | tr '\\0' z",
}


@pytest.mark.parametrize("name", list(ABSURD))
def test_absurd_sequences_do_not_stall_the_daemon(idea_env: IdeaEnv, name: str) -> None:
    target, other = two_cells(idea_env)
    idea_env.send_keys(target, ABSURD[name], "Enter")
    idle(idea_env, target)  # the daemon read all of it
    answers_quickly(idea_env)
    echoes(idea_env, other, "beside")
    # A string terminator ends whatever string may still be open; then the cell shows
    # output again.
    idea_env.send_keys(target, r"printf '\033\\'; echo follow-up-$((4+5))", "Enter")
    idea_env.capture(target, wait=r"^follow-up-9$")
    titles = [cell["title"] for cell in idea_env.cells()]
    assert all(len(title) < 1_000_000 for title in titles), "the 1 MB title was kept"


def test_an_unfinished_synchronized_frame_is_shown_after_the_time_box(
        idea_env: IdeaEnv) -> None:
    require_tmux()
    target, _ = two_cells(idea_env)
    idea_env.run("select", "-t", target)
    client = attach_client(idea_env, 120, 30)
    try:
        client.wait_for(r"e2e\$")
        idea_env.send_keys(
            target, r"printf '\033[?2026h'; echo in-frame-$((1+1)); sleep 60", "Enter")
        retry_until(lambda: foreground(idea_env, target) == "sleep",
                    describe="the frame's program never started")
        # The frame is never closed: the daemon's screen and the client's drawing of it
        # both show what came after it began, once the emulator's time box has run out.
        idea_env.capture(target, wait=r"^in-frame-2$")
        client.wait_for(r"in-frame-2")
        # And the cell goes on updating normally.
        idea_env.send_keys(target, "C-c")
        idea_env.send_keys(target, "echo after-frame-$((3+4))", "Enter")
        client.wait_for(r"after-frame-7")
    finally:
        client.kill()
