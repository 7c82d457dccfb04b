"""Every emulator test runs against both backends (pyte and ghostty), unless its module or
function is marked `pyte_only` (it checks pyte's internals, not the port's contract) or
`ghostty_only` (the ghostty backend's own parts)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.adapters.emulator import helpers
from tests.helpers.emulators import BACKENDS, mark_known_differences, require_backend


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "pyte_only: checks the pyte backend's internals")
    config.addinivalue_line("markers", "ghostty_only: checks the ghostty backend's own parts")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "emulator_backend" in metafunc.fixturenames:
        backends = list(BACKENDS)
        if metafunc.definition.get_closest_marker("pyte_only") is not None:
            backends = ["pyte"]
        elif metafunc.definition.get_closest_marker("ghostty_only") is not None:
            backends = ["ghostty"]
        metafunc.parametrize("emulator_backend", backends, indirect=True)


@pytest.fixture(autouse=True)
def emulator_backend(request: pytest.FixtureRequest) -> Iterator[str]:
    name: str = getattr(request, "param", "pyte")
    require_backend(name)
    mark_known_differences(request, name)
    previous = helpers.BACKEND
    helpers.BACKEND = name
    try:
        yield name
    finally:
        helpers.BACKEND = previous
