"""Daemon messages for client tests: scenes laid out like the daemon lays them out, and
frames of fixed content (colours, attributes, wide characters)."""

from __future__ import annotations

from collections.abc import Sequence

from wcwidth import wcswidth

from adapters.ipc.messages import (
    BorderInfo,
    CellFrame,
    CellInfo,
    PageInfo,
    Scene,
    TabInfo,
    WindowInfo,
)
from core.terminal import DEFAULT_COLOR, Attr, Row, Run, rgb

D = DEFAULT_COLOR


def run(text: str, fg: int = D, bg: int = D, attrs: int = 0) -> Run:
    return (text, fg, bg, attrs)


def grid_scene(width: int, height: int, rows: int, cols: int, *, focused: int = 0,
               commands: Sequence[str] = (), titles: Sequence[str] = (),
               tabs: Sequence[str] = ("web", "api"), pages: Sequence[str] = ("Default",),
               window: str = "main") -> Scene:
    """A `rows` x `cols` grid filling `width` x `height`, with one-column borders between
    columns (each cell's first line is its title, as the daemon lays it out)."""
    col_widths = _shares(width - (cols - 1), cols)
    row_heights = _shares(height, rows)
    cells: list[CellInfo] = []
    borders: list[BorderInfo] = []
    y = 0
    for r, cell_height in enumerate(row_heights):
        x = 0
        for c, cell_width in enumerate(col_widths):
            index = r * cols + c
            cells.append(CellInfo(
                id=f"cell-{index}", index=index, x=x, y=y, width=cell_width,
                height=cell_height, command=commands[index] if index < len(commands) else "bash",
                title=titles[index] if index < len(titles) else "",
                focused=index == focused,
            ))
            x += cell_width
            if c < cols - 1:
                borders.append(BorderInfo(vertical=True, x=x, y=y, length=cell_height,
                                          container=f"row-{r}", index=c))
                x += 1
        y += cell_height
    return Scene(
        window=window, windows=[WindowInfo(id="w1", name=window, active=True)],
        tabs=[TabInfo(project=f"p{i}", name=name, root=f"/home/user/{name}", active=i == 0)
              for i, name in enumerate(tabs)],
        pages=[PageInfo(id=f"page-{i}", name=name, active=i == 0)
               for i, name in enumerate(pages)],
        width=width, height=height, cells=cells, borders=borders,
        focused=f"cell-{focused}",
    )


def _shares(total: int, parts: int) -> list[int]:
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def frame(scene: Scene, index: int, lines: Sequence[Row], cursor: tuple[int, int] = (0, 0),
          *, visible: bool = True) -> CellFrame:
    """A full frame for cell `index` of `scene`, its rows padded to the cell's width."""
    cell = scene.cells[index]
    cols, rows = cell.width, cell.height - 1
    padded: list[tuple[int, Row]] = []
    for y in range(rows):
        row = tuple(lines[y]) if y < len(lines) else ()
        used = sum(_cells(text) for text, *_ in row)
        if used < cols:
            row = (*row, run(" " * (cols - used)))
        padded.append((y, row))
    return CellFrame(cell=cell.id, cols=cols, rows=rows, lines=padded,
                     cursor=(cursor[0], cursor[1], visible, 0), full=True)


def _cells(text: str) -> int:
    width: int = wcswidth(text)
    return width if width >= 0 else len(text)


def prompt(text: str = "") -> Row:
    return (run("user@host", fg=2, attrs=Attr.BOLD), run(":"), run("~/web", fg=4, attrs=Attr.BOLD),
            run("$ " + text))


SAMPLE_CONTENT: list[list[Row]] = [
    # a shell with coloured `ls` output
    [prompt("ls --color"),
     (run("src", fg=12, attrs=Attr.BOLD), run("  "), run("build.sh", fg=10, attrs=Attr.BOLD),
      run("  README.md  "), run("link", fg=14)),
     prompt()],
    # truecolour, reverse, italic, underline and strike
    [(run("truecolor ", fg=rgb(255, 128, 0)), run("on blue", fg=15, bg=rgb(0, 0, 160))),
     (run("reverse", attrs=Attr.REVERSE), run(" "), run("italic", attrs=Attr.ITALIC), run(" "),
      run("under", attrs=Attr.UNDERLINE), run(" "), run("strike", attrs=Attr.STRIKE)),
     (run("256: "), run("██", fg=196), run("██", fg=46), run("██", fg=21), run("██", fg=244))],
    # wide characters and emoji
    [(run("wide: "), run("日本語", fg=11), run(" ok")),
     (run("emoji: "), run("🙂", fg=D), run(" | "), run("é, ñ, ü")),
     (run("box: ┌─┐ │ │ └─┘"),)],
    # a full-screen program's status line
    [(run("def main() -> None:", fg=3),),
     (run("    print("), run('"hello"', fg=2), run(")")),
     (run("~", fg=4, attrs=Attr.BOLD),),
     (run(" NORMAL ", fg=0, bg=10, attrs=Attr.BOLD), run(" main.py ", bg=238)),
     ],
]
