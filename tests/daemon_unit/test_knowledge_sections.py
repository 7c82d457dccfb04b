"""`# Project memory` and `# Project context` at launch (idea_daemon/knowledge_sections.py),
on real files: bounded, refreshed when the index changes, left out when a file is unusable."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from adapters.store.memory_store import FsMemoryStore
from core.knowledge.limits import CONTEXT_INJECT_MAX_CHARS
from core.knowledge.memory_index import IndexEntry
from idea_daemon.knowledge_sections import MemorySections, project_context_section

SEED = Path(__file__).parents[1] / "fixtures" / "seed_memory"


def seeded(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(SEED, root / ".ideai" / "memory")
    return root


def test_the_section_follows_the_index_as_it_changes(tmp_path: Path) -> None:
    root = seeded(tmp_path)
    sections = MemorySections()
    first = sections.section(str(root), "Git keeper: commits and branches", mcp=True)
    assert first is not None and "The project keeps 7 durable notes" in first
    assert first.index("git-owns-commit-merge-decisions") < first.index("session-limit")
    store = FsMemoryStore()
    index = store.index(root)
    assert index is not None
    store.write_index(root, index.upsert(IndexEntry("branch-naming", "Branches are named "
                                                    "feature/<topic>")))
    again = sections.section(str(root), "Git keeper: commits and branches", mcp=False)
    assert again is not None and "8 durable notes" in again
    assert "- [branch-naming](branch-naming.md)" in again
    assert "`.ideai/memory/<slug>.md`" in again and "idea_memory_read" not in again


def test_a_damaged_index_leaves_the_section_out(tmp_path: Path) -> None:
    root = seeded(tmp_path)
    index = root / ".ideai" / "memory" / "MEMORY.md"
    index.write_text(index.read_text() + "- [x](y.md) — broken\n")
    assert MemorySections().section(str(root), "anyone", mcp=True) is None
    assert MemorySections().section(str(tmp_path / "no-project"), "anyone", mcp=True) is None


def test_the_project_context_is_bounded_and_never_followed_out(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / ".ideai").mkdir(parents=True)
    assert project_context_section(str(root), mcp=True) is None
    context = root / ".ideai" / "CONTEXT.md"
    context.write_text("# Rules\n\nShort.\n")
    assert project_context_section(str(root), mcp=True) == "# Rules\n\nShort.\n"
    context.write_text("- a rule that every agent follows\n" * 2000)
    cut = project_context_section(str(root), mcp=True)
    assert cut is not None and len(cut) < CONTEXT_INJECT_MAX_CHARS + 200
    assert cut.endswith("read it whole with `idea_context_read()`.]")
    assert "\n- a rule that every agent follows\n\n[The project context continues" in cut
    secret = tmp_path / "secret.txt"
    secret.write_text("outside the project")
    context.unlink()
    os.symlink(secret, context)
    assert project_context_section(str(root), mcp=True) is None
    context.unlink()
    context.write_bytes(b"# R\xff\xfe\n")  # not UTF-8: injected with replacement characters
    shown = project_context_section(str(root), mcp=True)
    assert shown is not None and shown.startswith("# R")
