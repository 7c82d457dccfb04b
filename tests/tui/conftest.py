"""SVG snapshots live in the top-level `snapshots/` folder (see snapshots/README.md).

pytest-textual-snapshot's `snap_compare` switches the `snapshot` fixture to its SVG
extension, which would write next to the test module (`tests/tui/__snapshots__/`). The
`snapshot` fixture below hands it an assertion that swaps that extension for a subclass
whose folder is `snapshots/<test module>/`; everything else (normalisation, the HTML
report, `--snapshot-update`) is the plugin's own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pytest_textual_snapshot import SVGImageExtension  # type: ignore[import-untyped]
from syrupy.assertion import SnapshotAssertion

SNAPSHOTS = Path(__file__).resolve().parents[2] / "snapshots"


class SnapshotsFolderSVG(SVGImageExtension):  # type: ignore[misc]
    """The plugin's SVG extension, storing under `snapshots/<test module>/`."""

    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        return str(SNAPSHOTS / test_location.basename)


class _SnapshotsFolderAssertion(SnapshotAssertion):
    def use_extension(self, extension_class: Any = None) -> Any:
        if extension_class is SVGImageExtension:
            extension_class = SnapshotsFolderSVG
        return super().use_extension(extension_class)


@pytest.fixture
def snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return _SnapshotsFolderAssertion(
        session=snapshot.session,
        extension_class=snapshot.extension_class,
        test_location=snapshot.test_location,
        update_snapshots=snapshot.update_snapshots,
    )
