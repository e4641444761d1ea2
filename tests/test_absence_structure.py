"""Absence claims read by their structure (issue 32, meaning8): which clause makes the claim,
whether what it says is missing is what the question asks or a side detail, and whether the
answer goes on to answer from the evidence. Every case marked `old` is judged the other way by
the contract before meaning8 (01f2e65); the rest guard what it already got right."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from helix.synthesis.contract import NO_EVIDENCE_CLAIM, check_answer

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "Where is the retry policy for ledger posts decided?"


def _ledger() -> dict:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from absence_meaning import _cases

    data = json.loads((ROOT / "data" / "evals" / "meaning" / "absence_answers_fresh4.json")
                      .read_text(encoding="utf-8"))
    return next(c for c in _cases(data) if c["scenario"] == "ledger")


def _refused(text: str, question: str | None = QUESTION, meaning: object = None) -> bool:
    case = _ledger()
    return check_answer(text, case["refs"], evidence=case["evidence"], question=question,
                        meaning=meaning).reason == NO_EVIDENCE_CLAIM  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "refused"), [
    # old: the claim's terms were its whole sentence's, the answer after "but" among them
    ("The excerpts don't show how the cap was chosen, but decide_retry retries transient "
     "errors only.", False),
    # old: an answer in backticked code ("`path::name`") named nothing the evidence holds
    ("`ledger/retry.py::decide_retry`. The excerpts don't mention jitter.", False),
    # old: a citation anywhere before the claim answered, even one that only says what was
    # shown; now a clause telling where something was seen answers nothing
    ("ledger/retry.py:4-8 is shown, but I couldn't find where retries are decided.", True),
    # old: a sentence that is only an inability to answer claimed nothing
    ("decide_retry in ledger/retry.py, I think. Can't say.", True),
    ("Probably decide_retry? Can't confirm - nothing shown decides retries.", True),
    # guards: a sighting is no answer; "see" alone points at one
    ("The excerpts don't show where retries are decided, but decide_retry is listed.", True),
    ("I can see decide_retry in ledger/retry.py, but I couldn't find the policy.", True),
    ("Retries: see ledger/retry.py:4-8. I couldn't find where jitter is configured.", False),
    # a label before a colon is not what a claim says is missing: a blanket claim
    ("**Short answer:** I couldn't find it.\n- [E1] ledger/retry.py: a helper", True),
])
def test_the_claims_clause_and_the_answer_around_it(text: str, refused: bool) -> None:
    assert _refused(text) is refused, text


def test_a_side_detail_is_a_note_and_what_was_asked_is_a_claim() -> None:
    # the evidence holds that the backoff doubles: a false claim, but about a side detail of
    # "where is the retry policy decided?", after a cited answer: a note (old: refused)
    side = "decide_retry decides [E1]. The excerpts don't show whether the backoff doubles."
    assert not _refused(side)
    assert _refused(side, question=None)  # no question told: judged as before
    assert _refused(side, question="and?")  # nor one with a word to compare
    # a claim naming what was asked, the evidence covering the question: refused whatever
    # was cited before it (old: accepted, most of its terms not in the evidence)
    asked = "decide_retry decides [E1]. The excerpts don't show where the retry policy is decided."
    assert _refused(asked)
    assert not _refused(asked, question="How long is a session valid?")


@pytest.mark.slow
@pytest.mark.parametrize("text", [
    # old: a claim found by meaning began with the space before its sentence, so the answer
    # before it was never seen
    "decide_retry decides. The snippets never mention a jitter setting.",
    "Transient errors get retried until MAX_ATTEMPTS. The docs don't say who picked that cap, "
    "but the backoff doubles each time.",
])
def test_an_answer_around_a_claim_found_by_meaning(text: str) -> None:
    from helix.core.config import HelixConfig, IndexSettings
    from helix.synthesis.absence_meaning import AbsenceMeaning
    from indexers.encoder import query_embedder

    meaning = AbsenceMeaning(query_embedder(IndexSettings()), HelixConfig().synthesis.absence)
    assert not _refused(text, meaning=meaning), text
    assert _refused("The excerpts are about something else; where retries are decided isn't "
                    "in them.", meaning=meaning)


def test_a_yes_or_no_reply_answers_a_yes_or_no_question() -> None:
    # old: "No." named nothing the evidence holds, so the note after it was a claim
    polar = "Does decide_retry retry permanent errors?"
    assert not _refused("No. The excerpts don't show how the backoff is capped.", polar)
    assert _refused("No. The excerpts don't show how the backoff is capped.", QUESTION)
    # a reply does not make a blanket claim a note ("anything" claims nothing in particular)
    assert _refused("No. The excerpts don't show anything about it.", polar)


@pytest.mark.slow
def test_a_negative_word_the_question_asks_about_is_no_claim() -> None:
    # "fails" is asked about: "the failed posts" are its subject, not something missing (old:
    # refused, the encoder reading "The docs list ... the failed posts" as a claim)
    from helix.core.config import HelixConfig, IndexSettings
    from helix.synthesis.absence_meaning import AbsenceMeaning
    from indexers.encoder import query_embedder

    meaning = AbsenceMeaning(query_embedder(IndexSettings()), HelixConfig().synthesis.absence)
    text = ("Transient ones are retried. The docs list what happens to the failed posts in the "
            "results.")
    assert not _refused(text, "What happens when a ledger post fails?", meaning)


def test_a_participle_that_qualifies_a_thing_of_the_code_is_no_reference() -> None:
    # old: "given" and "shared" were references to the material wherever they stood, so a
    # sentence about the code with "never" or "without" was compared with the exemplars
    from helix.synthesis.absence_meaning import load_exemplars, spans

    ex = load_exemplars()
    assert not spans("The same user lands in the same bucket for a given flag, so raising the "
                     "rate never drops anyone.", frozenset(), ex)
    assert not spans("It is signed with the shared key and dropped without a reply.",
                     frozenset(), ex)
    assert spans("The provided context never mentions the key.", frozenset(), ex)
    assert spans("The retrieved content is about something else, so it stays unexplained.",
                 frozenset(), ex)
    assert spans("Nothing was given about the key.", frozenset(), ex)


@pytest.mark.parametrize(("text", "refused"), [
    # an inability told by what is missing (old: no phrase named these; all accepted)
    ("Nothing here explains which errors get another attempt.", True),
    ("There is no way to tell from this which errors are retried.", True),
    ("I don't have enough to go on to say which errors are retried.", True),
    # the same words about the code are no claim
    ("decide_retry [E1]: there is no way to disable the retry for transient errors.", False),
    ("decide_retry [E1] decides; nothing here retries a permanent error.", False),
])
def test_an_inability_told_by_what_is_missing(text: str, refused: bool) -> None:
    assert _refused(text) is refused, text
