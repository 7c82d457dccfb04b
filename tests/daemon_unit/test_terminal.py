"""What runs in a cell, on fakes: output reaching the screen, input reaching the program."""

from __future__ import annotations

import asyncio

from adapters.ipc.commands import CaptureAnswer
from adapters.ipc.messages import CellFrame, Clipboard, Notice, Request, Scene
from tests.helpers.unit_daemon import FakeWriter, UnitDaemon


def test_program_output_shows_in_capture(unit: UnitDaemon) -> None:
    unit.project()
    pty = unit.spawner.spawned[0]
    pty.output(b"hello\r\nworld")
    unit.until(lambda: "world" in unit.call("capture")["text"], "the output was read")
    captured = unit.call("capture")
    assert captured["text"].splitlines()[:2] == ["hello", "world"]
    assert captured["cursor"] == [5, 1]


def test_capture_wait_returns_once_the_pattern_appears(unit: UnitDaemon) -> None:
    unit.project()
    pty = unit.spawner.spawned[0]
    request = Request(id=99, method="capture", params={"wait": "ready>", "timeout": 30})
    task = unit.loop.create_task(unit.server.run_command(unit.control, request))
    unit.turn()
    assert not task.done()
    pty.output(b"ready> ")
    unit.until(task.done, "the wait ended")
    answer = task.result().result
    assert isinstance(answer, CaptureAnswer) and "ready>" in answer.text


def test_capture_wait_times_out_with_a_timeout_code(unit: UnitDaemon) -> None:
    unit.project()
    refusal = unit.refused("capture", wait="never", timeout=0.01)
    assert refusal.code == "timeout"


def test_capture_with_a_bad_pattern_is_refused(unit: UnitDaemon) -> None:
    unit.project()
    assert "bad --wait pattern" in str(unit.refused("capture", wait="("))


def test_send_keys_encodes_key_names_for_the_program(unit: UnitDaemon) -> None:
    unit.project()
    pty = unit.spawner.spawned[0]
    assert unit.call("send_keys", keys=["ls", "Enter"]) == {"bytes": 3}
    assert bytes(pty.written) == b"ls\r"


def test_send_keys_uses_the_programs_cursor_key_mode(unit: UnitDaemon) -> None:
    unit.project()
    pty = unit.spawner.spawned[0]
    pty.output(b"\x1b[?1h")  # application cursor keys (as vim sets them)
    unit.until(lambda: unit.emulators[0].modes.app_cursor, "the mode was read")
    unit.call("send_keys", keys=["Up"])
    assert bytes(pty.written) == b"\x1bOA"


def test_send_keys_literal_sends_the_text_as_is(unit: UnitDaemon) -> None:
    unit.project()
    unit.call("send_keys", keys=["Enter"], literal=True)
    assert bytes(unit.spawner.spawned[0].written) == b"Enter"


def test_send_keys_needs_a_list_of_strings(unit: UnitDaemon) -> None:
    unit.project()
    assert "keys" in str(unit.refused("send_keys", keys="ls"))


def test_paste_is_bracketed_when_the_program_asked(unit: UnitDaemon) -> None:
    unit.project()
    pty = unit.spawner.spawned[0]
    pty.output(b"\x1b[?2004h")
    unit.until(lambda: unit.emulators[0].modes.bracketed_paste, "the mode was read")
    unit.call("paste", text="a\nb")
    assert bytes(pty.written) == b"\x1b[200~a\rb\x1b[201~"


def test_the_programs_answers_to_queries_are_written_back(unit: UnitDaemon) -> None:
    unit.project()
    pty = unit.spawner.spawned[0]
    pty.output(b"abc\x1b[6n")  # where is the cursor?
    unit.until(lambda: bytes(pty.written) != b"", "the reply was written")
    assert bytes(pty.written) == b"\x1b[1;4R"


def test_a_program_that_cannot_start_shows_why_in_its_cell(unit: UnitDaemon) -> None:
    unit.spawner.missing.add("/bin/sh")
    unit.project()
    captured = unit.call("capture")
    assert "command not found: /bin/sh" in captured["error"]
    [cell] = unit.cells()
    assert cell["running"] is False and "command not found" in cell["error"]
    assert "has no running program" in str(unit.refused("send_keys", keys=["x"]))


