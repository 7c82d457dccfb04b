"""A program in a cell that turns on the kitty keyboard protocol reads keys the way it
asked for them, end to end: the client names a key, the daemon encodes it with the flags
the program pushed (libghostty-vt keeps them), and the program's read shows the result. A
program that did not ask keeps legacy bytes."""

from __future__ import annotations

import sys
from pathlib import Path

from adapters.ipc.messages import CellFrame, KeyInput
from tests.helpers.daemon import InProcessDaemon
from tests.helpers.emulators import require_backend
from tests.helpers.idea import PROMPT_RE
from tests.helpers.raw_client import RawClient

# Reads one key in raw mode and prints what came, as numbers (no escape reaches the screen).
READER = (
    "import os, sys, tty; flags = sys.argv[1].encode(); "
    "push = flags and b'\\x1b[>' + flags + b'u'; tty.setraw(0); "
    "os.write(1, push + b'REA' + b'DY' + b'\\r\\n'); data = os.read(0, 64); "
    "os.write(1, b'\\x1b[<u' if push else b''); "
    "os.write(1, b'GO' + b'T: ' + ' '.join(str(b) for b in data).encode() + b'\\r\\n')"
)


def text(frame: CellFrame) -> str:
    return "\n".join("".join(run[0] for run in runs) for _y, runs in frame.lines)


def read_key(client: RawClient, cell: str, flags: str, key: str) -> str:
    """Run the reader in `cell`, pushing kitty `flags` ("" for none), type `key` as the
    client names it, and return what the program read."""
    client.messages.clear()
    command = f"{sys.executable} -c \"{READER}\" '{flags}'"
    client.call("send_keys", target=f"%{cell}", keys=[command, "Enter"])
    client.wait_for(lambda m: isinstance(m, CellFrame) and m.cell == cell
                    and "\nREADY" in "\n" + text(m))
    client.send(KeyInput(cell=cell, key=key))
    found = client.wait_for(lambda m: isinstance(m, CellFrame) and m.cell == cell
                            and "\nGOT: " in "\n" + text(m))
    assert isinstance(found, CellFrame)
    line = next(line for line in text(found).splitlines() if line.startswith("GOT: "))
    return bytes(int(n) for n in line.split()[1:]).decode()


def test_keys_reach_a_program_as_the_kitty_protocol_it_asked_for(
        daemon: InProcessDaemon, tmp_path: Path) -> None:
    require_backend("ghostty")
    project = tmp_path / "web"
    project.mkdir()
    with RawClient(str(daemon.locations.socket), width=120, height=30) as client:
        client.call("project_new", path=str(project))
        [cell] = (c["id"] for c in client.call("list_cells"))
        client.call("capture", target=f"%{cell}", wait=PROMPT_RE, timeout=30)
        assert read_key(client, cell, "1", "shift+enter") == "\x1b[13;2u"
        assert read_key(client, cell, "1", "ctrl+c") == "\x1b[99;5u"
        # Popped on the way out: the next program gets legacy keys.
        assert read_key(client, cell, "", "shift+enter") == "\r"
