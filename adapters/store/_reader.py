"""Reading decoded JSON into typed values, with errors that say where the problem is.

Every failure becomes a `CorruptFile` naming the file and the JSON location, e.g.
`layouts[0].tree.root.node.children[1].weight: expected a number, found a string`, so the
user can open the file and go straight to the bad spot.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, NoReturn

from core.errors import CorruptFile, NewerVersion
from core.ids import id_problem


def key_at(at: str, key: str) -> str:
    """The location of `key` inside the object at `at`."""
    return f"{at}.{key}" if at else key


def index_at(at: str, index: int) -> str:
    """The location of item `index` of the array at `at`."""
    return f"{at}[{index}]"


def describe(value: object) -> str:
    """A JSON type name for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def unknown_keys(obj: dict[str, Any], known: Iterable[str]) -> dict[str, Any]:
    """The keys of `obj` this version does not know, to be written back unchanged (D23)."""
    known_set = set(known)
    return {key: value for key, value in obj.items() if key not in known_set}


class JsonReader:
    """Typed accessors over decoded JSON for one file.

    Args:
        source: The file name used in error messages.
    """

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, at: str, detail: str) -> NoReturn:
        """Raise `CorruptFile` for the value at `at`."""
        where = at or "top level"
        raise CorruptFile(self.source, f"{where}: {detail}")

    def expect(self, value: object, at: str, wanted: str) -> NoReturn:
        """Raise `CorruptFile` saying what was expected and what was found."""
        self.fail(at, f"expected {wanted}, found {describe(value)}")

    def mapping(self, value: object, at: str) -> dict[str, Any]:
        """`value` as a JSON object."""
        if not isinstance(value, dict):
            self.expect(value, at, "an object")
        return value

    def array(self, value: object, at: str) -> list[Any]:
        """`value` as a JSON array."""
        if not isinstance(value, list):
            self.expect(value, at, "an array")
        return value

    def required(self, obj: dict[str, Any], key: str, at: str) -> Any:
        """The value of a key that must be present."""
        if key not in obj:
            self.fail(key_at(at, key), "missing")
        return obj[key]

    def text(self, obj: dict[str, Any], key: str, at: str) -> str:
        """A required string."""
        value = self.required(obj, key, at)
        if not isinstance(value, str):
            self.expect(value, key_at(at, key), "a string")
        return value

    def optional_text(self, obj: dict[str, Any], key: str, at: str) -> str | None:
        """A string that may be absent or null."""
        value = obj.get(key)
        if value is not None and not isinstance(value, str):
            self.expect(value, key_at(at, key), "a string")
        return value

    def safe_id(self, obj: dict[str, Any], key: str, at: str) -> str:
        """A required id that may become a path component (the rule of `core.ids`)."""
        value = self.text(obj, key, at)
        self._check_id(value, key_at(at, key))
        return value

    def optional_safe_id(self, obj: dict[str, Any], key: str, at: str) -> str | None:
        """An id that may be absent or null; when present, `safe_id`'s rule applies."""
        value = self.optional_text(obj, key, at)
        if value is not None:
            self._check_id(value, key_at(at, key))
        return value

    def _check_id(self, value: str, at: str) -> None:
        if not value.strip():
            self.fail(at, "must not be blank")
        problem = id_problem(value)
        if problem is not None:
            # repr() shows control characters escaped, never raw, in the message.
            self.fail(at, f"{value[:80]!r} is not a safe id: {problem}")

    def flag(self, obj: dict[str, Any], key: str, at: str) -> bool:
        """A boolean that may be absent (false)."""
        value = obj.get(key, False)
        if value is None:
            return False
        if not isinstance(value, bool):
            self.expect(value, key_at(at, key), "true or false")
        return value

    def integer(self, obj: dict[str, Any], key: str, at: str, default: int | None = None) -> int:
        """An integer; required unless a default is given."""
        if key not in obj and default is not None:
            return default
        value = self.required(obj, key, at)
        if isinstance(value, bool) or not isinstance(value, int):
            self.expect(value, key_at(at, key), "an integer")
        return value

    def number(self, value: object, at: str) -> float:
        """A finite JSON number, as a float."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.expect(value, at, "a number")
        result = float(value)
        if not math.isfinite(result):
            self.expect(value, at, "a finite number")
        return result

    def listing(
        self, data: object, key: str, supported: int
    ) -> tuple[list[Any], dict[str, Any], str]:
        """The entries of a file written as `{"version": 1, KEY: [...]}`, or as a bare array
        (the seed's form): (entries, unknown top-level keys, JSON location of the list).
        """
        if isinstance(data, list):
            return data, {}, ""
        top = self.mapping(data, "")
        self.version(top, supported)
        return self.array(top.get(key, []), key), unknown_keys(top, ("version", key)), key

    def version(self, obj: dict[str, Any], supported: int) -> int:
        """The `version` of a top-level object: absent means 1; newer ones are refused.

        Raises:
            NewerVersion: The file comes from a newer idea.
            CorruptFile: The version is not a positive integer.
        """
        if "version" not in obj:
            return 1
        value = obj["version"]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            self.expect(value, "version", "a positive integer")
        if value > supported:
            raise NewerVersion(self.source, value, supported)
        return value
