"""(issue 32, meaning16) Absence claims by class, from the misses of fresh16 (writer43) once it
became a tune set; wordings and evidence of no data set:
- a time or a ratio written with a colon ("02:30", "16:9") is a number the answer reports from
  the evidence, not a path:line citation to strip: "Daily, 08:00 in each user's timezone; ...
  The snippets don't show any retry for a failed send." was refused (nothing left answered);
- "isn't shown in the retrieved code": a claim the phrase rules read as "not shown in ...";
- a phrase pointing at the user's question ("the part you care about") says nothing of what
  is missing: its words are no terms of the claim.
Each case fails on main."""

from __future__ import annotations

import pytest

from helix.core.envelope import EvidenceItem
from helix.core.hashing import digest, short_id
from helix.synthesis.absence import absence_claims, content_terms
from helix.synthesis.absence_verdict import absence_verdict
from helix.synthesis.prompt import citation_refs


def _item(path: str, text: str, kind: str, heading: str | None = None) -> EvidenceItem:
    return EvidenceItem(id=short_id(path, 1, 5, digest(text)), path=path, start_line=1,
                        end_line=5, kind=kind, score=1.0, content_hash=digest(text),
                        node_id=f"file:{path}", reasons=(), heading=heading, symbol=None,
                        text=text)


EVIDENCE = (
    _item("docs/backups.md", "## Backups\n\nBackups run every night at 02:30 in the server's "
          "time zone. Each run keeps the newest snapshots and prunes the rest; an admin can "
          "pause them from the console.", "doc", "Backups"),
    _item("ops/backup.py", 'def schedule(cron):\n    cron.daily(at="02:30", job=run_backup)\n',
          "code"))
REFS = citation_refs(EVIDENCE)
QUESTION = "when do backups run, and who can pause them?"


def _refused(text: str) -> bool:
    return absence_verdict(text, REFS, EVIDENCE, None, QUESTION)[0]


@pytest.mark.parametrize("text", [
    "Nightly at 02:30. The excerpts don't show what happens when an upload fails.",
    "At 02:30 server time. The snippets don't show any alerting for a failed run.",
])
def test_a_time_reported_from_the_evidence_answers(text: str) -> None:
    assert not _refused(text), text  # refused on main: "02:30" read as a citation


def test_a_contracted_negation_of_showing_is_a_claim() -> None:
    text = ("Backups run daily [E2], but the part you care about, whether an admin can pause "
            "them, isn't shown in the retrieved code.")
    assert absence_claims(text)  # none on main
    assert _refused(text)


def test_words_pointing_at_the_question_are_no_terms() -> None:
    terms = content_terms("the part you care about, what role a new user gets, isn't in the "
                          "retrieved code")
    assert "care" not in terms and "role" in terms
    assert "asked" not in content_terms("what you asked, the pause button, is not covered")
