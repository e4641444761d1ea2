"""Absence claims by meaning on every written set (issue 32; after the data rotation every
absence_answers*.json set is a tune set; absence_answers_tune5.json holds absence5's own 40
claims, absence_answers_tune6.json 62 more and a probe never tuned on): the contract refuses a
claim that the evidence lacks the answer in any wording, and an ordinary answer that says no,
not or nothing, or notes a limit and then answers, passes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from helix.core.config import AbsencePolicy, HelixConfig
from helix.synthesis.absence_head import AbsenceHead
from helix.synthesis.absence_meaning import AbsenceMeaning, load_exemplars
from helix.synthesis.contract import NO_EVIDENCE_CLAIM, check_answer

MEANING = Path(__file__).resolve().parents[1] / "data" / "evals" / "meaning"
SETS = sorted(MEANING.glob("absence_answers*.json"))
PROBES = ("probe3", "probe9")  # written before a round's tuning, measured, never tuned on


def _cases(path: Path) -> list[dict]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from absence_meaning import _cases as cases

    return cases(json.loads(path.read_text(encoding="utf-8")))


def _case(text_start: str) -> dict:
    return next(c for c in _cases(MEANING / "absence_answers_fresh4.json")
                if c["text"].startswith(text_start))


def _refused(case: dict, text: str | None = None, meaning: AbsenceMeaning | None = None,
             head: AbsenceHead | None = None) -> bool:
    return check_answer(text or case["text"], case["refs"], evidence=case["evidence"],
                        meaning=meaning, question=case["question"],
                        head=head).reason == NO_EVIDENCE_CLAIM


def test_a_limit_note_before_a_cited_answer_passes_and_a_claim_after_it_does_not() -> None:
    ledger = _case("decide_retry in ledger/retry.py makes the call")
    # the phrase rules find "I couldn't find": a note on a detail, then the answer cited
    assert not _refused(ledger, "I couldn't find MAX_ATTEMPTS' value in these excerpts, but "
                                "decide_retry [E1] decides: transient errors, up to that cap.")
    # what follows the contrast claims absence too, or cites nothing: still a claim
    assert _refused(ledger, "I couldn't find the retry decision, but docs/ledger.md [E2] "
                            "doesn't show where retries are decided either.")
    assert _refused(ledger, "I couldn't find where retries are decided, but they happen.")
    # the words before the contrast are the claim's terms: held ones contradict it
    assert _refused(ledger, "I couldn't find decide_retry or the retry policy in these "
                            "excerpts, but docs/ledger.md [E2] describes retrying posts.")


def test_a_sentence_about_when_the_code_acts_is_never_compared() -> None:
    from helix.synthesis.absence_meaning import spans

    ex = load_exemplars()
    assert "until" in ex.behaviour_words
    assert not spans("Nothing is parsed until verify_signature returns True, per "
                     "docs/webhooks.md:20-23.", frozenset(), ex)
    assert spans("Nothing in the docs says when it is parsed.", frozenset(), ex)
    # nor one saying what is given is all there is
    assert not spans("Pascal. No other unit shows up for it in either the code or the docs "
                     "[E1][E2].", frozenset(), ex)
    assert spans("The docs show no unit for it.", frozenset(), ex)


def test_the_contrast_words_are_data() -> None:
    ex = load_exemplars()
    assert ex.contrast.search("x isn't shown, but y is") and not ex.contrast.search("x is shown")


@pytest.mark.slow
def test_a_sentence_that_cites_must_look_more_like_a_claim() -> None:
    from helix.core.config import IndexSettings
    from indexers.encoder import query_embedder

    policy = HelixConfig().synthesis.absence
    assert policy.cited_margin > 0
    meaning = AbsenceMeaning(query_embedder(IndexSettings()), policy)
    ledger = next(c for c in _cases(MEANING / "absence_answers.json")
                  if c["scenario"] == "ledger")
    answer = "As the excerpt shows, decide_retry never retries a permanent error [E1]."
    assert not _refused(ledger, answer, meaning)
    flat = AbsenceMeaning(query_embedder(IndexSettings()),
                          policy.model_copy(update={"cited_margin": 0.0}))
    assert _refused(ledger, answer, flat)


class Sweep(NamedTuple):
    wrong: dict[tuple[str, bool], int]
    claims: int
    ordinary: int
    texts: list[str]  # what the encoder was asked for


@pytest.fixture(scope="module")
def sweep() -> Sweep:
    """The contract with the shipped encoder over every written set; the encoder's vectors of
    the same texts are kept across runs (tests/_vector_cache.py: ~30 CPU s embedded)."""
    from tests._vector_cache import Recorded, shipped_encoder_cached

    encoder = Recorded(shipped_encoder_cached())
    meaning = AbsenceMeaning(encoder, HelixConfig().synthesis.absence)
    wrong: dict[tuple[str, bool], int] = {}
    claims = ordinary = 0
    head = AbsenceHead.load()
    for path in SETS:
        for case in _cases(path):
            refused = _refused(case, meaning=meaning, head=head)
            probe = case["split"] in PROBES
            claims += case["absence"] and not probe
            ordinary += not case["absence"] and not probe
            if refused != case["absence"]:
                key = (case["split"] if probe else "tune", case["absence"])
                wrong[key] = wrong.get(key, 0) + 1
    return Sweep(wrong, claims, ordinary, encoder.texts)


@pytest.mark.slow
def test_the_cached_vectors_are_the_encoders(sweep: Sweep) -> None:
    """The vectors the sweep read back are the ones the shipped encoder gives: a sample of its
    texts (one in 25 and the longest) embedded again, each alone, bit for bit on the CPU the
    shipped vectors were computed on, within VECTOR_TOLERANCE on another CPU
    (tests/_vector_cache.py)."""
    from helix.core.config import IndexSettings
    from indexers.encoder import NumpyMiniLMEncoder, default_model_path
    from tests._vector_cache import (
        VECTOR_TOLERANCE,
        cpu_name,
        portable_digest,
        sample,
        shipped_cpu,
        shipped_encoder_cached,
    )

    assert len(set(sweep.texts)) >= 1500
    fresh = NumpyMiniLMEncoder(default_model_path(IndexSettings()))  # no vector kept in memory
    cached = shipped_encoder_cached()
    assert fresh.model_key == cached.model_key
    picked = sample(sweep.texts, 25)
    assert len(picked) >= 60
    computed_here = shipped_cpu(portable_digest()) in (None, cpu_name())
    for text in picked:
        read, again = cached.embed([text])[0], fresh.embed([text])[0]
        if computed_here:
            assert np.array_equal(read, again), text
        else:
            assert float(np.max(np.abs(read - again))) <= VECTOR_TOLERANCE, text


@pytest.mark.slow
def test_the_shipped_encoder_on_every_written_set(sweep: Sweep) -> None:
    wrong, claims, ordinary = sweep.wrong, sweep.claims, sweep.ordinary
    assert claims >= 300 and ordinary >= 197
    # on the code before absence5: 22 of 238 accepted, 7 of 165 refused (the sets before
    # tune6; benchmarks/results/absence_meaning*.json); ceilings, lowered when it gets better
    # fresh7 (writer8; 50 claims, 31 ordinary) joined the tune sets in meaning6 with 4 accepted
    # and 3 refused as measured held apart; with meaning6's changes: 3 of 350 accepted in all
    # (fresh7 1), 8 of 228 refused (fresh7 3; one more, "The results agree: ... has no unit
    # argument; it always returns pascal [E1][E2]", since a ";" no longer ends a sentence)
    # meaning7: fresh8 (writer13; 52 claims, 33 ordinary; held apart: 2 accepted, 12 refused)
    # and tune9 (writer17, 7 new scenarios; 50 claims, 35 ordinary; 2 accepted, 16 refused on
    # the code before meaning7) joined: 7 of 452 accepted, 36 of 296 refused before meaning7's
    # changes, 6 and 21 after (an answer from the evidence makes a claim a note, cited or not;
    # a span that reports what the evidence holds is no claim; "answerable" claims nothing)
    # meaning8: fresh9 (writer16; 58 claims, 37 ordinary; held apart after meaning7: 1
    # accepted, 16 refused) joined: 7 of 510 accepted, 37 of 333 refused before meaning8's
    # changes, 7 and 16 after (a claim's terms are its clause's; an answer outside the
    # claims' clauses, a sighting aside, makes them notes; told the question, a claim about a
    # side detail is a note, one naming what was asked while the evidence covers it is not)
    # (a yes-or-no reply answers; a negative word the question asks about claims nothing): 13;
    # (a participle qualifying a thing of the code is no reference to the material): 11;
    # claims accepted 7 -> 4 ("nothing here tells", "no way to tell", "not enough to say")
    # meaning9: fresh10 (writer18; 56 claims, 40 ordinary; held apart after meaning8: 7
    # accepted, 2 refused) joined: 11 of 566 accepted, 13 of 373 refused before meaning9's
    # changes; (the material named by a pronoun after a preposition, "not in there"): 9, 13;
    # (the phrase rules read "dont", "couldn’t"; "this one" names the question): 7, 13;
    # ("no X mentioned in these snippets": a negated subject the material does not show): 6, 13
    # absence10: fresh11 (writer21; 63 claims, 44 ordinary; held apart after meaning9: 6
    # accepted, 9 refused) joined: 12 of 629 accepted, 22 of 417 refused before absence10's
    # changes; with the learned head (helix/synthesis/absence_model/, trained on every set,
    # the probes too: in sample) 8 and 15
    # meaning11: fresh12 (writer24; 64 claims, 48 ordinary; held apart after absence10, with
    # the head: 7 accepted, 6 refused) joined: 15 of 693 accepted, 21 of 465 refused; the
    # head retrained with fresh12 as a twelfth writer (leave-one-writer-out chose l2 10,
    # threshold 0.35: held out writer by writer 25 -> 18 accepted, 32 -> 31 refused): 13, 25;
    # with the answer's shape as features (helix/synthesis/absence_shape.py; held out writer
    # by writer 13 accepted, 32 refused): 6, 21
    # meaning12: fresh13 (writer31; 64 claims, 48 ordinary; held apart after meaning11, with
    # the head: 7 accepted, 5 refused) joined: 13 of 757 accepted, 26 of 513 refused; the
    # head retrained with fresh13 as a thirteenth writer and a report of a search as a feature
    # (absence_shape "searched"; leave-one-writer-out chose l2 1, threshold 0.25: held out
    # writer by writer 13 accepted, 35 refused): 7, 30
    # meaning13: fresh14 (writer39; 64 claims, 48 ordinary; held apart after meaning12, with
    # the head: 3 accepted, 5 refused) joined: 10 of 821 accepted, 35 of 561 refused; the head
    # retrained with fresh14 as a fourteenth writer and "looked for" opening a report of a
    # search (leave-one-writer-out chose l2 10, threshold 0.3: held out writer by writer 14
    # accepted, 47 refused, the contract 50 and 47): 10, 38 (fresh14 3 -> 2 accepted, fresh13
    # 1 -> 2; refused fresh10 0 -> 1, fresh11 4 -> 5, tune9 2 -> 3)
    # meaning14: fresh15 (writer42; 64 claims, 48 ordinary; held apart, with meaning13's head:
    # 1 accepted, 4 refused) joined: 11 of 885 accepted, 42 of 609 refused; a reference word
    # the evidence uses itself names its subject (absence_exemplars.toml subject_nouns) and the
    # head retrained with fresh15 as a fifteenth writer (leave-one-writer-out chose l2 1,
    # threshold 0.3: held out writer by writer 15 accepted, 49 refused; retrained without
    # subject_nouns 15 and 53): 10, 35 (fresh15 1 -> 0 accepted, 4 -> 1 refused; fresh11
    # 3/5 -> 4/3, fresh14 2/5 -> 3/3, fresh13 2/5 -> 0/5, fresh10 2/1 -> 2/0)
    # meaning16: fresh16 (writer43; 64 claims, 48 ordinary; held apart, measured by the lead
    # before and after meaning14: 2 accepted, 1 refused) joined as measured: 12 of 949, 36 of 657;
    # a time reported from the evidence ("08:00") no path:line citation, "isn't shown in the
    # retrieved code" a claim, "the part you care about" no claim's terms: 11, 34 (fresh16
    # 2/1 -> 1/0, fresh14 refused 3 -> 2; tests/test_absence_wording16.py); the head retrained
    # with fresh16 as a sixteenth writer (the same setting chosen: stack, l2 1, threshold 0.3;
    # held out writer by writer 15 accepted, 50 refused): 10, 37 (fresh14 3/2 -> 2/2, fresh10
    # 2/0 -> 2/2, fresh8 refused 3 -> 4)
    # meaning17: fresh18 (writer48; 64 claims, 48 ordinary; held apart, measured by the lead
    # before and after meaning16: 2 -> 2 accepted, 4 -> 3 refused) joined as measured: 12 of
    # 1013, 40 of 705; an answer set out as a list of the evidence's values no report
    # (absence_shape `structured`) and the head retrained with fresh18 as a seventeenth writer
    # (leave-one-writer-out chose stack, l2 1, threshold 0.35; held out writer by writer 17
    # accepted, 50 refused; retrained without the change 17 and 51, in sample 15 and 36): 14,
    # 35 (fresh10 2 -> 3 and fresh14 2 -> 3 accepted; refused fresh15 1 -> 0, fresh18 3 -> 2,
    # fresh7 1 -> 0, fresh8 4 -> 3, the original set 5 -> 4)
    # meaning18: fresh19 (writer50; 64 claims, 48 ordinary; held apart, measured by the lead
    # before and after meaning17: 2 -> 2 accepted, 1 -> 1 refused) joined as measured: 16 of
    # 1077, 36 of 753; the head retrained with fresh19 as an eighteenth writer (leave-one-
    # writer-out chose stack, l2 10, threshold 0.3; held out writer by writer 17 accepted, 57
    # refused): 14, 48 (fresh10 3 -> 2 and fresh19 2 -> 1 accepted; refused fresh11 3 -> 5,
    # fresh8 3 -> 5, tune9 2 -> 4, fresh10 2 -> 3 (two more, one fewer), the original set,
    # fresh13, fresh14, fresh15 and fresh18 one more each; probe9 0 -> 1)
    # meaning19: a passive or short clause whose subject names the asked noun is a claim, and
    # a plain answer whose later sentences are only side notes closing on it is accepted,
    # both after the head (helix/synthesis/absence_asked.py): 14, 48 -> 6, 43 (accepted
    # fresh11 4 -> 0, fresh12 1 -> 0, fresh14 3 -> 1, fresh18 2 -> 1; refused fresh8 5 -> 2,
    # fresh12 4 -> 3, tune9 4 -> 3; no set the wrong way)
    # meaning20: fresh20 (writer53; 64 claims, 48 ordinary; held apart, measured by the lead
    # before and after round 16: 3 -> 2 accepted, 1 -> 1 refused) joined as measured: 8 of
    # 1141, 44 of 801; the head retrained with fresh20 as a nineteenth writer (the same
    # setting chosen: stack, l2 10, threshold 0.3), a side note closing on a negation of
    # behaviour accepted, "how long" / "how often" asking for a measure
    # (helix/synthesis/absence_asked.py): 7, 41 (fresh20 2 -> 1 accepted; refused fresh13
    # 6 -> 5, fresh18 3 -> 1; no set the wrong way); an answer opening with a reported
    # question then saying only what is missing a claim (helix/synthesis/absence_report.py):
    # 4, 41 (accepted fresh20 1 -> 0, fresh14 1 -> 0, fresh16 1 -> 0)
    # meaning21: fresh21 (writer57; 64 claims, 48 ordinary; held apart, measured by the lead
    # before and after meaning20: 3 -> 3 accepted, 3 -> 3 refused) joined: 7 of 1205, 44 of
    # 849 with meaning20's head; the head retrained with fresh21 as a twentieth writer (stack,
    # l2 10, threshold 0.3 chosen; held out writer by writer 18 accepted, 66 refused): 6, 46;
    # an answer opening with "The question asks ..." reports the question
    # (absence_asked.toml question_reports) and a clause telling what a file defines tells
    # what the material holds, no answer (absence_exemplars.toml sighting_words), the head
    # retrained again (leave-one-writer-out chose stack, l2 10, threshold 0.25; held out
    # writer by writer 17 accepted, 63 refused): 3, 58 (fresh21 3 -> 0 accepted, 3 -> 4
    # refused; in sample the lower threshold refuses 12 more ordinary answers over 11 sets)
    # meaning23: fresh22 (writer62; 64 claims, 48 ordinary; held apart, measured by the lead
    # before c9c7efa and after meaning21: 5 -> 3 accepted, 2 -> 2 refused) joined: 6 of 1269,
    # 60 of 897 with meaning21's head; the head retrained with fresh22 as a twenty-first writer,
    # the evidence's numbers an answer gives as a feature (absence_head `values`) and the
    # setting chosen by the cost of the contract's errors, the rules after the head included
    # (evals/absence_train.py: CLAIM_COST 2; chose stack, l2 10, threshold 0.4; held out writer
    # by writer 12 accepted, 45 refused, with meaning21's trainer 10 and 62): 4, 37 (fresh22
    # 3/2 -> 1/1, fresh10 refused 5 -> 2, fresh11 6 -> 4, fresh14 4 -> 1, fresh21 4 -> 1;
    # no set the wrong way)
    # meaning24: fresh23 (writer68; 64 claims, 48 ordinary; held apart, measured by the lead
    # before 01ef952 and after bd14958: 5 -> 6 accepted, 4 -> 4 refused) joined: 10 of 1371,
    # 41 of 967 with meaning23's head (fresh23 6/4); the head retrained with fresh23 as a
    # twenty-second writer (python -m evals.absence_train: stack, l2 10, threshold 0.45 chosen;
    # held out writer by writer 18 accepted, 52 refused, fresh23 held out 6/4; over the 21
    # writers before 12 and 48, meaning23's head 12 and 45): 10, 41 (fresh23 6 -> 5 accepted,
    # fresh19 1 -> 2; every other set unchanged). Tried and not kept: the object of a negated
    # verb of telling as a claim's subject ("it doesn't specify the amount"): fresh23 unchanged
    # with the retrained head, 4 more ordinary answers refused (fresh11, fresh14, fresh19,
    # fresh21: "The snippets don't say whether ..., but ...")
    # meaning25: fresh24 (writer71; 64 claims, 48 ordinary; held apart, measured by the lead
    # before ff15bda and after d20da2d: 3 -> 3 accepted, 4 -> 4 refused) joined: 13 of 1435,
    # 45 of 1015 with meaning24's head (fresh24 3/4); "neither" the subject of a verb of
    # telling a claim (helix/synthesis/absence.py: "...; neither states the default") and an
    # answer in another language that negates nothing and asks nothing accepted after the head
    # (helix/synthesis/absence_language.py): 10, 41 with meaning24's head (fresh24 3/4 -> 1/2,
    # fresh19 accepted 2 -> 1, fresh22 refused 1 -> 0, fresh23 refused 4 -> 3; no set the
    # wrong way); the head retrained with fresh24 as a twenty-third writer and the plain
    # answer in another language among the rules after the head (python -m
    # evals.absence_train: stack, l2 10, threshold 0.4 chosen; held out writer by writer 15
    # accepted, 50 refused, fresh24 held out 1/2; over the 22 writers before 14 and 48,
    # meaning24's head 18 and 52): 10, 45 in sample (the original set, fresh7, fresh23 and
    # tune9 one more refused each: the lower threshold)
    # meaning26: fresh25 (writer77; 64 claims, 48 ordinary; held apart, measured by the lead
    # before 96a4152 and after 1d97432: 2 -> 2 accepted, 2 -> 1 refused) joined as measured,
    # the head not retrained (the round's brief): 12, 46 (fresh25 2/1)
    # meaning27: fresh26 (writer81; 64 claims, 48 ordinary; held apart, measured by the lead
    # before 60c05ef and after 4fdc1af: 5 -> 5 accepted, 3 -> 3 refused) joined: 17 of 1525,
    # 49 of 1089 with the lead's head (4fdc1af); the head retrained with fresh26 as a
    # twenty-fourth writer (python -m evals.absence_train: stack, l2 1, threshold 0.5 chosen,
    # was l2 10, threshold 0.4; in sample the cost is the same, 2 x 17 + 49 = 2 x 23 + 37):
    # 23, 37 (accepted fresh10 1 -> 3, fresh20 0 -> 2, fresh22 1 -> 2, fresh24 1 -> 2;
    # refused fresh11 4 -> 2, fresh13 6 -> 5, fresh15, fresh21, fresh9 1 fewer each,
    # fresh23 4 -> 2, fresh26 3 -> 1, the original set 4 -> 2, probe9 1 -> 0)
    # then "Not in [E1] or [E2]." a blanket claim, "nothing else here gives" a claim, a
    # restated question the asked thing (tests/test_absence_structure27.py): 21, 37 with that
    # head (fresh26 accepted 5 -> 3; no set the wrong way); the head retrained on the new
    # readings (python -m evals.absence_train: stack, l2 10, threshold 0.4 chosen; held out
    # writer by writer 25/54 -> 23/55 accepted/refused, fresh26 held out 5/3 -> 3/3): 15, 51
    # (accepted fresh10 3 -> 1, fresh20 2 -> 0, fresh22 2 -> 1, fresh24 2 -> 1; refused
    # fresh11 2 -> 4, fresh13 5 -> 6, fresh15, fresh16, fresh19, fresh21, fresh4, fresh9 one
    # more each, fresh23 2 -> 4, fresh26 1 -> 2, the original set 2 -> 4, probe9 0 -> 1; against
    # the lead's head of 4fdc1af, 17/49: fresh26 5/3 -> 3/2, fresh4, fresh16, fresh19 one
    # more refused each)
    # meaning28: fresh27 (writer85; 64 claims, 48 ordinary; held apart, measured by the lead
    # before and after round 23's merges: 3 -> 3 accepted, 1 -> 1 refused) joined: 18, 52 with
    # the head of main (7d175db); the head retrained with fresh27 as a twenty-fifth writer
    # (python -m evals.absence_train: stack, l2 10, threshold 0.4 chosen again; in sample the
    # cost is the same, 2 x 18 + 52 = 2 x 17 + 54): 17, 54
    # then "neither" the subject of a passive of showing by the material, a "when" question
    # asking a time, a subject opening with the question's wh-word, a claim in another language
    # by an indirect question (tests/test_absence_structure28.py), the head retrained on them
    # (python -m evals.absence_train: stack, l2 10, threshold 0.4 again; held out writer by
    # writer 28/56 -> 23/56 accepted/refused): 12, 53 (accepted fresh27 3 -> 0, fresh23 4 -> 3,
    # fresh24 1 -> 0; refused fresh3 1 -> 0; no set the wrong way)
    # fresh28 (8 new scenarios), held apart in round 24 (the lead: 8 -> 7 accepted, 0 -> 0
    # refused) joined in round 25 with the head as it was: 19, 53; the head retrained with it
    # as a twenty-sixth writer (python -m evals.absence_train: stack, l2 1, threshold 0.5 chosen
    # by leave-one-writer-out; in sample 2 x 26 + 37 = 89 < 2 x 19 + 53 = 91): 26, 37
    # absence29: what the answer's clauses deny as features of the head (helix/synthesis/
    # absence_denial.py: the asked words said missing, negated verbs of telling or words naming
    # information, a statement turning to a denial after a contrast or a colon), the head
    # retrained (python -m evals.absence_train: stack, l2 1, threshold 0.4 chosen; held out
    # writer by writer 30/60 -> 18/53 accepted/refused, cost 120 -> 89; fresh28 held out 7/0
    # -> 4/0): 14, 38 in sample (cost 89 -> 66; fresh28 7 -> 2 accepted)
    # absence30, tried and not kept (the criterion, stated first: the left-out cost falls and
    # no writer's left-out cost rises by more than 1; three variants): a side note before the
    # answer ("The docs don't say X, but Y") and a request to the user ("Please share ...",
    # "Could you re-run ...?") as head features: left out 18/53 -> 17/35, cost 89 -> 69, but
    # fresh14, fresh26 and fresh28 2 worse each (the chosen threshold rose 0.4 -> 0.5 and
    # partial answers came back); with a first-person "I can't confirm" feature too, 23/39,
    # cost 85, fresh28 +4 (branch absence30-candidate, 81f1d98)
    # fresh29 (8 new scenarios), held apart in round 25 (the lead: 5 -> 2 accepted, 1 -> 0
    # refused) joined in round 26 with the head as it was: 16, 38; the head retrained with it
    # as a twenty-seventh writer (python -m evals.absence_train: the same setting, stack, l2 1,
    # threshold 0.4; left out writer by writer 22/56, fresh29 2/0): 16, 40 in sample
    # meaning30, tried and not kept (the criterion, stated first: the left-out cost 2 x
    # accepted + refused falls and no writer's left-out cost rises by more than 1; three
    # variants, python -m evals.absence_train's leave-one-writer-out, 22/56 = cost 100 before):
    # two clause features for the head, the largest share of a negated clause's words the
    # question names (a partial answer denying the asked rest) and the negated clauses naming
    # none of them (a side note): 19/51, cost 89, fresh21 +2 (two negative replies refused); the
    # same over clauses negating telling or an indirect question only: 19/52, cost 90, fresh20
    # +2, fresh26 +3, orig +4; the first over the clauses after the answer's first only: 19/58,
    # cost 96, fresh26 +2
    # fresh30 (8 new scenarios), held apart in round 26 (the lead: 3 -> 3 accepted, 0 -> 0
    # refused) joined in round 27 with the head as it was: 19, 40; the head retrained with it as
    # a twenty-eighth writer (python -m evals.absence_train: the same setting, stack, l2 1,
    # threshold 0.4; the shipped head must be trained on every set, tests/test_absence_head.py):
    # 19, 42 in sample, left out 23/63 (cost 109; the head as it was with fresh30 as measured held
    # apart: 25/56, cost 106)
    # fresh31 (8 new scenarios), held apart in round 27 (the lead: 2 -> 2 accepted, 1 -> 1
    # refused) joined in round 28 and the head was retrained with it as a thirtieth set (the same
    # grid; it chose threshold 0.35): 16, 51 in sample, left out 25/58 over 30 sets (cost 108)
    # fresh32 (8 new scenarios), held apart in rounds 27-28 (the lead: 0 -> 0 -> 0 accepted, 0
    # -> 0 -> 0 refused) joined in round 29 and the head was retrained with it as a thirty-first
    # set (the same grid; threshold 0.35 again): 18, 52 in sample, left out 25/61 over 31 sets
    # (cost 111; fresh32 left out 0/0)
    # absence29, tried and not kept (the criterion, stated first: the left-out cost 2 x
    # accepted + refused over the 31 sets, each held set at the setting main's manifest records
    # for it (python -m evals.absence_train --at-settings MANIFEST), falls and no set's rises by
    # more than 1): absence28's three variants again: the 'behaviour' feature (the share of
    # negating clauses denying something of the system) 23/61, cost 107, fresh32 +3, fresh14,
    # fresh16, orig +2; requests back to the user ("Could you ...", "Please ...") as suggestion
    # leads 22/61, cost 105, fresh14 +2 (one claim more accepted); both 21/61, cost 103,
    # fresh32 +3, orig +3, fresh14 +2. Each rise over 1 at fixed settings holds one claim more
    # accepted in that set (fresh32's and orig's +3 one refusal more too): with the setting
    # fixed they follow the features, not the nested choice
    # absence30 (kept under the criterion stated first: at main's per-set settings the cost
    # falls by 4 or more and no set's rises by more than 2; three variants): which clause a
    # negation scopes, two head features (helix/synthesis/absence_denial.py): `elided`, a bare
    # negation after a contrast word or a comma denying an affirmative verb of showing or seeing
    # before it ("shows A, but not B"), and `conceded`, a negated verb of telling before a
    # contrast word with a statement in the answer's own voice after it ("the docs don't say X,
    # but Y"). At main's settings (python -m evals.absence_train --at-settings): elided alone
    # 22/58, cost 102; conceded alone 20/56, cost 96; both 17/52, cost 86 (fresh7 2 -> 4, the
    # largest rise), kept; nested 22/41, cost 85. The head retrained (python -m
    # evals.absence_train: stack, l2 1, threshold 0.35 -> 0.4): 18, 52 -> 15, 37 in sample
    # (refused fresh7 2 -> 4, accepted fresh30 1 -> 2; fresh31 2/1 -> 1/2; 16 more sets better)
    # fresh33 (8 new scenarios), held apart in rounds 28-29 (the lead: 1 -> 1 accepted, 1 -> 1
    # refused) joined in round 30 and the head was retrained with it as a thirty-second set (the
    # same grid; threshold 0.4 again): 15, 37 -> 16, 37 in sample (fresh33 1, 0), left out 22/41
    # over 31 sets -> 22/49 over 32 (cost 85 -> 93; fresh33 left out 1/1)
    # absence31: the head feature `grounded` (helix/synthesis/absence_grounded.py: negating
    # clauses about the code that repeat a negating line of the evidence), judged at main's
    # per-set settings: left out 22/49 cost 93 -> 20/44 cost 84, largest rise 2; kept. The
    # head retrained (stack, l2 1, threshold 0.4 -> 0.45): left out 22/49 -> 21/43 (cost 93 ->
    # 85); in sample 16, 37 -> 18, 33 (2 more claims accepted, 4 fewer ordinary answers refused)
    # absence32: the head feature `held_denied` (helix/synthesis/absence_held.py: negating
    # clauses denying an asked thing whose words one plain line of the evidence states), judged
    # at main's per-set settings: left out 21/43 cost 85 -> 21/38 cost 80, largest rise 2; kept
    # (its learned weight is negative: it mostly clears ordinary answers). The head retrained
    # (stack, l2 1, threshold 0.45 again): left out 21/43 -> 22/40 (cost 85 -> 84); in sample
    # 18, 33 -> 19, 32 (fresh14, fresh15, fresh25 one more claim accepted, fresh23, fresh30 one
    # fewer; refused fresh11, fresh13, fresh7, fresh25 one fewer, fresh9, orig, fresh26 one more)
    # fresh34 (8 new scenarios), held apart in rounds 29-30 (the lead: 1 -> 0 -> 0 accepted, 1 ->
    # 0 -> 0 refused) joined in round 31 and the head was retrained with it as a thirty-third set
    # (the same grid; threshold 0.45 again): in sample 19, 32 -> 19, 33 (fresh34 0, 0), left out
    # 22/40 over 32 sets -> 24/43 over 33 (cost 84 -> 91; fresh34 left out 0/0)
    # fresh35 (8 new scenarios), held apart in rounds 30-31 (the lead: 0 -> 0 -> 0 accepted, 2 ->
    # 0 -> 0 refused) joined in round 32 and the head was retrained with it as a thirty-fourth
    # set (the same grid; threshold 0.45 again): in sample 19, 33 -> 18, 33, left out 24/43 over
    # 33 sets -> 22/44 over 34 (cost 91 -> 88; fresh35 left out 0/0)
    assert wrong.get(("tune", True), 0) <= 18 and wrong.get(("tune", False), 0) <= 33, wrong
    # absence5's probe3: 3 of 20 accepted (the old code too), 0 of 10 refused; 0 and 0 with
    # the head (which was trained on it), 1 and 0 retrained with fresh12, 0 and 0 with shape
    # (and with meaning12's head)
    assert not wrong.get(("probe3", True)) and not wrong.get(("probe3", False)), wrong
    # meaning9's probe9 (absence_answers_probe9.json): before meaning9's changes 5 of 18
    # accepted (the phrase rules alone 15), 1 of 12 refused; after them 1 and 2; with the
    # head (trained on it) 0 and 1; with the answer's shape 0 and 0; with meaning13's head
    # (l2 10) 0 and 1; with meaning14's (l2 1) 0 and 0; with meaning18's (l2 10) 0 and 1
    assert not wrong.get(("probe9", True)) and wrong.get(("probe9", False), 0) <= 1, wrong


def test_absence5s_own_wordings_are_thirty_or_more() -> None:
    data = json.loads((MEANING / "absence_answers_tune5.json").read_text(encoding="utf-8"))
    assert sum(a["absence"] for a in data["answers"]) >= 30
    assert AbsencePolicy().cited_margin == HelixConfig().synthesis.absence.cited_margin


@pytest.mark.parametrize(("text", "refused"), [
    # a citation names the evidence as well as "the files" do (meaning6, issue 32)
    ("Nothing in [E2] says how the retry decision is made.", True),
    ("Nothing in docs/ledger.md:1-4 explains which errors are retried.", True),
    ("Nothing in [E1] or [E2] names the cap.", True),
    ("Nowhere in the shown files is the cap defined [E1].", True),  # as "nowhere in the repo"
    # an inability to answer from what was sent is a blanket claim
    ("Can't say from this which errors get retried.", True),
    ("Couldn't tell from what was shown which errors are retried.", True),
    # what nothing in a cited excerpt does is not always to say: no claim
    ("decide_retry [E1] retries transient errors; nothing in [E2] contradicts that.", False),
])
def test_a_citation_names_the_material_and_inability_is_a_claim(text: str,
                                                                refused: bool) -> None:
    ledger = _case("decide_retry in ledger/retry.py makes the call")
    assert _refused(ledger, text) is refused, text


def test_a_clause_after_a_semicolon_speaks_of_the_material_the_clause_before_names() -> None:
    from helix.synthesis.absence_meaning import spans

    ex = load_exemplars()
    text = "The excerpts are about the backoff; the decision itself isn't covered."
    # one sentence (the clause before names the material): it and its clauses are compared
    assert [text[s.start:s.end] for s in spans(text, frozenset(), ex)] == [text]
    assert not spans("Backoff doubles each time; the cap isn't covered.", frozenset(), ex)


@pytest.mark.parametrize(("text", "refused"), [
    # an answer from the evidence before the claim's sentence, with no citation (meaning7):
    # an identifier the excerpts hold, a number of theirs, or three of their words
    ("decide_retry retries transient errors. The excerpts don't show who schedules it.", False),
    ("Transient errors only, and the backoff doubles each time. The docs don't say how long "
     "the first wait is.", False),
    # or after the last claim's sentence
    ("The excerpts don't show the scheduler. MAX_ATTEMPTS caps the retries.", False),
    # a file's name is the material, not an answer: still a claim
    ("I couldn't find how retries are decided. ledger/retry.py is listed.", True),
    ("The excerpts don't show where retries are decided. Maybe look elsewhere.", True),
])
def test_an_answer_from_the_evidence_makes_a_claim_a_note(text: str, refused: bool) -> None:
    ledger = _case("decide_retry in ledger/retry.py makes the call")
    assert _refused(ledger, text) is refused, text


def test_answerable_is_the_vocabulary_of_claiming() -> None:
    # meaning7: "not answerable from this evidence" claims nothing in particular is missing:
    # a blanket claim, refused whatever the answer cited before it
    from helix.synthesis.absence import content_terms

    assert content_terms("So: not answerable from this evidence.") == ()
    assert content_terms("The cap is undeterminable from these excerpts.") == ("cap",)

