"""A folder of Markdown files with an index: `index.json` + `md/<id>.md`.

The shape the template store (FEATURES.md §3.7) and the skill stores (§3.8) share. This
class does the file work both need — reading the index through the store's own decoder,
writing it without ever replacing a file that decoder refuses, and reading or writing one
Markdown body — so each store keeps only its format and its rules.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

from adapters.store.atomic import (
    ensure_directory,
    read_json,
    read_text,
    replace_json,
    write_text_atomic,
)
from core.agents.errors import UnsafePath
from core.errors import FileAccessError
from core.ids import id_problem

INDEX_NAME = "index.json"
MD_DIR = "md"

T = TypeVar("T")


class MarkdownIndex(Generic[T]):
    """`root/index.json` and `root/md/<id>.md`.

    Args:
        root: The folder (created on first write).
        what: What a body is, for messages ("template", "skill").
        decode: The store's decoder of the parsed index (raises `CorruptFile`/`NewerVersion`).
        empty: The index when the file does not exist yet.
        inside: A folder every path must stay in once links are resolved (a project's
            `.ideai/`: a clone may commit a symbolic link that points elsewhere), or None.
        parents: Whether a first write may create all the root's missing parents. False
            (project folders) creates the root and its parent only (`.ideai/skills/`), so a
            project folder deleted meanwhile is not recreated.
    """

    def __init__(
        self,
        root: Path,
        what: str,
        decode: Callable[[object, str], T],
        empty: Callable[[], T],
        *,
        inside: Path | None = None,
        parents: bool = True,
    ) -> None:
        self.root = Path(root)
        self.index_path = self.root / INDEX_NAME
        self.what = what
        self._decode = decode
        self._empty = empty
        self._inside = inside
        self._parents = parents

    def md_path(self, item_id: str) -> Path:
        """The Markdown file of an id.

        Raises:
            UnsafePath: The id is not one safe path component, or a link leads it out of
                `inside`.
        """
        problem = id_problem(item_id)
        if problem is not None:
            raise UnsafePath(item_id, f"{self.what} id", problem)
        path = self.root / MD_DIR / f"{item_id}.md"
        self._check_inside(path)
        return path

    def _check_inside(self, path: Path) -> None:
        if self._inside is not None and not path.resolve().is_relative_to(
            self._inside.resolve()
        ):
            raise UnsafePath(str(path), f"{self.what} file", "a symbolic link leads it "
                             f"outside {self._inside.name}/")

    def _ensure_root(self) -> None:
        if not self._parents:
            ensure_directory(self.root.parent, parents=False)
        ensure_directory(self.root, parents=self._parents)

    def read_index(self) -> T:
        """The decoded index, or `empty()` when there is none.

        Raises:
            CorruptFile, NewerVersion: The index is refused; it is left untouched.
            FileAccessError: The system refused the read.
            UnsafePath: A link leads the folder out of `inside`.
        """
        self._check_inside(self.index_path)
        try:
            data = read_json(self.index_path)
        except FileNotFoundError:
            return self._empty()
        return self._decode(data, str(self.index_path))

    def write_index(self, data: Any) -> None:
        """Replace the index with `data`, unless the file there is refused by the decoder.

        Raises:
            CorruptFile, NewerVersion: The file on disk is refused; it is NOT overwritten.
            FileAccessError: The system refused the write.
        """
        self._check_inside(self.index_path)
        self._ensure_root()
        replace_json(
            self.index_path, data, lambda current: self._decode(current, str(self.index_path))
        )

    def read_md(self, item_id: str) -> str:
        """A body, as UTF-8 text.

        Raises:
            FileAccessError: The file is missing or the system refused the read.
            CorruptFile: It is not UTF-8.
        """
        path = self.md_path(item_id)
        try:
            return read_text(path)
        except FileNotFoundError as error:
            raise FileAccessError(
                path, "read", f"the {self.what}'s Markdown file is missing"
            ) from error

    def write_md(self, item_id: str, text: str) -> None:
        """Write a body atomically (the folders are created as needed)."""
        path = self.md_path(item_id)
        self._ensure_root()
        ensure_directory(path.parent)
        write_text_atomic(path, text)

    def remove_md(self, item_id: str) -> None:
        """Delete a body; nothing happens when it is already gone.

        Raises:
            FileAccessError: The system refused.
        """
        path = self.md_path(item_id)
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError as error:
            raise FileAccessError(path, "delete", error.strerror or str(error)) from error

    def md_stems(self) -> set[str]:
        """The ids that have a file in `md/`, indexed or not (a new id must not reuse the
        file of a deleted entry, which is kept)."""
        try:
            return {p.stem for p in (self.root / MD_DIR).glob("*.md")}
        except OSError:
            return set()
