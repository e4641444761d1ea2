"""A toy corpus where the learned order beats the hand order, trained and asked end to end:
rows through `helix.service.ask` with a recorder, LightGBM on the train cases (chosen on the
validation cases), the model loaded from its manifest, then held-out cases asked both ways.

In every file a decoy helper is named by the message's words, while the definition the change
touched (`process_<n>`) only mentions them in a comment: the hand order follows the name, the
learned ranker learns that in this corpus the named helper is not the answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.corpus.features import collect_repo, save
from evals.corpus.mine import CorpusCase, Target
from evals.corpus.policy import case_ranks, run_repo, summary
from evals.corpus.ranker_train import (
    Groups,
    accuracy,
    hand_scores,
    repo_groups,
    train,
    trained_routes,
)
from evals.corpus.ranker_train import write_model as write_ranker


@pytest.fixture(autouse=True, scope="module")
def _lightgbm() -> None:
    """Skipped without lightgbm, imported at the first test (not at collection)."""
    pytest.importorskip("lightgbm")

_WORD_TEXT = ("amber basil cedar delta ember fable garnet harbor indigo jasper kettle lumen "
              "maple nectar onyx pepper quartz raven saffron tundra umber velvet willow xenon")
WORDS = tuple(_WORD_TEXT.split())
FILES = 12
PHRASES = ("Fix {a} {b} handling", "{a} {b} breaks on empty input", "Handle {b} {a} again",
           "Support more {a} {b} values")


def _module(n: int) -> str:
    a, b = WORDS[2 * n], WORDS[2 * n + 1]
    return (f'"""Module {n}."""\n\n\ndef {a}_{b}_helper(value):\n    """The {a} {b} of a '
            f'value."""\n    {a}_{b} = str(value)\n    return {a}_{b}\n\n\n'
            f"def process_{n}(value):\n    result = value\n    # keeps {a} and {b} apart\n"
            "    return result\n")


def _cases(root: Path) -> list[CorpusCase]:
    out = []
    for n in range(FILES):
        split = "train" if n < 8 else "validation" if n < 10 else "test"
        a, b = WORDS[2 * n], WORDS[2 * n + 1]
        for k, phrase in enumerate(PHRASES):
            out.append(CorpusCase(
                id=f"toy@{n}{k}", repo="toy", language="python", split=split, revision="r",
                commit=f"{n}{k}", parent="p", committed=0, message=phrase.format(a=a, b=b),
                truncated=False, targets=(Target(path=f"pkg/mod_{n}.py",
                                                 qualname=f"process_{n}", kind="function",
                                                 start=10, end=13),),
                files=(f"pkg/mod_{n}.py",), names_target=False, exact=True))
    return out


def test_the_learned_order_beats_the_hand_order(tmp_path: Path, helix_home: Path) -> None:
    root = tmp_path / "toy"
    (root / "pkg").mkdir(parents=True)
    for n in range(FILES):
        (root / "pkg" / f"mod_{n}.py").write_text(_module(n), encoding="utf-8")
    cases = _cases(root)
    by_id = {c.id: c for c in cases}
    rows, _ = collect_repo(root, [c for c in cases if c.split != "test"], {})
    save([r for r in rows if by_id[r.case_id].split == "train"], tmp_path / "rows" / "train",
         {"repo": "toy"})
    save([r for r in rows if by_id[r.case_id].split == "validation"],
         tmp_path / "rows" / "valid", {"repo": "toy"})
    train_data = repo_groups(tmp_path / "rows" / "train", by_id)
    valid: Groups = repo_groups(tmp_path / "rows" / "valid", by_id)
    grid = ({"num_leaves": 4, "learning_rate": 0.2, "min_data_in_leaf": 3},)
    chosen = train(train_data, valid, grid=grid)
    assert chosen["validation"]["function_acc@1"] > accuracy(hand_scores(valid), valid)[
        "function_acc@1"]
    routes = trained_routes(cases, [("toy", "train")], 0.05)
    assert routes  # the routes the train messages take: the model orders those questions
    pinned = write_ranker(tmp_path / "model", chosen["text"], {"description": "toy",
                                                               "routes": routes})

    held = [c for c in cases if c.split == "test"]
    hand, _ = run_repo(root, held, {})
    learned_config = {"retrieval.ranker": {"mode": "learned", "digest": pinned,
                                           "manifest": str(tmp_path / "model" /
                                                           "manifest.json")}}
    learned, _ = run_repo(root, held, learned_config)
    assert not any("error" in r for r in [*hand, *learned])
    assert summary(learned)["function_acc@1"] == 1.0
    assert summary(hand)["function_acc@1"] < 0.5  # the decoy leads the hand order
    assert case_ranks(held[0], ()) == {"function_rank": None, "file_rank": None}

    # the same model named for routes no held message takes: those questions keep the hand
    # order, item for item (the model never saw such a question)
    other = sorted({"definition", "usage"} - set(routes))
    pinned_other = write_ranker(tmp_path / "other", chosen["text"],
                                {"description": "toy", "routes": other})
    kept, _ = run_repo(root, held, {"retrieval.ranker": {
        "mode": "learned", "digest": pinned_other,
        "manifest": str(tmp_path / "other" / "manifest.json")}})
    assert [(r["function_rank"], r["file_rank"]) for r in kept] == [
        (r["function_rank"], r["file_rank"]) for r in hand]


def test_grid_points_trained_at_once_choose_the_same_model_as_one_at_a_time() -> None:
    import numpy as np

    from controller.rank_features import FEATURES

    rng = np.random.default_rng(7)

    def groups(n: int) -> Groups:
        size = 12
        x = rng.random((n * size, len(FEATURES)))
        target = np.full(n * size, -1)
        for q in range(n):  # the candidate with the highest feature 3 is the answer
            target[q * size + int(np.argmax(x[q * size:(q + 1) * size, 3]))] = 0
        return Groups(x, (target >= 0).astype(float), np.full(n, size), target, np.ones(n, int),
                      [[f"f{i % 4}" for i in range(size)] for _ in range(n)],
                      [["f0"] for _ in range(n)])

    train_data, valid = groups(60), groups(20)
    grid = tuple({"num_leaves": leaves, "learning_rate": 0.2, "min_data_in_leaf": 5}
                 for leaves in (3, 4, 7))
    one = train(train_data, valid, grid=grid)
    # two worker processes for three points (the machines have 2 cores): still trained at
    # once, one worker takes two points, and a third start-up is not paid
    many = train(train_data, valid, grid=grid, jobs=2)
    assert many["text"] == one["text"] and many["params"] == one["params"]
    assert many["validation"] == one["validation"] and many["train"] == one["train"]


def test_params_from_a_manifest_are_its_grid_point(tmp_path: Path) -> None:
    from evals.corpus.ranker_train import grid_point
    from helix.core.errors import ConfigError

    manifest = tmp_path / "manifest.json"
    manifest.write_text('{"params": {"objective": "lambdarank", "num_leaves": 7, "seed": 31, '
                        '"learning_rate": 0.05, "min_data_in_leaf": 20}}', encoding="utf-8")
    assert grid_point(manifest) == {"labels": "binary", "num_leaves": 7,
                                    "learning_rate": 0.05, "min_data_in_leaf": 20}
    manifest.write_text('{"trees": 3}', encoding="utf-8")
    with pytest.raises(ConfigError, match="not a ranker manifest"):
        grid_point(manifest)
