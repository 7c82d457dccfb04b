"""Fixed git data for the client's git screens, shaped as the daemon sends it."""

from __future__ import annotations

from typing import Any

import msgspec

from core.git.graph import layout
from core.git.model import LogEntry, Person
from idea_daemon.git_wire import log_entry

STATUS: dict[str, Any] = {
    "root": "/home/user/web", "adapter": "git", "branch": "feature/login", "head": "4f2a9c1e",
    "detached": False, "upstream": "origin/feature/login", "ahead": 2, "behind": 1,
    "state": "none",
    "staged": [{"path": "src/auth.py", "kind": "tracked", "staged": "M"},
               {"path": "docs/login.md", "kind": "tracked", "staged": "A"}],
    "unstaged": [{"path": "src/app.py", "kind": "tracked", "unstaged": "M"},
                 {"path": "old/legacy.py", "kind": "tracked", "unstaged": "D"}],
    "untracked": [{"path": "notes.txt", "kind": "untracked"}],
    "conflicted": [],
}

APP_DIFF: list[dict[str, Any]] = [{
    "path": "src/app.py", "change": "M", "binary": False, "truncated": False, "added": 3,
    "removed": 1,
    "hunks": [
        {"header": "@@ -1,6 +1,7 @@", "lines": [
            [" ", "from flask import Flask", False],
            ["-", "from auth import check", False],
            ["+", "from auth import check, login_required", False],
            ["+", "import logging", False],
            [" ", "", False],
            [" ", "app = Flask(__name__)", False],
            [" ", "", False],
            [" ", "@app.route(\"/\")", False],
        ]},
        {"header": "@@ -20,3 +21,4 @@ def index():", "lines": [
            [" ", "    return render()", False],
            [" ", "", False],
            ["+", "# served behind the proxy", False],
            [" ", "if __name__ == \"__main__\":", False],
        ]},
    ],
}]

COMMIT_FILES: list[dict[str, Any]] = [
    *APP_DIFF,
    {"path": "assets/logo.png", "change": "A", "binary": True, "truncated": False,
     "added": 0, "removed": 0, "hunks": []},
]

_WHO = ("Ada Lovelace", "Grace Hopper", "Linus")


def _history() -> list[dict[str, Any]]:
    """A history with a feature branch merged back and one still open."""
    raw = [
        ("m2", ("c5", "f2"), "Merge branch 'feature/login'", ("HEAD -> main", "origin/main")),
        ("f2", ("f1",), "Log in with a token", ("feature/login",)),
        ("c5", ("c4",), "Fix the footer on small screens", ()),
        ("x1", ("c4",), "Try a new router (WIP)", ("spike/router",)),
        ("f1", ("c4",), "Login form", ()),
        ("c4", ("c3",), "Release 1.2", ("tag: v1.2",)),
        ("c3", ("c2",), "Cache the templates", ()),
        ("c2", ("c1",), "Add the settings page", ()),
        ("c1", (), "First commit", ()),
    ]
    entries = [
        LogEntry(f"{oid}{'0' * 38}", tuple(f"{p}{'0' * 38}" for p in parents),
                 Person(_WHO[n % 3], "dev@example.com", 1_764_000_000 - 3600 * n, 60),
                 subject, refs)
        for n, (oid, parents, subject, refs) in enumerate(raw)
    ]
    rows, _ = layout(entries)
    return [msgspec.to_builtins(log_entry(e, r)) for e, r in zip(entries, rows, strict=True)]


HISTORY = _history()
