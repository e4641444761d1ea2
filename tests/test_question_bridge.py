"""The question model's bridging columns (issue 31, round 11): a question that hides the name
behind a description is matched by what the code says of itself (every docstring line, the
owner's docstring, the file's), computed at question time exactly as when the rows were
collected, only for a model whose manifest lists them; and a model may be served fused with
the hand order (`blend`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from golden_files import RealIndex, real_index

import controller.driver as driver
from controller.learned_rank import blend
from controller.question import read_question
from controller.rank_bridge import BRIDGE_FEATURES, QUESTION_FEATURES, comment_text
from controller.rank_features import FEATURES
from controller.rank_step import load_question_ranker
from helix.core.errors import RankerModelError
from helix.core.policy import RankerPolicy
from helix.core.ports import FakeClock

FILES = {
    "client/backoff.py": (
        '"""Waiting between attempts."""\n\n\n'
        "def compute_delay(attempt):\n"
        '    """Return a number.\n\n'
        "    The pause the client keeps before it retries a failed request.\n"
        '    """\n'
        "    return 2 ** attempt\n\n\n"
        "def send(request, attempt=0):\n"
        "    return compute_delay(attempt)\n"),
    "client/session.py": (
        "class Session:\n"
        '    """Holds the token a client presents.\n\n'
        "    Refreshed when the server rejects the old one.\n"
        '    """\n\n'
        "    def refresh(self, token):\n"
        "        self.token = token\n"),
}
HIDDEN = "How long is the pause the client keeps before it retries a failed request?"
OWNER = "What happens when the server rejects the token a client presents?"


@dataclass
class _Wide:
    """A question model that records its rows (the bridging columns asked for)."""

    routes: frozenset[str] | None = None
    questions: bool = True
    wide: bool = True
    rows: list[dict[str, dict[str, float]]] = field(default_factory=list)

    def score(self, pooled: Sequence[Any], rows: Sequence[Sequence[float]]) -> Sequence[float]:
        names = QUESTION_FEATURES if self.wide else FEATURES
        assert all(len(r) == len(names) for r in rows)
        self.rows.append({p.chunk.symbol or p.chunk.path: dict(zip(names, r, strict=True))
                          for p, r in zip(pooled, rows, strict=True)})
        return [-float(n) for n in range(len(pooled))]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> RealIndex:
    return real_index(FILES, tmp_path_factory.mktemp("question-bridge"), embed=False)


def _rows(repo: RealIndex, question: str, scorer: _Wide) -> dict[str, dict[str, float]]:
    retrieval = repo.config.retrieval.model_copy(update={
        "ranker": repo.config.retrieval.ranker.model_copy(update={"mode": "learned"})})
    config = repo.config.model_copy(update={"retrieval": retrieval})
    driver.run_controller(read_question(question, config.retrieval), repo.index, config,
                          query_embedder=None, clock=FakeClock(), ranker=scorer)
    return scorer.rows[-1]


def test_a_docstrings_middle_lines_reach_the_question_model(repo: RealIndex) -> None:
    rows = _rows(repo, HIDDEN, _Wide())
    delay = rows["compute_delay"]
    # the description sits on a docstring line that opens with no comment mark: the commit
    # model's doc_cov never reads it, the bridging column does
    assert delay["doc_cov"] == 0.0 and delay["doc_all_cov"] > 0.3
    assert delay["doc_idf_share"] > 0 and delay["body_idf_share"] >= delay["doc_idf_share"]
    assert delay["doc_all_cov"] > rows.get("send", {}).get("doc_all_cov", 0.0)
    # what the file says of itself is the same for each of its candidates
    assert delay["file_doc_cov"] >= delay["doc_all_cov"]


def test_a_methods_owner_docstring_is_its_scope(repo: RealIndex) -> None:
    rows = _rows(repo, OWNER, _Wide())
    refresh = rows["Session.refresh"]
    assert refresh["doc_all_cov"] == 0.0 and refresh["scope_cov"] > 0.2


def test_a_narrow_model_gets_the_commit_models_rows(repo: RealIndex) -> None:
    narrow = _Wide(wide=False)
    wide = _Wide()
    rows = _rows(repo, HIDDEN, narrow)
    assert {k: list(v.values()) for k, v in rows.items()} == {
        k: list(v.values())[:len(FEATURES)] for k, v in _rows(repo, HIDDEN, wide).items()}


def test_comment_text_reads_whole_docstrings_and_blocks() -> None:
    text = ('def f():\n    """First.\n\n    middle words\n    """\n    x = 1  # not a line\n'
            "    /* block\n    inside block\n    */\n    // line mark\n    y = 2\n")
    out = comment_text(text)
    assert "middle words" in out and "inside block" in out and "line mark" in out
    assert "x = 1" not in out and "y = 2" not in out and "def f" not in out


