"""A client that says what it drew (`FramesShown`) is never sent a backlog of other cells'
frames: while it is behind, a cell flooding beside the focused one waits, and the focused
cell's echo still comes at once; once the client catches up, the flooding cell's latest rows
come. Behaviour only: no timing is asserted (`bench/bench_terminal.py` prints the echo
latency under a flood)."""

from __future__ import annotations

from pathlib import Path

from adapters.ipc.messages import CellFrame, DaemonMessage, FramesShown, RawInput
from idea_daemon.frames import MAX_UNSHOWN
from tests.helpers.daemon import InProcessDaemon
from tests.helpers.idea import PROMPT_RE
from tests.helpers.raw_client import RawClient

# Output in bursts for two seconds at least, however fast the machine parses it.
# Output in bursts for two seconds at least, however fast the machine parses it; the end
# marker is computed, so the typed command line never matches it.
FLOOD = "for i in $(seq 1 20); do seq 1 3000; sleep 0.1; done; echo flood-$((40+2))"


def frames_of(messages: list[DaemonMessage], cell: str) -> list[CellFrame]:
    return [m for m in messages if isinstance(m, CellFrame) and m.cell == cell]


def text(frame: CellFrame) -> str:
    return "\n".join("".join(run[0] for run in runs) for _y, runs in frame.lines)


def two_cells_at_their_prompt(client: RawClient, project: Path) -> tuple[str, str]:
    """A project of two cells side by side, the first focused, both at their prompt and
    every frame of their start received."""
    project.mkdir()
    client.call("project_new", path=str(project))
    client.call("split", direction="right")
    first, second = (cell["id"] for cell in client.call("list_cells"))
    client.call("select", target=f"%{first}")
    for cell in (first, second):
        client.call("capture", target=f"%{cell}", wait=PROMPT_RE, timeout=30)
    while client.receive(0.3) is not None:
        pass  # every frame of the start drawn
    return first, second


def test_a_client_behind_gets_the_focused_echo_and_no_backlog_of_a_flooding_cell(
        daemon: InProcessDaemon, tmp_path: Path) -> None:
    with RawClient(str(daemon.locations.socket), width=120, height=30) as client:
        typing, flooding = two_cells_at_their_prompt(client, tmp_path / "web")
        shown = len(frames_of(client.messages, typing) + frames_of(client.messages, flooding))
        client.send(FramesShown(count=shown))
        before = len(client.messages)

        client.call("send_keys", target=f"%{flooding}", keys=[FLOOD, "Enter"])
        client.send(RawInput(cell=typing, data=b"echo typed-$((6*7))\r"))
        client.wait_for(lambda m: isinstance(m, CellFrame) and m.cell == typing
                        and "typed-42" in text(m))
        client.call("capture", target=f"%{flooding}", wait="flood-42", timeout=60)
        while client.receive(0.3) is not None:
            pass
        # Nothing was drawn since: the flooding cell got what fits in the allowance.
        assert len(frames_of(client.messages[before:], flooding)) <= MAX_UNSHOWN + 1

        # Drawing again (saying so after each frame) brings its latest rows.
        def drew(message: DaemonMessage) -> bool:
            if isinstance(message, CellFrame):
                got = len(frames_of(client.messages, typing)
                          + frames_of(client.messages, flooding))
                client.send(FramesShown(count=got))
            return (isinstance(message, CellFrame) and message.cell == flooding
                    and "flood-42" in text(message))

        client.send(FramesShown(count=len(frames_of(client.messages, typing)
                                          + frames_of(client.messages, flooding))))
        client.wait_for(drew, timeout=30)


def test_a_client_that_never_says_what_it_drew_gets_every_cell_as_before(
        daemon: InProcessDaemon, tmp_path: Path) -> None:
    project = tmp_path / "web"
    project.mkdir()
    with RawClient(str(daemon.locations.socket), width=120, height=30) as client:
        client.call("project_new", path=str(project))
        client.call("split", direction="right")
        typing, flooding = (cell["id"] for cell in client.call("list_cells"))
        client.call("select", target=f"%{typing}")
        client.call("capture", target=f"%{flooding}", wait=PROMPT_RE, timeout=30)
        client.call("send_keys", target=f"%{flooding}", keys=[FLOOD, "Enter"])
        client.wait_for(lambda m: isinstance(m, CellFrame) and m.cell == flooding
                        and "flood-42" in text(m), timeout=60)
        assert len(frames_of(client.messages, flooding)) > MAX_UNSHOWN + 1



def test_the_echo_of_a_cell_typed_into_is_sent_even_when_it_is_not_the_focused_one(
        daemon: InProcessDaemon, tmp_path: Path) -> None:
    """Input can go to a cell that is not the window's focused one (a click, `send_keys`, a
    second client moving the focus): that cell's echo is the frame the user waits for. It
    comes at once, even to a client that is behind with its drawing — where other cells'
    frames rightly wait until it says it drew them (the old rule held every cell but the
    focused one, so the typed one never came to a client that stopped reporting)."""
    with RawClient(str(daemon.locations.socket), width=120, height=30) as client:
        focused, typed = two_cells_at_their_prompt(client, tmp_path / "web")
        # Says it drew nothing of what it got: from now on it is behind.
        client.send(FramesShown(count=0))
        client.send(RawInput(cell=focused, data=b"echo in-focus-$((6*7))\r"))
        client.wait_for(lambda m: isinstance(m, CellFrame) and m.cell == focused
                        and "in-focus-42" in text(m))
        client.send(RawInput(cell=typed, data=b"echo typed-$((6*7))\r"))
        client.wait_for(lambda m: isinstance(m, CellFrame) and m.cell == typed
                        and "typed-42" in text(m), timeout=10)
