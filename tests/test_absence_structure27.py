"""Absence claims by structure (issue 32, meaning27): a sentence that is only "not in" the
cited excerpts ("Not in [E1] or [E2].") is a blanket claim; "nothing else here gives ..." is
"nothing here says ..." with what was found set aside (helix/synthesis/absence.py); and a
claim's subject that is the question restated, a wh-clause naming two or more of the
question's words ("there's nothing about how failed posts are retried", "how failed posts get
retried isn't shown"), is the asked thing, as a subject naming the asked noun is
(helix/synthesis/absence_asked.toml `nothing_about`, `wh_subjects`, `restated_terms`). Over
every absence set the wh-clause reading fires on 15 claims and no ordinary answer (10 of them
refused already; 5 where the evidence does not hold most of the question's words, where no
claim naming the asked thing is refused). Each refused case fails on the code before it; the
accepted ones guard what the readings must leave alone."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from helix.synthesis.absence import absence_claims, evidence_words
from helix.synthesis.absence_asked import asked_missing
from helix.synthesis.contract import NO_EVIDENCE_CLAIM, check_answer

MEANING = Path(__file__).resolve().parents[1] / "data" / "evals" / "meaning"


def _ledger() -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from absence_meaning import _cases

    data = json.loads((MEANING / "absence_answers_fresh4.json").read_text(encoding="utf-8"))
    return next(c for c in _cases(data)
                if c["text"].startswith("decide_retry in ledger/retry.py makes the call"))


@pytest.mark.parametrize(("text", "refused"), [
    ("Not in [E1] or [E2].", True),
    ("The doc is about posting, and nothing else here gives the cap.", True),
    ("Posting is described, but there's nothing about how failed ledger posts are retried.",
     True),
    ("Posting is described, but how failed ledger posts get retried isn't shown.", True),
    # a citation that goes on to answer; a verb of doing, not telling; a side detail
    ("Not in [E2], but [E1] caps it at MAX_ATTEMPTS.", False),
    ("decide_retry [E1] caps it; nothing else here changes the cap.", False),
    ("decide_retry [E1] retries transient errors; there's nothing about how the audit log is "
     "rotated.", False),
])
def test_a_claim_read_by_its_structure(text: str, refused: bool) -> None:
    case = _ledger()
    result = check_answer(text, case["refs"], evidence=case["evidence"],
                          question=case["question"])
    assert (result.reason == NO_EVIDENCE_CLAIM) is refused, text


def test_a_restated_question_is_the_asked_thing_and_a_side_detail_is_not() -> None:
    case = _ledger()
    words = evidence_words(part for e in case["evidence"]
                           for part in (e.text, e.path, e.symbol or "", e.heading or ""))
    question = case["question"]
    assert asked_missing("Posting is described, but there's nothing about where retries of "
                         "ledger posts are decided.", question, words)
    assert not asked_missing("decide_retry [E1] retries transient errors; there's nothing "
                             "about how the audit log is rotated.", question, words)
    assert absence_claims("Not in [E1] or [E2].")
    assert not absence_claims("Not in [E2], but [E1] caps it at MAX_ATTEMPTS.")
