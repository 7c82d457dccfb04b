"""Editing a text in $VISUAL / $EDITOR from the client (personas, skills).

The client is suspended while the editor runs on a copy in a temporary folder; the daemon
then writes the result (the file may live on another machine than this client).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from idea_tui.ports import Runner


def editor_command() -> list[str]:
    return shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")


async def edit_externally(runner: Runner, name: str, text: str) -> str | None:
    """`text` edited in $EDITOR as a file called `name`; None when the editor could not run
    or failed (the reason was reported)."""
    from textual.app import SuspendNotSupported

    with tempfile.TemporaryDirectory(prefix="idea-edit-") as folder:
        copy = Path(folder) / name
        copy.write_text(text, encoding="utf-8")
        command = [*editor_command(), str(copy)]
        try:
            with runner.app.suspend():
                code = subprocess.call(command)
        except SuspendNotSupported:
            runner.report("this terminal cannot hand over to $EDITOR: e edits here", "error")
            return None
        except OSError as exc:
            runner.report(f"cannot start {command[0]} ({exc.strerror or exc}): set $EDITOR",
                          "error")
            return None
        if code != 0:
            runner.report(f"{command[0]} exited with code {code}", "error")
            return None
        try:
            return copy.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            runner.report(f"cannot read the edited copy: {exc}", "error")
            return None
