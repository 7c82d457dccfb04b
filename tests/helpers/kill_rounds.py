"""`kill -9` of the daemon during layout writes (issue 7), shared by the suite
(`tests/e2e/test_kill_during_writes.py`, a few rounds) and the long run
(`bench/kill_during_writes.py --rounds 200`).

One round: `idea open` starts a daemon, which must restore the workspace exactly as the files
on disk say (every leaf of every project's active page is a running cell, no file reported
unreadable); a thread then drives a storm of layout edits (border moves, swaps, equalize,
undo/redo, a split and its close) through the socket, and after a random delay the daemon is
killed with SIGKILL. Every file idea commits or keeps (`.ideai/layouts.json`,
`.ideai/project.json`, `workspace.json`, `projects.json`) must then still parse and decode.
"""

from __future__ import annotations

import json
import os
import random
import signal
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.store.layouts_codec import decode_layouts
from core.layout.model import iter_leaves
from idea_tui.control import CommandFailed, ControlClient, DaemonError
from tests.helpers.idea import IdeaEnv, process_alive
from tests.helpers.retry import retry_until

PROJECTS = ("alpha", "beta")


@dataclass
class RoundStats:
    """What the rounds did."""

    rounds: int = 0
    edits: Counter[str] = field(default_factory=Counter)
    temp_files_left: int = 0
    """Rounds whose kill left a `.NAME.XXXX.tmp` made during the round: it landed inside a
    write, between the temp file and the rename."""
    layout_changed: int = 0
    """Rounds after which layouts.json differed from before the storm."""
    most_temp_files: int = 0
    """The most temp files seen at once in the folders (stale ones go at the next write)."""


def build(idea: IdeaEnv) -> list[Path]:
    """Two projects with a few cells each (borders to drag, cells to swap)."""
    roots = []
    for name in PROJECTS:
        root = idea.new_project(name)
        idea.run("split", "-h")
        idea.run("split", "-v")
        roots.append(root)
    return roots


def committed_files(idea: IdeaEnv, roots: list[Path]) -> list[Path]:
    data = idea.locations.data
    files = [data / "workspace.json", data / "projects.json"]
    for root in roots:
        files += [root / ".ideai" / "layouts.json", root / ".ideai" / "project.json"]
    return files


def check_files(idea: IdeaEnv, roots: list[Path]) -> None:
    """Every committed file parses (and layouts decode, invariants included)."""
    for path in committed_files(idea, roots):
        text = path.read_text(encoding="utf-8")
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise AssertionError(f"{path} does not parse after kill -9: {exc}") from exc
        if path.name == "layouts.json":
            decode_layouts(data, str(path))


def expected_cells(roots: list[Path]) -> dict[str, set[str]]:
    """Leaf ids of each project's active page, as the files on disk say."""
    expected = {}
    for root in roots:
        layouts = decode_layouts(json.loads((root / ".ideai" / "layouts.json").read_text()))
        expected[root.name] = {leaf.id for leaf in iter_leaves(layouts.active.tree.root)}
    return expected


def check_restored(idea: IdeaEnv, roots: list[Path]) -> None:
    """The daemon just started restored exactly what the files say, with nothing reported."""
    expected = expected_cells(roots)
    listing: dict[str, Any] = idea.json("ls")
    problems = [problem for window in listing["windows"] for project in window["projects"]
                for problem in project["problems"]] + list(listing.get("problems", []))
    assert problems == [], problems
    cells: list[dict[str, Any]] = idea.json("list-cells", "--all")
    restored: dict[str, set[str]] = {}
    for cell in cells:
        restored.setdefault(cell["project"], set()).add(cell["id"])
    assert restored == expected, (restored, expected)
    assert all(cell["running"] for cell in cells), cells


def storm(idea: IdeaEnv, stats: RoundStats, stop: threading.Event, seed: int) -> None:
    """Layout edits as fast as the daemon answers, until it dies or `stop` is set."""
    rng = random.Random(seed)
    edits: list[tuple[str, dict[str, Any]]] = [
        ("resize", {"side": "right", "cells": 2}), ("resize", {"side": "left", "cells": 3}),
        ("resize", {"side": "down", "cells": 1}), ("resize", {"side": "up", "cells": 1}),
        ("swap", {"direction": "next"}), ("equalize", {}), ("undo", {}),
        ("undo", {"redo": True}), ("select", {"direction": "next"}),
    ]
    try:
        with ControlClient.connect(idea.locations) as client:
            while not stop.is_set():
                if rng.random() < 0.05:
                    [created] = client.call("split", direction="right")["cells"]
                    stats.edits["split"] += 1
                    client.call("close", target=f"%{created}", force=True)
                    stats.edits["close"] += 1
                    continue
                method, params = rng.choice(edits)
                try:
                    client.call(method, **params)
                except CommandFailed:
                    pass  # nothing to undo, no cell on that side: the edit was a no-op
                stats.edits[method] += 1
    except (DaemonError, OSError, CommandFailed):
        return  # the daemon was killed under us: what the round is about


def one_round(idea: IdeaEnv, roots: list[Path], rng: random.Random, stats: RoundStats,
              max_delay: float = 0.5) -> None:
    idea.run("open", str(roots[0]))
    check_restored(idea, roots)
    pid = idea.daemon_pid()
    assert pid is not None
    before = [(r / ".ideai" / "layouts.json").read_bytes() for r in roots]
    round_started = time.time()
    stop = threading.Event()
    thread = threading.Thread(target=storm, args=(idea, stats, stop, rng.randrange(2**32)))
    edits_before = sum(stats.edits.values())
    thread.start()
    # Kill once edits are flowing, at a random moment of the storm.
    retry_until(lambda: sum(stats.edits.values()) > edits_before + 3 or None, 30)
    threading.Event().wait(rng.uniform(0.0, max_delay))
    os.kill(pid, signal.SIGKILL)
    retry_until(lambda: not process_alive(pid), 10, describe=f"daemon {pid} still alive")
    stop.set()
    thread.join(30)
    assert not thread.is_alive(), "the edit storm did not stop"
    stats.rounds += 1
    folders = [r / ".ideai" for r in roots] + [idea.locations.data]
    temps = [path for folder in folders for path in folder.glob(".*.tmp")]
    stats.most_temp_files = max(stats.most_temp_files, len(temps))
    if any(path.stat().st_mtime >= round_started for path in temps):
        stats.temp_files_left += 1
    if [(r / ".ideai" / "layouts.json").read_bytes() for r in roots] != before:
        stats.layout_changed += 1
    check_files(idea, roots)
