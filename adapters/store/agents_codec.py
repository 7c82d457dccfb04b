"""`.ideai/agents.json` (FEATURES.md §3.2, AGT-2) and the personas `.ideai/agents/<slug>.md`.

Both seed schemas are read (D12, D23):

- persisted: `{"agentId", "name", "mdPath", "profileId", "synchronized"}`, no `origin`;
- documented: `{"id", "name", "md", "profileId", "origin": {"type": ...}, "synchronized"}`.

An entry without `origin` is scratch, unless it carries the flat `templateId` /
`syncedTemplateVersion` of the seed's `ManifestEntry`, which are read as a template origin.
`skills` is optional. idea writes the persisted schema plus `origin` for agents made from a
template (`{"type": "fromTemplate", "templateId", "syncedTemplateVersion",
"syncedContentHash"}`, the hash being D24's); a scratch origin is written only when it holds
unknown keys, since an absent origin already means scratch. So the seed's own file saves
back as the same JSON data. `skills` is written only when non-empty. Unknown keys are kept
at every level.

Persona files are plain UTF-8 Markdown, written atomically, and only inside `.ideai/`: a
path that is absolute, has `..`, or resolves (through a symbolic link) outside `.ideai/` is
refused.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from adapters.store._reader import JsonReader, index_at, key_at, unknown_keys
from adapters.store.atomic import (
    ensure_directory,
    read_json,
    read_text,
    replace_json,
    write_text_atomic,
)
from core.agents.agent import (
    Agent,
    AgentManifest,
    FromTemplate,
    Origin,
    Scratch,
    SkillRef,
    SkillScope,
)
from core.agents.errors import AgentError, DuplicateAgent, EmptyName, MissingPersona, UnsafePath
from core.agents.naming import relative_path_problem
from core.errors import FileAccessError

SUPPORTED_VERSION = 1
IDEAI = ".ideai"
FILE = Path(IDEAI) / "agents.json"

_ENTRY_KEYS = (
    "agentId",
    "id",
    "name",
    "mdPath",
    "md",
    "profileId",
    "origin",
    "synchronized",
    "skills",
    "templateId",
    "syncedTemplateVersion",
)
_FROM_TEMPLATE_KEYS = ("type", "templateId", "syncedTemplateVersion", "syncedContentHash")
_SKILL_KEYS = ("skillId", "scope")


# ─── Decoding ────────────────────────────────────────────────────────────────────────────


def decode_manifest(data: object, source: str = "agents.json") -> AgentManifest:
    """Build an `AgentManifest` from the parsed JSON of `agents.json` (either seed schema).

    Raises:
        NewerVersion: The file comes from a newer idea.
        CorruptFile: The content does not match the format, or breaks an invariant (an
            id or a Markdown file used twice, sync on without a template, a persona path
            leaving `.ideai/`); the message gives the location.
    """
    read = JsonReader(source)
    top = read.mapping(data, "")
    version = read.version(top, SUPPORTED_VERSION)
    items = read.array(top.get("agents", []), "agents")
    agents = [_decode_agent(read, item, index_at("agents", i)) for i, item in enumerate(items)]
    try:
        return AgentManifest(tuple(agents), version, unknown_keys(top, ("version", "agents")))
    except DuplicateAgent as error:
        key = "agentId" if error.field == "id" else "mdPath"
        value = [agent.id if error.field == "id" else agent.md_path for agent in agents]
        second = [i for i, v in enumerate(value) if v == error.value][-1]
        read.fail(key_at(index_at("agents", second), key), error.message)


def _aliased(read: JsonReader, obj: dict[str, Any], key: str, alias: str, at: str) -> str:
    """A required string spelled `key` (persisted schema) or `alias` (documented one)."""
    if key not in obj and alias in obj:
        return read.text(obj, alias, at)
    value = read.text(obj, key, at)
    if alias in obj and obj[alias] != value:
        read.fail(key_at(at, alias), f"disagrees with {key} ({value!r})")
    return value


def _decode_agent(read: JsonReader, item: object, at: str) -> Agent:
    obj = read.mapping(item, at)
    agent_id = _aliased(read, obj, "agentId", "id", at)
    # The id names `.ideai/run/<id>/`: a clone's `../../x` must fail here, before any I/O.
    read.safe_id(obj, "agentId" if "agentId" in obj else "id", at)
    md_path = _aliased(read, obj, "mdPath", "md", at)
    origin = _decode_origin(read, obj, at)
    skills_at = key_at(at, "skills")
    skills_data = [] if obj.get("skills") is None else obj["skills"]
    skills = tuple(
        _decode_skill(read, value, index_at(skills_at, i))
        for i, value in enumerate(read.array(skills_data, skills_at))
    )
    try:
        return Agent(
            id=agent_id,
            name=read.text(obj, "name", at),
            md_path=md_path,
            profile_id=read.text(obj, "profileId", at),
            origin=origin,
            synchronized=read.flag(obj, "synchronized", at),
            skills=skills,
            extra=unknown_keys(obj, _ENTRY_KEYS),
        )
    except UnsafePath as error:
        if error.what == "agent id":
            key = "agentId" if "agentId" in obj else "id"
            read.fail(key_at(at, key), f"{agent_id!r} cannot name a folder: {error.detail}")
        read.fail(key_at(at, "mdPath" if "mdPath" in obj else "md"), error.message)
    except EmptyName as error:
        key = "name" if error.what == "agent" else "agentId" if "agentId" in obj else "id"
        read.fail(key_at(at, key), "must not be blank")
    except AgentError as error:
        read.fail(key_at(at, "synchronized"), error.message)


def _decode_origin(read: JsonReader, obj: dict[str, Any], at: str) -> Origin:
    if obj.get("origin") is None:
        if obj.get("templateId") is None:
            return Scratch()
        # The seed's ManifestEntry form: flat template keys next to the agent's own.
        return FromTemplate(
            read.text(obj, "templateId", at),
            _template_version(read, obj, at),
        )
    origin_at = key_at(at, "origin")
    origin = read.mapping(obj["origin"], origin_at)
    kind = read.text(origin, "type", origin_at)
    if kind == "scratch":
        return Scratch(unknown_keys(origin, ("type",)))
    if kind == "fromTemplate":
        return FromTemplate(
            read.text(origin, "templateId", origin_at),
            _template_version(read, origin, origin_at),
            read.optional_text(origin, "syncedContentHash", origin_at),
            unknown_keys(origin, _FROM_TEMPLATE_KEYS),
        )
    read.fail(key_at(origin_at, "type"), f"unknown origin type {kind!r}")


def _template_version(read: JsonReader, obj: dict[str, Any], at: str) -> int:
    version = read.integer(obj, "syncedTemplateVersion", at)
    if version < 0:
        read.expect(version, key_at(at, "syncedTemplateVersion"), "a version (0 or more)")
    return version


def _decode_skill(read: JsonReader, value: object, at: str) -> SkillRef:
    obj = read.mapping(value, at)
    scope = read.text(obj, "scope", at)
    try:
        parsed = SkillScope(scope)
    except ValueError:
        read.fail(key_at(at, "scope"), f"unknown scope {scope!r} (global or project)")
    # A skill id will name `skills/<id>/` (FEATURES.md SKL): the same rule as every id.
    return SkillRef(read.safe_id(obj, "skillId", at), parsed, unknown_keys(obj, _SKILL_KEYS))


# ─── Encoding ────────────────────────────────────────────────────────────────────────────


def encode_manifest(manifest: AgentManifest) -> dict[str, Any]:
    """The JSON form of a manifest: the persisted schema plus `origin` (module docstring)."""
    return {
        "version": manifest.version,
        "agents": [_encode_agent(agent) for agent in manifest.agents],
        **manifest.extra,
    }


def _encode_agent(agent: Agent) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "agentId": agent.id,
        "name": agent.name,
        "mdPath": agent.md_path,
        "profileId": agent.profile_id,
    }
    origin = agent.origin
    if isinstance(origin, FromTemplate):
        encoded: dict[str, Any] = {
            "type": "fromTemplate",
            "templateId": origin.template_id,
            "syncedTemplateVersion": origin.synced_version,
        }
        if origin.synced_hash is not None:
            encoded["syncedContentHash"] = origin.synced_hash
        entry["origin"] = {**encoded, **origin.extra}
    elif origin.extra:
        entry["origin"] = {"type": "scratch", **origin.extra}
    entry["synchronized"] = agent.synchronized
    if agent.skills:
        entry["skills"] = [
            {"skillId": skill.skill_id, "scope": skill.scope.value, **skill.extra}
            for skill in agent.skills
        ]
    return {**entry, **agent.extra}


# ─── Stores ──────────────────────────────────────────────────────────────────────────────


class AgentStore:
    """Loads and saves `<project root>/.ideai/agents.json`."""

    @staticmethod
    def path(project_root: Path) -> Path:
        """Where a project's manifest lives."""
        return Path(project_root) / FILE

    def load(self, project_root: Path) -> AgentManifest:
        """The project's agents; an empty manifest when the file does not exist yet.

        Raises:
            CorruptFile: The file is not valid; it is left untouched.
            NewerVersion: The file comes from a newer idea; it is left untouched.
            FileAccessError: The system refused the read.
        """
        path = self.path(project_root)
        try:
            data = read_json(path)
        except FileNotFoundError:
            return AgentManifest()
        return decode_manifest(data, str(path))

    def save(self, project_root: Path, manifest: AgentManifest) -> None:
        """Write the manifest atomically into `.ideai/` (created if needed, not the root).

        Raises:
            CorruptFile: The file on disk could not be read; it is NOT overwritten.
            NewerVersion: The file on disk comes from a newer idea; it is NOT overwritten.
            FileAccessError: The system refused the write.
        """
        path = self.path(project_root)
        ensure_directory(path.parent, parents=False)
        replace_json(path, encode_manifest(manifest), lambda data: decode_manifest(data, str(path)))


