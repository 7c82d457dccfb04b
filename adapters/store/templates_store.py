"""The global template store: `templates/index.json` + `templates/md/<id>.md` (FEATURES.md §3.7).

Index format, version 1 (a bare array of entries, as the seed's design comment shows it, is
read too; the wrapped form is written):

    {"version": 1, "templates": [{"id", "name", "version", "contentHash",
                                  "defaultProfileId"}]}

The Markdown of a template lives in its own file so the user can edit it with any editor.
The index's `contentHash` is what idea last wrote; the rule for files edited outside idea:

1. On load, a template whose file hashes differently from the index is returned with
   `version = index version + 1` and the file's hash, and is listed in
   `TemplateSnapshot.edited_outside`. A load never writes.
2. The next write of the index (`create`, `update`, `delete` or `reconcile`) stores those
   bumped versions and hashes. Until then every load returns the same bumped version,
   however many times the file changes; drift also compares hashes, so a synced agent does
   not miss a second edit (see `core.agents.templates`).
3. A `contentHash` idea did not compute (no `sha256:` prefix, e.g. the seed's own digest, or
   none) cannot tell an edit from a different algorithm: the file's hash is adopted without
   a bump, and stored at the next write.

`create` and `update` write the Markdown before the index, so a crash in between leaves a
file newer than its index, which the rule above turns into the version the update meant.
`delete` removes the entry first, then the file. An entry whose file is missing or not
UTF-8 is left out of `templates` and reported in `problems`; its entry is kept in the index.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from adapters.store._reader import JsonReader, index_at, key_at, unknown_keys
from adapters.store.md_index import INDEX_NAME, MarkdownIndex
from core.agents.errors import DuplicateTemplate, TemplateNotFound
from core.agents.templates import (
    HASH_PREFIX,
    KEEP,
    AgentTemplate,
    Keep,
    TemplateDraft,
    content_hash,
    create_template,
    template_id_problem,
    update_template,
)
from core.errors import StoreError

SUPPORTED_VERSION = 1
DIR_NAME = "templates"

_ENTRY_KEYS = ("id", "name", "version", "contentHash", "defaultProfileId")


@dataclass(frozen=True, slots=True)
class _Entry:
    id: str
    name: str
    version: int
    content_hash: str | None
    default_profile_id: str | None
    extra: dict[str, Any]


@dataclass(frozen=True, slots=True)
class _Index:
    entries: tuple[_Entry, ...]
    extra: dict[str, Any]


@dataclass(frozen=True, slots=True)
class OutsideEdit:
    """A template file edited outside idea since the index was written.

    Attributes:
        template_id: The template.
        indexed_version: The version in the index.
        version: The version it is treated as (indexed + 1).
    """

    template_id: str
    indexed_version: int
    version: int


@dataclass(frozen=True, slots=True)
class TemplateSnapshot:
    """Everything a load found.

    Attributes:
        templates: The templates that could be read, in index order.
        edited_outside: Templates whose file changed outside idea (rule 1).
        problems: One error per entry whose Markdown could not be read.
    """

    templates: tuple[AgentTemplate, ...]
    edited_outside: tuple[OutsideEdit, ...] = ()
    problems: tuple[StoreError, ...] = ()

    def by_id(self) -> dict[str, AgentTemplate]:
        """The templates keyed by id (what drift detection takes)."""
        return {template.id: template for template in self.templates}


def decode_index(data: object, source: str = INDEX_NAME) -> _Index:
    """The entries of a parsed `index.json` (wrapped or a bare array).

    Raises:
        NewerVersion: The file comes from a newer idea.
        CorruptFile: The content does not match the format; the message gives the location.
    """
    read = JsonReader(source)
    items, extra, at = read.listing(data, "templates", SUPPORTED_VERSION)
    entries: list[_Entry] = []
    for i, item in enumerate(items):
        item_at = index_at(at, i)
        obj = read.mapping(item, item_at)
        template_id = read.text(obj, "id", item_at)
        problem = template_id_problem(template_id)
        if problem is not None:
            read.fail(key_at(item_at, "id"), f"{template_id!r} cannot be a file name: {problem}")
        if any(entry.id == template_id for entry in entries):
            read.fail(key_at(item_at, "id"), f"the id {template_id!r} is used twice")
        name = read.text(obj, "name", item_at)
        if not name.strip():
            read.fail(key_at(item_at, "name"), "must not be empty")
        version = read.integer(obj, "version", item_at)
        if version < 1:
            read.expect(version, key_at(item_at, "version"), "a version (1 or more)")
        entries.append(
            _Entry(
                template_id,
                name,
                version,
                read.optional_text(obj, "contentHash", item_at),
                read.optional_text(obj, "defaultProfileId", item_at),
                unknown_keys(obj, _ENTRY_KEYS),
            )
        )
    return _Index(tuple(entries), extra)


def encode_index(index: _Index) -> dict[str, Any]:
    """The JSON form of the index (wrapped)."""
    templates = []
    for entry in index.entries:
        obj: dict[str, Any] = {"id": entry.id, "name": entry.name, "version": entry.version}
        if entry.content_hash is not None:
            obj["contentHash"] = entry.content_hash
        if entry.default_profile_id is not None:
            obj["defaultProfileId"] = entry.default_profile_id
        templates.append({**obj, **entry.extra})
    return {"version": SUPPORTED_VERSION, "templates": templates, **index.extra}


def _entry_of(template: AgentTemplate) -> _Entry:
    return _Entry(
        template.id,
        template.name,
        template.version,
        template.content_hash,
        template.default_profile_id,
        dict(template.extra),
    )


class TemplateStore:
    """Create, update, delete and list the global templates (TPL-1, TPL-2).

    Args:
        data_dir: idea's data directory (`$XDG_DATA_HOME/idea`), created on first write.
    """

    def __init__(self, data_dir: Path) -> None:
        self.files = MarkdownIndex(
            Path(data_dir) / DIR_NAME, "template", decode_index, lambda: _Index((), {})
        )
        self.root = self.files.root
        self.index_path = self.files.index_path

    def md_path(self, template_id: str) -> Path:
        """The Markdown file of a template."""
        return self.files.md_path(template_id)

    def load(self) -> TemplateSnapshot:
        """Every template, with outside edits applied in memory (rule 1 of the module doc).

        Raises:
            CorruptFile: The index is not valid; it is left untouched.
            NewerVersion: The index comes from a newer idea; it is left untouched.
            FileAccessError: The system refused to read the index.
        """
        return self._load(self._read())[0]

    def list_templates(self) -> list[AgentTemplate]:
        """The readable templates, in index order."""
        return list(self.load().templates)

    def get(self, template_id: str) -> AgentTemplate:
        """One template.

        Raises:
            TemplateNotFound: There is none with that id (or its file is unreadable).
        """
        template = self.load().by_id().get(template_id)
        if template is None:
            raise TemplateNotFound(template_id)
        return template

    def create(self, template_id: str, draft: TemplateDraft) -> AgentTemplate:
        """Add a template, version 1.

        Raises:
            DuplicateTemplate: The id is taken.
            UnsafePath: The id cannot be a file name.
            EmptyName: The name is blank.
            CorruptFile, NewerVersion, FileAccessError: As for `load`; nothing is written.
        """
        index = self._read()
        _, entries = self._load(index)
        if any(entry.id == template_id for entry in entries):
            raise DuplicateTemplate(template_id)
        template = create_template(template_id, draft)
        self._write_md(template)
        self._write(replace(index, entries=(*entries, _entry_of(template))))
        return template

    def update(
        self,
        template_id: str,
        *,
        name: str | None = None,
        content_md: str | None = None,
        default_profile_id: str | Keep | None = KEEP,
    ) -> AgentTemplate:
        """Change a template; its version goes up only if the content changed (TPL-2).

        Raises:
            TemplateNotFound: There is none with that id.
            StoreError: Its Markdown file cannot be read (the problem from `load`).
            CorruptFile, NewerVersion, FileAccessError: As for `load`; nothing is written.
        """
        index = self._read()
        snapshot, entries = self._load(index)
        current = snapshot.by_id().get(template_id)
        if current is None:
            raise self._missing(snapshot, template_id)
        template = update_template(
            current, name=name, content_md=content_md, default_profile_id=default_profile_id
        )
        if template.content_hash != current.content_hash:
            self._write_md(template)
        new_entries = tuple(_entry_of(template) if e.id == template_id else e for e in entries)
        self._write(replace(index, entries=new_entries))
        return template

    def delete(self, template_id: str) -> None:
        """Remove a template (agents made from it keep their Markdown; drift ignores them).

        Raises:
            TemplateNotFound: There is none with that id.
            CorruptFile, NewerVersion, FileAccessError: As for `load`; nothing is changed.
        """
        index = self._read()
        _, entries = self._load(index)
        if not any(entry.id == template_id for entry in entries):
            raise TemplateNotFound(template_id)
        self._write(replace(index, entries=tuple(e for e in entries if e.id != template_id)))
        self.files.remove_md(template_id)

    def reconcile(self) -> TemplateSnapshot:
        """Store the versions and hashes of outside edits now (rule 2); return the snapshot."""
        index = self._read()
        snapshot, entries = self._load(index)
        if entries != index.entries:
            self._write(replace(index, entries=entries))
        return snapshot

    # ─── internals ──────────────────────────────────────────────────────────────────────

    @staticmethod
    def _missing(snapshot: TemplateSnapshot, template_id: str) -> Exception:
        for problem in snapshot.problems:
            if f"{template_id}.md" == Path(problem.path).name:
                return problem
        return TemplateNotFound(template_id)

    def _read(self) -> _Index:
        return self.files.read_index()

    def _load(self, index: _Index) -> tuple[TemplateSnapshot, tuple[_Entry, ...]]:
        """The snapshot, and the entries as the next write stores them (rules 1-3)."""
        templates: list[AgentTemplate] = []
        edits: list[OutsideEdit] = []
        problems: list[StoreError] = []
        entries: list[_Entry] = []
        for entry in index.entries:
            try:
                text = self._read_md(entry.id)
            except StoreError as error:
                problems.append(error)
                entries.append(entry)
                continue
            digest = content_hash(text)
            version = entry.version
            ours = entry.content_hash is not None and entry.content_hash.startswith(HASH_PREFIX)
            if ours and digest != entry.content_hash:
                version += 1
                edits.append(OutsideEdit(entry.id, entry.version, version))
            template = AgentTemplate(
                entry.id,
                entry.name,
                text,
                version,
                entry.default_profile_id,
                digest,
                entry.extra,
            )
            templates.append(template)
            entries.append(_entry_of(template))
        return TemplateSnapshot(tuple(templates), tuple(edits), tuple(problems)), tuple(entries)

    def _read_md(self, template_id: str) -> str:
        return self.files.read_md(template_id)

    def _write_md(self, template: AgentTemplate) -> None:
        self.files.write_md(template.id, template.content_md)

    def _write(self, index: _Index) -> None:
        self.files.write_index(encode_index(index))
