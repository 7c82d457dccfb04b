"""The key table: what each key does after the prefix (DECISIONS D21), and every action's
description, shared by the dispatcher, the help screen, the palette and docs/keys.md.

Keys are written as the character typed when there is one ("%", "\"", "M") and as Textual key
names otherwise ("left", "ctrl+left", "f1"). Everything not bound here goes to the focused
cell, Textual's own defaults (ctrl+q, ctrl+c, tab, ...) included.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PREFIX = "ctrl+b"


@dataclass(frozen=True, slots=True)
class ActionInfo:
    """An action the user can run: from a key after the prefix, or from the palette."""

    name: str
    description: str
    group: str
    keys: tuple[str, ...] = ()
    argument: str | None = None
    """When set, the palette asks for this value before running the action."""


ACTIONS: tuple[ActionInfo, ...] = (
    # cells
    ActionInfo("split_right", "Split: new cell on the right", "Cells", ("%",)),
    ActionInfo("split_down", "Split: new cell below", "Cells", ('"',)),
    ActionInfo(
        "grid",
        "Turn the cell into a grid (rows x columns)",
        "Cells",
        ("g",),
        argument="Grid size, e.g. 2x3",
    ),
    ActionInfo("close_cell", "Close the cell (asks if a program runs)", "Cells", ("x",)),
    ActionInfo("zoom", "Zoom the cell to the whole window, or back", "Cells", ("z",)),
    ActionInfo("focus_left", "Focus the cell on the left", "Focus", ("left", "h")),
    ActionInfo("focus_right", "Focus the cell on the right", "Focus", ("right", "l")),
    ActionInfo("focus_up", "Focus the cell above", "Focus", ("up", "k")),
    ActionInfo("focus_down", "Focus the cell below", "Focus", ("down", "j")),
    ActionInfo("focus_next", "Focus the next cell", "Focus", ("o",)),
    ActionInfo("focus_last", "Focus the previously focused cell", "Focus", (";",)),
    ActionInfo("resize_left", "Move the left border (grow left)", "Resize", ("ctrl+left",)),
    ActionInfo("resize_right", "Move the right border (grow right)", "Resize", ("ctrl+right",)),
    ActionInfo("resize_up", "Move the top border (grow up)", "Resize", ("ctrl+up",)),
    ActionInfo("resize_down", "Move the bottom border (grow down)", "Resize", ("ctrl+down",)),
    ActionInfo("resize_left_5", "Grow left by 5", "Resize", ("alt+left",)),
    ActionInfo("resize_right_5", "Grow right by 5", "Resize", ("alt+right",)),
    ActionInfo("resize_up_5", "Grow up by 5", "Resize", ("alt+up",)),
    ActionInfo("resize_down_5", "Grow down by 5", "Resize", ("alt+down",)),
    ActionInfo("equalize", "Give every cell of the page an equal share", "Resize", ("=",)),
    ActionInfo("merge_mode", "Merge with a neighbour (then an arrow)", "Arrange", ("m",)),
    ActionInfo("swap_mode", "Swap with a neighbour (then an arrow)", "Arrange", ("s",)),
    ActionInfo("move_mode", "Move beside a neighbour (then an arrow)", "Arrange", ("M",)),
    ActionInfo("swap_prev", "Swap with the previous cell", "Arrange", ("{",)),
    ActionInfo("swap_next", "Swap with the next cell", "Arrange", ("}",)),
    ActionInfo("undo", "Undo the last layout change", "Arrange", ("u",)),
    ActionInfo("redo", "Redo a layout change", "Arrange", ("U",)),
    ActionInfo("restart_cell", "Restart the cell's shell", "Cells", ("R",)),
    # pages
    ActionInfo("new_page", "New layout page", "Pages", ("c",)),
    ActionInfo("next_page", "Next layout page", "Pages", ("n",)),
    ActionInfo("prev_page", "Previous layout page", "Pages", ("p",)),
    ActionInfo("rename_page", "Rename the page", "Pages", (",",), argument="Page name"),
    ActionInfo("close_page", "Close the page (asks if programs run)", "Pages", ("&",)),
    # projects and windows
    ActionInfo("next_project", "Next project tab", "Projects", (")",)),
    ActionInfo("prev_project", "Previous project tab", "Projects", ("(",)),
    ActionInfo("projects", "Projects panel: open, create, close", "Projects", ("P",)),
    ActionInfo("new_project", "Create a project at a path", "Projects", argument="Project path"),
    ActionInfo("open_project", "Open a project at a path", "Projects", argument="Project path"),
    ActionInfo("close_project", "Close the project tab (asks if programs run)", "Projects", ("X",)),
    ActionInfo("tree", "Tree of windows, tabs and pages", "Projects", ("w",)),
    ActionInfo(
        "move_to_window",
        "Move the project to another window",
        "Projects",
        ("!",),
        argument="Window name (created if new)",
    ),
    ActionInfo("rename_window", "Rename this window", "Projects", ("$",), argument="Window name"),
    # agents, templates, profiles
    ActionInfo(
        "agents",
        "Agents panel: launch, stop, edit, sync the project's agents",
        "Agents",
        ("A",),
    ),
    ActionInfo("new_agent", "New agent, from scratch or a template", "Agents"),
    ActionInfo(
        "templates", "Templates: edit, create, delete; agents from a template", "Agents", ("T",)
    ),
    ActionInfo(
        "install_team_pack",
        "Install the software team templates (conductor, architect, developer, QA, git keeper)",
        "Agents",
    ),
    ActionInfo(
        "profiles", "Profiles: the AI CLIs agents run, detect installed ones", "Agents", ("S",)
    ),
    ActionInfo("limit_resume_at", "Usage limit: resume an agent at a time", "Agents",
               argument="Agent and time (e.g. dev 17:05)"),
    ActionInfo("limit_resume_now", "Usage limit: resume an agent now", "Agents",
               argument="Agent name"),
    ActionInfo("limit_cancel", "Usage limit: cancel an agent's armed resume", "Agents",
               argument="Agent name"),
    ActionInfo("limit_not_limited",
               "Usage limit: not a limit, or no longer (a suspected agent's task goes on)",
               "Agents", argument="Agent name"),
    ActionInfo("limit_continue_on", "Usage limit: continue an agent on another profile",
               "Agents", argument="Agent and profile (e.g. dev codex)"),
    # what the team shares
    ActionInfo("memory", "Memory panel: the project's durable notes (view, edit, delete)",
               "Team", ("N",)),
    ActionInfo("project_context",
               "Context panel: CONTEXT.md and the agents' proposals (diff, accept, reject)",
               "Team", ("C",)),
    ActionInfo("work", "Work panel: who is doing what now (live state)", "Team", ("W",)),
    ActionInfo(
        "refresh_context",
        "Refresh the focused agent's context (offered by ⟳ in its title)",
        "Team",
        ("F",),
    ),
    ActionInfo("skills", "Skills panel: procedures given to agents (project and global)",
               "Team", ("K",)),
    ActionInfo(
        "delegations",
        "Delegations: who asked whom, ticket states and durations, who needs you",
        "Agents",
        ("D",),
    ),
    ActionInfo(
        "enqueue_line",
        "Queue a line for the focused agent (typed in after its current task)",
        "Agents",
        ("e",),
        argument="Line for the agent",
    ),
    ActionInfo(
        "interrupt_agent",
        "Interrupt the focused agent's turn (its ticket fails, its queue moves on)",
        "Agents",
        ("i",),
    ),
    # git
    ActionInfo(
        "git", "Git panel: stage, unstage, discard, diff, commit, branches, log", "Git", ("G",)
    ),
    ActionInfo("git_graph", "Git Graph page: the commit graph (Enter: a commit's diff)", "Git"),
    # client
    ActionInfo(
        "copy_mode", "Copy mode: scroll, search, select and copy the history", "Client", ("[",)
    ),
    ActionInfo("palette", "Command palette", "Client", (":",)),
    ActionInfo("help", "This help", "Client", ("?",)),
    ActionInfo("detach", "Detach (everything keeps running)", "Client", ("d",)),
    ActionInfo("send_prefix", "Send the prefix key itself to the cell", "Client"),
)

ACTIONS_BY_NAME = {action.name: action for action in ACTIONS}

# Keys that finish a two-key command (merge/swap/move + direction).
DIRECTION_KEYS = {
    "left": "left",
    "h": "left",
    "right": "right",
    "l": "right",
    "up": "up",
    "k": "up",
    "down": "down",
    "j": "down",
}


def build_prefix_table(prefix: str = DEFAULT_PREFIX) -> dict[str, str]:
    """Key → action name for the key pressed after the prefix."""
    table = {key: action.name for action in ACTIONS for key in action.keys}
    table[prefix] = "send_prefix"
    for digit in range(10):
        table.setdefault(str(digit), f"page_{digit}")
    return table


def key_label(key: str) -> str:
    """How a key is shown to users (help screen, docs)."""
    names = {"left": "←", "right": "→", "up": "↑", "down": "↓"}
    if key in names:
        return names[key]
    for modifier in ("ctrl+", "alt+"):
        if key.startswith(modifier) and key[len(modifier) :] in names:
            return modifier.capitalize().rstrip("+") + "-" + names[key[len(modifier) :]]
    return key


def normalize_key(key: str, character: str | None) -> str:
    """The table key for a Textual key event: the printable character typed, else its name."""
    if (
        character is not None
        and len(character) == 1
        and character.isprintable()
        and not key.startswith(("ctrl+", "alt+"))
        and character != " "
    ):
        return character
    return key
