"""What every command's parameters and answers are made of, and how a request's map becomes
a command's Struct (`decode_params`), with a message naming the bad field.

Each area's Structs live in their own module (`adapters/ipc/commands.py` for cells, terminals,
projects and agents; `params_git.py`, `params_orchestration.py`, ...), built on `Params` and
`Answer` from here; `adapters.ipc.commands.PARAMS` merges their tables.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from msgspec import inspect as mi


class Params(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Base of every command's parameters."""


class NoParams(Params, kw_only=True):
    pass


P = TypeVar("P", bound=Params)


class BadParams(Exception):
    """Parameters that do not fit their command (the message names the field)."""


def decode_params(kind: type[P], params: dict[str, Any]) -> P:
    """The command's Struct from a request's map, or `BadParams` naming what is wrong."""
    try:
        return msgspec.convert(params, kind, strict=True)
    except msgspec.ValidationError as exc:
        raise BadParams(_explain(kind, str(exc))) from None


def _explain(kind: type[Params], error: str) -> str:
    """`Expected `int` >= 1 - at `$.count`` → "count must be a whole number from 1 to 32"."""
    if error.startswith("Object missing required field"):
        field = error.split("`")[1]
        return f"{field} is required"
    if " - at `$." not in error:
        return f"the parameters must be a map of names to values ({error})"
    field = error.rsplit(" - at `$.", 1)[1].rstrip("`").split("[")[0].split(".")[0]
    info = next((f for f in _fields(kind) if f.encode_name == field), None)
    if info is None:
        return f"{field}: {error.rsplit(' - at ', 1)[0]}"
    return f"{field} must be {_words(info.type)}"


def _fields(kind: type[Params]) -> tuple[mi.Field, ...]:
    info = mi.type_info(kind)
    assert isinstance(info, mi.StructType)
    return info.fields


def _words(tp: mi.Type) -> str:
    if isinstance(tp, mi.UnionType):
        wanted = [t for t in tp.types if not isinstance(t, mi.NoneType)]
        return " or ".join(_words(t) for t in wanted) if wanted else "absent"
    if isinstance(tp, mi.StrType):
        if tp.pattern == r"\S":
            return "a text that is not blank"
        return "a non-empty string" if tp.min_length else "a string"
    if isinstance(tp, mi.LiteralType):
        names = [str(value) for value in tp.values]
        return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]
    if isinstance(tp, mi.BoolType):
        return "true or false"
    if isinstance(tp, mi.IntType):
        return "a whole number" + _range(tp.ge, tp.le)
    if isinstance(tp, mi.FloatType):
        if tp.gt is not None and tp.ge is None and tp.le is None:
            return f"a number above {tp.gt:g}"
        return "a number" + _range(tp.ge, tp.le)
    if isinstance(tp, mi.ListType):
        which = "a non-empty list" if tp.min_length else "a list"
        if isinstance(tp.item_type, mi.AnyType):
            return which
        return f"{which} of {_words(tp.item_type).removeprefix('a ')}s"
    return "of another type"


def _range(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f" from {low:g} to {high:g}"
    if low is not None:
        return f" of at least {low:g}"
    if high is not None:
        return f" of at most {high:g}"
    return ""


class Answer(msgspec.Struct, kw_only=True):
    """Base of commands' answers. Fields left `UNSET` are not sent at all."""


Nothing: type[None] = type(None)
"""The answer type of a command that answers nothing (nil on the wire)."""
