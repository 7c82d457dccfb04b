"""`attempt_as` / `attempt_list` (idea_tui.ports): `runner.attempt` with the answer read as
its Struct; a failure stays the caller's to word, a result that does not fit is one."""

from __future__ import annotations

import asyncio
from typing import Any

from adapters.ipc.answers_git import Branch, GitCommitted
from idea_tui.ports import Answer, attempt_as, attempt_list


class FakeRunner:
    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.reported: list[str] = []

    async def attempt(self, method: str, **params: Any) -> Answer:
        self.calls.append((method, params))
        return self.answer

    def report(self, message: str, level: str = "info") -> None:
        self.reported.append(message)


def test_a_fitting_result_is_its_struct() -> None:
    runner = FakeRunner(Answer(result={"oid": "c4" + "0" * 38}))
    answer, committed = asyncio.run(attempt_as(runner, GitCommitted, "git_commit",  # type: ignore[arg-type]
                                               message="m"))
    assert answer.ok and committed == GitCommitted(oid="c4" + "0" * 38)
    assert runner.calls == [("git_commit", {"message": "m"})]


def test_a_failure_is_returned_unreported() -> None:
    failed = Answer(error="nothing to commit", code="GitError")
    runner = FakeRunner(failed)
    answer, committed = asyncio.run(attempt_as(runner, GitCommitted, "git_commit"))  # type: ignore[arg-type]
    assert committed is None and answer == failed and runner.reported == []


def test_a_declined_confirmation_stays_declined() -> None:
    declined = Answer(error="", code="confirm", declined=True)
    answer, found = asyncio.run(attempt_list(FakeRunner(declined), Branch, "git_branches"))  # type: ignore[arg-type]
    assert found is None and answer.declined


def test_a_result_that_does_not_fit_is_a_bad_answer() -> None:
    runner = FakeRunner(Answer(result={"sha": "c4"}))
    answer, committed = asyncio.run(attempt_as(runner, GitCommitted, "git_commit"))  # type: ignore[arg-type]
    assert committed is None and answer.code == "bad_answer"
    assert "git_commit does not fit" in (answer.error or "") and runner.reported == []
    listed = Answer(result=[{"name": "main"}])
    answer, branches = asyncio.run(attempt_list(FakeRunner(listed), Branch, "git_branches"))  # type: ignore[arg-type]
    assert branches is None and answer.code == "bad_answer"
