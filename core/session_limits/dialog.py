"""A dialog a CLI opens at its usage limit (issue 10), as profile data.

Codex 0.171.0 at a usage limit (its rate-limit headers at 100 %) prints its limit message
and opens, under it, a three-choice dialog: "Approaching rate limits · Switch to <model> for
lower credit usage?" with `› 1. Switch to <model>` highlighted, `2. Keep current model`,
`3. Keep current model (never show again)`. Anything typed there is not a prompt: Enter
picks the highlighted choice and switches the user's model. So the highlighted row, which
starts with Codex's prompt character, must not pass for an idle composer: the profile lists
the dialog in its `state.blockedScreen` (nothing is delivered while it shows), and names it
in `limitDialog` so that a resume into the same CLI first closes it with its keys (Esc).

`limitDialog`: `{"screen": ["<regex>", ...], "dismiss": "<keys>"}`; the regexes are searched
line by line on the screen, as state rules are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class LimitDialog:
    screen: tuple[re.Pattern[str], ...]
    dismiss: str

    def shown(self, lines: Sequence[str]) -> str | None:
        """The first screen line that shows the dialog, or None."""
        for line in lines:
            if any(pattern.search(line) for pattern in self.screen):
                return line.strip()
        return None


def limit_dialog(extra: Mapping[str, Any]) -> LimitDialog | None:
    """The profile's `limitDialog` (from its extra fields), or None when absent or not
    usable (no valid pattern, no keys): a bad entry never makes idea type blindly, it only
    loses the automatic dismissal (the blocked state rule still holds deliveries)."""
    data = extra.get("limitDialog")
    if not isinstance(data, Mapping):
        return None
    dismiss = data.get("dismiss")
    texts = data.get("screen")
    if not isinstance(dismiss, str) or not dismiss or not isinstance(texts, list):
        return None
    patterns = []
    for text in texts:
        if isinstance(text, str) and text:
            try:
                patterns.append(re.compile(text))
            except re.error:
                continue
    if not patterns:
        return None
    return LimitDialog(tuple(patterns), dismiss)
