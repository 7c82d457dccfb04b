"""The agent stores as the daemon sees them: Protocols (ports) the JSON/Markdown stores of
this package implement.

The daemon's agent services (`idea_daemon.agents.AgentRuntime`, `agent_admin`,
`knowledge`, `context_service`) type against these, never against the concrete classes, so
that the composition root (`idea_daemon.bootstrap`) is the one place that picks the stores
and a unit test can hand in a fake (`tests/fakes.py`). Every method may raise the
`core.errors.StoreError` family (a damaged file, a refused write), as the stores document.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from adapters.store.background_store import BackgroundRecord
from adapters.store.templates_store import TemplateSnapshot
from core.agents.agent import Agent, AgentManifest
from core.agents.profile import AgentProfile
from core.agents.templates import KEEP, AgentTemplate, Keep, TemplateDraft


class AgentStorePort(Protocol):
    """A project's `.ideai/agents.json` (`adapters.store.agents_codec.AgentStore`)."""

    def path(self, project_root: Path) -> Path: ...

    def load(self, project_root: Path) -> AgentManifest: ...

    def save(self, project_root: Path, manifest: AgentManifest) -> None: ...


class PersonaStorePort(Protocol):
    """The agents' persona Markdown under `.ideai/` (`agents_codec.PersonaStore`)."""

    def path(self, project_root: Path, md_path: str) -> Path:
        """Where a persona is (raises `UnsafePath` for one outside `.ideai/`)."""

    def load(self, project_root: Path, md_path: str) -> str | None:
        """Its text; None when missing."""

    def read(self, project_root: Path, agent: Agent) -> str:
        """An agent's persona (raises `MissingPersona`)."""

    def write(self, project_root: Path, md_path: str, text: str, *,
              overwrite: bool = True) -> bool: ...

    def delete(self, project_root: Path, md_path: str) -> bool: ...


class ProfileStorePort(Protocol):
    """The user's `profiles.json` (`adapters.store.profiles_codec.ProfileStore`)."""

    path: Path

    def exists(self) -> bool: ...

    def load(self) -> list[AgentProfile]: ...

    def get(self, profile_id: str) -> AgentProfile: ...

    def save(self, profiles: Iterable[AgentProfile]) -> None: ...

    def add(self, profile: AgentProfile) -> AgentProfile: ...

    def update(self, profile: AgentProfile) -> AgentProfile: ...

    def remove(self, profile_id: str) -> AgentProfile: ...

    def add_profile_from_file(self, path: Path) -> AgentProfile: ...


class TemplateStorePort(Protocol):
    """The user's agent templates (`adapters.store.templates_store.TemplateStore`)."""

    root: Path
    """Their folder (the global skills sit beside it)."""

    def load(self) -> TemplateSnapshot: ...

    def get(self, template_id: str) -> AgentTemplate: ...

    def create(self, template_id: str, draft: TemplateDraft) -> AgentTemplate: ...

    def update(self, template_id: str, *, name: str | None = None,
               content_md: str | None = None,
               default_profile_id: str | Keep | None = KEEP) -> AgentTemplate: ...

    def delete(self, template_id: str) -> None: ...

    def reconcile(self) -> TemplateSnapshot: ...


class BackgroundStorePort(Protocol):
    """A project's `.ideai/run/background.json`
    (`adapters.store.background_store.BackgroundStore`)."""

    def path(self, project_root: Path) -> Path: ...

    def load(self, project_root: Path) -> dict[str, BackgroundRecord]:
        """The records by agent id ({} without a file)."""

    def save(self, project_root: Path, records: dict[str, BackgroundRecord]) -> None: ...