def test_a_program_that_exits_is_shown_with_its_exit_code(unit: UnitDaemon) -> None:
    unit.project()
    pty = unit.spawner.spawned[0]
    pty.exit(3)
    unit.until(lambda: unit.cells()[0]["exitCode"] == 3, "the exit was collected")
    assert unit.cells()[0]["running"] is False


def test_a_title_set_by_the_program_is_the_cells_title(unit: UnitDaemon) -> None:
    unit.project()
    unit.spawner.spawned[0].output(b"\x1b]2;building\x07")
    unit.until(lambda: unit.cells()[0].get("title") == "building", "the title was read")


def test_a_bell_in_a_cell_nobody_watches_marks_it_until_selected(unit: UnitDaemon) -> None:
    unit.attach()
    unit.project()
    first = unit.focused()
    [second] = unit.call("split", direction="right")["cells"]
    unit.pty_of(first).output(b"\x07")
    unit.until(lambda: unit.cells()[0]["attention"] == "bell", "the bell was seen")
    assert next(c for c in unit.cells() if c["id"] == second)["attention"] == ""
    unit.call("select", target=f"%{first}")
    assert unit.cells()[0]["attention"] == ""


def test_a_bell_in_the_watched_cell_marks_nothing(unit: UnitDaemon) -> None:
    unit.attach()
    unit.project()
    pty = unit.spawner.spawned[0]
    pty.output(b"\x07done")
    unit.until(lambda: "done" in unit.call("capture")["text"], "the output was read")
    assert unit.cells()[0]["attention"] == ""


def test_monitor_silence_flags_a_cell_that_went_quiet(unit: UnitDaemon) -> None:
    unit.project()
    cell = unit.focused()
    [_other] = unit.call("split", direction="right")["cells"]
    unit.call("monitor", target=f"%{cell}", silence=30)
    unit.pty_of(cell).output(b"working")
    unit.until(lambda: "working" in unit.call("capture", target=f"%{cell}")["text"], "read")
    session = unit.session_of(cell)
    assert session is not None
    session.check_silence(unit.stores.clock.monotonic() + 10)
    assert session.attention == ""
    session.check_silence(unit.stores.clock.monotonic() + 31)
    assert session.attention == "silence"


def test_monitor_refuses_a_negative_silence(unit: UnitDaemon) -> None:
    unit.project()
    assert "silence" in str(unit.refused("monitor", silence=-1))


def test_an_attached_client_gets_the_scene_then_every_cells_screen(unit: UnitDaemon) -> None:
    client = unit.attach(width=90, height=20)
    unit.project()
    unit.spawner.spawned[0].output(b"prompt$ ")
    writer = client.writer
    assert isinstance(writer, FakeWriter)

    def painted() -> bool:
        frames = [m for m in writer.messages() if isinstance(m, CellFrame)]
        return any("prompt$" in run[0] for f in frames for _y, row in f.lines for run in row)

    unit.until(painted, "the cell's screen was sent")
    scenes = [m for m in writer.messages() if isinstance(m, Scene)]
    assert scenes[-1].width == 90 and [tab.name for tab in scenes[-1].tabs] == ["proj"]


def test_a_program_copying_text_reaches_the_clients_clipboard(unit: UnitDaemon) -> None:
    client = unit.attach()
    unit.project()
    unit.spawner.spawned[0].output(b"\x1b]52;c;aGVsbG8=\x07")  # "hello"
    writer = client.writer
    assert isinstance(writer, FakeWriter)
    unit.until(lambda: any(isinstance(m, Clipboard) for m in writer.messages()), "clipboard")
    assert [m.text for m in writer.messages() if isinstance(m, Clipboard)] == ["hello"]


def test_a_programs_notification_is_on_the_status_line_naming_the_cell(
    unit: UnitDaemon,
) -> None:
    client = unit.attach()
    unit.project()
    unit.spawner.spawned[0].output(b"\x1b]9;tests passed\x07")
    writer = client.writer
    assert isinstance(writer, FakeWriter)
    unit.until(lambda: any(isinstance(m, Notice) for m in writer.messages()), "a notice")
    texts = [m.text for m in writer.messages() if isinstance(m, Notice)]
    assert texts == ["proj:Default.0: tests passed"]


def test_the_loop_is_not_left_with_work_after_a_capture(unit: UnitDaemon) -> None:
    unit.project()
    unit.call("capture")
    pending = [t for t in asyncio.all_tasks(unit.loop) if not t.done()]
    assert pending == []