def test_blend_fuses_the_model_order_with_the_pool_order() -> None:
    scores = [0.0, 1.0, 2.0, 3.0]  # the model reverses the pool order
    assert np.argsort(blend(scores, 1.0))[::-1].tolist() == [3, 2, 1, 0]
    assert np.argsort(blend(scores, 0.0))[::-1].tolist() == [0, 1, 2, 3]
    mixed = blend(scores, 0.5)
    assert mixed == blend(scores, 0.5) and len(set(mixed)) <= 2  # symmetric ties
    leaning = blend([0.0, 1.0, 2.0, 3.0], 0.75)
    assert int(np.argmax(leaning)) == 3


def _model(tmp_path: Path, features: Sequence[str], extra: dict[str, Any]) -> RankerPolicy:
    pytest.importorskip("lightgbm")
    import lightgbm as lgb

    from evals.corpus.ranker_train import write_model

    rng = np.random.default_rng(5)
    x = rng.random((120, len(features)))
    y = (x[:, len(features) - 1] > 0.7).astype(np.int32)
    data = lgb.Dataset(x, label=y, group=[12] * 10, feature_name=list(features))
    booster = lgb.train({"objective": "lambdarank", "num_leaves": 3, "min_data_in_leaf": 5,
                         "verbosity": -1, "deterministic": True, "num_threads": 1}, data, 3)
    pinned = write_model(tmp_path, booster.model_to_string(),
                         {"questions": True, "routes": ["explanation"],
                          "features": list(features), **extra})
    return RankerPolicy(question_manifest=str(tmp_path / "manifest.json"),
                        question_digest=pinned)


def test_a_manifest_listing_the_bridging_columns_loads_a_wide_model(tmp_path: Path) -> None:
    wide = load_question_ranker(_model(tmp_path / "w", QUESTION_FEATURES, {"blend": 0.5}))
    narrow = load_question_ranker(_model(tmp_path / "n", FEATURES, {}))
    assert wide is not None and wide.wide and wide.blend == 0.5
    assert narrow is not None and not narrow.wide and narrow.blend == 1.0
    rows = [[0.1] * len(QUESTION_FEATURES), [0.9] * len(QUESTION_FEATURES)]
    raw = wide.model.scores(rows)
    assert list(wide.score([], rows)) == blend(raw, 0.5)
    with pytest.raises(RankerModelError, match="blend"):
        load_question_ranker(_model(tmp_path / "b", FEATURES, {"blend": 1.5}))


def test_wide_rows_narrow_to_the_commit_models_columns(tmp_path: Path) -> None:
    from evals.corpus.features import CaseRows, load, save
    from evals.corpus.ranker_train import _current

    rows = [CaseRows("q1", [[float(n)] * len(QUESTION_FEATURES) for n in range(3)], [0, 1, 0],
                     [("a.py", "f", 1, 2)] * 3, 1, 1)]
    save(rows, tmp_path / "p", {"repo": "p"}, QUESTION_FEATURES)
    x, y, group, side = load(tmp_path / "p")
    assert side["features"][-len(BRIDGE_FEATURES):] == list(BRIDGE_FEATURES)
    narrow = _current(x, y, group, side, tmp_path / "p")[0]
    assert narrow.shape == (3, len(FEATURES))
    assert _current(x, y, group, side, tmp_path / "p", QUESTION_FEATURES)[0].shape == x.shape


def test_lopo_holds_out_a_repositorys_files_together(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("lightgbm")
    from test_question_model import _toy_rows

    import evals.corpus.qa_train as qa_train

    projects = {"a": _toy_rows(1), "a_hidden": _toy_rows(2), "b": _toy_rows(3),
                "c": _toy_rows(4)}
    seen: list[int] = []
    real_fit = qa_train.fit

    def fit(parts: Sequence[Any], *args: Any, **kwargs: Any) -> Any:
        seen.append(len(parts))
        return real_fit(parts, *args, **kwargs)

    monkeypatch.setattr(qa_train, "fit", fit)
    params = {"num_leaves": 3, "min_data_in_leaf": 20, "learning_rate": 0.1}
    result = qa_train.lopo(projects, grid=[params], rounds=(5,), blends=(1.0, 0.5),
                           fold_of={"a": "A", "a_hidden": "A", "b": "B", "c": "C"})
    assert sorted(seen) == [2, 3, 3]  # fold A trains on b and c only
    assert set(result["best"]["folds"]) == set(projects) and result["best"]["blend"] == 1.0
    styles = qa_train.by_style(result, {"a": "named", "a_hidden": "hidden", "b": "named",
                                        "c": "named"})
    assert styles["hidden"]["files"] == ["a_hidden"]
    assert styles["named"]["model"]["questions"] == 120
    assert json.dumps(result, sort_keys=True) == json.dumps(qa_train.lopo(
        projects, grid=[params], rounds=(5,), blends=(1.0, 0.5),
        fold_of={"a": "A", "a_hidden": "A", "b": "B", "c": "C"}), sort_keys=True)
