"""Errors of project memory, project context and the FileGuard, worded for whoever acts on
them: a model gets them as `isError` tool results, the user as command errors. `code` is
stable for programs (`--json`)."""

from __future__ import annotations

from core.errors import IdeaError


class KnowledgeError(IdeaError):
    code = "invalid"


class InvalidArgument(KnowledgeError):
    """A tool or command argument that is empty, of the wrong type or malformed."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"{name!r} {problem}.")
        self.name = name


class TooLarge(KnowledgeError):
    """A value above its bound: the limit is in the message so the caller can shorten it."""

    code = "too_large"

    def __init__(self, name: str, size: int, limit: int, unit: str = "characters") -> None:
        super().__init__(
            f"{name!r} is {size:,} {unit}; the limit is {limit:,} {unit}. Shorten it "
            "(keep only what is durable and useful to others)."
        )
        self.name = name
        self.limit = limit


class InvalidSlug(KnowledgeError):
    def __init__(self, slug: str, problem: str) -> None:
        shown = slug if len(slug) <= 60 else slug[:57] + "..."
        super().__init__(f"Memory slug {shown!r} is refused: {problem}.")
        self.slug = slug


class NoteNotFound(KnowledgeError):
    code = "not_found"

    def __init__(self, slug: str) -> None:
        super().__init__(
            f"There is no memory note {slug!r}. idea_memory_read with no slug lists the notes."
        )
        self.slug = slug


class InvalidNote(KnowledgeError):
    """Note text given to be saved whose frontmatter cannot be used."""

    def __init__(self, problem: str) -> None:
        super().__init__(f"The note cannot be saved: {problem}.")


class ProposalNotFound(KnowledgeError):
    code = "not_found"

    def __init__(self, proposal_id: str) -> None:
        super().__init__(
            f"There is no pending proposal {proposal_id!r} (`idea context proposals` lists them)."
        )


class TooManyProposals(KnowledgeError):
    code = "busy"

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"{limit} proposals already wait for the user's review; wait until they are "
            "accepted or rejected before proposing more."
        )


class UnknownTarget(KnowledgeError):
    code = "not_found"

    def __init__(self, target: str, known: list[str]) -> None:
        names = ", ".join(known) if known else "none"
        super().__init__(
            f"There is no agent named {target!r} in this project (agents: {names}); leave "
            "target out for the project context."
        )


class Busy(KnowledgeError):
    """The FileGuard could not give a lease in time: someone else holds the file."""

    code = "busy"

    def __init__(self, resource: str, holder: str) -> None:
        super().__init__(
            f"{resource} is being {holder}; try again in a moment."
        )
        self.resource = resource


class Forbidden(KnowledgeError):
    """A write the single-writer rule refuses (CTX-2)."""

    code = "forbidden"

    def __init__(self, resource: str, who: str, instead: str) -> None:
        super().__init__(f"{who} may not write {resource}: {instead}")
        self.resource = resource
