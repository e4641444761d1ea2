"""The tool-result contract: no "no evidence" claims, only citations of sent evidence."""

from __future__ import annotations

import pytest
from helpers_synthesis import envelope

from helix.synthesis.contract import (
    ABSTAIN,
    NO_EVIDENCE_CLAIM,
    NO_VALID_CITATION,
    check_answer,
    claims_no_evidence,
    extract_citations,
)
from helix.synthesis.prompt import build_prompt

REFS = build_prompt(envelope()).refs  # E1 src/retry.py:10-12, E2 docs/retries.md:1-3


@pytest.mark.parametrize("answer", [
    "There is no evidence of a retry policy in this repository.",
    "I couldn't find where the retry policy is decided.",
    "I could not find any relevant code.",
    "Couldn't find it. Sorry.",
    "The retry policy is not found in the provided context.",
    "No relevant information was returned by the searches.",
    "I don't have enough information to answer that.",
    "The context does not mention a retry policy.",
    "The provided snippets don't describe how retries work.",
    "Unfortunately the TOOL_RESULTS do not contain the answer.",
    "There is insufficient information to say.",
    "Nothing in the provided results covers retries.",
    "There is no mention of retries [E1].",
    "None of the provided excerpts mention a retry policy.",
    "It seems to be missing from the provided evidence.",
    "NO EVIDENCE.",
])
def test_no_evidence_claims_are_rejected_when_evidence_exists(answer: str) -> None:
    assert claims_no_evidence(answer)
    result = check_answer(answer, REFS)
    assert not result.ok and result.reason == NO_EVIDENCE_CLAIM


@pytest.mark.parametrize("answer", [
    "The retry policy is decided in `decide_retry` [E1]; it gives up when the attempt limit "
    "is reached and the error is not transient.",
    "It raises when it cannot find the file [E1].",
    "The search returns no results for an empty query [E1].",
    "No retries happen for permanent errors [E1][E2].",
])
def test_grounded_answers_pass(answer: str) -> None:
    assert not claims_no_evidence(answer)
    result = check_answer(answer, REFS)
    assert result.ok and result.reason is None
    assert result.citations[0].ref == "E1"


def test_no_evidence_claim_allowed_when_nothing_was_sent() -> None:
    result = check_answer("There is no evidence about that in the repository.", ())
    assert result.ok and result.citations == ()


@pytest.mark.parametrize("answer", ["", "   \n", "I don't know.", "N/A",
                                    "Sorry, I cannot help with that."])
def test_empty_or_abstaining_output(answer: str) -> None:
    result = check_answer(answer, REFS)
    assert not result.ok and result.reason == ABSTAIN


def test_unknown_citations_are_removed_and_recorded() -> None:
    answer = ("Retries are decided in decide_retry [E1][E7] (see src/retry.py:11, "
              "src/other.py:3-9) and documented at docs/retries.md:1-3 [E2, E9].")
    result = check_answer(answer, REFS)
    assert result.ok
    assert result.removed == ("[E7]", "[E9]", "src/other.py:3-9")
    assert "E7" not in result.answer and "E9" not in result.answer
    assert "src/other.py" not in result.answer
    assert [(c.ref, c.path, c.start_line, c.end_line) for c in result.citations] == [
        ("E1", "src/retry.py", 10, 12),
        ("E1", "src/retry.py", 11, 11),
        ("E2", "docs/retries.md", 1, 3),
    ]


def test_line_range_outside_the_sent_span_is_not_a_citation() -> None:
    text, citations, removed = extract_citations("see src/retry.py:1-40 and retry.py:12", REFS)
    assert removed == ("src/retry.py:1-40",)
    assert [(c.path, c.start_line, c.end_line) for c in citations] == [("src/retry.py", 12, 12)]
    assert "src/retry.py:1-40" not in text


def test_only_invalid_citations_fall_back() -> None:
    result = check_answer("It is in src/nowhere.py:5 [E12].", REFS)
    assert not result.ok and result.reason == NO_VALID_CITATION
    assert result.removed == ("[E12]", "src/nowhere.py:5")


def test_uncited_answer_with_evidence_falls_back() -> None:
    result = check_answer("Retries back off exponentially.", REFS)
    assert not result.ok and result.reason == NO_VALID_CITATION


def test_times_and_urls_are_not_citations() -> None:
    text, citations, removed = extract_citations(
        "At 10:30 the server at http://localhost:8080 retries [E1].", REFS)
    assert removed == () and "10:30" in text and "localhost:8080" in text
    assert [c.ref for c in citations] == ["E1"]


def test_ref_ranges_and_lists() -> None:
    _, citations, removed = extract_citations("See [E1-E2] and [e2; E1] and [E1–E4].", REFS)
    assert [c.ref for c in citations] == ["E1", "E2"]  # deduplicated, in order of appearance
    assert removed == ("[E3]", "[E4]")


@pytest.mark.parametrize(("answer", "ok"), [
    ("The policy is decided in decide_retry [E1]. The provided context does not mention the "
     "backoff cap.", True),
    ("Retries: see src/retry.py:10-12. I couldn't find where the cap is configured.", True),
    ("The provided context does not mention a retry policy. [E1] is unrelated.", False),
    ("I could not find it; maybe [E1]?", False),
])
def test_limits_noted_after_a_cited_answer_are_allowed(answer: str, ok: bool) -> None:
    result = check_answer(answer, REFS)
    assert result.ok is ok
    if not ok:
        assert result.reason == NO_EVIDENCE_CLAIM
