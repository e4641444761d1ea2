"""The learned ranker's pure evaluator: LightGBM's own scores, bit for bit, without LightGBM;
the same order twice and in another process; a model that cannot be used is one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from controller.evidence import Candidate
from controller.learned_rank import order, parse_model, spread
from controller.rank_features import FEATURES, Pooled
from controller.rank_step import load_ranker
from helix.core.errors import RankerModelError
from helix.core.hashing import digest
from helix.core.policy import RankerPolicy
from helix.core.schemas import Chunk


def _lgb() -> Any:
    """lightgbm, imported by the tests that train (not at collection: ~2 CPU s a worker)."""
    return pytest.importorskip("lightgbm")


NAMES = [f"f{n}" for n in range(6)]


def _model(missing: bool = True, rounds: int = 25) -> tuple[str, np.ndarray]:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(600, len(NAMES)))
    x[:, 3] = np.where(rng.random(600) < 0.3, 0.0, x[:, 3])  # zeros
    if missing:
        x[rng.random(600) < 0.2, 4] = np.nan  # missing values: LightGBM's NaN type
    y = (x[:, 0] + 0.5 * np.nan_to_num(x[:, 4]) > 0.2).astype(int) + (x[:, 1] > 1).astype(int)
    lgb = _lgb()
    data = lgb.Dataset(x, label=y, group=[20] * 30, feature_name=NAMES)
    booster = lgb.train({"objective": "lambdarank", "deterministic": True, "num_threads": 1,
                         "force_row_wise": True, "seed": 3, "verbosity": -1, "num_leaves": 7,
                         "min_data_in_leaf": 5}, data, num_boost_round=rounds)
    return str(booster.model_to_string()), x


def test_scores_equal_lightgbm_predict_bit_for_bit() -> None:
    text, x = _model()
    model = parse_model(text, NAMES)
    booster = _lgb().Booster(model_str=text)
    want = booster.predict(x, raw_score=True)
    got = model.scores(x.tolist())
    assert got == [float(v) for v in want]  # the same sums, in the same order
    assert model.trees == booster.num_trees()


def test_the_same_order_twice_and_in_another_process(tmp_path: Path) -> None:
    text, x = _model(missing=False)
    model = parse_model(text, NAMES)
    rows = x[:40].tolist()
    first, second = model.scores(rows), model.scores(rows)
    assert first == second
    (tmp_path / "model.txt").write_text(text, encoding="utf-8")
    (tmp_path / "rows.json").write_text(json.dumps(rows), encoding="utf-8")
    code = ("import json,sys; from controller.learned_rank import parse_model;"
            f"m=parse_model(open(sys.argv[1]).read(), {NAMES!r});"
            "print(json.dumps([v.hex() for v in m.scores(json.load(open(sys.argv[2])))]))")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "model.txt"),
                           str(tmp_path / "rows.json")], capture_output=True, text=True,
                          check=True)
    assert json.loads(done.stdout) == [v.hex() for v in first]


def _chunk(n: int) -> Chunk:
    return Chunk(id=f"c{n}", path=f"src/m{n % 3}.py", kind="code_def", lang="python",
                 start_line=n, end_line=n + 2, text=f"def f{n}(): pass", content_hash=f"h{n}",
                 symbol=f"f{n}", def_kind="function", node_id=f"def:src/m{n % 3}.py::f{n}")


def test_order_is_by_score_then_pool_order() -> None:
    pooled = [Pooled(_chunk(n), "pool") for n in range(5)]
    ranked = order(pooled, [0.5, 2.0, 0.5, -1.0, 2.0], limit=4)
    assert [c.chunk.id for c in ranked] == ["c1", "c4", "c0", "c2"]
    assert [c.score for c in ranked] == [2.0, 2.0, 0.5, 0.5]
    assert all(r.code == "in_file" for c in ranked for r in c.reasons)


def test_spread_keeps_the_lead_then_names_more_files() -> None:
    # c0..c8: files m0, m1, m2 in turn; scores put m0's three first, then m1's, then m2's
    pooled = [Pooled(_chunk(n), "pool") for n in range(9)]
    scores = [9.0, 5.0, 2.0, 8.0, 4.0, 1.0, 7.0, 3.0, 0.0]
    plain = order(pooled, scores, limit=4)
    assert [c.chunk.id for c in plain] == ["c0", "c3", "c6", "c1"]
    spread_out = order(pooled, scores, limit=4, lead=2)
    # the model's first two, then the first in pool order of each file not yet listed
    assert [c.chunk.id for c in spread_out] == ["c0", "c3", "c1", "c2"]
    assert [c.chunk.id for c in order(pooled, scores, limit=6, lead=1)] == [
        "c0", "c1", "c2", "c3", "c6", "c4"]
    assert order(pooled, scores, limit=4, lead=4) == plain
    # the new files come in pool order (the hand order's), not the model's; then the rest
    # in the model's order
    assert spread([3, 0, 4, 1, 2], ["a", "b", "a", "c", "b"], limit=5, lead=1) == [
        3, 0, 1, 4, 2]
    assert spread([0, 1, 2], ["a", "a", "b"], limit=5, lead=0) == [0, 2, 1]


def _hand(chunk: Chunk) -> Pooled:
    return Pooled(chunk, "hand", Candidate(chunk=chunk, score=1.0, reasons=(), step=0))


def test_the_hand_orders_first_item_or_file_kept_first() -> None:
    """retrieval.ranker.keep_text: the hand order's first item stays first when it is not a
    definition; keep_file: the hand order's first file leads unless the model's best leads
    its best by more than the margin; the rest in the model's order; off, the model's."""
    module = _chunk(0).model_copy(update={"kind": "code_module", "symbol": None})
    pooled = [_hand(module), *(Pooled(_chunk(n), "pool") for n in range(1, 7))]
    # m0: c0 (module), c3, c6; m1: c1, c4; m2: c2, c5
    scores = [-3.0, 5.0, 1.0, 4.0, 0.5, 0.0, 2.0]
    ids = lambda **keep: [c.chunk.id for c in order(pooled, scores, limit=4, **keep)]  # noqa: E731
    assert ids() == ["c1", "c3", "c6", "c2"]
    assert ids(keep_text=True) == ["c0", "c1", "c3", "c6"]
    assert ids(keep_file=1.0) == ["c3", "c1", "c6", "c2"]  # c1 leads m0's best c3 by 1.0
    assert ids(keep_file=0.5) == ["c1", "c3", "c6", "c2"]
    definition = [_hand(_chunk(0)), *pooled[1:]]
    assert [c.chunk.id for c in order(definition, scores, limit=2, keep_text=True)] == [
        "c1", "c3"]  # a definition first in the hand order: the model's order
    # keep_frame: a definition first in the hand order stays first when a stack frame of
    # the question names its file (by its last two path parts), not when none does
    framed = [_hand(_chunk(0).model_copy(update={"path": "src/pkg/m0.py"})), *pooled[1:]]
    assert [c.chunk.id for c in order(framed, scores, limit=2, frames=["pkg/m0.py"])] == [
        "c0", "c1"]
    assert [c.chunk.id for c in order(framed, scores, limit=2, frames=["kg/m0.py"])] == [
        "c1", "c3"]
    unhanded = [Pooled(module, "pool"), *pooled[1:]]
    assert [c.chunk.id for c in order(unhanded, scores, limit=2, keep_text=True,
                                      keep_file=9.0)] == ["c1", "c3"]  # no hand order


def test_a_model_of_other_features_or_malformed_is_one_line() -> None:
    text, _x = _model(rounds=2)
    with pytest.raises(RankerModelError, match=r"features .* retrain"):
        parse_model(text, FEATURES)
    with pytest.raises(RankerModelError, match="malformed"):
        parse_model(text.replace("leaf_value=", "leaf_value=x "), NAMES)
    with pytest.raises(RankerModelError, match="not a single-output"):
        parse_model("tree\nfeature_names=" + " ".join(NAMES) + "\n", NAMES)


def _bundle(tmp_path: Path, text: str) -> str:
    (tmp_path / "model.txt").write_text(text, encoding="utf-8")
    manifest = {"model": "model.txt", "model_digest": digest(text.encode("utf-8"))}
    raw = json.dumps(manifest).encode("utf-8")
    (tmp_path / "manifest.json").write_bytes(raw)
    return digest(raw)


def test_load_errors_name_the_problem_in_one_line(tmp_path: Path) -> None:
    missing = RankerPolicy(mode="learned", manifest=str(tmp_path / "none.json"), digest="x")
    with pytest.raises(RankerModelError, match="cannot read the ranker manifest") as caught:
        load_ranker(missing)
    assert "\n" not in str(caught.value)
    text, _x = _model(rounds=2)
    pinned = _bundle(tmp_path, text)
    unpinned = RankerPolicy(mode="learned", manifest=str(tmp_path / "manifest.json"))
    with pytest.raises(RankerModelError, match=r"set retrieval\.ranker\.digest to it"):
        load_ranker(unpinned)
    other = unpinned.model_copy(update={"digest": "sha256:" + "0" * 64})
    with pytest.raises(RankerModelError, match=r"not retrieval\.ranker\.digest"):
        load_ranker(other)
    with pytest.raises(RankerModelError, match="features"):  # a model of other features
        load_ranker(unpinned.model_copy(update={"digest": pinned}))
    (tmp_path / "model.txt").write_text(text + "\n", encoding="utf-8")  # changed after pinning
    with pytest.raises(RankerModelError, match="does not match its manifest"):
        load_ranker(unpinned.model_copy(update={"digest": pinned, "max_candidates": 9}))


def test_idf_shares_do_not_depend_on_the_order_a_set_iterates_in() -> None:
    """Words' idf summed exactly: a set of strings iterates in an order that changes from
    process to process (string hashes), and rows collected in Ray workers must be the serial
    run's bytes. Integers iterate in a fixed order here, one a plain sum gets wrong."""
    from controller.rank_features import _idf_share, _idf_total

    words = frozenset({1, 2, 3})
    idf = {1: 1.0, 2: 1e16, 3: -1e16}  # 1 + 1e16 loses the 1 before -1e16 comes
    assert _idf_total(words, idf, 0.0) == 1.0  # type: ignore[arg-type]
    assert _idf_share(words, words, idf, 0.0, 2.0) == 0.5  # type: ignore[arg-type]


def test_plain_rows_are_scored_without_testing_each_node(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """Rows without NaN under plain tests (the shipped model's case) take the fast path: each
    distinct test made once, the exit values read from per-tree tables, summed in tree order;
    LightGBM's scores bit for bit, one row and many (numpy sums one row pairwise: not used)."""
    from controller.learned_rank import TreeModel

    text, x = _model(missing=False, rounds=60)
    model = parse_model(text, NAMES)
    want = [float(v) for v in _lgb().Booster(model_str=text).predict(x, raw_score=True)]

    def per_node(self: TreeModel, rows: np.ndarray) -> np.ndarray:
        raise AssertionError("every node tested per tree")

    monkeypatch.setattr(TreeModel, "_goes_right", per_node)
    assert model.scores(x) == want
    assert [model.scores(x[n:n + 1])[0] for n in range(40)] == want[:40]
