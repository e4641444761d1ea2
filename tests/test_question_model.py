"""The question model (issue 31, round 10): a second model, trained on natural questions, orders
what the commit model leaves in the hand order (a question of its routes), is named by its
manifest and pinned by its digest, and trains deterministically."""

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
from controller.question import read_question
from controller.rank_bridge import QUESTION_FEATURES
from controller.rank_features import FEATURES
from controller.rank_step import applies, load_question_ranker
from helix.core.errors import RankerModelError
from helix.core.hashing import digest
from helix.core.policy import RankerPolicy
from helix.core.ports import FakeClock

ROOT = Path(__file__).resolve().parents[1]
# process files listed after the (off) question model was trained (round 23; round 29's
# test-led files, writer132, too)
ROUND_23 = frozenset({"uvicorn_process", "tablib_process", "pyparsing_process",
                      "commons_text_process", "packaging_process", "dateutil_process",
                      "uvicorn_tests", "toolz_tests", "commons_text_tests",
                      "precommit_roles", "flake8_roles", "beets_roles"})
FILES = {
    "client/backoff.py": "def compute_backoff(attempt):\n    \"\"\"Seconds to wait before "
                         "retry number `attempt`.\"\"\"\n    return 2 ** attempt\n\n\n"
                         "def send(request, attempt=0):\n    return compute_backoff(attempt)\n",
    "client/session.py": "class Session:\n    \"\"\"Keeps the token and retries a request.\"\"\"\n"
                         "\n    def refresh(self, token):\n        self.token = token\n",
}
QUESTION = "How long does the client wait before it retries a request?"


@dataclass
class _Reversed:
    """A model that puts the pool order upside down."""

    routes: frozenset[str] | None
    questions: bool = False
    calls: list[int] = field(default_factory=list)

    def score(self, pooled: Sequence[Any], rows: Sequence[Sequence[float]]) -> Sequence[float]:
        self.calls.append(len(pooled))
        return [float(n) for n in range(len(pooled))]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> RealIndex:
    return real_index(FILES, tmp_path_factory.mktemp("question-model"), embed=False)


def _evidence(repo: RealIndex, mode: str) -> list[tuple[str, int]]:
    retrieval = repo.config.retrieval.model_copy(update={
        "ranker": repo.config.retrieval.ranker.model_copy(update={"mode": mode})})
    config = repo.config.model_copy(update={"retrieval": retrieval})
    env = driver.run_controller(read_question(QUESTION, config.retrieval), repo.index, config,
                                query_embedder=None, clock=FakeClock())
    return [(e.path, e.start_line) for e in env.evidence]


