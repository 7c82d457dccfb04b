"""Undo and redo of layout edits: a bounded stack of previous trees for one layout.

Pure and immutable like the trees it holds: every method returns a new history. The caller
(the daemon's layout service) keeps one history per layout id, pushes the tree as it was
before each edit, and replaces its current tree with what `undo`/`redo` return. Keeping
whole trees is cheap because an edit shares every untouched subtree with the previous one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from core.layout.model import LayoutTree

DEFAULT_LIMIT = 50


@dataclass(frozen=True, slots=True)
class LayoutHistory:
    """Past and future trees of one layout.

    Attributes:
        past: Trees before the current one, oldest first (at most `limit`).
        future: Trees undone, the next one to redo last.
        limit: How many past trees are kept; older ones are dropped.
    """

    past: tuple[LayoutTree, ...] = ()
    future: tuple[LayoutTree, ...] = ()
    limit: int = DEFAULT_LIMIT

    @property
    def can_undo(self) -> bool:
        """Whether `undo` has something to return."""
        return bool(self.past)

    @property
    def can_redo(self) -> bool:
        """Whether `redo` has something to return."""
        return bool(self.future)

    def push(self, previous: LayoutTree) -> LayoutHistory:
        """Record the tree as it was before an edit; a new edit forgets what was undone.

        Pushing a tree equal to the last one recorded does nothing, so a no-op edit (a
        resize clamped to nothing) does not cost an undo step.
        """
        if self.past and self.past[-1] == previous:
            return replace(self, future=())
        past = (*self.past, previous)[-self.limit :] if self.limit > 0 else ()
        return replace(self, past=past, future=())

    def undo(self, current: LayoutTree) -> tuple[LayoutHistory, LayoutTree] | None:
        """Step back: the tree to show now, and the history that can redo `current`.

        Returns:
            None when there is nothing to undo.
        """
        if not self.past:
            return None
        history = replace(self, past=self.past[:-1], future=(*self.future, current))
        return history, self.past[-1]

    def redo(self, current: LayoutTree) -> tuple[LayoutHistory, LayoutTree] | None:
        """Step forward again after an undo.

        Returns:
            None when there is nothing to redo.
        """
        if not self.future:
            return None
        history = replace(self, past=(*self.past, current)[-self.limit :], future=self.future[:-1])
        return history, self.future[-1]
