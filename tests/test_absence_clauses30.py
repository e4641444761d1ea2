"""Which clause a negation scopes (issue 32, absence30; helix/synthesis/absence_denial.py's
`elided` and `conceded`): a bare negation after "shows A, but not B" denies the verb of
showing (the material said to lack B: a claim), and "the docs don't say X, but <statement>"
concedes a side note on the way to an answer. A greenhouse watering scenario of this file's
own; every wording here is of no data set."""

from __future__ import annotations

from typing import Literal

import pytest

from helix.synthesis.absence import evidence_words
from helix.synthesis.absence_denial import DENIAL, denial
from helix.synthesis.absence_verdict import _held_forms

Item = tuple[str, int, int, Literal["definition", "doc"], str]
CODE: Item = ("greenhouse/valves.py", 1, 9, "definition",
              "MAX_OPEN_MINUTES = 25\nWET_SOIL = 0.6  # volumetric moisture\n\n"
              "def plan_cycle(zone, moisture):\n    if moisture > WET_SOIL:\n"
              "        return skip(zone, reason='soil already wet')\n"
              "    return open_valve(zone, minutes=MAX_OPEN_MINUTES)\n")
DOC: Item = ("docs/watering.md", 1, 4, "doc",
             "## Watering\n\nA valve stays open at most 25 minutes per cycle. A cycle is "
             "skipped when the soil moisture reads above 60%.\n")
QUESTION = "how long can a valve stay open, and is watering skipped when the soil is wet?"
HELD = _held_forms(evidence_words([CODE[4], DOC[4], CODE[0], DOC[0]]))


def _read(text: str) -> dict[str, float]:
    return dict(zip(DENIAL, denial(text, QUESTION, HELD), strict=True))


@pytest.mark.parametrize("text", [
    "valves.py shows the 25-minute cap, but not whether wet soil skips a cycle.",
    "I can see the open-time limit in the doc, but nothing on what wet soil changes.",
    "The doc gives the valve limit, not whether a wet reading skips the cycle."])
def test_a_bare_negation_after_a_verb_of_showing_denies_the_showing(text: str) -> None:
    assert _read(text)["elided"] > 0, text


@pytest.mark.parametrize("text", [
    # the verb before the bare negation is the system's, not the material's
    "The valve opens for 25 minutes, but not when the soil reads above 60%.",
    # the showing is itself denied: no statement for the bare negation to share a verb with
    "The doc doesn't show the skip rule, but nothing suggests the cap changes either.",
    # a negation with its own verb is `telling`'s, not an elided one
    "valves.py shows the cap, but it doesn't say what wet soil does."])
def test_other_negations_are_not_elided(text: str) -> None:
    assert _read(text)["elided"] == 0.0, text


@pytest.mark.parametrize("text", [
    "25 minutes [E1]. The docs don't say whether the cap differs per zone, but a wet "
    "reading above 60% skips the cycle [E2].",
    "At most 25 minutes; the excerpts don't show how moisture is sampled, though the "
    "60% threshold is explicit [E1]."])
def test_a_side_note_denied_before_a_statement_is_conceded(text: str) -> None:
    assert _read(text)["conceded"] > 0, text


@pytest.mark.parametrize("text", [
    # what follows the contrast is the speaker's own not knowing: the claim goes on
    "The doc doesn't say what wet soil does, but I can't rule out a skip.",
    # or denies telling again
    "valves.py isn't shown, but the doc doesn't mention wet soil either.",
    # or the statement comes first and the denial after it (`partial`'s order)
    "The cap is 25 minutes, but the docs don't say whether wet soil skips a cycle."])
def test_a_denial_that_concedes_nothing_is_not_conceded(text: str) -> None:
    assert _read(text)["conceded"] == 0.0, text


# With the shipped head (trained with these features) the contract refuses a partial answer
# that says the material shows one part but not the asked rest, and does not refuse as a claim
# an answer that concedes a side detail before giving the asked rest. main's head (51d4ad5)
# accepted the two claims (probability 0.32 and 0.16 < 0.35; the contract then refused them
# only for citing nothing) and refused the side note as a claim (0.66); the first claim is a
# guard that main refused too (0.51).
@pytest.mark.slow
@pytest.mark.parametrize(("text", "refused"), [
    ("The doc lists the 25-minute limit, but nothing about what a wet reading does.", True),
    ("I can see the valve limit in watering.md, not whether the soil matters.", True),
    ("The snippets don't say who set 0.6, but that's the wet-soil line: over it, no watering; "
     "under it, 25 minutes.", False),
    ("valves.py shows the open-time cap, but not whether wet soil skips a cycle.", True),
])
def test_the_shipped_head_reads_which_clause_the_negation_scopes(
        text: str, refused: bool) -> None:
    from helix.core.config import HelixConfig, IndexSettings
    from helix.core.envelope import EvidenceItem
    from helix.core.hashing import digest, short_id
    from helix.synthesis.absence_head import AbsenceHead
    from helix.synthesis.absence_meaning import AbsenceMeaning
    from helix.synthesis.contract import NO_EVIDENCE_CLAIM, check_answer
    from helix.synthesis.prompt import citation_refs
    from indexers.encoder import query_embedder

    evidence = tuple(EvidenceItem(
        id=short_id(path, start, end, digest(body)), path=path, start_line=start,
        end_line=end, kind=kind, score=1.0, content_hash=digest(body), node_id=f"file:{path}",
        reasons=(), heading=None, symbol=None, text=body)
        for path, start, end, kind, body in (CODE, DOC))
    meaning = AbsenceMeaning(query_embedder(IndexSettings()), HelixConfig().synthesis.absence)
    result = check_answer(text, citation_refs(evidence), evidence=evidence, meaning=meaning,
                          question=QUESTION, head=AbsenceHead.load())
    assert (result.reason == NO_EVIDENCE_CLAIM) is refused