def test_a_question_the_commit_model_leaves_is_ordered_by_the_question_model(
        repo: RealIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    route = repo.ask(QUESTION).route
    assert route != "issue"
    commit = _Reversed(routes=frozenset({"issue"}))
    question = _Reversed(routes=frozenset({route}), questions=True)
    monkeypatch.setattr(driver, "load_ranker", lambda policy: commit)
    monkeypatch.setattr(driver, "load_question_ranker", lambda policy: None)
    hand = _evidence(repo, "learned")
    assert hand == _evidence(repo, "hand") and commit.calls == []
    monkeypatch.setattr(driver, "load_question_ranker", lambda policy: question)
    assert _evidence(repo, "learned") != hand
    assert commit.calls == [] and len(question.calls) == 1
    # a question model of other routes leaves it in the hand order
    monkeypatch.setattr(driver, "load_question_ranker",
                        lambda policy: _Reversed(routes=frozenset({"issue"}), questions=True))
    assert _evidence(repo, "learned") == hand


def test_a_question_model_orders_questions_of_its_routes() -> None:
    model = _Reversed(routes=frozenset({"explanation", "issue"}), questions=True)
    assert applies(model, "issue", True, RankerPolicy())  # a question: its training
    assert applies(model, "explanation", True)
    assert not applies(model, "location", True)


def _toy_rows(seed: int = 3) -> Any:
    from evals.corpus.ranker_train import Groups

    rng = np.random.default_rng(seed)
    groups, size = 40, 12
    x = rng.random((groups * size, len(FEATURES)))
    y = np.zeros(groups * size, dtype=np.int32)
    col = FEATURES.index("name_cov")
    for g in range(groups):
        best = g * size + int(np.argmax(x[g * size:(g + 1) * size, col]))
        y[best] = 1
    files = [[f"f{n % 4}.py" for n in range(size)] for _ in range(groups)]
    target_of = np.where(y > 0, 0, -1)
    return Groups(x, y, np.full(groups, size), target_of, np.ones(groups, dtype=np.int64),
                  files, [[files[g][int(np.argmax(y[g * size:(g + 1) * size]))]]
                          for g in range(groups)])


def test_the_question_model_trains_the_same_bytes_twice_and_loads_by_digest(
        tmp_path: Path) -> None:
    pytest.importorskip("lightgbm")
    from evals.corpus.qa_train import fit, lopo, question_metrics
    from evals.corpus.ranker_train import write_model

    projects = {"a": _toy_rows(1), "b": _toy_rows(2), "c": _toy_rows(3)}
    params = {"num_leaves": 3, "min_data_in_leaf": 20, "learning_rate": 0.1}
    first = lopo(projects, grid=[params], rounds=(5, 10))
    assert first == lopo(projects, grid=[params], rounds=(5, 10))
    assert first["best"]["mean"]["hit@1"] > first["hand"]["mean"]["hit@1"]
    texts = [fit(list(projects.values()), [1.0, 1.0, 1.0], params, 10).model_to_string()
             for _ in range(2)]
    assert texts[0] == texts[1]
    pinned = write_model(tmp_path, texts[0], {"questions": True, "routes": ["explanation"]})
    policy = RankerPolicy(question_manifest=str(tmp_path / "manifest.json"),
                          question_digest=pinned)
    ranker = load_question_ranker(policy)
    assert ranker is not None and ranker.questions and ranker.routes == {"explanation"}
    toy = projects["a"]
    assert question_metrics(np.asarray(ranker.model.scores(toy.x)), toy)["hit@1"] == 1.0
    assert load_question_ranker(RankerPolicy()) is None  # none named: none loaded
    with pytest.raises(RankerModelError, match="question_digest"):
        load_question_ranker(policy.model_copy(update={"question_digest": "sha256:" + "0" * 64}))


def test_the_repository_cannot_name_the_question_model() -> None:
    from helix.core.config import REPO_FORBIDDEN

    assert "retrieval.ranker.question_manifest" in REPO_FORBIDDEN


def test_the_shipped_question_model_is_whole_and_pinned() -> None:
    base = ROOT / "data" / "ranker_questions"
    manifest = json.loads((base / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["features"] in (list(FEATURES), list(QUESTION_FEATURES))
    assert manifest["questions"] is True
    assert digest((base / manifest["model"]).read_bytes()) == manifest["model_digest"]
    listed = ROOT / "data" / "evals" / "qa_train" / "manifest.json"
    # the (off) model was trained on the list before round 19's report-style files and round
    # 23's process files (writer87-89) were added: the list less them, written as qa-add
    # writes it, is the one it pins
    trained = json.loads(listed.read_text(encoding="utf-8"))
    trained["projects"] = {k: v for k, v in trained["projects"].items()
                           if v.get("style") != "report" and k not in ROUND_23}
    assert manifest["questions_digest"] == digest(
        (json.dumps(trained, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    from evals.corpus.qa_cases import load_question_list

    entries = [e for e in load_question_list(listed)  # every file it pins trained it
               if e.style != "report" and e.name not in ROUND_23]
    assert manifest["projects"] == {e.name: e.questions for e in entries}
    if manifest["metrics"]:  # chosen by leave one project out: its measure of every style
        assert set(manifest["metrics"]["by_style"]) == {e.style for e in entries}
    else:  # trained at the point an earlier run chose (train-qranker --params-from)
        assert manifest["params_from"].startswith("sha256:")
    assert 0 < manifest.get("blend", 1.0) <= 1.0
    ranker = load_question_ranker(RankerPolicy(question_digest=digest(
        (base / "manifest.json").read_bytes())))
    assert ranker is not None and ranker.routes
