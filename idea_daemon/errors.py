"""Errors the daemon's commands report to clients, with a code telling them what to offer."""

from __future__ import annotations

from core.errors import IdeaError


class CommandError(IdeaError):
    """A command that cannot be carried out as asked; `code` tells clients what to offer."""

    def __init__(self, message: str, code: str = "error") -> None:
        super().__init__(message)
        self.code = code


class ConfirmationNeeded(CommandError):
    """The action would end running programs: the caller must ask, then pass force."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "confirm")
