"""The shipped learned ranker (issue 31): the model under data/ranker/ is whole, small, pinned by
the eval configuration that the A/B gate ran, and the default order follows the gate's decision
(benchmarks/results/ranker_gate_round8.json: promote); the hand order stays one configuration
away (evals/configs/hand_ranker.toml) for the next A/B."""

from __future__ import annotations

import json
from pathlib import Path

from controller.rank_features import FEATURES
from helix.core.hashing import digest

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "data" / "ranker"
GATE_CONFIG = ROOT / "evals" / "configs" / "learned_ranker.toml"
HAND_CONFIG = ROOT / "evals" / "configs" / "hand_ranker.toml"
GATE_RESULT = ROOT / "benchmarks" / "results" / "ranker_gate_round8.json"
MAX_SHIPPED_BYTES = 10 * 1024 * 1024  # the bound: model and tables together


def _manifest() -> dict:
    return json.loads((SHIPPED / "manifest.json").read_text(encoding="utf-8"))


def test_the_shipped_model_is_whole_small_and_trained_on_the_committed_corpus() -> None:
    manifest = _manifest()
    assert manifest["features"] == list(FEATURES)
    corpus = json.loads((ROOT / "data" / "corpus" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["corpus_hash"] == corpus["corpus_hash"]
    assert manifest["cases_digest"] == digest((ROOT / "data" / "corpus" /
                                               "cases.jsonl").read_bytes())
    assert digest((SHIPPED / manifest["model"]).read_bytes()) == manifest["model_digest"]
    assert "assoc" not in manifest  # the association table added nothing: retired
    for split in ("train", "validation"):
        assert manifest["metrics"][split]["cases"] > 0
        assert 0.0 <= manifest["metrics"][split]["function_acc@5"] <= 1.0
    size = sum(p.stat().st_size for p in SHIPPED.iterdir())
    assert size < MAX_SHIPPED_BYTES


def test_the_gate_configuration_pins_the_shipped_model_and_it_loads() -> None:
    from controller.rank_step import load_ranker
    from evals.gates import load_named_config
    from helix.core.policy import RankerPolicy

    _, overrides = load_named_config(str(GATE_CONFIG))
    assert overrides["retrieval.ranker.mode"] == "learned"
    pinned = overrides["retrieval.ranker.digest"]
    assert pinned == digest((SHIPPED / "manifest.json").read_bytes())
    ranker = load_ranker(RankerPolicy(mode="learned", digest=pinned))
    assert ranker.digest == pinned
    row = [0.0] * len(FEATURES)
    assert len(ranker.model.scores([row, row])) == 2


def test_the_gate_configuration_is_a_valid_configuration(tmp_path: Path) -> None:
    """Its nested keys (`retrieval.ranker.mode`) load as command-line settings do, next to a
    repository's own `[retrieval.ranker]` table, each key kept from where it was set."""
    from evals.gates import load_named_config
    from helix.core.config import load_config

    (tmp_path / ".helix.toml").write_text("[helix.retrieval.ranker]\nfiles = 4\n", encoding="utf-8")
    _, overrides = load_named_config(str(GATE_CONFIG))
    config = load_config(tmp_path, flags=dict(overrides))
    assert config.retrieval.ranker.mode == "learned"
    assert config.retrieval.ranker.digest == overrides["retrieval.ranker.digest"]
    assert config.retrieval.ranker.files == 4


def test_learned_alone_names_the_shipped_model() -> None:
    """`mode = "learned"` with no manifest or digest loads the shipped model: the default
    digest is the shipped manifest's."""
    from controller.rank_step import load_ranker
    from helix.core.policy import RankerPolicy

    shipped = digest((SHIPPED / "manifest.json").read_bytes())
    assert RankerPolicy().digest == shipped
    assert load_ranker(RankerPolicy(mode="learned")).digest == shipped


def test_the_default_is_the_promoted_candidate_and_the_hand_order_is_its_opposite(
        helix_home: Path) -> None:
    """The gate promoted learned_ranker.toml: every setting it names is now the default (the
    file is kept, a no-op, so the gate's command reproduces); hand_ranker.toml sets each of
    them back to what it was, so `--candidate-config hand_ranker` is the old default."""
    from evals.gates import load_named_config
    from helix.core.config import HelixConfig, load_config

    result = json.loads(GATE_RESULT.read_text(encoding="utf-8"))
    assert result["decision"] == "promote"
    _, learned = load_named_config(str(GATE_CONFIG))
    assert learned == result["candidate"]
    _, hand = load_named_config(str(HAND_CONFIG))
    assert set(hand) == set(learned) - {"retrieval.ranker.digest"}
    default = HelixConfig()
    assert load_config(None, flags=dict(learned)).evidence_hash == default.evidence_hash
    old = load_config(None, flags=dict(hand))
    assert old.retrieval.ranker.mode == "hand" and old.index.history_commits == 0
    for key in hand:
        section, name = key.split(".", 1)
        now, before = (getattr(c, section) for c in (default, old))
        for part in name.split(".")[:-1]:
            now, before = getattr(now, part), getattr(before, part)
        leaf = name.split(".")[-1]
        assert getattr(now, leaf) == learned[key] != getattr(before, leaf) == hand[key]


def test_the_gate_runs_the_hand_order_against_the_learned_one(helix_home) -> None:
    from evals.gates import evaluate_gates, load_named_config
    from evals.runner import Runner
    from evals.suites import load_suite

    _, overrides = load_named_config(str(HAND_CONFIG))
    suite = load_suite("matrix")
    hand = Runner(overrides, no_embed=True, label="hand").run([suite])
    learned = Runner(no_embed=True, label="learned").run([suite])
    assert hand.config_hash != learned.config_hash  # the model is part of the configuration
    decision = evaluate_gates(hand, learned)
    assert decision.decision in ("promote", "hold", "rollback", "halt")
    assert {g.metric for g in decision.gates} >= {"hit@5", "mrr"}
    assert all(c.error is None for s in learned.suites for c in s.cases)
