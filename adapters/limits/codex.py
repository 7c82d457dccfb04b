"""Level 1 for Codex CLI (0.171.0): its session file ("rollout").

Codex writes each session to `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`
(`~/.codex` without CODEX_HOME) from the first submitted message; the daemon discovers the
id from that file's name (`session.discover`). Records are `{"timestamp", "type",
"payload"}`. At a usage limit (a 429 whose body's error is `usage_limit_reached`, with
`resets_at`) it records two events:

    {"type": "event_msg", "payload": {"type": "token_count", "rate_limits": {
        "primary": {"used_percent": 100.0, "window_minutes": 300, "resets_at": 1796151480},
        "secondary": null, ...}}}
    {"type": "event_msg", "payload": {"type": "task_complete", "error": {
        "message": "You’ve hit your usage limit. … or try again at 6:58 PM.",
        "codex_error_info": "usage_limit_exceeded"}}}

The windows come from the response's `x-codex-primary-*` / `x-codex-secondary-*` headers
(`used-percent`, `window-minutes`, `reset-at` in epoch seconds). The reset is the latest
`resets_at` of a window at 100 %; without one, the time in the message (local time, read
with the profile's `rateLimitPattern`). A turn that completes without an error, or an
assistant message, is the model answering again: the limit is over.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from adapters.limits.base import TailedReader, Tracked, folder_from_env, local_zone, timestamp
from core.session_limits import (
    LimitLevel,
    LimitQuery,
    LimitSignal,
    bounded_text,
    parse_epoch,
    parse_reset,
)

LIMIT_ERRORS = ("usage_limit_exceeded",)
"""`codex_error_info` values that mean the account is at its usage limit."""

_TRY_AGAIN = re.compile(r"[Tt]ry\s+again\s+at\s+(?P<reset>.{1,60}?)\.?\s*$", re.S)


def _error_kind(info: Any) -> str | None:
    """`codex_error_info` is a bare name (`"usage_limit_exceeded"`) or, for kinds with data,
    an object keyed by the name."""
    if isinstance(info, str):
        return info
    if isinstance(info, dict) and len(info) == 1:
        return str(next(iter(info)))
    return None


def _full_windows(rate_limits: Any) -> list[datetime]:
    """Reset instants of the windows used up (at 100 %)."""
    found = []
    if isinstance(rate_limits, dict):
        for key in ("primary", "secondary"):
            window = rate_limits.get(key)
            if not isinstance(window, dict):
                continue
            used = window.get("used_percent")
            reset = window.get("resets_at")
            if (isinstance(used, int | float) and used >= 100
                    and isinstance(reset, int | float) and not isinstance(reset, bool)):
                instant = parse_epoch(reset)
                if instant is not None:
                    found.append(instant)
    return found


class CodexSessionReader(TailedReader):
    name = "codex-session"
    commands = ("codex",)
    needles = (b'"token_count"', b'"task_complete"', b'"assistant"')

    def locate(self, query: LimitQuery) -> Path | None:
        home = folder_from_env(query.env, "CODEX_HOME", ".codex")
        if home is None or not (home / "sessions").is_dir():
            return None
        found = sorted((home / "sessions").glob(
            f"[0-9]*/[0-9]*/[0-9]*/rollout-*-{query.conversation_id}.jsonl"))
        return found[-1] if found else None

    def consider(self, record: dict[str, Any], tracked: Tracked, query: LimitQuery) -> None:
        payload = record.get("payload")
        if not isinstance(payload, dict):
            return
        kind = payload.get("type")
        if record.get("type") == "response_item":
            if kind == "message" and payload.get("role") == "assistant":
                tracked.answered(record)
            return
        if record.get("type") != "event_msg":
            return
        if kind == "token_count":
            if payload.get("rate_limits") is not None:
                tracked.notes["windows"] = _full_windows(payload.get("rate_limits"))
            return
        if kind != "task_complete":
            return
        error = payload.get("error")
        if not error:
            tracked.answered(record)  # a turn that went through
            return
        if not isinstance(error, dict) or _error_kind(error.get("codex_error_info")) \
                not in LIMIT_ERRORS:
            return
        message = str(error.get("message") or "usage limit")
        windows: list[datetime] = tracked.notes.get("windows") or []
        resets_at = max(windows) if windows else self._from_text(message, query)
        tracked.limited(LimitSignal(
            level=LimitLevel.STRUCTURED,
            resets_at=resets_at,
            source=str(tracked.tail.path),
            text=bounded_text(message),
            observed_at=timestamp(record),
        ))

    @staticmethod
    def _from_text(message: str, query: LimitQuery) -> datetime | None:
        """The reset in the message, read with the profile's pattern when it has one."""
        capture = None
        pattern = query.profile.rate_limit_pattern
        if pattern:
            try:
                match = re.search(pattern, message)
            except re.error:
                match = None
            if match is not None and "reset" in match.groupdict():
                capture = match["reset"]
        if capture is None and (fallback := _TRY_AGAIN.search(message)) is not None:
            capture = fallback["reset"]
        if capture is None:
            return None
        return parse_reset(capture, query.now, local_zone(query.env))
