"""Drive the fake agent CLI on a real PTY: send bytes, wait for output, collect the exit.

Like pexpect, reduced to what these tests need: `expect` waits for a pattern after the
previous match, `send` writes everything without ever blocking on a full PTY (it keeps
reading the program's output meanwhile, so neither side can stall the other).
"""

from __future__ import annotations

import json
import os
import re
import select
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from adapters.pty import PtyProcess

ROOT = Path(__file__).resolve().parents[2]
FAKE_AGENT = ROOT / "fake_agent" / "fake_agent.py"
TIMEOUT = 10.0
PROMPT = b"fake-agent> "


class AgentOnPty:
    """One fake agent process on its own PTY."""

    def __init__(self, pty: PtyProcess) -> None:
        self.pty = pty
        self.output = b""
        self.mark = 0
        self.ended = False

    @classmethod
    def spawn(
        cls, args: Sequence[str], *, cwd: Path, env: Mapping[str, str], cols: int = 100
    ) -> AgentOnPty:
        argv = [sys.executable, str(FAKE_AGENT), *args]
        return cls(PtyProcess.spawn(argv, cwd=str(cwd), env=env, cols=cols, rows=30))

    def _pump(self, timeout: float) -> None:
        """Read what the program wrote within `timeout` seconds (nothing more to wait for
        once it ended)."""
        if self.ended:
            return
        ready, _, _ = select.select([self.pty.fd], [], [], timeout)
        if ready:
            data = self.pty.read()
            if data == b"":
                self.ended = True
            elif data:
                self.output += data

    def expect(self, pattern: bytes | str, timeout: float = TIMEOUT) -> re.Match[bytes]:
        """Wait for `pattern` (a regex) in the output after the previous match; return it."""
        regex = re.compile(pattern.encode() if isinstance(pattern, str) else pattern)
        deadline = time.monotonic() + timeout
        while True:
            match = regex.search(self.output, self.mark)
            if match is not None:
                self.mark = match.end()
                return match
            if self.ended or time.monotonic() >= deadline:
                raise AssertionError(
                    f"{regex.pattern!r} not seen; output after the last match: "
                    f"{self.output[self.mark :]!r}"
                )
            self._pump(0.05)

    def expect_exact(self, text: bytes | str, timeout: float = TIMEOUT) -> None:
        raw = text.encode() if isinstance(text, str) else text
        self.expect(re.escape(raw), timeout)

    def prompt(self) -> None:
        """Wait for the next prompt."""
        self.expect_exact(PROMPT)

    def send(self, data: bytes, timeout: float = TIMEOUT) -> None:
        """Write all of `data`, reading output whenever the PTY is full."""
        deadline = time.monotonic() + timeout
        while data:
            if time.monotonic() >= deadline:
                raise AssertionError(f"the program stopped reading; {len(data)} bytes left")
            readable, writable, _ = select.select([self.pty.fd], [self.pty.fd], [], 0.05)
            if writable:
                data = data[self.pty.write(data) :]
            if readable:
                self._pump(0)

    def line(self, text: str) -> None:
        """Type a line and press Enter (CR, as a terminal sends it)."""
        self.send(text.encode() + b"\r")

    def paste(self, text: str | bytes) -> None:
        """A bracketed paste, as a terminal (or idea's launcher) delivers it."""
        raw = text.encode() if isinstance(text, str) else text
        self.send(b"\x1b[200~" + raw + b"\x1b[201~")

    def silent_for(self, seconds: float) -> bytes:
        """What the program printed within `seconds` (for asserting that nothing comes)."""
        start = len(self.output)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not self.ended:
            self._pump(max(0.0, deadline - time.monotonic()))
        return self.output[start:]

    def wait_exit(self, timeout: float = TIMEOUT) -> int:
        """Read to the end of the output, then return the exit status."""
        deadline = time.monotonic() + timeout
        while not self.ended and time.monotonic() < deadline:
            self._pump(0.05)
        return self.pty.wait(max(0.1, deadline - time.monotonic()))

    def close(self) -> None:
        if self.pty.poll() is None:
            self.pty.kill()
            self.pty.wait(5)
        self.pty.close()

    @property
    def text(self) -> str:
        return self.output.decode("utf-8", "replace")


def read_report(path: Path) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return report


def base_env(home: Path) -> dict[str, str]:
    """A small, fixed environment: the fake agent's sessions live under `home`."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "FAKE_AGENT_HOME": str(home / "fake-agent-home"),
    }
