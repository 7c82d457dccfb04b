"""Every file the daemon reads when it starts, malformed in every way a crash, a bad merge or
a hand edit leaves it: the daemon still starts, serves, reports the file once, and never
overwrites it (it is left alone, or set aside under a timestamped name with its bytes kept).

Each case seeds a complete, valid installation through the stores themselves (a workspace
with one open project, its layouts, an agent recorded as running in the background, saved
profiles, a config), spoils one file, then runs the real daemon (`bootstrap.build`, restore,
the socket) in this process.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from adapters.locations import Locations, ensure_dirs, locate
from adapters.store.agents_codec import AgentStore
from adapters.store.layouts_codec import LayoutStore, default_layouts
from adapters.store.limits_store import LimitStore
from adapters.store.profiles_codec import ProfileStore
from adapters.store.project_codec import ProjectStore
from adapters.store.registry import ProjectRegistry
from adapters.store.templates_store import TemplateStore
from adapters.store.workspace_codec import WorkspaceStore
from core.agents.agent import Agent, AgentManifest
from core.agents.templates import TemplateDraft
from core.orchestration.journal import encode_journal
from core.orchestration.tickets import Ticket
from core.project import Project
from core.session_limits.book import BookFile, Limit, LimitState
from core.workspace import Window, Workspace
from idea_daemon.orchestration.journal_store import journal_path
from idea_tui.control import CommandFailed
from tests.helpers.daemon import InProcessDaemon
from tests.helpers.idea import PROMPT

AGENT_ID = "a6ced819-b893-4213-b003-9e9dc79b9641"
HUGE = 17 * 1024 * 1024  # over the 16 MiB a runtime file may have


@dataclass
class Installation:
    home: Path
    locations: Locations
    project: Path

    def file(self, name: str) -> Path:
        data, ideai = self.locations.data, self.project / ".ideai"
        return {
            "workspace.json": data / "workspace.json",
            "projects.json": data / "projects.json",
            "profiles.json": data / "profiles.json",
            "index.json": data / "templates" / "index.json",
            "config.toml": self.locations.config_file,
            "project.json": ideai / "project.json",
            "layouts.json": ideai / "layouts.json",
            "agents.json": ideai / "agents.json",
            "background.json": ideai / "run" / "background.json",
            "session-limits.json": ideai / "run" / "session-limits.json",
            "tickets.json": ideai / "run" / "tickets.json",
        }[name]


@pytest.fixture
def installation(tmp_path: Path, test_shell: Path,
                 monkeypatch: pytest.MonkeyPatch) -> Iterator[Installation]:
    home = tmp_path / "u"
    home.mkdir()
    for name, value in (("SHELL", str(test_shell)), ("HOME", str(home)), ("PS1", PROMPT),
                        ("IDEA_HOME", str(tmp_path / "h"))):
        monkeypatch.setenv(name, value)
    locations = locate({"IDEA_HOME": str(tmp_path / "h")})
    ensure_dirs(locations)
    root = tmp_path / "web"
    root.mkdir()
    project = Project(id="aebf944e-88f8-4c4e-a120-9f774998d11c", name="web", root=str(root))
    ProjectStore().save(project)
    counter = iter(range(1000))
    LayoutStore(lambda: f"id-{next(counter)}").save(
        root, default_layouts(lambda: f"00000000-0000-4000-8000-{next(counter):012d}"))
    AgentStore().save(root, AgentManifest((Agent(
        id=AGENT_ID, name="Main", md_path="agents/main.md", profile_id="claude-code"),)))
    (root / ".ideai" / "agents").mkdir()
    (root / ".ideai" / "agents" / "main.md").write_text("# Main\n")
    run = root / ".ideai" / "run"
    run.mkdir()
    (run / "background.json").write_text(json.dumps(
        {"version": 1, "agents": {AGENT_ID: {"conversationId": None, "running": True}}}))
    # An armed resume (session limits) and a task queued for the agent (the journal).
    LimitStore().save_book(str(root), BookFile(limits=[Limit(
        agent_id=AGENT_ID, agent_name="Main", state=LimitState.LIMITED, level=1,
        source="transcript", text="limit reached", since=datetime(2026, 1, 1, tzinfo=UTC),
        resets_at=datetime(2026, 1, 1, 5, tzinfo=UTC))]))
    journal_path(str(root)).write_bytes(encode_journal([Ticket(
        id="T1", target=AGENT_ID, target_name="Main", requester="user",
        requester_name="user", task="look at the parser", created_at=1.0)]))
    ProjectRegistry(locations.data).add(str(root), project.id, project.name)
    WorkspaceStore(locations.data).save(Workspace((Window(
        "80d0ab51-f382-4c78-b65f-e15a747e781d", "main", (str(root),), str(root)),)))
    ProfileStore(locations.data).save([])
    templates = TemplateStore(locations.data)
    templates.create("b1f0c2de-5a6b-4c7d-8e9f-0a1b2c3d4e5f", TemplateDraft("Reviewer", "# R\n"))
    locations.config_file.parent.mkdir(parents=True, exist_ok=True)
    locations.config_file.write_text('prefix = "ctrl+a"\n')
    yield Installation(tmp_path / "h", locations, root)


def _truncated(valid: bytes) -> bytes:
    return valid[: max(1, len(valid) // 2)]


JSON_FILES = ("workspace.json", "projects.json", "profiles.json", "index.json",
              "project.json", "layouts.json", "agents.json", "background.json",
              "session-limits.json", "tickets.json")

# name -> how to spoil a file given its valid bytes
Spoiler = Callable[[bytes], bytes]
JSON_CORPUS: dict[str, Spoiler] = {
    "empty": lambda _: b"",
    "whitespace": lambda _: b" \n\t\n",
    "truncated": _truncated,
    "binary": lambda _: bytes(range(256)) * 4,
    "not utf-8": lambda valid: valid.replace(b'"', b'"\xff', 1),
    "a number": lambda _: b"42\n",
    "a string": lambda _: b'"hello"\n',
    "null": lambda _: b"null\n",
    "an array of numbers": lambda _: b"[1, 2, 3]\n",
    "version is text": lambda _: b'{"version": "1"}\n',
    "lists are objects": lambda _: json.dumps({
        "version": 1, "windows": {"a": 1}, "projects": {"a": 1}, "profiles": {"a": 1},
        "layouts": {"a": 1}, "agents": {"a": []}, "templates": {"a": 1}, "activeId": 3,
        "id": 4, "name": [], "limits": {"a": 1}, "tickets": {"a": 1},
    }).encode(),
    "entries of the wrong type": lambda _: json.dumps({
        "version": 1, "windows": [7], "projects": [None], "profiles": ["x"],
        "layouts": [[]], "agents": [1, "x"], "templates": [2], "activeId": "x", "id": "x",
        "name": "x", "limits": [7], "tickets": ["x"],
    }).encode(),
    "NaN": lambda _: b'{"version": NaN}\n',
    "nested too deeply": lambda _: b"[" * 200_000,
    "huge": lambda _: b'{"version": 1, "pad": "' + b"x" * HUGE + b'"}\n',
}

TOML_CORPUS: dict[str, Spoiler] = {
    "truncated": lambda _: b'prefix = "ctr',
    "binary": lambda _: bytes(range(256)) * 4,
    "not utf-8": lambda _: b'prefix = "\xff"\n',
    "wrong types": lambda _: b'prefix = 3\nscrollback_lines = "many"\nrefresh_env = "X"\n',
    "out of range": lambda _: b"scrollback_lines = -5\n",
    "unknown key": lambda _: b"colour = 1\n",
    "huge": lambda _: b"# " + b"x" * HUGE + b"\n",
}

# The issue's own example: valid JSON of the wrong shape for this one file.
BACKGROUND_CORPUS: dict[str, Spoiler] = {
    "agents is an array": lambda _: b'{"agents": []}\n',
    "an entry is not an object": lambda _: json.dumps(
        {"version": 1, "agents": {AGENT_ID: []}}).encode(),
}

CASES = [(name, spoil) for name in JSON_FILES for spoil in JSON_CORPUS] + [
    ("config.toml", spoil) for spoil in TOML_CORPUS] + [
    ("background.json", spoil) for spoil in BACKGROUND_CORPUS]


def _kept(path: Path, content: bytes) -> list[Path]:
    """Where the spoiled bytes are now: the file itself, or the copies it was set aside to."""
    candidates = [path, *path.parent.glob(f"{path.name}.corrupt-*"),
                  *path.parent.glob(f"{path.name}.bad-*")]
    return [p for p in candidates if p.is_file() and p.read_bytes() == content]


@pytest.mark.parametrize(("name", "spoil"), CASES, ids=[f"{n}: {s}" for n, s in CASES])
def test_a_malformed_runtime_file_never_stops_the_daemon_nor_is_overwritten(
        installation: Installation, name: str, spoil: str) -> None:
    path = installation.file(name)
    corpus = {**JSON_CORPUS, **BACKGROUND_CORPUS} if name == "background.json" else \
        TOML_CORPUS if name == "config.toml" else JSON_CORPUS
    content = corpus[spoil](path.read_bytes())
    path.write_bytes(content)

    daemon = InProcessDaemon(installation.home).start()
    try:
        with daemon.client() as client:
            client.call("ls")
            try:
                client.call("agent_resumable", all=True)
            except CommandFailed as exc:  # a clear error naming the file is right too
                assert name in str(exc)
            # Changes that write the daemon's files: none may replace the spoiled one.
            client.call("project_open", path=str(installation.project))
            client.call("split", target=f"{installation.project.name}:0")
            client.call("window_new", name="second")
        service = daemon.server.service
        assert service is not None
        reported = [*service.problems,
                    *(p for runtime in service.projects.values() for p in runtime.problems)]
    finally:
        daemon.stop()

    kept = _kept(path, content)
    assert len(kept) == 1, f"{name} was overwritten or set aside twice: {kept}"
    mentioning = [text for text in reported if name in text]
    assert len(mentioning) == 1, f"{name} should be reported once: {reported}"
