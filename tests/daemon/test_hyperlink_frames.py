"""A program's OSC 8 hyperlink, printed in a real PTY, reaches the attached client in the
cell's frames, and the scrollback (`history`) keeps it."""

from __future__ import annotations

from pathlib import Path

from adapters.ipc.messages import CellFrame, DaemonMessage
from core.hyperlinks import attach_links
from tests.helpers.daemon import InProcessDaemon
from tests.helpers.idea import PROMPT_RE
from tests.helpers.raw_client import RawClient

URI = "https://example.com/docs"
# The text is computed by printf, so the typed command line never shows it.
PRINT_LINK = f"printf 'see \\033]8;id=d1;{URI}\\033\\\\docs-%d\\033]8;;\\033\\\\ end\\n' 42"


def linked_texts(message: DaemonMessage, cell: str) -> list[tuple[str, str]]:
    """(text, URI) of every linked run in a frame of `cell`, as the client will draw them."""
    if not isinstance(message, CellFrame) or message.cell != cell:
        return []
    rows = dict(message.lines)
    found: list[tuple[str, str]] = []
    for y, links in message.links:
        row = attach_links(rows[y], links)
        found.extend((row[index][0], uri) for index, uri in links)
    return found


def test_a_printed_hyperlink_reaches_the_client_and_the_history(
        daemon: InProcessDaemon, tmp_path: Path) -> None:
    project = tmp_path / "web"
    project.mkdir()
    with RawClient(str(daemon.locations.socket), width=100, height=20) as client:
        client.call("project_new", path=str(project))
        (cell,) = (item["id"] for item in client.call("list_cells"))
        client.call("capture", target=f"%{cell}", wait=PROMPT_RE, timeout=30)

        client.call("send_keys", target=f"%{cell}", keys=[PRINT_LINK, "Enter"])
        frame = client.wait_for(lambda m: ("docs-42", URI) in linked_texts(m, cell))
        assert isinstance(frame, CellFrame)
        row = next(runs for y, runs in frame.lines if "docs-42" in "".join(r[0] for r in runs))
        assert "".join(run[0] for run in row).startswith("see docs-42 end")

        # Scroll the line off the screen: the history answer carries its link.
        client.call("send_keys", target=f"%{cell}", keys=["seq 1 40", "Enter"])
        client.call("capture", target=f"%{cell}", wait=r"^40$", timeout=30)
        answer = client.call("history", target=f"%{cell}", start=0, count=1000)
        rows = answer["rows"]
        (index,) = [i for i, runs in enumerate(rows)
                    if "".join(run[0] for run in runs).startswith("see docs-42")]
        links = dict((i, tuple((int(r), str(u)) for r, u in pairs))
                     for i, pairs in answer["links"])
        assert [rows[index][r][0] for r, _ in links[index]] == ["docs-42"]
        assert [uri for _, uri in links[index]] == [URI]
