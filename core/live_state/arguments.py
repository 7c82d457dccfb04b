"""The arguments of "set my work state" (LIV-6), checked the same way whichever door they
come through: the MCP tool `idea_workstate_set` or the file protocol's `workstate.set`
(MCP-6: one dispatch, the same validation and bounds). Type, emptiness and size are checked
before anything is stored; the message says what to send instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.live_state.model import PREVIEW_MAX_CHARS, ROW_MAX_BYTES, STATUS_NAMES, LiveStateError


class BadWorkStateArgument(LiveStateError):
    code = "bad_argument"

    def __init__(self, message: str) -> None:
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class WorkStateArguments:
    status: str
    task: str | None
    note: str | None
    """None: left out, the row keeps its current value."""


def checked_text(name: str, value: object, *, required: bool) -> str | None:
    """A checked string argument: None only when optional and left out.

    Raises:
        BadWorkStateArgument: Missing (when required), not a string, empty, or over the
            row's byte limit.
    """
    if value is None:
        if required:
            raise BadWorkStateArgument(f"{name} is required: one of {', '.join(STATUS_NAMES)}.")
        return None
    if not isinstance(value, str):
        raise BadWorkStateArgument(f"{name} must be a string.")
    if not value.strip():
        if required:
            raise BadWorkStateArgument(
                f"{name} must not be empty: one of {', '.join(STATUS_NAMES)}.")
        raise BadWorkStateArgument(f"{name} is empty; leave it out to keep your current {name}.")
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > ROW_MAX_BYTES:
        raise BadWorkStateArgument(
            f"{name} is {size} bytes; the limit is {ROW_MAX_BYTES} bytes (2 KiB) for your "
            f"whole row. Others read only the first {PREVIEW_MAX_CHARS} characters."
        )
    return value


def workstate_arguments(status: object, task: object, note: object) -> WorkStateArguments:
    """All three checked (the status's value itself is parsed when the row is set)."""
    checked = checked_text("status", status, required=True)
    assert checked is not None
    return WorkStateArguments(checked, checked_text("task", task, required=False),
                              checked_text("note", note, required=False))
