"""What an answer's negations rest on (issue 32, absence31; helix/synthesis/absence_grounded.py):
an answer stating the code's own negative repeats a negating line of the evidence ("wintering
hives are never flagged" beside `return False` under `if hive.wintering`), a claim of absence
negates what was found and rests on no line. A beehive inspection scenario of this file's own;
every wording here is of no data set."""

from __future__ import annotations

import pytest

from helix.core.envelope import EvidenceItem
from helix.core.hashing import digest, short_id
from helix.synthesis.absence_grounded import GROUNDED, grounded


def _item(path: str, start: int, kind: str, body: str) -> EvidenceItem:
    end = start + body.count("\n")
    return EvidenceItem(id=short_id(path, start, end, digest(body)), path=path,
                        start_line=start, end_line=end, kind=kind, score=1.0,
                        content_hash=digest(body), node_id=f"file:{path}", reasons=(),
                        heading=None, symbol=None, text=body)


EVIDENCE = (
    _item("apiary/inspect.py", 12, "definition",
          "INSPECTION_GAP = timedelta(days=9)\n\n"
          "def overdue(hive: Hive, today: date) -> bool:\n"
          "    \"\"\"Whether the hive's inspection is overdue.\"\"\"\n"
          "    if hive.wintering:\n        return False\n"
          "    return today - hive.last_inspected > INSPECTION_GAP\n"),
    _item("docs/inspections.md", 3, "doc",
          "## Inspections\n\nEach hive is due for an inspection every 9 days in season. "
          "Hives marked as wintering are never flagged as overdue, and a queenless hive is "
          "not treated differently.\n"))


def _read(text: str) -> dict[str, float]:
    return dict(zip(GROUNDED, grounded(text, EVIDENCE), strict=True))


@pytest.mark.parametrize("text", [
    "Every 9 days; a wintering hive is never flagged as overdue.",
    "Nine days. Queenless hives aren't treated any differently.",
    "It's 9 days, though overdue() returns False for wintering hives.",
    # a path named in the clause is no word about the material
    "Per docs/inspections.md wintering hives are never flagged."])
def test_a_negation_the_evidence_states_is_grounded(text: str) -> None:
    assert _read(text)["grounded"] > 0, text


@pytest.mark.parametrize("text", [
    # a negation about the material, its telling or the speaker's finding
    "The snippets don't say whether wintering hives are flagged.",
    "I can't find anything on wintering hives in these files.",
    # a bare negation continuing a sentence about the material
    "inspect.py shows the 9-day gap, but not what happens to wintering hives.",
    # a place in the material
    "The rule for wintering hives isn't in there.",
    # a negation no line of the evidence states
    "Inspections are never skipped for weak colonies."])
def test_a_negation_resting_on_no_line_is_not_grounded(text: str) -> None:
    assert _read(text)["grounded"] == 0.0, text


def test_no_evidence_or_no_negating_line_gives_nothing() -> None:
    assert grounded("Wintering hives are never flagged.", None) == (0.0,)
    plain = (_item("a.py", 1, "definition", "GAP = 9\n"),)
    assert grounded("The gap is never changed.", plain) == (0.0,)


# With the shipped head (trained with `grounded`) the contract accepts an answer that concedes
# an unasked detail and then states the code's own negatives, lines the evidence negates too;
# main's head (0cf75dd) refused the two ordinary answers as claims (probability 0.64 and 0.52
# > 0.4). The two claims are guards main refused as well.
QUESTION = ("how often are hives inspected, and are wintering or queenless hives flagged as "
            "overdue?")


@pytest.mark.slow
@pytest.mark.parametrize(("text", "refused"), [
    ("The excerpts don't show how the season is set, but a wintering hive is never flagged "
     "and queenless ones are not treated differently.", False),
    ("The snippets don't say who inspects, but wintering hives are never flagged and a "
     "queenless hive is not handled differently.", False),
    ("The snippets show the 9-day gap but not whether wintering hives are flagged.", True),
    ("The excerpts don't show whether wintering or queenless hives are flagged.", True),
])
def test_the_shipped_head_accepts_the_codes_own_negatives(text: str, refused: bool) -> None:
    from helix.core.config import HelixConfig, IndexSettings
    from helix.synthesis.absence_head import AbsenceHead
    from helix.synthesis.absence_meaning import AbsenceMeaning
    from helix.synthesis.contract import NO_EVIDENCE_CLAIM, check_answer
    from helix.synthesis.prompt import citation_refs
    from indexers.encoder import query_embedder

    meaning = AbsenceMeaning(query_embedder(IndexSettings()), HelixConfig().synthesis.absence)
    result = check_answer(text, citation_refs(EVIDENCE), evidence=EVIDENCE, meaning=meaning,
                          question=QUESTION, head=AbsenceHead.load())
    assert (result.reason == NO_EVIDENCE_CLAIM) is refused
