"""The port the work-state tools drive (FEATURES.md LIV-6): read the project's live-state
rows, set the caller's own row. The daemon's orchestration service implements it; errors are
`IdeaError`s, which the tools turn into `isError` results carrying their message."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from adapters.mcp.identity import Caller


@runtime_checkable
class WorkState(Protocol):
    async def workstate_read(self, caller: Caller) -> list[dict[str, Any]]:
        """The lean rows of the caller's project (names, previews), manifest order."""
        ...

    async def workstate_set(
        self, caller: Caller, status: str, task: str | None, note: str | None
    ) -> dict[str, Any]:
        """Set the caller's row (never another's); a field left out (None) is kept.
        Returns the caller's lean row as stored."""
        ...
