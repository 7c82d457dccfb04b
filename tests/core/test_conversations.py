"""Conversation ids, turn lines, the handoff fold and the resume section (core, pure)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.conversations import handoff as h
from core.conversations.ids import USER, USER_UUID, SameParty, conversation_id, peer_of
from core.conversations.resume import Thread, resume_section
from core.conversations.turns import BadTurn, Turn, decode_turn, encode_turn

SEEDS = Path(__file__).parent.parent / "fixtures" / "seed_conversations"
MAIN = "a6ced819-b893-4213-b003-9e9dc79b9641"


def turn(n: int, role: str = "prompt", text: str = "x", source: str = MAIN) -> Turn:
    assert role in ("prompt", "response")
    return Turn(f"t{n}", "c", n, source, "prompt" if role == "prompt" else "response", text)


# ─── ids (CNV-3, D14) ────────────────────────────────────────────────────────────────


def test_every_seed_conversation_id_is_the_xor_of_its_two_agents() -> None:
    checked = 0
    for folder in SEEDS.iterdir():
        sources = {decode_turn(line).source
                   for line in (folder / "log.jsonl").read_text().splitlines()}
        if len(sources) == 2:
            a, b = sorted(sources)
            assert conversation_id(a, b) == folder.name
            assert conversation_id(b, a) == folder.name
            assert str(peer_of(folder.name, a)) == b
            checked += 1
    assert checked == 4  # the fifth has one side only (a prompt never answered)


def test_user_conversation_uses_the_fixed_user_uuid() -> None:
    cid = conversation_id(USER, MAIN)
    assert uuid.uuid5(uuid.NAMESPACE_URL, "idea:user") == USER_UUID
    assert cid == conversation_id(MAIN, USER) != MAIN
    assert peer_of(cid, MAIN) == USER_UUID


def test_slug_agent_ids_get_a_stable_conversation() -> None:
    assert conversation_id("qa", "dev") == conversation_id("dev", "qa")
    assert conversation_id("qa", "dev") != conversation_id("qa", "ops")
    uuid.UUID(conversation_id("qa", USER))


def test_a_party_cannot_talk_to_itself() -> None:
    with pytest.raises(SameParty):
        conversation_id(MAIN, MAIN.upper())


@given(st.uuids(), st.uuids())
def test_xor_is_commutative_and_invertible(a: uuid.UUID, b: uuid.UUID) -> None:
    if a == b:
        return
    cid = conversation_id(str(a), str(b))
    assert cid == conversation_id(str(b), str(a))
    assert peer_of(cid, str(a)) == b


# ─── turn lines (§3.10) ──────────────────────────────────────────────────────────────


def test_seed_lines_decode_and_encode_back_byte_for_byte() -> None:
    for log in SEEDS.glob("*/log.jsonl"):
        for line in log.read_text(encoding="utf-8").splitlines():
            assert encode_turn(decode_turn(line)) == line


def test_user_source_round_trips() -> None:
    t = Turn("i", "c", 1, USER, "prompt", "hi\nthere")
    line = encode_turn(t)
    assert json.loads(line)["source"] == {"kind": "user"}
    assert decode_turn(line) == t and "\n" not in line


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("{", "not JSON"),
        ("[]", "object"),
        ('{"id":"a","conversation":"c","atMs":-1,"source":{"kind":"user"},"role":"prompt","text":""}',
         "atMs"),
        ('{"id":"a","conversation":"c","atMs":true,"source":{"kind":"user"},"role":"prompt","text":""}',
         "atMs"),
        ('{"id":"a","conversation":"c","atMs":1,"source":{"kind":"agent"},"role":"prompt","text":""}',
         "source"),
        ('{"id":"a","conversation":"c","atMs":1,"source":{"kind":"user"},"role":"ask","text":""}',
         "role"),
        ('{"id":"","conversation":"c","atMs":1,"source":{"kind":"user"},"role":"prompt","text":""}',
         "'id'"),
    ],
)
def test_bad_lines_are_refused_with_the_reason(line: str, why: str) -> None:
    with pytest.raises(BadTurn, match=why):
        decode_turn(line)


# ─── the handoff (§3.11, LOG-2) ──────────────────────────────────────────────────────


def test_fold_matches_the_seed_format() -> None:
    seed = h.parse((SEEDS / "3512c746-2a8d-06b1-17e4-cfee1fe78c19" / "handoff.md").read_text())
    folded = h.EMPTY
    for line in (SEEDS / "3512c746-2a8d-06b1-17e4-cfee1fe78c19" / "log.jsonl").read_text(
        encoding="utf-8"
    ).splitlines():
        folded = h.fold(folded, decode_turn(line))
    assert folded == seed  # this seed file is within the bounds: the fold rebuilds it
    text = h.render(folded)
    assert text.startswith("---\nupTo: 190cd7b8-23ad-42cb-8873-a17ddddff71d\nobjective: Petit")
    assert "\n**Objective:** Petit test" in text and "\n- **Response:** 702\n" in text


def test_turn_lines_are_collapsed_and_capped() -> None:
    folded = h.fold(h.EMPTY, turn(1, text="a\n\nb " + "y" * 500))
    (line,) = folded.lines
    assert line.startswith("- **Prompt:** a b yyy") and line.endswith(h.ELLIPSIS)
    assert len(line) - len("- **Prompt:** ") == h.TURN_LINE_MAX_CHARS
    assert len(folded.objective) == h.OBJECTIVE_MAX_CHARS


def test_objective_is_the_first_prompt_even_after_a_response_first() -> None:
    folded = h.fold(h.EMPTY, turn(1, "response", "early reply"))
    assert folded.objective == ""
    folded = h.fold(folded, turn(2, "prompt", "the task"))
    assert folded.objective == "the task"
    assert h.fold(folded, turn(3, "prompt", "another")).objective == "the task"


def test_overflow_keeps_the_objective_and_the_most_recent_turns() -> None:
    folded = h.EMPTY
    for n in range(100):
        folded = h.fold(folded, turn(n, text=f"turn {n} " + "z" * 300))
    text = h.render(folded)
    assert len(text) <= h.HANDOFF_MAX_CHARS
    assert folded.objective.startswith("turn 0 ") and folded.up_to == "t99"
    assert folded.lines[-1].startswith("- **Prompt:** turn 99 ")
    assert not any(line.startswith("- **Prompt:** turn 1 ") for line in folded.lines)
    # as many recent turns as fit: one more would not
    longer = h.Handoff(folded.up_to, folded.objective, (folded.lines[0], *folded.lines))
    assert len(h.render(longer)) > h.HANDOFF_MAX_CHARS


@settings(deadline=None, max_examples=200)
@given(st.lists(st.tuples(st.sampled_from(["prompt", "response"]), st.text(max_size=600)),
                max_size=60),
       # The promise holds for a limit that fits the frontmatter, a full objective (200) and
       # one full turn line (240 + bullet): about 720 chars; the real bound is 4,096.
       st.integers(min_value=800, max_value=8000))
def test_fold_is_always_bounded_and_ends_with_the_last_turn(
    turns: list[tuple[str, str]], limit: int
) -> None:
    folded = h.EMPTY
    for n, (role, text) in enumerate(turns):
        folded = h.fold(folded, turn(n, role, text), limit)
        rendered = h.render(folded)
        assert len(rendered) <= limit
        assert folded.up_to == f"t{n}"
        assert folded.lines and folded.lines[-1] == h.turn_line(turn(n, role, text))
        assert h.parse(rendered) == folded  # what is written reads back the same


def test_seed_handoffs_parse_and_are_bounded_again() -> None:
    for path in SEEDS.glob("*/handoff.md"):
        parsed = h.parse(path.read_text(encoding="utf-8"))
        assert parsed.up_to and parsed.objective
        bounded = h.bound(parsed)
        assert len(h.render(bounded)) <= h.HANDOFF_MAX_CHARS
        assert bounded.lines[-1][:60] == parsed.lines[-1][:60]  # the most recent turn stays
    big = h.parse((SEEDS / "6bc594e8-a37c-0dbd-1de6-6e3b73002cb4" / "handoff.md").read_text())
    assert len(h.render(big)) > 20_000 and big.lines[0].startswith("- **Response:**")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "frontmatter"),
        ("upTo: x\n", "frontmatter"),
        ("---\nupTo: x\n", "not closed"),
        ("---\nobjective: y\n---\n", "no 'upTo'"),
        ("---\nupTo: x\nowner: me\n---\n", "line 3"),
        ("---\nupTo: x\n---\n\n- **Prompt:** a\nsome prose\n", "line 6"),
    ],
)
def test_bad_handoffs_are_refused_with_the_place(text: str, why: str) -> None:
    with pytest.raises(h.BadHandoff, match=why):
        h.parse(text)


# ─── the resume section ──────────────────────────────────────────────────────────────


def test_resume_section_is_bounded_most_recent_first() -> None:
    seeds = [h.parse(p.read_text(encoding="utf-8")) for p in sorted(SEEDS.glob("*/handoff.md"))]
    threads = [Thread(f"peer{n}", seed, n) for n, seed in enumerate(seeds)]
    text = resume_section(threads)
    assert text is not None and len(text) <= h.HANDOFF_MAX_CHARS
    assert text.index("## With peer4") < text.index("## With peer3") < text.index("## With peer2")
    assert "peer1" not in text and "---" not in text and "upTo" not in text


def test_resume_section_is_none_without_content() -> None:
    assert resume_section([]) is None
    assert resume_section([Thread("x", h.EMPTY, 1)]) is None


@settings(deadline=None, max_examples=100)
@given(st.lists(st.tuples(st.text(max_size=300), st.lists(st.text(max_size=900), max_size=8)),
                max_size=5),
       st.integers(min_value=400, max_value=6000))
def test_resume_section_never_exceeds_its_bound(
    threads: list[tuple[str, list[str]]], limit: int
) -> None:
    given_threads = [
        Thread(f"p{n}", h.Handoff("u", objective, tuple(f"- **Prompt:** {t}" for t in lines)), n)
        for n, (objective, lines) in enumerate(threads)
    ]
    text = resume_section(given_threads, limit)
    assert text is None or len(text) <= limit
