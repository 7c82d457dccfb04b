"""The one rule for ids that become file or folder names (FEATURES.md D23, issue 7).

Committed files (`agents.json`, `layouts.json`) come from other people's clones and are
adopted as they are, so every id that idea turns into a path — `.ideai/run/<agent-id>/`,
`templates/md/<template-id>.md`, and later conversations, memories and skills — is checked
by `id_problem` before any I/O. A safe id is one path component and nothing else:

- a UUID (what idea itself writes) or a slug: ASCII letters, digits, `.`, `_`, `-`;
- starting with a letter or a digit, so never `.`, `..`, a hidden file or an option (`-x`);
- at most 128 characters (well under every file system's name limit).

Everything else is refused: `/` and `\\`, NUL and other control characters, spaces, non-ASCII
letters (which normalise differently on macOS), empty strings.
"""

from __future__ import annotations

import re

MAX_ID_LENGTH = 128

_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*", re.ASCII)

SAFE_ID_RULE = (
    "use letters, digits, '.', '_' or '-' (a UUID or a slug of 128 characters at most, "
    "starting with a letter or a digit)"
)
"""What a safe id looks like, worded for an error message."""


def id_problem(value: str) -> str | None:
    """Why `value` cannot be used as one path component, or None when it can.

    >>> id_problem("a6ced819-b893-4213-b003-9e9dc79b9641") is None, id_problem("qa-2") is None
    (True, True)
    >>> id_problem("../../x")
    "use letters, digits, '.', '_' or '-' (a UUID or a slug of 128 characters at most, \
starting with a letter or a digit)"
    """
    if len(value) > MAX_ID_LENGTH or _SAFE_ID.fullmatch(value) is None:
        return SAFE_ID_RULE
    return None


def is_safe_id(value: object) -> bool:
    """True when `value` is a string `id_problem` accepts."""
    return isinstance(value, str) and id_problem(value) is None
