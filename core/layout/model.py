"""The layout tree of a project page: a recursive, spreadsheet-like grid of cells.

This module owns the value objects only. Operations live in `core.layout.ops`, the
screen geometry in `core.layout.geometry`. Every object is frozen: an operation returns a
new tree, which makes undo a matter of keeping the previous value.

`extra` on each object holds keys found in a file that this version does not know; they are
written back unchanged on save (DECISIONS D23).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class _EmptyMapping(Mapping[str, Any]):
    """An immutable, hashable empty mapping.

    `dataclass` refuses a plain `{}` as a field default (it is mutable and unhashable, and
    one shared dict would leak writes between instances); this one can be shared safely.
    """

    __slots__ = ()

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "{}"


EMPTY_EXTRA: Mapping[str, Any] = _EmptyMapping()


class Direction(str, Enum):  # noqa: UP042
    """How a split lays out its children."""

    ROW = "row"
    """Children side by side, left to right (a vertical border between them)."""
    COLUMN = "column"
    """Children stacked, top to bottom (a horizontal border between them)."""


class LayoutKind(str, Enum):  # noqa: UP042
    TERMINAL = "terminal"
    GIT_GRAPH = "gitGraph"


@dataclass(frozen=True, slots=True)
class Leaf:
    """A cell. It hosts at most one terminal session."""

    id: str
    session: str | None = None
    agent: str | None = None
    agent_was_running: bool = False
    conversation_id: str | None = None
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


@dataclass(frozen=True, slots=True)
class WeightedChild:
    node: Node
    weight: float


@dataclass(frozen=True, slots=True)
class Split:
    id: str
    direction: Direction
    children: tuple[WeightedChild, ...]
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


@dataclass(frozen=True, slots=True)
class GridCell:
    node: Node
    row: int
    col: int
    row_span: int = 1
    col_span: int = 1
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


@dataclass(frozen=True, slots=True)
class Grid:
    id: str
    col_weights: tuple[float, ...]
    row_weights: tuple[float, ...]
    cells: tuple[GridCell, ...]
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


Node = Leaf | Split | Grid


@dataclass(frozen=True, slots=True)
class LayoutTree:
    root: Node
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


@dataclass(frozen=True, slots=True)
class Layout:
    """A named page of a project: one tree of cells."""

    id: str
    name: str
    kind: LayoutKind
    tree: LayoutTree
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


@dataclass(frozen=True, slots=True)
class LayoutSet:
    """The content of `.ideai/layouts.json`."""

    active_id: str
    layouts: tuple[Layout, ...]
    version: int = 1
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)

    @property
    def active(self) -> Layout:
        for layout in self.layouts:
            if layout.id == self.active_id:
                return layout
        return self.layouts[0]


def children_of(node: Node) -> tuple[Node, ...]:
    """The direct children of a node, in reading order."""
    if isinstance(node, Split):
        return tuple(child.node for child in node.children)
    if isinstance(node, Grid):
        ordered = sorted(node.cells, key=lambda cell: (cell.row, cell.col))
        return tuple(cell.node for cell in ordered)
    return ()


def iter_leaves(node: Node) -> Iterator[Leaf]:
    """Every leaf under `node`, in reading order (this order gives the cell index)."""
    if isinstance(node, Leaf):
        yield node
        return
    for child in children_of(node):
        yield from iter_leaves(child)


def iter_nodes(node: Node) -> Iterator[Node]:
    """Every node under `node` (itself included), depth first."""
    yield node
    for child in children_of(node):
        yield from iter_nodes(child)
