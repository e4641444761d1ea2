"""The shape of an answer as features of the learned absence head (issue 32, meaning11): the
kinds of claim that held-out writers' wordings hid from the rules and the encoder (a report
in a list, a question back, a suggestion to look elsewhere, a hedged negation, the asked part
named missing after a partial answer) and the ordinary answer that opens with the answer and
then notes a side detail. Wordings written for this test, in no data set; the module does not
exist before meaning11."""

from __future__ import annotations

import pytest

from helix.synthesis.absence import AbsenceClaim
from helix.synthesis.absence_head import FEATURES, AbsenceHead
from helix.synthesis.absence_shape import SHAPE, shape

HELD = frozenset({"retry_limit", "max_retries", "3", "backoff", "queue", "worker"})
HEDGES = frozenset({"appear", "appears", "seem", "seems"})


def _said(text: str) -> list[str]:
    import re

    return re.findall(r"[a-z]+(?:['’]t)?", text.lower())


def _shape(text: str, claims: tuple[AbsenceClaim, ...] = (),
           question: str = "how many times does the worker retry?") -> dict[str, float]:
    return dict(zip(SHAPE, shape(text, claims, HELD, question, _said(text), HEDGES),
                    strict=True))


def _claim(text: str, part: str) -> AbsenceClaim:
    start = text.index(part)
    return AbsenceClaim(start, start + len(part), ())


def test_the_head_reads_every_shape_feature() -> None:
    at = FEATURES.index(SHAPE[0])
    assert FEATURES[at:at + len(SHAPE)] == SHAPE
    assert AbsenceHead.load().features == FEATURES


def test_a_report_a_question_back_and_a_suggestion_are_read() -> None:
    report = "- Looked for: `max_retries`\n- Not found: the limit itself\n\nCan't say."
    assert _shape(report)["structured"] > 0 and _shape("Three times.")["structured"] == 0
    assert _shape("**Verdict:** unknown.")["structured"] > 0
    back = "No idea from these. Did you mean the queue worker? Try `worker --help`."
    assert _shape(back)["questions"] == 1 and _shape(back)["suggests"] == 1
    assert _shape("You might look at the deploy config.")["suggests"] == 1
    assert _shape("Looking at the code, three times.")["suggests"] == 0


def test_a_list_of_what_the_evidence_holds_is_no_report() -> None:
    """(meaning17) An answer set out under a heading as a list of values and names of the
    evidence reports no absence: only the heading and the items that say nothing the evidence
    holds are report lines (main counted every item: 3 here)."""
    import math

    listed = "## Answer\n\n- Attempts: 3 (`max_retries`)\n- Bound by `retry_limit`"
    assert _shape(listed)["structured"] == pytest.approx(math.log1p(1))
    report = "## Answer\n\n- Searched: both files\n- Not found: the limit"
    assert _shape(report)["structured"] == pytest.approx(math.log1p(3))


@pytest.mark.parametrize(("text", "hedged"), [
    ("The worker doesn't appear to retry at all.", 1),
    ("It does not seem to cap the retries.", 1),
    ("It doesn't retry at all, and it appears in the log once.", 0),  # past the reach
    ("The worker retries three times.", 0),
])
def test_a_hedged_negation_is_counted(text: str, hedged: int) -> None:
    assert _shape(text)["hedged_no"] == hedged, text


def test_an_answer_first_and_an_answer_after_its_note_are_read() -> None:
    text = "3 times, with backoff. The snippets don't show the jitter, but the cap is clear."
    found = _shape(text, (_claim(text, "The snippets don't show the jitter"),))
    assert found["leads"] == 1 and found["continues"] == 1 and found["first_at"] > 0.2
    claim = "The snippets don't show how many times it retries."
    found = _shape(claim, (_claim(claim, claim),))
    assert found["leads"] == 0 and found["continues"] == 0 and found["first_at"] == 0


def test_the_share_of_the_question_the_claims_name() -> None:
    text = "It backs off exponentially, but how many retries happen is not stated."
    named = _shape(text, (_claim(text, "how many retries happen is not stated"),),
                   question="how many retries does the worker make?")
    aside = _shape(text, (_claim(text, "It backs off exponentially"),),
                   question="how many retries does the worker make?")
    assert named["asked"] > aside["asked"]


# (meaning12) one more kind held-out writers' claims hid in: a report of where the answer
# looked, not of what it found; wordings written for this test, in no data set (the feature
# is not on main)
@pytest.mark.parametrize(("text", "searched"), [
    ("I went through the worker and the docs. Neither sets a limit.", 1),
    ("1. Reviewed: worker.py\n2. Checked: docs/retry.md\nNothing on the limit.", 2),
    ("**Searched:** the queue module.", 1),
    ("I've checked the queue code and it retries 3 times.", 1),
    ("The worker retries 3 times; checked exceptions are never retried.", 0),
    ("Retries are read from max_retries.", 0),
])
def test_a_report_of_a_search_is_counted(text: str, searched: int) -> None:
    assert _shape(text)["searched"] == searched, text


# (meaning13) a search reported by what was looked for, as a label ("Looked for: ...", a kind
# fresh14's writer used); wordings written for this test, in no data set
@pytest.mark.parametrize(("text", "searched"), [
    ("Looked for: the retry cap.\nFound: the worker loop.\nMissing: the cap itself.", 1),
    ("- **Looked for** a max_retries setting\n- Nothing in either file.", 1),
    ("It looked for a lock before writing, so nothing is lost.", 0),
])
def test_a_search_reported_by_what_was_looked_for(text: str, searched: int) -> None:
    assert _shape(text)["searched"] == searched, text
