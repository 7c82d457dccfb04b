"""`.ideai/layouts.json`: the named layouts of a project (FEATURES.md §3.4, LAY-4/LAY-5).

The format is the seed's, key for key: nodes as `{"type": "split"|"leaf"|"grid", "node":
{...}}`, camelCase keys, optional fields omitted when empty. Keys this version does not know
are kept in the model's `extra` and written back (D23). The model has no `extra` for the
two JSON objects that wrap a node (the `{"type", "node"}` envelope and a split's
`{"node", "weight"}` child), so their unknown keys ride along in the node's own `extra`
under the reserved key `STASH_KEY`, which no JSON written by anyone can contain by accident.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from adapters.store._reader import JsonReader, index_at, key_at, unknown_keys
from adapters.store.atomic import ensure_directory, read_json, replace_json
from core.errors import LayoutError
from core.layout.invariants import validate
from core.layout.model import (
    Direction,
    Grid,
    GridCell,
    Layout,
    LayoutKind,
    LayoutSet,
    LayoutTree,
    Leaf,
    Node,
    Split,
    WeightedChild,
)

SUPPORTED_VERSION = 1
FILE = Path(".ideai") / "layouts.json"

STASH_KEY = "\x00idea:wrappers"
"""Reserved key of a node's `extra`: unknown keys of the objects wrapping the node."""

_ENVELOPE = "envelope"
_CHILD = "child"

_LEAF_KEYS = ("id", "session", "agent", "agentWasRunning", "conversationId")
_SPLIT_KEYS = ("id", "direction", "children")
_GRID_KEYS = ("id", "colWeights", "rowWeights", "cells")
_CELL_KEYS = ("node", "row", "col", "rowSpan", "colSpan")


# ─── Decoding ────────────────────────────────────────────────────────────────────────────


def decode_layouts(data: object, source: str = "layouts.json", *, check: bool = True) -> LayoutSet:
    """Build a `LayoutSet` from the parsed JSON of a layouts file.

    Args:
        data: What `json.loads` returned.
        source: The file name for error messages.
        check: Also check every tree's invariants (LAY-2).

    Raises:
        NewerVersion: The file comes from a newer idea.
        CorruptFile: The content does not match the format; the message gives the location.
    """
    return _Decoder(JsonReader(source), check).layout_set(data)


def decode_tree(data: object, source: str = "layout tree") -> LayoutTree:
    """Build a `LayoutTree` from its JSON form (`{"root": node}`), without checking it."""
    return _Decoder(JsonReader(source), False).tree(data, "")


