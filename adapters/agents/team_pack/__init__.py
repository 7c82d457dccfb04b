"""The "software team" template pack: five personas written for idea (FEATURES.md TEAM-1).

A conductor who plans and delegates, an architect, a developer, a QA and a git keeper, each
a Markdown persona that works through idea's tools (`idea_ask_agent`, `idea_reply`), keeps
project memory and says what "done" means for its role. Installing the pack creates one
template per persona, so a new user gets a working team in one step.

The personas are package data of this package (the `.md` files beside this module); the
pyproject must list them: `"adapters.agents.team_pack" = ["*.md"]`.
"""

from __future__ import annotations

from importlib.resources import files

from core.agents.profile import CLAUDE_CODE_ID
from core.agents.templates import TemplateDraft

PACK_NAME = "Software team"

MEMBERS: tuple[tuple[str, str], ...] = (
    ("Conductor", "conductor.md"),
    ("Architect", "architect.md"),
    ("Developer", "developer.md"),
    ("QA", "qa.md"),
    ("Git Keeper", "git-keeper.md"),
)
"""(template name, file) in the order a team is presented: the conductor first."""

DEFAULT_PROFILE_ID = CLAUDE_CODE_ID
"""Claude Code is a reference profile (PRN-6); the user picks another when creating agents."""


def load_team_pack() -> list[TemplateDraft]:
    """The pack's templates, read from the package data, in `MEMBERS` order.

    Raises:
        FileNotFoundError: A persona is missing from the installed package (a packaging
            error: the package-data line is missing from pyproject).
    """
    package = files(__name__)
    return [
        TemplateDraft(name, package.joinpath(file).read_text(encoding="utf-8"), DEFAULT_PROFILE_ID)
        for name, file in MEMBERS
    ]
