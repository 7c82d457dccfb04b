"""What the daemon writes down, on fakes: layouts after each edit, failures said out loud."""

from __future__ import annotations

from adapters.ipc.messages import Notice
from core.layout.model import iter_leaves
from tests.helpers.unit_daemon import FakeWriter, UnitDaemon


def test_every_layout_edit_is_saved(unit: UnitDaemon) -> None:
    root = unit.project()
    before = len(unit.stores.layouts.saves_of(root))
    unit.call("split", direction="right")
    unit.call("equalize")
    unit.call("layout_new", name="Two")
    saved = unit.stores.layouts.saves_of(root)
    assert len(saved) > before
    assert [lay.name for lay in saved[-1].layouts] == ["Default", "Two"]
    assert saved[-1].active.name == "Two"


def test_saved_leaves_name_the_session_running_in_them(unit: UnitDaemon) -> None:
    root = unit.project()
    unit.call("split", direction="right")
    saved = unit.stores.layouts.saves_of(root)[-1]
    sessions = {leaf.session for leaf in iter_leaves(saved.active.tree.root)}
    assert sessions == set(unit.service.sessions)


def test_a_failing_layout_save_is_reported_to_the_client_and_not_retried(
    unit: UnitDaemon,
) -> None:
    client = unit.attach()
    root = unit.project()
    unit.stores.layouts.fail_saves = True
    unit.call("split", direction="right")
    writer = client.writer
    assert isinstance(writer, FakeWriter)
    unit.until(lambda: any(isinstance(m, Notice) and m.level == "error"
                           for m in writer.messages()), "the failure was told")
    notice = next(m for m in writer.messages() if isinstance(m, Notice) and m.level == "error")
    assert "disk full" in notice.text
    saves = len(unit.stores.layouts.saves_of(root))
    unit.stores.layouts.fail_saves = False
    unit.call("split", direction="right")
    # A file that failed once is not rewritten behind the user's back (it may be the
    # user's own edit in progress); the failure was said.
    assert len(unit.stores.layouts.saves_of(root)) == saves


def test_renaming_and_switching_pages_is_saved(unit: UnitDaemon) -> None:
    root = unit.project()
    unit.call("layout_new", name="Two")
    unit.call("layout_rename", page="Two", name="Build")
    unit.call("layout_switch", page="Default")
    saved = unit.stores.layouts.saves_of(root)[-1]
    assert [lay.name for lay in saved.layouts] == ["Default", "Build"]
    assert saved.active.name == "Default"


def test_a_page_name_taken_twice_is_refused(unit: UnitDaemon) -> None:
    unit.project()
    unit.call("layout_new", name="Two")
    assert "already has a page named 'Two'" in str(unit.refused("layout_new", name="Two"))


def test_the_window_size_is_remembered_in_the_workspace_once_resizing_settles(
    unit: UnitDaemon,
) -> None:
    client = unit.attach(width=80, height=24)
    unit.project()
    client.width, client.height = 132, 50
    unit.server.claim_size(client)
    unit.until(lambda: unit.stores.workspace.current.windows[0].size == (132, 50),
               "the workspace was saved with the new size")
