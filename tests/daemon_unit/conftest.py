"""The daemon's services on fakes (no shells, no files but agents' ones): fast unit tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.unit_daemon import UnitDaemon


@pytest.fixture
def unit(tmp_path: Path) -> Iterator[UnitDaemon]:
    daemon = UnitDaemon(tmp_path)
    try:
        yield daemon
    finally:
        daemon.close()
