"""What an answer denies, clause by clause (issue 32, absence29; helix/synthesis/
absence_denial.py): features of the learned absence head for claims whose sentence names no
material nor speaker, so the encoder never compares them ("x.rs shows A, but nothing about
B", "Label: not stated"). Every wording here is of no data set."""

from __future__ import annotations

from typing import Literal

import pytest

from helix.synthesis.absence import evidence_words
from helix.synthesis.absence_denial import DENIAL, clauses, denial
from helix.synthesis.absence_head import FEATURES
from helix.synthesis.absence_verdict import _held_forms

EVIDENCE = ("RETENTION_DAYS = 14  # nightly snapshots are kept two weeks\n"
            "if disk_full(): abort_run(); page_oncall('backup disk full')\n"
            "## Backups\nSnapshots are kept 14 days. When the disk fills up the run aborts "
            "and on-call is paged.")
QUESTION = "how long are snapshots kept, and what happens when the backup disk fills up?"
HELD = _held_forms(evidence_words([EVIDENCE, "backup/schedule.py"]))


def _features(text: str) -> dict[str, float]:
    return dict(zip(DENIAL, denial(text, QUESTION, HELD), strict=True))


def test_the_head_reads_the_denial_features() -> None:
    assert set(DENIAL) <= set(FEATURES)


def test_a_partial_answer_denying_the_asked_rest_is_read() -> None:
    got = _features("schedule.py shows the retention constant, but nothing about what "
                    "happens once the disk fills up.")
    assert got["denied_asked"] > 0 and got["partial"] > 0
    got = _features("The scheduler has a retention setting; it doesn't say what a full "
                    "disk does to the run.")
    assert got["denied_asked"] > 0 and got["telling"] > 0


def test_a_word_naming_information_denied_is_telling() -> None:
    for text in ("The retention constant is in schedule.py; there's no information on a "
                 "full disk.", "Retention is set in schedule.py, nothing about full disks.",
                 "No word on what a full disk does."):
        assert _features(text)["telling"] > 0, text
    assert _features("Nothing is deleted early; the run aborts.")["telling"] == 0.0


def test_a_label_followed_by_a_denial_is_a_partial_answer() -> None:
    got = _features("Retention: not specified.\nFull disk: not stated.")
    assert got["telling"] > 0 and got["partial"] > 0 and got["denied_asked"] > 0


def test_an_answer_that_negates_nothing_denies_nothing() -> None:
    assert _features("Fourteen days [E1]. A full disk aborts the run and pages on-call, "
                     "but the snapshots already taken stay.") == {
        "denied_asked": 0.0, "telling": 0.0, "partial": 0.0, "elided": 0.0, "conceded": 0.0}
    # a negation of behaviour is no telling, and one opening the sentence no partial answer
    got = _features("Nothing is kept past fourteen days, and a full disk aborts the run.")
    assert got["telling"] == 0.0 and got["partial"] == 0.0


def test_clauses_cut_at_marks_and_contrast_words() -> None:
    assert clauses("A is shown, but B isn't. Label: none; C — D") == [
        "A is shown", "but B isn't.", "Label", "none", "C", "D"]


Item = tuple[str, int, int, Literal["definition", "doc"], str]
CODE: Item = ("backup/schedule.py", 1, 8, "definition",
        "RETENTION_DAYS = 14  # nightly snapshots are kept two weeks\n\n"
        "def run_backup(disk):\n    if disk.full():\n        abort_run()\n"
        "        page_oncall('backup disk full')\n        return\n    take_snapshot(disk)\n")
DOC: Item = ("docs/backups.md", 1, 5, "doc",
       "## Backups\n\nSnapshots are kept 14 days. When the backup disk fills up, the run "
       "aborts and on-call is paged; nothing is deleted early to make room.\n")


# With the shipped head (trained with these features) a partial answer that names the rest of
# the question only to deny it is refused; main's head (bfbb420) accepted both. Answers that
# give both parts, with or without a negation or a note on a side detail, pass. Not yet read:
# "it doesn't say what a full disk does to a run" after a statement, and "shows the snapshot
# step, but not whether a full disk stops it" (both accepted, as on main).
@pytest.mark.slow
@pytest.mark.parametrize(("text", "refused"), [
    ("schedule.py shows the retention constant, but nothing about what happens once the disk "
     "fills up.", True),
    ("Retention: not specified.\nFull disk: not stated.", True),
    ("Snapshots are kept 14 days [E1]. A full disk aborts the run and pages on-call [E2].",
     False),
    ("Two weeks [E2]. When the disk is full the run aborts and on-call gets paged; nothing is "
     "deleted early [E2].", False),
    ("Fourteen days [E1]. The docs don't say who is on call, but a full disk aborts the run "
     "and pages them [E2].", False),
    ("Kept 14 days (RETENTION_DAYS) [E1]. A full disk doesn't delete old snapshots: the run "
     "just aborts and pages on-call [E2].", False),
])
def test_the_shipped_head_refuses_a_partial_answer_denying_the_asked_rest(
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
