"""SVG snapshots of the Memory and Context panels (issue 9) at a fixed 100x30, their data
passed in: the seed's own memory (read by the real store), a damaged index, proposals with
their diff (one stale), and both panels empty. Stored under
`snapshots/test_knowledge_snapshots/`; see snapshots/README.md to update them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from adapters.store.memory_store import FsMemoryStore
from core.knowledge.proposals import text_diff
from idea_tui.screens.context import ContextScreen
from idea_tui.screens.memory import MemoryScreen
from tests.tui.test_agent_snapshots import app, showing

SnapCompare = Callable[..., bool]
SIZE = (100, 30)
SEED = Path(__file__).parents[1] / "fixtures" / "seed_memory"
NOW = 1_781_400_000.0


def seed_listing(tmp_path: Path) -> dict[str, Any]:
    root = tmp_path / "shop"
    folder = root / ".ideai" / "memory"
    folder.mkdir(parents=True)
    for path in SEED.glob("*.md"):
        (folder / path.name).write_bytes(path.read_bytes())
    (folder / "stray-note.md").write_text(
        "---\nname: stray-note\ndescription: A note MEMORY.md does not list\n---\nx\n")
    rows = FsMemoryStore().notes(root)
    return {"folder": "/home/user/shop/.ideai/memory", "problem": None,
            "notes": [asdict(row) for row in rows]}


def test_memory_panel_with_the_seed_notes(snap_compare: SnapCompare, tmp_path: Path) -> None:
    listing = seed_listing(tmp_path)
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: MemoryScreen(None, listing), "down", "down"))


def test_memory_panel_with_a_damaged_index(snap_compare: SnapCompare) -> None:
    listing = {"folder": "/home/user/shop/.ideai/memory",
               "problem": "/home/user/shop/.ideai/memory/MEMORY.md cannot be read: line 4: "
                          "the link of 'deploy' is not deploy.md. idea left the file "
                          "untouched and will not overwrite it; fix or remove it, then reopen.",
               "notes": [{"slug": "deploy", "description": "", "type": "project",
                          "indexed": False, "present": True, "problem": None, "size": 120},
                         {"slug": "broken", "description": "", "type": "", "indexed": False,
                          "present": True, "problem": "frontmatter line 3: expected "
                          "`key: value`, found 'oops'", "size": 40}]}
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: MemoryScreen(None, listing)))


def test_memory_panel_empty(snap_compare: SnapCompare) -> None:
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: MemoryScreen(None, {"folder": "", "problem": None, "notes": []})))


CURRENT = "# Rules\n\n- Every change is reviewed.\n- The build is `make`.\n"
PROPOSED = ("# Rules\n\n- Every change is reviewed.\n- The build is `make check`.\n"
            "- Never push to main directly.\n")


def proposals() -> dict[str, Any]:
    def item(pid: str, author: str, content: str, reason: str, stale: bool,
             age: float) -> dict[str, Any]:
        return {"id": pid, "author": author, "authorId": f"id-{author}",
                "atMs": int((NOW - age) * 1000), "reason": reason, "stale": stale,
                "content": content, "diff": text_diff(CURRENT, content, ".ideai/CONTEXT.md")}

    return {"proposals": [
        item("P1a2b3c4d5e", "Dev", PROPOSED, "main broke twice last week", False, 3600),
        item("P9f8e7d6c5b", "QA", CURRENT + "- Tests run before every merge.\n",
             "", True, 120),
    ], "broken": []}


def test_context_panel_with_proposals_and_a_diff(snap_compare: SnapCompare) -> None:
    context = {"path": "/home/user/shop/.ideai/CONTEXT.md", "exists": True,
               "content": CURRENT, "revision": "r1"}
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: ContextScreen(None, context, proposals(), now=NOW)))


def test_context_panel_stale_proposal_selected(snap_compare: SnapCompare) -> None:
    context = {"path": "/home/user/shop/.ideai/CONTEXT.md", "exists": True,
               "content": CURRENT, "revision": "r1"}
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: ContextScreen(None, context, proposals(), now=NOW), "down"))


def test_context_panel_without_context_or_proposals(snap_compare: SnapCompare) -> None:
    context = {"path": "/home/user/shop/.ideai/CONTEXT.md", "exists": False, "content": "",
               "revision": ""}
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: ContextScreen(None, context, {"proposals": [], "broken": []}, now=NOW)))