class PersonaStore:
    """Reads and writes agents' Markdown under `<project root>/.ideai/`."""

    @staticmethod
    def path(project_root: Path, md_path: str) -> Path:
        """The file of a persona path (relative to `.ideai/`).

        Raises:
            UnsafePath: The path is absolute, has `..`, or resolves outside `.ideai/`.
        """
        problem = relative_path_problem(md_path)
        if problem is not None:
            raise UnsafePath(md_path, "persona path", problem)
        base = Path(project_root) / IDEAI
        path = base / md_path
        # A symbolic link inside .ideai/ must not let a committed file redirect our writes.
        if not path.resolve().is_relative_to(base.resolve()):
            raise UnsafePath(md_path, "persona path", "it leads outside .ideai/")
        return path

    def load(self, project_root: Path, md_path: str) -> str | None:
        """A persona's Markdown exactly as stored, or None when the file does not exist.

        Raises:
            UnsafePath: See `path`.
            CorruptFile: The file is not UTF-8 text.
            FileAccessError: The system refused the read.
        """
        path = self.path(project_root, md_path)
        try:
            return read_text(path)
        except FileNotFoundError:
            return None

    def read(self, project_root: Path, agent: Agent) -> str:
        """An agent's persona, which must exist (at launch, AGT-1).

        Raises:
            MissingPersona: The file does not exist.
            UnsafePath, CorruptFile, FileAccessError: As for `load`.
        """
        text = self.load(project_root, agent.md_path)
        if text is None:
            raise MissingPersona(agent.name, str(self.path(project_root, agent.md_path)))
        return text

    def write(self, project_root: Path, md_path: str, text: str, *, overwrite: bool = True) -> bool:
        """Write a persona atomically; folders below `.ideai/` are created as needed.

        Args:
            project_root: The project folder (it must exist; it is never recreated).
            md_path: The persona path, relative to `.ideai/`.
            text: The Markdown, written as is (UTF-8).
            overwrite: False leaves an existing file alone (sync backups use this).

        Returns:
            True if written, False if the file existed and `overwrite` was False.

        Raises:
            UnsafePath: See `path`.
            FileAccessError: The system refused the write.
        """
        path = self.path(project_root, md_path)
        ensure_directory(Path(project_root) / IDEAI, parents=False)
        ensure_directory(path.parent)
        return write_text_atomic(path, text, overwrite=overwrite)

    def delete(self, project_root: Path, md_path: str) -> bool:
        """Remove a persona file; False when it did not exist.

        Raises:
            UnsafePath: See `path`.
            FileAccessError: The system refused.
        """
        path = self.path(project_root, md_path)
        try:
            os.unlink(path)
        except FileNotFoundError:
            return False
        except OSError as error:
            raise FileAccessError(path, "delete", error.strerror or str(error)) from error
        return True
