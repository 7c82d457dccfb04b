"""Each injection strategy delivers the same composed context (D7, D19).

Five profiles run the fake agent, one per way the context can reach a CLI: a convention
file in the run dir (the cwd), a flag with the text, a flag with the file's path, typed
input (a bracketed paste once the prompt shows) and an environment variable naming the file.
Every agent reports what it received: the texts must be byte-identical, laid out in D7's
order with no empty section, and the user's own CLAUDE.md/AGENTS.md stay as they were.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from tests.e2e_agents.helpers import CONTEXT_VAR, Agents, fake_profile, snapshot
from tests.helpers.idea import IdeaEnv

pytestmark = pytest.mark.e2e

STRATEGIES = ("conventionFile", "flag", "flag-path", "stdin", "env")
USER_CLAUDE = "# The user's own CLAUDE.md\n\nNever touched by idea.\n"
USER_AGENTS = "# The user's own AGENTS.md\n\nNot idea's either.\n"
SHARED = "Shared by every agent: the build is `make`, the tests `make check`.\n"
EMPTY_TITLES = ("Available skills", "Project memory", "Project state", "Conversation resume")
"""D7 sections that have no content yet in this product stage: they must be left out."""


def persona(name: str, size: int = 0) -> str:
    """A persona with a heading, some non-ASCII text and, with `size`, filler up to it."""
    text = (f"# {name}\n\n## Role\n\nReviews every change — naïve code, émoji 🙂 and all.\n\n"
            "## Done means\n\nThe checks pass.\n")
    line = "- check the diff, then the tests, then the docs; say what was found.\n"
    while len(text.encode()) < size:
        text += line
    return text


def headings(text: str) -> list[str]:
    return re.findall(r"^# (.+)$", text, re.MULTILINE)


def assert_d7_layout(content: str, persona_text: str, shared: str | None) -> None:
    """`# Project root` first, `# idea orchestration` (issue 8: the team, how to delegate and
    reply), then `# Project context` (when there is one), then the persona as written; no
    section without content."""
    assert content.startswith("# Project root\n\n"), content[:200]
    assert content.index("# Project root") < content.index("# idea orchestration\n\n")
    assert content.index("# idea orchestration") < content.index(persona_text.rstrip("\n"))
    if shared is not None:
        assert content.index("# idea orchestration") < content.index("# Project context")
    if shared is None:
        assert "# Project context" not in content
        assert content.index(persona_text.rstrip("\n")) > 0
    else:
        assert f"# Project context\n\n{shared}" in content
        assert (content.index("# Project root") < content.index("# Project context")
                < content.index(persona_text.rstrip("\n")))
    assert content.endswith(persona_text), "the persona comes last, byte for byte"
    titles = headings(content)
    assert not set(EMPTY_TITLES) & set(titles), titles
    # No heading is directly followed by another one: every section has a body.
    assert not re.search(r"^# .+\n+# ", content, re.MULTILINE), content


def launch_all(idea: IdeaEnv, strategies: tuple[str, ...], persona_text: str,
               shared: str | None) -> tuple[Agents, dict[str, bytes]]:
    """A project with the user's own CLAUDE.md/AGENTS.md (and `.ideai/CONTEXT.md` when
    `shared`), one background agent per strategy with the same persona; the context each
    received, checked against what the daemon wrote in its run dir."""
    project = idea.new_project("proj")
    (project / "CLAUDE.md").write_text(USER_CLAUDE)
    (project / "AGENTS.md").write_text(USER_AGENTS)
    if shared is not None:
        (project / ".ideai" / "CONTEXT.md").write_text(shared)
    user_files = snapshot([project / "CLAUDE.md", project / "AGENTS.md"])
    agents = Agents(idea, project)
    launched: dict[str, str] = {}
    names: dict[str, str] = {}
    # The whole team first: the `# idea orchestration` section lists it, and the same inputs
    # must give every strategy the same text.
    for strategy in strategies:
        agents.add_profile(fake_profile(f"fake-{strategy}", strategy))
        created = agents.new(f"Reviewer {strategy}", f"fake-{strategy}", persona_text)
        launched[strategy], names[strategy] = created["id"], created["name"]
    for strategy in strategies:
        agents.launch(names[strategy], "--background")

    contents: dict[str, bytes] = {}
    for strategy, agent_id in launched.items():
        reported = "flag" if strategy == "flag-path" else strategy
        report, context = agents.contexts(agent_id, reported)
        assert "error" not in context, context
        data = context["content"].encode("utf-8")
        assert context["bytes"] == len(data)
        assert context["sha256"] == hashlib.sha256(data).hexdigest()
        contents[strategy] = data
        run_dir = agents.run_dir(agent_id)
        # D19: the agent works in the project root; only the conventionFile profile asks
        # for its run dir, where its CLAUDE.md is written.
        expected_cwd = run_dir if strategy == "conventionFile" else project
        assert Path(report["cwd"]) == expected_cwd
        if strategy == "conventionFile":
            assert context["source"] == "CLAUDE.md"  # looked up in its cwd, the run dir
            assert (run_dir / "CLAUDE.md").read_bytes() == (run_dir / "context.md").read_bytes()
        if strategy == "flag-path":
            assert context["source"] == str(run_dir / "context.md")
        if strategy == "stdin":
            assert context["source"] == "paste", "typed as one bracketed paste"
            assert report["messages"] == [], "the context is not also taken as a message"
        if strategy == "env":
            assert report["env"][CONTEXT_VAR] == str(run_dir / "context.md")
        assert report["env"]["IDEA_AGENT"] == agent_id
    assert snapshot([project / "CLAUDE.md", project / "AGENTS.md"]) == user_files
    assert not (project / "GEMINI.md").exists()
    return agents, contents


def test_every_strategy_delivers_the_same_composed_context(idea: IdeaEnv) -> None:
    text = persona("Reviewer", size=3000)
    agents, contents = launch_all(idea, STRATEGIES, text, SHARED)
    reference = contents["conventionFile"]
    different = [s for s, data in contents.items() if data != reference]
    assert not different, f"these strategies got another text: {different}"
    assert set(contents) == set(STRATEGIES)
    assert_d7_layout(reference.decode(), text, SHARED)
    for agent in agents.list():
        assert (agents.run_dir(agent["id"]) / "context.md").read_bytes() == reference


def test_no_project_context_section_without_context_md(idea: IdeaEnv) -> None:
    text = persona("Solo")
    _, contents = launch_all(idea, ("flag",), text, None)
    content = contents["flag"].decode()
    assert_d7_layout(content, text, None)
    assert headings(content) == ["Project root", "idea orchestration", "Solo"]


def test_a_context_over_8_kb_typed_on_stdin_arrives_whole(idea: IdeaEnv) -> None:
    project = idea.new_project("big")
    (project / ".ideai" / "CONTEXT.md").write_text(SHARED * 40)
    agents = Agents(idea, project)
    agents.add_profile(fake_profile("fake-stdin", "stdin"))
    text = persona("Archivist", size=60_000)
    created = agents.new("Archivist", "fake-stdin", text)
    launched = agents.launch("Archivist")
    report, context = agents.contexts(created["id"], "stdin")
    expected = (agents.run_dir(created["id"]) / "context.md").read_text(encoding="utf-8")
    assert len(expected) > 60_000
    assert context["source"] == "paste"
    assert report["bracketedPaste"] is True
    # Whole: every byte, in order.
    assert context["bytes"] == len(expected.encode())
    assert context["content"] == expected
    assert_d7_layout(context["content"], text, SHARED * 40)
    # The agent is still live and takes a message after the context.
    idea.send_keys(launched["target"], "hello after the context", "Enter")
    agents.capture(launched["target"], r"reply: hello after the context")
