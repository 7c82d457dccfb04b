"""The examples in the docstrings of the emulator and of the core helpers run."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

import core.hyperlinks
import core.terminal
from adapters.emulator import osc, styles


@pytest.mark.parametrize("module", [core.terminal, core.hyperlinks, styles, osc],
                         ids=lambda m: m.__name__)
def test_docstring_examples(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0
