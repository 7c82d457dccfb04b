"""The skill stores: `skills/index.json` + `skills/md/<id>.md` (FEATURES.md SKL-2, §3.8).

Two disjoint roots of the same shape as the template store: global skills in idea's data
dir (`$XDG_DATA_HOME/idea/skills/`), project skills in `.ideai/skills/` (versioned with the
project). The scope is implied by the root; a skill never shows in the other scope.

Index format, version 1 (the seed's own file reads as is):

    {"version": 1, "skills": [{"id", "name", "contentHash"}]}

- The index is the source of truth: an entry whose Markdown is missing or not UTF-8 is left
  out of `skills`, reported in `problems`, and kept in the index.
- `create` and `update` write the Markdown before the index. `delete` removes the entry
  only and leaves the Markdown in `md/` (SKL-2: nothing is lost; the file can be restored
  by hand), and a new skill never takes the id of a file there.
- An index that cannot be read is reported with its location and never overwritten.
- In a project the folder must stay inside `.ideai/` once symbolic links are resolved.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from adapters.store._reader import JsonReader, index_at, key_at, unknown_keys
from adapters.store.md_index import MarkdownIndex
from core.agents.agent import SkillScope
from core.agents.errors import DuplicateSkill, SkillNotFound, UnsafePath
from core.agents.skills import (
    Skill,
    edit_skill,
    name_problem,
    new_skill,
    skill_hash,
    skill_id_for,
)
from core.errors import FileAccessError, StoreError

SUPPORTED_VERSION = 1
DIR_NAME = "skills"
IDEAI = ".ideai"

_ENTRY_KEYS = ("id", "name", "contentHash")


@dataclass(frozen=True, slots=True)
class _Entry:
    id: str
    name: str
    content_hash: str | None
    extra: dict[str, Any]


@dataclass(frozen=True, slots=True)
class _Index:
    entries: tuple[_Entry, ...]
    extra: dict[str, Any]


def _empty() -> _Index:
    return _Index((), {})


@dataclass(frozen=True, slots=True)
class SkillSnapshot:
    """What a load found: the readable skills in index order, and one error per entry whose
    Markdown could not be read."""

    skills: tuple[Skill, ...]
    problems: tuple[StoreError, ...] = ()


def decode_index(data: object, source: str = "skills/index.json") -> _Index:
    """The entries of a parsed `index.json` (wrapped, or a bare array).

    Raises:
        NewerVersion: The file comes from a newer idea.
        CorruptFile: The content does not match the format; the message gives the location.
    """
    read = JsonReader(source)
    items, extra, at = read.listing(data, "skills", SUPPORTED_VERSION)
    entries: list[_Entry] = []
    for i, item in enumerate(items):
        item_at = index_at(at, i)
        obj = read.mapping(item, item_at)
        skill_id = read.safe_id(obj, "id", item_at)
        if any(entry.id == skill_id for entry in entries):
            read.fail(key_at(item_at, "id"), f"the id {skill_id!r} is used twice")
        name = read.text(obj, "name", item_at)
        problem = name_problem(name)
        if problem is not None:
            read.fail(key_at(item_at, "name"), problem)
        entries.append(
            _Entry(
                skill_id,
                name,
                read.optional_text(obj, "contentHash", item_at),
                unknown_keys(obj, _ENTRY_KEYS),
            )
        )
    return _Index(tuple(entries), extra)


def encode_index(index: _Index) -> dict[str, Any]:
    """The JSON form of the index (wrapped)."""
    skills = []
    for entry in index.entries:
        obj: dict[str, Any] = {"id": entry.id, "name": entry.name}
        if entry.content_hash is not None:
            obj["contentHash"] = entry.content_hash
        skills.append({**obj, **entry.extra})
    return {"version": SUPPORTED_VERSION, "skills": skills, **index.extra}


def _entry_of(skill: Skill) -> _Entry:
    return _Entry(skill.id, skill.name, skill.content_hash, dict(skill.extra))


class SkillStore:
    """Create, edit, delete and list the skills of one scope (SKL-2).

    Use `SkillStore.global_skills(data_dir)` or `SkillStore.project_skills(root)`.
    """

    def __init__(self, files: MarkdownIndex[_Index], scope: SkillScope) -> None:
        self.files = files
        self.scope = scope

    @classmethod
    def global_skills(cls, data_dir: Path) -> SkillStore:
        """`<data_dir>/skills/` (created on first write)."""
        files = MarkdownIndex(Path(data_dir) / DIR_NAME, "skill", decode_index, _empty)
        return cls(files, SkillScope.GLOBAL)

    @classmethod
    def project_skills(cls, project_root: Path) -> SkillStore:
        """`<root>/.ideai/skills/` (the project folder itself is never created)."""
        ideai = Path(project_root) / IDEAI
        files = MarkdownIndex(
            ideai / DIR_NAME, "skill", decode_index, _empty, inside=ideai, parents=False
        )
        return cls(files, SkillScope.PROJECT)

    @property
    def index_path(self) -> Path:
        return self.files.index_path

    def md_path(self, skill_id: str) -> Path:
        return self.files.md_path(skill_id)

    def load(self) -> SkillSnapshot:
        """Every readable skill of this scope, in index order.

        Raises:
            CorruptFile, NewerVersion: The index is refused; it is left untouched.
            FileAccessError: The system refused to read the index.
            UnsafePath: A symbolic link leads the folder out of `.ideai/`.
        """
        return self._load(self.files.read_index())

    def get(self, skill_id: str) -> Skill:
        """One skill by id.

        Raises:
            SkillNotFound: None has that id.
            StoreError: Its Markdown cannot be read (the problem from `load`).
        """
        snapshot = self.load()
        for skill in snapshot.skills:
            if skill.id == skill_id:
                return skill
        raise self._missing(snapshot, skill_id)

    def create(self, name: str, content: str) -> Skill:
        """Add a skill; its id is its name as a slug, unique in the index and in `md/`.

        Raises:
            InvalidSkill: The name or the body breaks a rule (limits in the message).
            DuplicateSkill: A skill of this scope has that name (any case).
            CorruptFile, NewerVersion, FileAccessError: As for `load`; nothing is written.
        """
        index = self.files.read_index()
        key = name.strip().casefold()
        if any(entry.name.strip().casefold() == key for entry in index.entries):
            raise DuplicateSkill(name.strip(), self.scope.value)
        taken = {entry.id for entry in index.entries} | self.files.md_stems()
        skill = new_skill(skill_id_for(name, taken), name, content, self.scope)
        self.files.write_md(skill.id, skill.content_md)
        self.files.write_index(
            encode_index(replace(index, entries=(*index.entries, _entry_of(skill))))
        )
        return skill

    def update(
        self, skill_id: str, *, name: str | None = None, content: str | None = None
    ) -> Skill:
        """Change a skill's name and/or body (its id stays).

        Raises:
            SkillNotFound: None has that id.
            InvalidSkill: The new name or body breaks a rule.
            DuplicateSkill: Another skill of this scope has the new name.
            StoreError: Its Markdown cannot be read; as for `load`, nothing is written.
        """
        index = self.files.read_index()
        snapshot = self._load(index)
        current = next((s for s in snapshot.skills if s.id == skill_id), None)
        if current is None:
            raise self._missing(snapshot, skill_id)
        if name is not None:
            key = name.strip().casefold()
            if any(e.id != skill_id and e.name.strip().casefold() == key
                   for e in index.entries):
                raise DuplicateSkill(name.strip(), self.scope.value)
        skill = edit_skill(current, name=name, content=content)
        if skill.content_md != current.content_md:
            self.files.write_md(skill.id, skill.content_md)
        entries = tuple(_entry_of(skill) if e.id == skill_id else e for e in index.entries)
        self.files.write_index(encode_index(replace(index, entries=entries)))
        return skill

    def delete(self, skill_id: str) -> None:
        """Remove a skill's entry; its Markdown stays in `md/` (module docstring).

        Raises:
            SkillNotFound: None has that id.
            CorruptFile, NewerVersion, FileAccessError: As for `load`; nothing is changed.
        """
        index = self.files.read_index()
        if not any(entry.id == skill_id for entry in index.entries):
            raise SkillNotFound(skill_id, self.scope.value)
        entries = tuple(e for e in index.entries if e.id != skill_id)
        self.files.write_index(encode_index(replace(index, entries=entries)))

    # ─── internals ──────────────────────────────────────────────────────────────────────

    def _missing(self, snapshot: SkillSnapshot, skill_id: str) -> Exception:
        for problem in snapshot.problems:
            if Path(problem.path).name == f"{skill_id}.md":
                return problem
        return SkillNotFound(skill_id, self.scope.value)

    def _load(self, index: _Index) -> SkillSnapshot:
        skills: list[Skill] = []
        problems: list[StoreError] = []
        for entry in index.entries:
            try:
                text = self.files.read_md(entry.id)
            except StoreError as error:
                problems.append(error)
                continue
            except UnsafePath as error:  # md/<id>.md is a link out of .ideai/
                problems.append(FileAccessError(error.path, "read", error.detail))
                continue
            skills.append(
                Skill(entry.id, entry.name, text, self.scope,
                      entry.content_hash or skill_hash(text), entry.extra)
            )
        return SkillSnapshot(tuple(skills), tuple(problems))
