"""The question model reordering only the hand order's head (docs/ranker.md, round 13): the
evidence stays the hand order's, only its first `head` items move, served as the offline
measure (`evals.corpus.qa_train.headed`) scores it; and question files made by SWE-QA's own
process (`"style": "process"`, a `category` per line) are read and listed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from controller.evidence import Candidate
from controller.learned_rank import reorder_head
from controller.rank_features import FEATURES, Pooled
from helix.core.errors import ConfigError, RankerModelError
from helix.core.schemas import Chunk


def _chunk(n: int) -> Chunk:
    return Chunk(id=f"c{n}", path=f"src/m{n % 3}.py", kind="code_def", lang="python",
                 start_line=n, end_line=n + 2, text=f"def f{n}(): pass", content_hash=f"h{n}",
                 symbol=f"f{n}", def_kind="function", node_id=f"def:src/m{n % 3}.py::f{n}")


def _hand(n: int) -> Candidate:
    return Candidate(chunk=_chunk(n), score=1.0 / (n + 1), reasons=(), step=0)


def test_the_head_is_reordered_by_the_model_and_the_rest_keeps_the_hand_order() -> None:
    ranked = [_hand(n) for n in range(7)]
    # the pool: the hand order's items (c5 and c6 not pooled), then a widening definition
    pooled = [Pooled(c.chunk, "hand", c) for c in ranked[:5]] + [Pooled(_chunk(9), "in_file")]
    scores = [0.1, 0.3, 0.3, 0.9, -1.0, 5.0]
    out = reorder_head(ranked, pooled, scores, head=4)
    # c3 first, then c1 and c2 tied (hand order), c0; c4 onwards untouched; c9 never enters
    assert [c.chunk.id for c in out] == ["c3", "c1", "c2", "c0", "c4", "c5", "c6"]
    assert out[0] is ranked[3]  # the hand order's candidates themselves (reasons, scores)
    # an item of the head the pool does not hold keeps its place
    out = reorder_head(ranked, pooled[:1] + pooled[2:], [0.1, 0.3, 0.9, -1.0, 5.0], head=4)
    assert [c.chunk.id for c in out] == ["c3", "c1", "c2", "c0", "c4", "c5", "c6"]
    out = reorder_head(ranked, pooled[1:], [0.3, 0.3, 0.9, -1.0, 5.0], head=4)
    assert [c.chunk.id for c in out] == ["c0", "c3", "c1", "c2", "c4", "c5", "c6"]
    assert reorder_head(ranked, pooled, scores, head=1) == ranked
    # start 1: the hand order's first item stays first, the next three are reordered
    out = reorder_head(ranked, pooled, scores, head=4, start=1)
    assert [c.chunk.id for c in out] == ["c0", "c3", "c1", "c2", "c4", "c5", "c6"]


def test_headed_scores_what_reorder_head_serves() -> None:
    from evals.corpus.qa_train import headed, question_metrics
    from evals.corpus.ranker_train import Groups

    size = 6
    x = np.zeros((size, len(FEATURES)))
    x[:4, FEATURES.index("hand_rr")] = [1.0, 0.5, 1 / 3, 0.25]  # four hand items, two more
    y = np.asarray([0, 0, 0, 0, 0, 1], dtype=np.int32)
    target_of = np.where(y > 0, 0, -1)
    files = [[f"f{n}.py" for n in range(size)]]
    data = Groups(x, y, np.asarray([size]), target_of, np.ones(1, dtype=np.int64), files,
                  [["f5.py"]])
    scores = np.asarray([0.0, 0.0, 0.0, 0.0, 0.0, 9.0])
    assert question_metrics(scores, data)["hit@1"] == 1.0  # the model's own order
    assert question_metrics(headed(scores, data, 3, FEATURES), data)["hit@5"] == 0.0
    data = Groups(x, np.asarray([0, 0, 1, 0, 0, 0], dtype=np.int32),
                  np.asarray([size]), np.asarray([-1, -1, 0, -1, -1, -1]),
                  np.ones(1, dtype=np.int64), files, [["f2.py"]])
    lifted = headed(np.asarray([0.0, 0.0, 5.0, 0.0, 0.0, 9.0]), data, 3, FEATURES)
    assert question_metrics(lifted, data)["hit@1"] == 1.0  # the third hand item led
    assert question_metrics(headed(scores, data, 2, FEATURES), data)["hit@1"] == 0.0
    # the first kept first: the third hand item can rise to second, not first
    kept = headed(np.asarray([0.0, 0.0, 5.0, 0.0, 0.0, 9.0]), data, 3, FEATURES, start=1)
    assert list(np.lexsort((np.arange(size), -kept))[:3]) == [0, 2, 1]


def test_a_head_is_k_or_start_colon_k() -> None:
    import click

    from evals.corpus.qa_train import parse_head

    assert parse_head("10") == (0, 10) and parse_head("1:10") == (1, 10)
    assert parse_head("0") == (0, 0)
    for bad in ("x", "10:1", "-1:3", "3:3"):
        with pytest.raises(click.BadParameter):
            parse_head(bad)


def test_a_manifest_names_the_head_it_reorders(tmp_path: Path) -> None:
    pytest.importorskip("lightgbm")
    from test_question_bridge import _model

    from controller.rank_step import load_question_ranker

    ranker = load_question_ranker(_model(tmp_path / "h", FEATURES, {"head": 8,
                                                                     "head_start": 1}))
    assert ranker is not None and ranker.head == 8 and ranker.head_start == 1
    plain = load_question_ranker(_model(tmp_path / "p", FEATURES, {}))
    assert plain is not None and plain.head == 0
    for bad in (-1, 2.5, True):
        with pytest.raises(RankerModelError, match="head"):
            load_question_ranker(_model(tmp_path / f"b{bad}", FEATURES, {"head": bad}))
        with pytest.raises(RankerModelError, match="head_start"):
            load_question_ranker(_model(tmp_path / f"s{bad}", FEATURES, {"head_start": bad}))


def test_a_process_style_file_is_listed_and_its_category_read(tmp_path: Path) -> None:
    from evals.corpus.qa_cases import (
        Question,
        add_question_file,
        load_question_list,
        read_questions,
    )

    source = tmp_path / "src.jsonl"
    source.write_text(json.dumps({"question": "Where is the test that checks q?",
                                  "answer": "```1:2:tests/test_q.py\na\nb\n```",
                                  "kind": "where", "category": "where"}) + "\n",
                      encoding="utf-8")
    assert read_questions(source) == [Question("Where is the test that checks q?",
                                               "```1:2:tests/test_q.py\na\nb\n```", "where",
                                               "where")]
    listed = tmp_path / "list" / "manifest.json"
    add_question_file(listed, "toy", "github:o/toy", "a" * 40, source, "w", style="process")
    assert [e.style for e in load_question_list(listed)] == ["process"]
    with pytest.raises(ConfigError, match="style"):
        add_question_file(listed, "toy2", "github:o/toy", "a" * 40, source, "w", style="swe")


def test_lopo_scores_heads_beside_the_whole_order() -> None:
    pytest.importorskip("lightgbm")
    from test_question_model import _toy_rows

    from evals.corpus.qa_train import lopo

    projects = {"a": _toy_rows(1), "b": _toy_rows(2)}
    params = {"num_leaves": 3, "min_data_in_leaf": 20, "learning_rate": 0.1}
    result = lopo(projects, grid=[params], rounds=(5,), heads=((0, 0), (0, 5), (1, 10)))
    assert {(row["head_start"], row["head"]) for row in result["table"]} == {
        (0, 0), (0, 5), (1, 10)}
    assert result["best"]["head"] == 0 and result["best_blend"]["head"] == 0
    assert (result["best_head"]["head_start"], result["best_head"]["head"]) in {(0, 5), (1, 10)}
    assert lopo(projects, grid=[params], rounds=(5,))["best_head"] is None
