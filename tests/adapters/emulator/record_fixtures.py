"""Record the golden byte streams in tests/fixtures/emulator/ (a tool, not a test).

Run: `.venv/bin/python -m tests.adapters.emulator.record_fixtures [NAME ...]`.

Each scenario runs a real program in a PTY of 80×24 with TERM=xterm-256color, types its
keys once the program has gone quiet, and stores every byte the program wrote as NAME.bin.
Queries the program sends (DA, CPR, …) are answered by idea's emulator, as the daemon would.
Then NAME.tmux.json stores what tmux 3.3 shows after reading the same bytes: that file is the
reference the golden tests compare against, so expectations come from tmux, not from us.
Recordings are not reproducible byte for byte (dates, versions); re-record only on purpose.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import tempfile
import termios
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from adapters.emulator import PyteEmulator
from tests.adapters.emulator.tmux_reference import tmux_capture

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "emulator"
COLS, ROWS = 80, 24
QUIET_S = 0.6


@dataclass
class Scenario:
    argv: list[str]
    keys: list[bytes] = field(default_factory=list)
    # Names of extra fixtures cut before key i is sent, e.g. {1: "vim_open"}.
    snapshots: dict[int, str] = field(default_factory=dict)
    setup: Callable[[Path], None] | None = None


def _ls_setup(root: Path) -> None:
    (root / "src").mkdir()
    (root / "build.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "build.sh").chmod(0o755)
    (root / "README.md").write_text("# demo\n")
    (root / "archive.tar.gz").write_bytes(b"\0" * 10)
    (root / "link").symlink_to("README.md")


def _git_setup(root: Path) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "A",
        "GIT_AUTHOR_EMAIL": "a@x",
        "GIT_COMMITTER_NAME": "A",
        "GIT_COMMITTER_EMAIL": "a@x",
        "GIT_AUTHOR_DATE": "2025-01-01T00:00:00",
        "GIT_COMMITTER_DATE": "2025-01-01T00:00:00",
    }

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    for name in ("one", "two"):
        (root / name).write_text(name)
        git("add", name)
        git("commit", "-q", "-m", f"add {name}")
    git("checkout", "-q", "-b", "feature")
    (root / "three").write_text("3")
    git("add", "three")
    git("commit", "-q", "-m", "feature: add three")
    git("checkout", "-q", "main")
    (root / "four").write_text("4")
    git("add", "four")
    git("commit", "-q", "-m", "add four")
    git("merge", "-q", "--no-edit", "feature")


def _text_setup(root: Path) -> None:
    lines = [
        f"def function_{n}(value):\n    return value * {n}  # comment {n}\n" for n in range(40)
    ]
    (root / "sample.py").write_text("".join(lines))


SCENARIOS: dict[str, Scenario] = {
    "ls_color": Scenario(["ls", "--color=always", "-l", "-F"], setup=_ls_setup),
    "git_log_graph": Scenario(
        ["git", "log", "--graph", "--color=always", "--oneline", "--decorate", "--all"],
        setup=_git_setup,
    ),
    "vim": Scenario(
        ["vim", "-n", "-i", "NONE", "-u", "DEFAULTS", "sample.py"],
        keys=[b"12G", b":q\r"],
        snapshots={1: "vim_open"},
        setup=_text_setup,
    ),
    "less": Scenario(
        ["less", "sample.py"], keys=[b" ", b"q"], snapshots={1: "less_open"}, setup=_text_setup
    ),
    "bash_session": Scenario(
        ["bash", "--norc", "--noprofile", "-i"],
        keys=[
            b"printf 'wide: \\u4e2d\\u6587 emoji: \\U0001F600 mark: e\\u0301 end\\n'\r",
            b"seq 1 30\r",
            b"printf '\\e[1;31mred\\e[0m \\e[38;2;10;200;30mrgb\\e[0m \\e[4;7mrev\\e[0m\\n'\r",
            b"exit\r",
        ],
    ),
    "python_repl": Scenario(
        ["python3", "-q"], keys=[b"print('hi \\u00e9 \\u4e2d')\r", b"1 + 1\r", b"exit()\r"]
    ),
}


def _read_until_quiet(master: int, emulator: PyteEmulator, out: bytearray) -> bool:
    """Collect output until none arrives for QUIET_S; False once the program has exited."""
    while True:
        ready, _, _ = select.select([master], [], [], QUIET_S)
        if not ready:
            return True
        try:
            data = os.read(master, 65536)
        except OSError:
            return False
        if not data:
            return False
        out += data
        emulator.feed(data)
        replies = emulator.take_replies()
        if replies:
            os.write(master, replies)


def record(name: str, scenario: Scenario, workdir: Path) -> dict[str, bytes]:
    if scenario.setup is not None:
        scenario.setup(workdir)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONSTARTUP": "",
        "LESS": "",
        "PAGER": "cat",
        "GIT_PAGER": "cat",
        "PS1": "\\[\\e[1;32m\\]me@box\\[\\e[0m\\]:\\[\\e[34m\\]\\W\\[\\e[0m\\]$ ",
    }
    process = subprocess.Popen(
        scenario.argv,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=workdir,
        env=env,
        start_new_session=True,
        preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
    )
    os.close(slave)
    emulator = PyteEmulator(COLS, ROWS)
    out = bytearray()
    streams: dict[str, bytes] = {}
    alive = _read_until_quiet(master, emulator, out)
    for index, key in enumerate(scenario.keys):
        if index in scenario.snapshots:
            streams[scenario.snapshots[index]] = bytes(out)
        if not alive:
            break
        os.write(master, key)
        alive = _read_until_quiet(master, emulator, out)
    process.wait(timeout=10)
    while _read_until_quiet(master, emulator, out):
        if process.poll() is not None and not select.select([master], [], [], 0)[0]:
            break
    os.close(master)
    streams[name] = bytes(out)
    return streams


def main(names: list[str]) -> None:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, scenario in SCENARIOS.items():
        if names and name not in names:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            streams = record(name, scenario, Path(tmp))
            for stream_name, data in streams.items():
                (FIXTURES / f"{stream_name}.bin").write_bytes(data)
                capture = tmux_capture(data, COLS, ROWS, Path(tmp))
                expected = {
                    "cols": COLS,
                    "rows": ROWS,
                    "cursor": list(capture.cursor),
                    "cursor_visible": capture.cursor_visible,
                    "alternate": capture.alternate,
                    "screen": capture.raw,
                    "history": capture.raw_history,
                }
                (FIXTURES / f"{stream_name}.tmux.json").write_text(
                    json.dumps(expected, indent=1, ensure_ascii=False) + "\n"
                )
                print(f"{stream_name}: {len(data)} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
