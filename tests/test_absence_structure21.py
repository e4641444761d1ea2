"""Absence claims by structure (issue 32, meaning21): an answer that opens by saying what the
question asks ("The question asks for ...", absence_asked.toml question_reports) and then only
says what the material lacks is a claim; a clause telling what a file defines ("pool.py defines
a `start_pool` function", absence_exemplars.toml sighting_words) tells what the material holds,
not the answer, so a claim after it is no note. Wordings written here, none from a data set;
the contract with the phrase rules (no encoder), as `_refused` calls it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from helix.synthesis.contract import NO_EVIDENCE_CLAIM, check_answer
from tests.test_absence_asked import EVIDENCE, HOW_MANY, _refused


@pytest.mark.parametrize(("text", "refused"), [
    # main: accepted (the opening was no report of the question)
    ("The question asks how many worker threads the indexer starts. Having read the "
     "supplied files, I must say they do not contain the number of threads.", True),
    # refused on main too (the claim names the asked number); the same opening
    ("The question was about the thread count at startup. The files provided do not contain "
     "that number.", True),
    # guard: the opening reports the question, a later sentence gives the evidence's value
    ("The question asks how many worker threads start. WORKER_THREADS is 6 [E1], and "
     "nothing else changes it.", False),
])
def test_the_question_reported_back_then_a_claim(text: str, refused: bool) -> None:
    assert _refused(text, HOW_MANY) is refused, text


def _scenario(name: str) -> dict:
    """A scenario's question and evidence from fresh21 (its answers are not read here)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from absence_meaning import _cases

    path = Path(__file__).resolve().parents[1] / "data/evals/meaning/absence_answers_fresh21.json"
    return next(c for c in _cases(json.loads(path.read_text(encoding="utf-8")))
                if c["scenario"] == name)


@pytest.mark.parametrize(("scenario", "text", "refused"), [
    # main: accepted (the file's definition read as an answer from the evidence)
    ("sandbox_limits", "Sorry, this can't be answered from what was retrieved. "
     "sandbox/src/limits.rs defines `limit_message`, but the numbers and what users see are "
     "not in it.", True),
    ("unsubscribe_link", "I found nothing useful on this. newsletters/views.py [E1] defines an "
     "unsubscribe view, but there's no mention of sessions.", True),
    # guard: an answer beside the definition makes the claim a note
    ("sandbox_limits", "sandbox/src/limits.rs defines `SandboxLimits` with 256 MB of memory "
     "and 2 s of CPU [E1]. The docs don't show the exit code.", False),
])
def test_what_a_file_defines_is_no_answer(scenario: str, text: str, refused: bool) -> None:
    case = _scenario(scenario)
    assert (check_answer(text, case["refs"], evidence=case["evidence"],
                         question=case["question"]).reason == NO_EVIDENCE_CLAIM) is refused


def test_evidence_is_the_asked_one() -> None:
    assert len(EVIDENCE) == 2
