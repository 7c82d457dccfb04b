"""The session-limit files of a project (issue 10, D15).

- `.ideai/run/session-limits.json`: which agents are limited and when each resumes, so an
  armed resume survives a daemon restart or a reboot (runtime state, under the ignored
  `run/`).
- `.ideai/fallback.json`: the user's fallback policy ("when limited, continue on profile
  X"), per project and per agent; committed with the project like agents.json.

A file that cannot be read is reported (the message names it) and never overwritten:
`replace_json` re-reads it before each write and refuses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from adapters.store.atomic import read_json, replace_json
from core.errors import CorruptFile, NewerVersion
from core.session_limits.book import BOOK_VERSION, BookFile

BOOK = Path(".ideai") / "run" / "session-limits.json"
POLICY = Path(".ideai") / "fallback.json"
POLICY_VERSION = 1


class FallbackPolicy(msgspec.Struct, kw_only=True, rename="camel", forbid_unknown_fields=True):
    """`.ideai/fallback.json`.

    Attributes:
        project: The profile every agent of the project continues on when limited ("" off).
        agents: Per agent id: its own fallback profile ("" opts it out of the project's).
        swap_back: Go back to the agent's own profile when its limit resets.
    """

    version: int = POLICY_VERSION
    project: str = ""
    agents: dict[str, str] = msgspec.field(default_factory=dict)
    swap_back: bool = True

    def fallback_for(self, agent_id: str, current_profile: str) -> str | None:
        chosen = self.agents.get(agent_id, self.project)
        return chosen if chosen and chosen != current_profile else None


def book_path(root: str) -> Path:
    return Path(root) / BOOK


def policy_path(root: str) -> Path:
    return Path(root) / POLICY


def _check_version(path: Path, data: Any, supported: int) -> None:
    version = data.get("version") if isinstance(data, dict) else None
    if isinstance(version, int) and version > supported:
        raise NewerVersion(path, version, supported)


def _decode_book(path: Path, data: Any) -> BookFile:
    _check_version(path, data, BOOK_VERSION)
    try:
        return msgspec.convert(data, BookFile)
    except msgspec.ValidationError as exc:
        raise CorruptFile(path, str(exc)) from exc


def _decode_policy(path: Path, data: Any) -> FallbackPolicy:
    _check_version(path, data, POLICY_VERSION)
    try:
        return msgspec.convert(data, FallbackPolicy)
    except msgspec.ValidationError as exc:
        raise CorruptFile(path, str(exc)) from exc


class LimitStore:
    """Reads and writes a project's two session-limit files (blocking: small files)."""

    def load_book(self, root: str) -> BookFile:
        """The armed resumes; an absent file is an empty book.

        Raises:
            StoreError: The file cannot be read or decoded (it is left as it is).
        """
        path = book_path(root)
        try:
            data = read_json(path)
        except FileNotFoundError:
            return BookFile()
        return _decode_book(path, data)

    def save_book(self, root: str, book: BookFile) -> None:
        """Write the book (refused, raising, when the file on disk cannot be read)."""
        path = book_path(root)
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_json(path, msgspec.to_builtins(book), lambda data: _decode_book(path, data))

    def load_policy(self, root: str) -> FallbackPolicy:
        path = policy_path(root)
        try:
            data = read_json(path)
        except FileNotFoundError:
            return FallbackPolicy()
        return _decode_policy(path, data)

    def save_policy(self, root: str, policy: FallbackPolicy) -> None:
        path = policy_path(root)
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_json(path, msgspec.to_builtins(policy), lambda data: _decode_policy(path, data))
