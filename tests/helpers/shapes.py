"""Check the shape of decoded JSON: required keys and their types, recursively.

A spec is a type (or tuple of types), a dict of required keys → specs (extra keys are
allowed, so new fields do not break old scripts), a one-item list meaning "a list whose every
item matches", or `Optional(spec)` for a value that may be null.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Optional:
    spec: Any


def check_shape(value: Any, spec: Any, at: str = "$") -> None:
    """Raise AssertionError naming the first place where `value` does not match `spec`."""
    if isinstance(spec, Optional):
        if value is not None:
            check_shape(value, spec.spec, at)
        return
    if isinstance(spec, dict):
        assert isinstance(value, dict), f"{at}: expected an object, got {value!r}"
        missing = sorted(set(spec) - set(value))
        assert not missing, f"{at}: missing keys {missing} in {sorted(value)}"
        for key, item_spec in spec.items():
            check_shape(value[key], item_spec, f"{at}.{key}")
        return
    if isinstance(spec, list):
        assert isinstance(value, list), f"{at}: expected an array, got {value!r}"
        for index, item in enumerate(value):
            check_shape(item, spec[0], f"{at}[{index}]")
        return
    types = spec if isinstance(spec, tuple) else (spec,)
    # JSON has no bool/int distinction in Python's eyes: keep them apart here.
    if bool not in types:
        assert not isinstance(value, bool), f"{at}: expected {spec}, got a boolean"
    assert isinstance(value, types), f"{at}: expected {spec}, got {value!r}"
