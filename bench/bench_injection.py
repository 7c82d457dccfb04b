"""How much of a project's shared knowledge reaches an agent at launch (issue 9).

Run: `.venv/bin/python bench/bench_injection.py [--notes 200] [--agents 50]`.
Not part of the test command; its times depend on the machine (compare runs, not absolutes).

A project on disk with `--notes` memory notes (written by the real store, index kept in
step, realistic descriptions), a CONTEXT.md of 40 KB and `--agents` agents with different
roles. For each agent the daemon's own code composes the launch context exactly as
`idea_daemon/agent_launch.py:context_sections` does (orchestration section for the whole
team, project context, persona, memory recalled for the agent), and the figures are printed
side by side with the peer — the seed's way, which injected the whole index, and what
injecting the notes' bodies would cost:

- `# Project memory` and `# Project context` sizes (min / median / max over the agents),
  against their bounds (MEMORY_INJECT_MAX_CHARS, CONTEXT_INJECT_MAX_CHARS);
- the whole composed context per agent;
- the time to compose one (cold: the index parsed; warm: cached), median and p99.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _harness import format_table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adapters.store.memory_store import FsMemoryStore  # noqa: E402
from core.agents.agent import Agent  # noqa: E402
from core.agents.context import ContextSections, compose_context  # noqa: E402
from core.knowledge.limits import (  # noqa: E402
    CONTEXT_INJECT_MAX_CHARS,
    MEMORY_INJECT_MAX_CHARS,
    MEMORY_INJECT_MAX_NOTES,
)
from core.knowledge.memory_index import IndexEntry, new_index  # noqa: E402
from core.knowledge.note import Note  # noqa: E402
from idea_daemon.knowledge_sections import MemorySections, project_context_section  # noqa: E402
from idea_daemon.orchestration.context import orchestration_section  # noqa: E402

TOPICS = ["build", "deploy", "database", "migration", "frontend", "css", "api", "auth",
          "testing", "flaky", "release", "changelog", "git", "branching", "review", "docs",
          "performance", "cache", "logging", "monitoring", "security", "permissions",
          "sandbox", "payments", "search", "i18n", "accessibility", "mobile", "ci", "docker"]
ROLES = ["backend developer", "frontend developer", "QA engineer", "release manager",
         "security reviewer", "database administrator", "technical writer", "git keeper",
         "performance engineer", "designer"]


def make_project(root: Path, notes: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    store = FsMemoryStore()
    (root / ".ideai").mkdir(parents=True)
    index = new_index()
    for number in range(notes):
        words = rng.sample(TOPICS, 3)
        slug = f"{words[0]}-{words[1]}-{number}"
        description = (f"How we handle {words[0]} and {words[1]} around {words[2]}: the "
                       f"decision, its reasons and the steps (note {number})")
        body = f"# {slug}\n\n" + ("Details that only matter once you read the note. " * 40)
        store.write_note(root, Note(slug, description, "project", body + "\n"))
        index = index.upsert(IndexEntry(slug, description))
    store.write_index(root, index)
    rule = "- Every change goes through review; run `make check` before asking for one.\n"
    (root / ".ideai" / "CONTEXT.md").write_text("# Rules\n\n" + rule * 520)


def personas(count: int) -> list[tuple[Agent, str]]:
    rng = random.Random(3)
    team = []
    for number in range(count):
        role = ROLES[number % len(ROLES)]
        focus = ", ".join(rng.sample(TOPICS, 4))
        persona = (f"# Agent {number}\n\nYou are the team's {role}. You care about {focus}. "
                   "Keep changes small and explain them.\n")
        team.append((Agent(f"agent-{number:03d}", f"Agent{number:03d}", f"agents/{number}.md",
                           "claude-code"), persona))
    return team


def compose(root: str, agent: Agent, persona: str, team: list[tuple[Agent, str]],
            memory: MemorySections) -> tuple[str, str | None, str | None]:
    orchestration = orchestration_section(agent, [(a, "Claude Code") for a, _ in team],
                                          mcp=True)
    shared = project_context_section(root, mcp=True)
    recalled = memory.section(root, f"{agent.name}\n{persona}", mcp=True)
    text = compose_context(ContextSections(
        project_root=f"You work in the project `bench`, rooted at `{root}`.",
        orchestration=orchestration, project_context=shared, persona=persona,
        memory=recalled))
    return text, recalled, shared


def spread(values: list[int]) -> str:
    return f"{min(values):,} / {int(statistics.median(values)):,} / {max(values):,}"


def millis(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"{statistics.median(ordered) * 1000:.2f} / {p99 * 1000:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=200)
    parser.add_argument("--agents", type=int, default=50)
    args = parser.parse_args()
    return run(args.notes, args.agents)


def run(notes: int = 200, agents: int = 50) -> int:
    """Print the figures; 1 when a bound is exceeded (also run by bench_knowledge.py)."""
    args = argparse.Namespace(notes=notes, agents=agents)
    with tempfile.TemporaryDirectory(prefix="idea-bench-injection-") as folder:
        root = Path(folder) / "bench"
        make_project(root, args.notes)
        team = personas(args.agents)
        memory_sizes, context_sizes, totals, lines = [], [], [], []
        cold: list[float] = []
        warm: list[float] = []
        for agent, persona in team:
            fresh = MemorySections()
            started = time.perf_counter()
            compose(str(root), agent, persona, team, fresh)
            cold.append(time.perf_counter() - started)
        shared_memory = MemorySections()
        compose(str(root), *team[0], team, shared_memory)
        for agent, persona in team:
            started = time.perf_counter()
            text, recalled, shared = compose(str(root), agent, persona, team, shared_memory)
            warm.append(time.perf_counter() - started)
            memory_sizes.append(len(recalled or ""))
            context_sizes.append(len(shared or ""))
            totals.append(len(text))
            lines.append(sum(1 for line in (recalled or "").splitlines()
                             if line.startswith("- [")))
        index_text = (root / ".ideai" / "memory" / "MEMORY.md").read_text()
        bodies = sum(len(p.read_text()) for p in (root / ".ideai" / "memory").glob("*.md")
                     if p.name != "MEMORY.md")
        context_text = (root / ".ideai" / "CONTEXT.md").read_text()
        print(f"{args.notes} memory notes, {args.agents} agents, CONTEXT.md of "
              f"{len(context_text):,} characters\n")
        print(format_table(
            ["what reaches one agent (chars)", "idea: min / median / max", "bound",
             "peer: whole index", "peer: note bodies"],
            [["# Project memory", spread(memory_sizes), f"{MEMORY_INJECT_MAX_CHARS:,} (+ "
              "head and tail)", f"{len(index_text):,}", f"{bodies:,}"],
             ["  index lines", spread(lines), f"{MEMORY_INJECT_MAX_NOTES}",
              f"{args.notes}", f"{args.notes}"],
             ["# Project context", spread(context_sizes), f"{CONTEXT_INJECT_MAX_CHARS:,}",
              f"{len(context_text):,}", ""],
             ["whole composed context", spread(totals), "", "", ""]]))
        ratio = len(index_text) / max(1, statistics.median(memory_sizes))
        print(f"\nmemory injected: {ratio:.1f}x smaller than the whole index, "
              f"{bodies / max(1, statistics.median(memory_sizes)):.0f}x smaller than the bodies")
        print("\n" + format_table(
            ["compose one launch context", "median / p99 ms"],
            [["cold (index parsed)", millis(cold)], ["warm (index cached)", millis(warm)]]))
        over = [i for i, size in enumerate(memory_sizes) if size > MEMORY_INJECT_MAX_CHARS + 400]
        if over or max(lines) > MEMORY_INJECT_MAX_NOTES:
            print("BOUND EXCEEDED", over)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
