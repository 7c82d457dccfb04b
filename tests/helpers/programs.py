"""External programs the real-resource tests need, with one rule for when one is missing.

A missing program skips the test with the reason, except under CI (`CI=true`), where the
machine is meant to have everything: there a missing program fails the test instead of
letting it pass silently.
"""

from __future__ import annotations

import os
import shutil

import pytest


def require_program(name: str) -> str:
    """The path of `name`; skips the test without it (fails it under CI=true)."""
    path = shutil.which(name)
    if path is None:
        reason = f"{name} is not installed"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}, and CI must run every test", pytrace=False)
        pytest.skip(reason)
    return path


def require_tmux() -> str:
    """tmux drives the attached client in end-to-end tests."""
    return require_program("tmux")
