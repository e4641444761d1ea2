"""The learned first-file choice (`controller.file_lead`, `controller.file_lead_step`,
`retrieval.file_defs.lead_model_digest`): its columns, its choice, its model's manifest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.evidence import Candidate
from controller.file_lead import FEATURES, choose, rows
from controller.reasons import Reason
from helix.core.errors import RankerModelError
from helix.core.hashing import digest
from helix.core.policy import FileDefsPolicy
from helix.core.schemas import Chunk

POLICY = FileDefsPolicy()


def _chunk(path: str, symbol: str, text: str) -> Chunk:
    return Chunk(id=f"{path}:{symbol}", path=path, kind="code_def", lang="python",
                 start_line=1, end_line=3, text=text, content_hash=digest(text.encode()),
                 symbol=symbol, def_kind="function", node_id=f"def:{path}:{symbol}")


def _cand(chunk: Chunk, score: float, *reasons: Reason) -> Candidate:
    return Candidate(chunk=chunk, score=score, reasons=reasons, step=1)


MERGE = _chunk("pkg/config/merge.py", "merge_values", "def merge_values(a, b): spacing\n")
LOAD = _chunk("pkg/config/load.py", "load_file", "def load_file(path): read\n")
TEST = _chunk("tests/test_merge.py", "test_merge", "def test_merge(): merge_values\n")
WORDS = frozenset({"merge", "value", "spacing", "config"})


def test_one_row_of_every_column_per_file_in_order() -> None:
    files = Reason(code="rank", channel="files", rank=1)
    bm25 = Reason(code="rank", channel="bm25", rank=3)
    runs = [[_cand(LOAD, 1.0, files)], [_cand(MERGE, 0.5, bm25)], [_cand(TEST, 0.25)]]
    ranked = [run[0] for run in runs]
    out = rows(WORDS, runs, ranked, 1, False, frozenset(), {"pkg/config/merge.py": (2, 3, 4)},
               POLICY)
    assert [len(r) for r in out] == [len(FEATURES)] * 3
    col = {name: [r[i] for r in out] for i, name in enumerate(FEATURES)}
    assert col["place"] == [0.0, 1.0, 2.0]
    assert col["rank_files"] == [1.0, 100.0, 100.0] and col["rank_bm25"] == [100.0, 3.0, 100.0]
    assert col["score_ratio"] == [1.0, 0.5, 0.25]
    assert col["hand_pick"] == [0.0, 1.0, 0.0]
    assert col["is_test"] == [0.0, 0.0, 1.0]
    assert col["def3_place"][1] == 0.0 and col["def3_gap"][1] > 0  # merge_values answers
    assert col["same_dir"] == [1.0, 1.0, 0.0] and col["dir_of_first"] == [1.0, 1.0, 0.0]
    assert (col["imports_in"], col["edges_in"], col["edges_out"]) == (
        [0.0, 2.0, 0.0], [0.0, 3.0, 0.0], [0.0, 4.0, 0.0])
    assert col["path_hits"] == [1.0, 2.0, 1.0]  # config; config + merge; merge


def test_the_first_file_keeps_the_lead_unless_another_beats_it_by_the_margin() -> None:
    assert choose([0.1, 0.5, 0.4], 0.0) == 1
    assert choose([0.1, 0.5, 0.4], 0.4) == 0
    assert choose([0.5, 0.5], 0.0) == 0  # a tie keeps the earlier file
    assert choose([0.2], 0.0) == 0
    assert choose([0.0, 0.3, 0.3], 0.1) == 1


def _manifest(tmp: Path, model: str, margin: object = 0.1) -> str:
    (tmp / "model.txt").write_text(model, encoding="utf-8")
    raw = json.dumps({"model": "model.txt", "model_digest": digest(model.encode()),
                      "margin": margin}).encode()
    (tmp / "manifest.json").write_bytes(raw)
    return digest(raw)


def test_the_model_is_read_only_under_its_pinned_digest(tmp_path: Path) -> None:
    from controller import file_lead_step

    _manifest(tmp_path, "tree\n")
    with pytest.raises(RankerModelError, match="lead_model_digest"):
        file_lead_step.load("sha256:not-it", tmp_path / "manifest.json")
    pinned = _manifest(tmp_path, "not a model\n")
    with pytest.raises(RankerModelError, match="features"):
        file_lead_step.load(pinned, tmp_path / "manifest.json")
    (tmp_path / "model.txt").write_text("changed\n", encoding="utf-8")
    with pytest.raises(RankerModelError, match="does not match"):
        file_lead_step.load(pinned, tmp_path / "manifest.json")
    pinned = _manifest(tmp_path, "tree\n", margin="big")
    with pytest.raises(RankerModelError, match="malformed"):
        file_lead_step.load(pinned, tmp_path / "manifest.json")


def test_off_by_default_the_hand_rule_picks() -> None:
    from controller import file_defs, file_lead_step

    assert POLICY.lead_model_digest == ""
    runs = [[_cand(LOAD, 1.0)], [_cand(MERGE, 0.5)]]
    hand = file_defs.lead_choice(WORDS, [[LOAD], [MERGE]], False, frozenset(), POLICY)
    assert file_lead_step.choice(WORDS, runs, [r[0] for r in runs], False, frozenset(), POLICY,
                                 None) == hand == 1


def test_a_pinned_model_picks_the_lead_and_anchors_still_hold() -> None:
    from controller import file_lead_step

    class Scores:
        def scores(self, rows: object) -> list[float]:
            return [0.0, -1.0, 2.0][:len(rows)]  # type: ignore[arg-type]

    pinned = "sha256:toy-first-file-model"
    file_lead_step._LOADED[pinned] = file_lead_step.LeadModel(model=Scores(), margin=0.5)  # type: ignore[arg-type]
    try:
        policy = POLICY.model_copy(update={"lead_model_digest": pinned})
        runs = [[_cand(MERGE, 1.0)], [_cand(LOAD, 0.5)], [_cand(TEST, 0.25)]]
        ranked = [r[0] for r in runs]
        assert file_lead_step.choice(WORDS, runs, ranked, False, frozenset(), policy, None) == 2
        # an anchored first file, or one the question names, keeps the hand rule's choice
        assert file_lead_step.choice(WORDS, runs, ranked, True, frozenset(), policy, None) == 0
        assert file_lead_step.choice(WORDS, runs, ranked, False, frozenset({"merge"}), policy,
                                     None) == 0
        wide = file_lead_step.LeadModel(model=Scores(), margin=3.0)  # type: ignore[arg-type]
        file_lead_step._LOADED[pinned] = wide
        assert file_lead_step.choice(WORDS, runs, ranked, False, frozenset(), policy, None) == 0
    finally:
        file_lead_step._LOADED.pop(pinned, None)


def test_the_shipped_model_loads_under_its_manifest_digest_and_scores_the_columns() -> None:
    from controller import file_lead_step

    raw = file_lead_step.MANIFEST.read_bytes()
    manifest = json.loads(raw)
    assert manifest["features"] == list(FEATURES)
    size = sum((file_lead_step.MANIFEST.parent / n).stat().st_size
               for n in ("manifest.json", manifest["model"]))
    assert size < 10 << 20
    lead = file_lead_step.load(digest(raw))
    assert lead.model.trees == manifest["params"]["trees"] and lead.margin == manifest["margin"]
    runs = [[_cand(LOAD, 1.0)], [_cand(MERGE, 0.5)], [_cand(TEST, 0.25)]]
    table = rows(WORDS, runs, [r[0] for r in runs], 1, False, frozenset(), {}, POLICY)
    scores = lead.model.scores(table)
    assert len(scores) == 3 and scores == lead.model.scores(table)  # the same every time