class _Decoder:
    def __init__(self, reader: JsonReader, check: bool) -> None:
        self.read = reader
        self.check = check

    def layout_set(self, data: object) -> LayoutSet:
        top = self.read.mapping(data, "")
        version = self.read.version(top, SUPPORTED_VERSION)
        items = self.read.array(self.read.required(top, "layouts", ""), "layouts")
        if not items:
            self.read.fail("layouts", "at least one layout is needed")
        layouts = tuple(self.layout(item, index_at("layouts", i)) for i, item in enumerate(items))
        active_id = self.read.optional_text(top, "activeId", "") or layouts[0].id
        extra = unknown_keys(top, ("version", "activeId", "layouts"))
        return LayoutSet(active_id, layouts, version, extra)

    def layout(self, value: object, at: str) -> Layout:
        obj = self.read.mapping(value, at)
        kind_name = self.read.text(obj, "kind", at)
        try:
            kind = LayoutKind(kind_name)
        except ValueError:
            self.read.fail(key_at(at, "kind"), f"unknown layout kind {kind_name!r}")
        tree = self.tree(self.read.required(obj, "tree", at), key_at(at, "tree"))
        if self.check:
            try:
                validate(tree)
            except LayoutError as error:
                self.read.fail(key_at(at, "tree"), error.message)
        return Layout(
            self.read.safe_id(obj, "id", at),
            self.read.text(obj, "name", at),
            kind,
            tree,
            unknown_keys(obj, ("id", "name", "kind", "tree")),
        )

    def tree(self, value: object, at: str) -> LayoutTree:
        obj = self.read.mapping(value, at)
        root = self.node(self.read.required(obj, "root", at), key_at(at, "root"))
        return LayoutTree(root, unknown_keys(obj, ("root",)))

    def node(self, value: object, at: str) -> Node:
        envelope = self.read.mapping(value, at)
        kind = self.read.text(envelope, "type", at)
        inner_at = key_at(at, "node")
        content = self.read.mapping(self.read.required(envelope, "node", at), inner_at)
        node: Node
        if kind == "leaf":
            node = self.leaf(content, inner_at)
        elif kind == "split":
            node = self.split(content, inner_at)
        elif kind == "grid":
            node = self.grid(content, inner_at)
        else:
            self.read.fail(key_at(at, "type"), f"unknown node type {kind!r}")
        return _stash(node, _ENVELOPE, unknown_keys(envelope, ("type", "node")))

    def leaf(self, obj: dict[str, Any], at: str) -> Leaf:
        return Leaf(
            id=self.read.safe_id(obj, "id", at),
            session=self.read.optional_text(obj, "session", at),
            # An agent id names a run dir; a conversation id goes into the CLI's argv
            # (`--resume ID`), where `-x` would be read as an option.
            agent=self.read.optional_safe_id(obj, "agent", at),
            agent_was_running=self.read.flag(obj, "agentWasRunning", at),
            conversation_id=self.read.optional_safe_id(obj, "conversationId", at),
            extra=unknown_keys(obj, _LEAF_KEYS),
        )

    def split(self, obj: dict[str, Any], at: str) -> Split:
        name = self.read.text(obj, "direction", at)
        try:
            direction = Direction(name)
        except ValueError:
            self.read.fail(key_at(at, "direction"), f"unknown direction {name!r}")
        children_at = key_at(at, "children")
        children = []
        for i, item in enumerate(
            self.read.array(self.read.required(obj, "children", at), children_at)
        ):
            child_at = index_at(children_at, i)
            child = self.read.mapping(item, child_at)
            node = self.node(self.read.required(child, "node", child_at), key_at(child_at, "node"))
            weight = self.read.number(
                self.read.required(child, "weight", child_at), key_at(child_at, "weight")
            )
            node = _stash(node, _CHILD, unknown_keys(child, ("node", "weight")))
            children.append(WeightedChild(node, weight))
        return Split(
            self.read.safe_id(obj, "id", at),
            direction,
            tuple(children),
            unknown_keys(obj, _SPLIT_KEYS),
        )

    def grid(self, obj: dict[str, Any], at: str) -> Grid:
        weights = {}
        for key in ("colWeights", "rowWeights"):
            weights_at = key_at(at, key)
            items = self.read.array(self.read.required(obj, key, at), weights_at)
            weights[key] = tuple(
                self.read.number(item, index_at(weights_at, i)) for i, item in enumerate(items)
            )
        cells_at = key_at(at, "cells")
        cells = []
        for i, item in enumerate(self.read.array(self.read.required(obj, "cells", at), cells_at)):
            cell_at = index_at(cells_at, i)
            cell = self.read.mapping(item, cell_at)
            cells.append(
                GridCell(
                    node=self.node(
                        self.read.required(cell, "node", cell_at), key_at(cell_at, "node")
                    ),
                    row=self.read.integer(cell, "row", cell_at),
                    col=self.read.integer(cell, "col", cell_at),
                    row_span=self.read.integer(cell, "rowSpan", cell_at, default=1),
                    col_span=self.read.integer(cell, "colSpan", cell_at, default=1),
                    extra=unknown_keys(cell, _CELL_KEYS),
                )
            )
        return Grid(
            self.read.safe_id(obj, "id", at),
            weights["colWeights"],
            weights["rowWeights"],
            tuple(cells),
            unknown_keys(obj, _GRID_KEYS),
        )


def _stash(node: Node, level: str, keys: dict[str, Any]) -> Node:
    """Keep the unknown keys of a wrapping object in the node's `extra`."""
    if not keys:
        return node
    stash = dict(node.extra.get(STASH_KEY, {}))
    stash[level] = keys
    extra = {**node.extra, STASH_KEY: stash}
    if isinstance(node, Leaf):
        return Leaf(
            node.id, node.session, node.agent, node.agent_was_running, node.conversation_id, extra
        )
    if isinstance(node, Split):
        return Split(node.id, node.direction, node.children, extra)
    return Grid(node.id, node.col_weights, node.row_weights, node.cells, extra)


# ─── Encoding ────────────────────────────────────────────────────────────────────────────


