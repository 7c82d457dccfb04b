"""A real agent TUI on a PTY, seen through idea's own terminal emulator.

The CLIs query the terminal (cursor position, device attributes) and draw with cursor
movement, so a byte stream is not enough to tell what is on screen: the output goes through
`PyteEmulator`, whose replies are written back as a terminal would.
"""

from __future__ import annotations

import re
import select
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from adapters.emulator import PyteEmulator
from adapters.pty import PtyProcess

COLS, ROWS = 120, 40


class TuiOnPty:
    def __init__(self, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str]) -> None:
        self.pty = PtyProcess.spawn(argv, cwd=str(cwd), env=env, cols=COLS, rows=ROWS)
        self.emulator = PyteEmulator(COLS, ROWS)
        self.ended = False

    def pump(self, timeout: float) -> None:
        if self.ended:
            return
        ready, _, _ = select.select([self.pty.fd], [], [], timeout)
        if not ready:
            return
        data = self.pty.read()
        if data == b"":
            self.ended = True
        elif data:
            self.emulator.feed(data)
            replies = self.emulator.take_replies()
            if replies:
                self.pty.write(replies)

    @property
    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.emulator.display())

    def wait_for(self, pattern: str, timeout: float = 60.0) -> re.Match[str]:
        """Wait until `pattern` matches the screen; fail with the screen when it never does."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            match = regex.search(self.text)
            if match is not None:
                return match
            if self.ended or time.monotonic() >= deadline:
                raise AssertionError(f"{pattern!r} never appeared; the screen:\n{self.text}")
            self.pump(0.05)

    def pump_until(self, condition: Callable[[], object], timeout: float = 60.0) -> None:
        """Keep the TUI running (reading its output) until `condition()` is true."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() >= deadline:
                raise AssertionError(f"condition not met; the screen:\n{self.text}")
            self.pump(0.05)

    def type_and_submit(self, text: str, submit: str, delay_ms: int) -> None:
        """What idea does to deliver a line: the text, the profile's delay, its submit keys."""
        self.pty.write(text.encode())
        deadline = time.monotonic() + delay_ms / 1000
        while time.monotonic() < deadline:  # the delay under test, while reading output
            self.pump(max(0.0, deadline - time.monotonic()))
        self.pty.write(submit.encode())

    def submit_until(self, text: str, submit: str, delay_ms: int,
                     sent: Callable[[], object], attempts: int = 3,
                     patience: float = 20.0, timeout: float = 90.0) -> None:
        """Type `text` and submit it, then keep the TUI running until `sent()`; while the
        text still sits in the composer after `patience` seconds, submit again (at most
        `attempts` times in all), as idea's verified delivery does. On a loaded machine
        Codex can read the text and the submit key in one burst, which it takes for a
        paste: the Enter is lost and the line stays in the composer."""
        self.type_and_submit(text, submit, delay_ms)
        for _ in range(attempts - 1):
            try:
                self.pump_until(sent, patience)
                return
            except AssertionError:
                if text not in self.text:
                    break
                self.pty.write(submit.encode())
        self.pump_until(sent, timeout)

    def close(self) -> None:
        if self.pty.poll() is None:
            self.pty.kill()
            self.pty.wait(10)
        self.pty.close()
