"""What the daemon does with a damaged file it reads at start: it never stops starting.

Two rules (DECISIONS D12, issue 7):

- A file only idea writes (`workspace.json`, `projects.json`, `.ideai/run/*.json`) that
  cannot be parsed is *set aside*: renamed to `NAME.corrupt-<timestamp>` beside it, bytes
  intact, so the daemon starts afresh and can save again. A file from a newer idea is left
  alone instead (that idea will read it again).
- A file the user writes or commits (`config.toml`, `profiles.json`, `.ideai/*.json`) is
  left alone and never overwritten; the daemon runs on defaults in memory.

Either way the problem is reported once: logged, and kept for the status line of the
clients that attach.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from adapters.store.atomic import set_aside
from core.errors import CorruptFile, StoreError

log = logging.getLogger(__name__)


def recover(error: StoreError, path: Path, fallback: str) -> tuple[str, bool]:
    """Set a damaged idea-only file aside; returns (message for the user, set aside?).

    Args:
        error: Why the file could not be used.
        path: The file.
        fallback: What the daemon does without it ("windows start empty").
    """
    if isinstance(error, CorruptFile):
        try:
            kept = set_aside(path)
        except StoreError as refused:
            message = (f"{error.message} Setting it aside failed too ({refused.message}); "
                       f"{fallback}.")
            log.error("%s", message)
            return message, False
        message = (f"{path} cannot be read: {error.detail}. It was kept as {kept.name} "
                   f"and idea goes on without it: {fallback}.")
        log.error("%s", message)
        return message, True
    message = f"{error.message} ({fallback})"
    log.error("%s", message)
    return message, False


def check_user_file(load: Callable[[], object], fallback: str) -> str | None:
    """Read a user's file once at start; a message when it cannot be used (left alone)."""
    try:
        load()
    except StoreError as error:
        message = f"{error.message} ({fallback})"
        log.error("%s", message)
        return message
    return None


def check_idea_file(load: Callable[[], object], path: Path, fallback: str) -> str | None:
    """Read an idea-only file once at start; set it aside when it is damaged."""
    try:
        load()
    except StoreError as error:
        return recover(error, path, fallback)[0]
    return None
