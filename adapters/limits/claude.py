"""Level 1 for Claude Code (2.1.332): its session transcript.

Claude Code writes every conversation to `<config>/projects/<cwd>/<session id>.jsonl`, where
`<config>` is `$CLAUDE_CONFIG_DIR` or `~/.claude` and `<cwd>` the working directory with
every character other than an ASCII letter or digit replaced by `-` (cut at 200 characters
plus a hash beyond; then the file is found by its id alone). idea starts Claude with
`--session-id`, so the id is known at launch.

At a usage limit (a 429 whose `anthropic-ratelimit-unified-status` is `rejected`, for a
subscription login) it records an assistant line:

    {"type": "assistant", "timestamp": "2026-12-01T16:20:54.370Z", "isApiErrorMessage": true,
     "error": "rate_limit", "apiError": "usage_limit_reached", "apiErrorStatus": 429,
     "apiErrorParams": {"rate_limit_info": {"status": "rejected", "resetsAt": 1796151420,
                                            "rateLimitType": "five_hour", ...}},
     "quotaLimits": {"resetsAt": 1796151420, ...},
     "message": {"model": "<synthetic>",
                 "content": [{"type": "text",
                              "text": "You've hit your limit · resets 6:57pm (UTC)"}]}}

With a token or API key, the same answer is recorded as `"error": "rate_limit"` with no
reset anywhere: a limit of unknown end. A later assistant line that is not an API error is
the model answering again (Claude Code continues by itself at the reset when its setting
`autoContinueAtUsageLimit` is on, the default): the limit is over.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from adapters.limits.base import TailedReader, Tracked, folder_from_env, timestamp
from core.session_limits import LimitLevel, LimitQuery, LimitSignal, bounded_text, parse_epoch

PROJECT_DIR_LIMIT = 200
"""Claude Code cuts a project folder name past this many characters (and adds a hash)."""

_NOT_ALNUM = re.compile(r"[^a-zA-Z0-9]")

SYNTHETIC = "<synthetic>"
"""The `model` of an assistant line Claude Code wrote itself (its API error messages, and
any other note of its own): never the model answering."""


def project_folder_name(cwd: str) -> str | None:
    """The folder under `projects/` Claude Code uses for `cwd`, or None past 200 characters
    (the hashed form is not reproduced: the file is then found by its id)."""
    name = _NOT_ALNUM.sub("-", cwd)
    return name if len(name) <= PROJECT_DIR_LIMIT else None


def _text_of(message: Any) -> str:
    if not isinstance(message, dict):
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content
                        if isinstance(part, dict) and part.get("type") == "text")
    return ""


class ClaudeTranscriptReader(TailedReader):
    name = "claude-transcript"
    commands = ("claude",)
    needles = (b'"type":"assistant"',)

    def locate(self, query: LimitQuery) -> Path | None:
        config = folder_from_env(query.env, "CLAUDE_CONFIG_DIR", ".claude")
        if config is None:
            return None
        projects = config / "projects"
        file_name = f"{query.conversation_id}.jsonl"
        for cwd in dict.fromkeys((os.path.realpath(query.project_root),
                                  str(query.project_root))):
            folder = project_folder_name(cwd)
            if folder is not None and (projects / folder / file_name).is_file():
                return projects / folder / file_name
        # A long cwd (hashed folder name), or a cwd other than the one given: by id alone.
        found = sorted(projects.glob(f"*/{file_name}")) if projects.is_dir() else []
        return found[0] if found else None

    def consider(self, record: dict[str, Any], tracked: Tracked, query: LimitQuery) -> None:
        if record.get("type") != "assistant" or record.get("isSidechain") is True:
            return
        if not record.get("isApiErrorMessage"):
            message = record.get("message")
            if not isinstance(message, dict) or message.get("model") != SYNTHETIC:
                tracked.answered(record)  # the model answered: whatever limit there was is over
            return
        if record.get("apiError") != "usage_limit_reached" and record.get("error") != \
                "rate_limit":
            return  # another API error (overloaded, authentication…): not a usage limit
        params = record.get("apiErrorParams")
        info = params.get("rate_limit_info") if isinstance(params, dict) else None
        quota = record.get("quotaLimits")
        resets_at = None
        for source in (info, quota):
            if isinstance(source, dict) and resets_at is None:
                value = source.get("resetsAt")
                if isinstance(value, int | float) and not isinstance(value, bool):
                    resets_at = parse_epoch(value)
        text = _text_of(record.get("message")) or str(record.get("apiError") or "rate_limit")
        tracked.limited(LimitSignal(
            level=LimitLevel.STRUCTURED,
            resets_at=resets_at,
            source=str(tracked.tail.path),
            text=bounded_text(text),
            observed_at=timestamp(record),
        ))
