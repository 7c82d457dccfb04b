"""Level-1 session-limit readers (SLM-2): what the real CLIs write, machine-readably, when
they hit their provider's usage limit. One module per CLI, each a
`core.session_limits.LimitReader`; docs/profiles.md records what each CLI writes."""

from adapters.limits.claude import ClaudeTranscriptReader
from adapters.limits.codex import CodexSessionReader


def builtin_readers() -> list[ClaudeTranscriptReader | CodexSessionReader]:
    """One reader per CLI idea knows the files of (Claude Code, Codex)."""
    return [ClaudeTranscriptReader(), CodexSessionReader()]


__all__ = ["ClaudeTranscriptReader", "CodexSessionReader", "builtin_readers"]
