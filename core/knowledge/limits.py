"""Bounds of project memory and project context (FEATURES.md MEM-*, CTX-*).

An agent writes these files through tools with arguments of any size, and their text is
injected into every launch, so each has a limit: a write above it is refused with the limit
in the message, and what reaches an agent at launch is bounded again (PRN-8, PRN-11).
"""

from __future__ import annotations

MEMORY_SLUG_MAX = 80
"""Characters of a memory slug (the note's file stem)."""

MEMORY_NOTE_MAX_CHARS = 32_000
"""Characters of one memory note, frontmatter included (a note is distilled knowledge, not a
log)."""

MEMORY_DESCRIPTION_MAX = 240
"""Characters of a note's description (its index line)."""

MEMORY_NOTE_MAX_BYTES = 256 * 1024
"""A note file larger than this is refused before it is read (it is not a note of ours)."""

MEMORY_INDEX_MAX_BYTES = 512 * 1024
"""`MEMORY.md` larger than this is refused before it is read (2,000 notes fit)."""

MEMORY_MAX_NOTES = 2_000
"""Notes a project may hold; a write that would add one more is refused."""

MEMORY_INJECT_MAX_NOTES = 12
"""Index lines `# Project memory` gives an agent at launch."""

MEMORY_INJECT_MAX_CHARS = 2_000
"""Characters of the index lines injected at launch (each line is cut at
`MEMORY_INJECT_LINE_MAX`)."""

MEMORY_INJECT_LINE_MAX = 240

RECALL_QUERY_MAX_CHARS = 8_000
"""Characters of the persona used as the recall query (its start says who the agent is)."""

CONTEXT_MAX_CHARS = 32_000
"""Characters of `.ideai/CONTEXT.md` written through idea, and of a proposal."""

CONTEXT_FILE_MAX_BYTES = 256 * 1024
"""A CONTEXT.md (or persona) larger than this is refused before it is read."""

CONTEXT_INJECT_MAX_CHARS = 6_000
"""Characters of the project context injected at launch; beyond, the section says how to
read the rest."""

PROPOSALS_MAX_PENDING = 50
"""Pending proposals a project keeps; an agent proposing more is told to wait for review."""

PERSONA_MAX_CHARS = 64_000
"""Characters of an agent persona written through `idea_update_context`."""
