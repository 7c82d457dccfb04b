"""The typed RPC: each command's parameters are a msgspec Struct decoded at the boundary,
one table entry per command, and a bug is an "internal" error with a traceback in the log."""

from __future__ import annotations

import logging

import pytest

from adapters.ipc import commands as rpc
from idea_tui.control import CommandFailed, checked_params
from tests.helpers.unit_daemon import UnitDaemon


def test_a_value_out_of_range_is_refused_naming_the_field(unit: UnitDaemon) -> None:
    unit.project()
    refusal = unit.refused("split", count=33)
    assert refusal.code == "bad_request"
    assert str(refusal) == "count must be a whole number from 1 to 32"
    assert len(unit.spawner.spawned) == 1, "nothing was split"


def test_a_missing_field_is_refused_by_name(unit: UnitDaemon) -> None:
    unit.project()
    refusal = unit.refused("set_border", index=0)
    assert (refusal.code, str(refusal)) == ("bad_request", "container is required")


def test_a_value_of_the_wrong_type_is_refused_by_name(unit: UnitDaemon) -> None:
    unit.project()
    assert str(unit.refused("capture", target=42)) == "target must be a string"
    assert str(unit.refused("send_keys", keys="ls")) == "keys must be a list of strings"
    assert str(unit.refused("close", force="yes")) == "force must be true or false"


def test_a_bug_in_a_handler_is_internal_and_logged_with_its_traceback(
    unit: UnitDaemon, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    unit.project()

    def broken(*args: object, **kwargs: object) -> list[str]:
        raise KeyError("a daemon bug")

    monkeypatch.setattr(unit.service.cells, "split", broken)
    with caplog.at_level(logging.ERROR, logger="idea_daemon.server"):
        refusal = unit.refused("split")
    # Not "bad_request": the request was fine, the daemon was not.
    assert refusal.code == "internal"
    assert "see the daemon log" in str(refusal)
    [record] = [r for r in caplog.records if "command split failed" in r.getMessage()]
    assert record.exc_info is not None and record.exc_info[0] is KeyError


def test_every_command_has_one_typed_entry_with_the_shared_struct(unit: UnitDaemon) -> None:
    table = unit.server.handlers
    for name, params in rpc.PARAMS.items():
        assert name in table, f"{name} is described but not served"
        assert table[name].params is params, name
    typed = {name for name, entry in table.items() if entry.params is not None}
    assert typed == set(rpc.PARAMS), "every typed command is described for clients too"


def test_the_client_checks_parameters_with_the_same_struct_before_sending() -> None:
    with pytest.raises(CommandFailed) as caught:
        checked_params("split", {"count": "3"})
    assert caught.value.code == "bad_request"
    assert str(caught.value) == "count must be a whole number from 1 to 32"
    # None means "not given"; defaults are left for the daemon; unknown keys go through.
    assert checked_params("split", {"direction": "down", "target": None, "extra": 1}) == {
        "direction": "down", "extra": 1}


def test_answers_keep_their_wire_shape(unit: UnitDaemon) -> None:
    unit.project()
    [cell] = unit.cells()
    assert set(cell) == {"id", "target", "project", "root", "page", "index", "focused",
                         "running", "cols", "rows", "title", "attention", "exitCode", "pid",
                         "command", "foreground"}
    assert cell["exitCode"] is None and cell["foreground"] is None
    assert unit.call("version")["protocol"] >= 1
    assert unit.call("zoom") == {"zoomed": True}
