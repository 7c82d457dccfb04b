"""Commit messages as git's `--cleanup=strip` leaves them (so both adapters commit the same
text): comment lines dropped, trailing spaces cut, blank runs collapsed, one final newline.

>>> clean_message("  \\nsubject  \\n\\n\\n# a comment\\nbody\\n\\n")
'subject\\n\\nbody\\n'
"""

from __future__ import annotations


def clean_message(message: str) -> str:
    lines = [ln.rstrip() for ln in message.split("\n") if not ln.startswith("#")]
    out: list[str] = []
    for line in lines:
        if not line and (not out or not out[-1]):
            continue
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n" if out else ""