def encode_layouts(layouts: LayoutSet) -> dict[str, Any]:
    """The JSON form of a `LayoutSet`, ready for `json.dumps` (seed format, §3.4)."""
    return {
        "version": layouts.version,
        "activeId": layouts.active_id,
        "layouts": [_encode_layout(layout) for layout in layouts.layouts],
        **layouts.extra,
    }


def _encode_layout(layout: Layout) -> dict[str, Any]:
    return {
        "id": layout.id,
        "name": layout.name,
        "kind": layout.kind.value,
        "tree": encode_tree(layout.tree),
        **layout.extra,
    }


def encode_tree(tree: LayoutTree) -> dict[str, Any]:
    """The JSON form of a `LayoutTree`: `{"root": node, ...unknown keys}`."""
    return {"root": _encode_node(tree.root), **tree.extra}


def _wrapped(node: Node, level: str) -> Mapping[str, Any]:
    stash = node.extra.get(STASH_KEY)
    return stash.get(level, {}) if isinstance(stash, Mapping) else {}


def _own_extra(node: Node) -> dict[str, Any]:
    return {key: value for key, value in node.extra.items() if key != STASH_KEY}


def _encode_node(node: Node) -> dict[str, Any]:
    content: dict[str, Any]
    if isinstance(node, Leaf):
        kind = "leaf"
        content = {"id": node.id}
        if node.session is not None:
            content["session"] = node.session
        if node.agent is not None:
            content["agent"] = node.agent
        if node.agent_was_running:
            content["agentWasRunning"] = True
        if node.conversation_id is not None:
            content["conversationId"] = node.conversation_id
    elif isinstance(node, Split):
        kind = "split"
        content = {
            "id": node.id,
            "direction": node.direction.value,
            "children": [
                {
                    "node": _encode_node(child.node),
                    "weight": float(child.weight),
                    **_wrapped(child.node, _CHILD),
                }
                for child in node.children
            ],
        }
    else:
        kind = "grid"
        content = {
            "id": node.id,
            "colWeights": [float(weight) for weight in node.col_weights],
            "rowWeights": [float(weight) for weight in node.row_weights],
            "cells": [
                {
                    "node": _encode_node(cell.node),
                    "row": cell.row,
                    "col": cell.col,
                    "rowSpan": cell.row_span,
                    "colSpan": cell.col_span,
                    **cell.extra,
                }
                for cell in node.cells
            ],
        }
    content.update(_own_extra(node))
    return {"type": kind, "node": content, **_wrapped(node, _ENVELOPE)}


# ─── Defaults and the store ──────────────────────────────────────────────────────────────


def default_layouts(new_id: Callable[[], str]) -> LayoutSet:
    """What a project without `layouts.json` starts with: one "Default" page, one cell."""
    layout = Layout(new_id(), "Default", LayoutKind.TERMINAL, LayoutTree(Leaf(new_id())))
    return LayoutSet(layout.id, (layout,))


class LayoutStore:
    """Loads and saves `<project root>/.ideai/layouts.json`.

    Args:
        new_id: Source of ids for the default layouts of a project that has none.
    """

    def __init__(self, new_id: Callable[[], str]) -> None:
        self._new_id = new_id

    @staticmethod
    def path(project_root: Path) -> Path:
        """Where the layouts of a project live."""
        return Path(project_root) / FILE

    def load(self, project_root: Path) -> LayoutSet:
        """The project's layouts; `default_layouts` when the file does not exist yet.

        Raises:
            CorruptFile: The file is not valid; it is left untouched (see `save`).
            NewerVersion: The file comes from a newer idea; it is left untouched.
            FileAccessError: The system refused the read.
        """
        path = self.path(project_root)
        try:
            data = read_json(path)
        except FileNotFoundError:
            return default_layouts(self._new_id)
        return decode_layouts(data, str(path))

    def save(self, project_root: Path, layouts: LayoutSet) -> None:
        """Write the layouts atomically, creating `.ideai/` if needed.

        Raises:
            CorruptFile: The file on disk could not be read; it is NOT overwritten.
            NewerVersion: The file on disk comes from a newer idea; it is NOT overwritten.
            FileAccessError: The system refused the write.
        """
        path = self.path(project_root)
        ensure_directory(path.parent, parents=False)
        replace_json(path, encode_layouts(layouts), lambda data: decode_layouts(data, str(path)))
