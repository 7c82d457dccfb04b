"""A composed context shaped like the real one (D7 sections, over 8 KB, non-ASCII), and the
placeholder values of a launch."""

from __future__ import annotations

from pathlib import Path


def composed_context(project: Path, marker: str) -> str:
    """Section titles as D7 orders them; `marker` makes each launch's text recognisable."""
    persona = "\n".join(f"- Rule {i}: review with care — «{marker}» ✓" for i in range(200))
    return (
        f"# Project root\n\n{project}\n\n"
        f"# idea orchestration\n\nYou are agent {marker}. Answer tasks with "
        "idea_reply(result=…, ticket=…), never in plain text.\n\n"
        f"# Project context\n\nA \"quoted\" value, a back\\slash, 'single' quotes and = signs.\n\n"
        f"{persona}\n"
    )


def launch_values(project: Path, run_dir: Path, context: str, conversation_id: str = "",
                  ) -> dict[str, str]:
    """The placeholder values idea fills in (`core.agents.profile` placeholders)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    context_file = run_dir / "context.md"
    context_file.write_text(context, encoding="utf-8")
    values = {"projectRoot": str(project), "runDir": str(run_dir), "path": str(context_file),
              "content": context}
    if conversation_id:
        values["conversationId"] = conversation_id
    return values
