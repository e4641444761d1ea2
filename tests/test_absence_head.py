"""The learned absence head (issue 32, absence10): data with a manifest (training data digest,
features, leave-one-writer-out table), read back exactly, and chosen so that held out writer by
writer it refuses no more ordinary answers than the contract without it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helix.core.errors import ConfigError
from helix.core.hashing import digest, digest_file
from helix.synthesis.absence_head import FEATURES, HEAD_FILE, AbsenceHead
from helix.synthesis.absence_verdict import Reading

MODEL_DIR = HEAD_FILE.parent
MEANING = Path(__file__).resolve().parents[1] / "data" / "evals" / "meaning"


def _manifest() -> dict:
    return json.loads((MODEL_DIR / "manifest.json").read_text(encoding="utf-8"))


def test_the_shipped_head_matches_its_manifest_and_the_training_data() -> None:
    manifest = _manifest()
    for name, hashed in manifest["files"].items():
        assert digest((MODEL_DIR / name).read_bytes()) == hashed, name
    trained = manifest["training_data"]
    assert set(trained) == {p.name for p in MEANING.glob("absence_answers*.json")}, \
        "an absence set was added or removed: python -m evals.absence_train"
    for name, hashed in trained.items():
        assert digest_file(MEANING / name) == hashed, \
            f"{name} changed: python -m evals.absence_train"
    assert tuple(manifest["features"]) == FEATURES == AbsenceHead.load().features


def test_held_out_writer_by_writer_the_head_refuses_no_more_ordinary_answers() -> None:
    table = _manifest()["leave_one_writer_out"]
    assert len(table) >= 10  # every writer held out once
    before = [sum(row["before"][i] for row in table.values()) for i in (0, 1)]
    after = [sum(row["after"][i] for row in table.values()) for i in (0, 1)]
    assert after[1] <= before[1], (before, after)


def test_the_head_reads_its_weights_exactly(tmp_path: Path) -> None:
    head = AbsenceHead.load()
    zero = (0.0,) * len(FEATURES)
    assert head.probability(zero) == head.probability(zero)
    reading = Reading(True, (), (), False, False, False, True, True)
    if head.mode == "union":  # the rules' refusal stands whatever the head says
        assert head.refuses(zero, reading)
    data = json.loads(HEAD_FILE.read_text(encoding="utf-8"))
    (tmp_path / "head.json").write_text(json.dumps({**data, "features": data["features"][:-1]}),
                                        encoding="utf-8")
    with pytest.raises(ConfigError):
        AbsenceHead.load(tmp_path / "head.json")
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    with pytest.raises(ConfigError):
        AbsenceHead.load(tmp_path / "bad.json")


def _case(name: str, start: str) -> dict:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from absence_meaning import _cases

    data = json.loads((MEANING / name).read_text(encoding="utf-8"))
    return next(c for c in _cases(data) if c["text"].startswith(start))


# A class the rules misjudge and the head, chosen writer by writer, reads: an answer that
# gives what was asked from the evidence (its names, a citation) and then says what the code
# does not do, or what a side detail the material lacks is (refused by the rules' verdict);
# and an inability to answer whose claimed gap is worded apart from the question (accepted by
# the rules as a note). Each is refused/accepted the other way without the head (main's code).
@pytest.mark.slow
@pytest.mark.parametrize(("name", "start", "text", "refused"), [
    ("absence_answers_fresh11.json", "`healthz` checks", None, False),
    # (meaning13) the head retrained with fresh14 as a fourteenth writer (leave-one-writer-out
    # chose l2 10, threshold 0.3) refused "An initials avatar. ... Gravatar is not used." (a
    # side detail the code does not use, said last); (meaning14) retrained with fresh15,
    # leave-one-writer-out chose l2 1 again and the head accepted it; (meaning18) retrained
    # with fresh19 as an eighteenth writer, leave-one-writer-out chose l2 10, threshold 0.3
    # again (17 claims accepted and 57 ordinary answers refused held out writer by writer,
    # against 21 and 48 at l2 1, threshold 0.35), and the head refuses it and "`main` catches
    # `ValidationError` ... The snippet doesn't show what happens if the config file doesn't
    # exist at all, though." as the rules do: both left out here
    ("absence_answers_fresh4.json", "decide_retry in ledger/retry.py makes the call",
     "Can't answer this from the evidence: the failure handling path isn't covered.", True),
])
def test_the_head_decides_a_class_the_rules_misjudge(name: str, start: str, text: str | None,
                                                     refused: bool) -> None:
    from helix.core.config import HelixConfig, IndexSettings
    from helix.synthesis.absence_meaning import AbsenceMeaning
    from helix.synthesis.contract import NO_EVIDENCE_CLAIM, check_answer
    from indexers.encoder import query_embedder

    case = _case(name, start)
    meaning = AbsenceMeaning(query_embedder(IndexSettings()), HelixConfig().synthesis.absence)

    def judged(head: AbsenceHead | None) -> bool:
        return check_answer(text or case["text"], case["refs"], evidence=case["evidence"],
                            meaning=meaning, question=case["question"],
                            head=head).reason == NO_EVIDENCE_CLAIM

    assert judged(AbsenceHead.load()) is refused
    assert judged(None) is not refused  # the rules and the encoder alone


# (meaning17) An answer set out as a list under a markdown heading, its items the evidence's
# values and names, reports no absence (absence_shape `structured` counts only the report
# lines that say nothing the evidence holds): main's head, which counted every item, refused
# both; the rules alone accept them.
@pytest.mark.slow
@pytest.mark.parametrize(("name", "start"), [
    ("absence_answers_fresh18.json", "## Answer\n\n- Files: `0o640`"),
    ("absence_answers_fresh15.json", "## Short answer"),
])
def test_an_answer_set_out_as_a_list_is_accepted(name: str, start: str) -> None:
    from helix.core.config import HelixConfig, IndexSettings
    from helix.synthesis.absence_meaning import AbsenceMeaning
    from helix.synthesis.contract import NO_EVIDENCE_CLAIM, check_answer
    from indexers.encoder import query_embedder

    case = _case(name, start)
    meaning = AbsenceMeaning(query_embedder(IndexSettings()), HelixConfig().synthesis.absence)
    assert check_answer(case["text"], case["refs"], evidence=case["evidence"], meaning=meaning,
                        question=case["question"],
                        head=AbsenceHead.load()).reason != NO_EVIDENCE_CLAIM


def test_the_setting_is_chosen_writer_by_writer_and_never_refuses_more() -> None:
    import numpy as np

    from evals.absence_train import choose, decide, tally

    rng = np.random.default_rng(7)
    writers = np.repeat(np.array(["a", "b", "c", "d"]), 40)
    y = (np.arange(160) % 2).astype(float)
    noise = rng.normal(size=160)
    verdict = y > 0.5
    verdict[:6] = ~verdict[:6]  # the rules err on a few answers of writer a
    # a feature that separates the classes a little better than chance, and the verdict
    x = np.column_stack([y + noise, verdict.astype(float)])
    post = np.zeros((160, 3), dtype=bool)  # no rule after the head speaks
    setting = choose(x, y, verdict, writers, post)
    assert setting["mode"] in ("none", "stack", "union")
    if setting["mode"] != "none":
        from evals.absence_train import fit, probability

        refused = decide(setting["mode"], probability(fit(x, y, setting["l2"]), x), verdict,
                         setting["threshold"])
        assert tally(refused, y)[0] <= tally(verdict, y)[0] + 6
    # a feature of pure noise and no verdict column: nothing beats the contract
    flat = choose(np.column_stack([noise]), y, y > 0.5, writers, post)
    assert flat["mode"] == "none"


def test_the_choice_weighs_refusals_and_scores_the_contract() -> None:
    """meaning23: a setting is chosen by the cost of the contract's errors (a claim accepted
    costs CLAIM_COST ordinary answers refused), not by the fewest claims accepted under a bound
    on refusals: catching two claims that look like ordinary answers is not worth refusing
    every ordinary answer; and the rules after the head count (a side note clears a refusal,
    an abstention is never one, a claim naming what was asked is refused whatever the head)."""
    import numpy as np

    from evals.absence_train import CLAIM_COST, choose, contract, decide, fit, probability, tally

    assert CLAIM_COST >= 1
    writers = np.repeat(np.array(["a", "b", "c", "d"]), 40)
    y = np.tile(np.r_[np.ones(20), np.zeros(20)], 4)
    x = np.where(y > 0, 2.0, -1.0)
    x[np.flatnonzero(y > 0)[::10]] = -1.0  # two claims per writer worded like answers
    x = x[:, None]
    verdict = np.ones(160, dtype=bool)  # the rules refuse everything: the bound is lax
    post = np.zeros((160, 3), dtype=bool)
    setting = choose(x, y, verdict, writers, post)
    assert setting["mode"] == "stack"
    refused = decide("stack", probability(fit(x, y, setting["l2"]), x), verdict,
                     setting["threshold"])
    assert tally(contract(refused, post), y) == (8, 0)
    flags = np.array([[True, False, False], [False, True, False], [False, False, True],
                      [False, False, False]])
    assert contract(np.array([True, True, False, True]), flags).tolist() == \
        [False, False, True, True]


def test_the_evidences_numbers_an_answer_gives_are_a_feature() -> None:
    """meaning23: an answer states the material's values; a claim of absence names what is
    missing. A citation marker, a name's digits and a path's line range are no values."""
    from helix.core.envelope import EvidenceItem
    from helix.core.hashing import digest
    from helix.synthesis.absence_head import _values

    text = "MAX_ATTEMPTS = 5\nBACKOFF = 0.5  # seconds, doubled up to 8 times\n"
    item = EvidenceItem(id="e1", path="ledger/retry.py", start_line=4, end_line=8,
                        kind="definition", score=1.0, content_hash=digest(text),
                        node_id="file:ledger/retry.py", reasons=(), text=text)
    assert "values" in FEATURES
    assert _values("Up to 5 attempts, the first wait 0.5 s [E1].", [item]) > \
        _values("Up to 5 attempts [E1].", [item]) > 0
    assert _values("Up to 7 attempts.", [item]) == 0  # a number the evidence does not hold
    assert _values("The excerpts [E1][E2] don't say; see ledger/retry.py:4-8.", [item]) == 0
    assert _values("No number for it in v2 of the docs.", [item]) == 0
