"""The meaning router's warm cost (issue 32): a turn's work beyond the encoder is one product of
the message with the exemplar matrix; nothing else grows with classes x exemplars, and the model
is read once per process (benchmarks/router_stages.py measures the stages)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from controller.continuity.meaning import (
    CLASSES,
    FLAG_NAMES,
    Features,
    MeaningModel,
    class_features,
    classify,
    similarities,
    text_features,
)
from evals.router_train import MODEL_DIR
from helix.core.ports import FakeEmbedder

FLAGS = tuple(0.0 for _ in FLAG_NAMES)


def _vectors(model: MeaningModel, n: int) -> list[np.ndarray]:
    """Messages near the model's exemplars (the case where the best ones are close)."""
    rng = np.random.default_rng(7)
    out = []
    for i in rng.integers(len(model.vectors), size=n):
        v = model.vectors[i] + 0.3 * rng.standard_normal(model.vectors.shape[1])
        out.append((v / np.linalg.norm(v)).astype(np.float32))
    return out


def test_grouped_text_features_are_the_trainers_numbers():
    model = MeaningModel.load()
    assert [lo for lo, _ in model.bounds[1:]] == [hi for _, hi in model.bounds[:-1]]
    for vector in _vectors(model, 200):
        sims = similarities(model.vectors, vector)
        assert np.array_equal(class_features(sims, model.bounds),
                              text_features(model.labels, sims))


class _Counted(np.ndarray):
    """A label array that counts whole-bank comparisons (`labels == c`)."""

    compared = 0

    def __eq__(self, other):  # type: ignore[override]
        _Counted.compared += 1
        return np.asarray(self) == other


def test_a_warm_turn_compares_no_label_array_with_each_class():
    """Once loaded, a turn's work over the exemplars is the one product: no mask of the
    whole bank per class (the retrained model's 4,667 exemplars made that 0.3 ms a turn)."""
    model = MeaningModel.load()
    f = Features(text="who calls it?", flags=FLAGS, rules="callers")
    vector = _vectors(model, 1)[0]
    first = classify(model, f, vector)
    object.__setattr__(model, "labels", model.labels.view(_Counted))
    _Counted.compared = 0
    for _ in range(3):
        assert classify(model, f, vector) == first
    assert _Counted.compared == 0


def test_exemplars_in_any_order_load_grouped_and_read_the_same(tmp_path: Path):
    """The exemplars are grouped by class when loaded (their order within a class kept): a
    model written in another order reads every message the same, detail included."""
    rows = (MODEL_DIR / "exemplars.jsonl").read_text(encoding="utf-8").splitlines()
    with (MODEL_DIR / "exemplars.npy").open("rb") as handle:
        vectors = np.load(handle)
    order = np.random.default_rng(3).permutation(len(rows))
    (tmp_path / "exemplars.jsonl").write_text("".join(rows[i] + "\n" for i in order),
                                              encoding="utf-8")
    np.save(tmp_path / "exemplars.npy", vectors[order])
    shutil.copy(MODEL_DIR / "head.json", tmp_path / "head.json")
    shuffled, shipped = MeaningModel.load(tmp_path), MeaningModel.load()
    assert np.array_equal(np.sort(shuffled.labels), shuffled.labels)
    for text, meaning in (("hi there!", "chat"), ("who calls it?", "callers")):
        f = Features(text=text, flags=FLAGS, rules=meaning)
        for vector in _vectors(shipped, 20):
            a, b = classify(shipped, f, vector), classify(shuffled, f, vector)
            assert a == b
    assert len(shuffled.bounds) == len(CLASSES)


def test_the_model_is_read_once_per_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """Every turn asks for the session's reader; the model files are read once, and another
    encoder's exemplar vectors are computed once."""
    from helix.core.config import load_config
    from helix.session import meaning_bank, reader

    loads: list[int] = []
    load = meaning_bank.shipped  # the model files, or their bank (helix.session.meaning_bank)

    def counted(*args, **kw):
        loads.append(1)
        return load(*args, **kw)

    monkeypatch.setattr(meaning_bank, "shipped", counted)
    reader.shipped_model.cache_clear()
    monkeypatch.setattr(reader, "_REFITTED", {})
    embedder = FakeEmbedder()
    config = load_config(tmp_path, flags={"continuity.router": "meaning"})
    try:
        for _ in range(3):
            read = reader.session_reader(config, tmp_path, embedder=embedder)
            assert read is not None and read(Features(text="who calls it?", flags=FLAGS,
                                                      rules="new_question")) is not None
    finally:
        reader.shipped_model.cache_clear()
    assert len(loads) == 1 and embedder.calls == 1 + 3  # the exemplars once, then each message


def test_the_model_reads_the_rows_each_line_holds():
    """The exemplar rows are parsed in one piece: the same texts, details and classes as
    line by line, and the float16 vectors widened after they are grouped."""
    model = MeaningModel.load()
    rows = [json.loads(line) for line in (MODEL_DIR / "exemplars.jsonl").read_text(
        encoding="utf-8").splitlines() if line.strip()]
    with (MODEL_DIR / "exemplars.npy").open("rb") as handle:
        vectors = np.load(handle).astype(np.float32)
    order = np.argsort([CLASSES.index(r["meaning"]) for r in rows], kind="stable")
    assert model.texts == tuple(rows[i]["text"] for i in order)
    assert model.details == tuple(rows[i].get("detail") for i in order)
    assert model.vectors.dtype == np.float32 and model.vectors.flags["C_CONTIGUOUS"]
    assert np.array_equal(model.vectors, vectors[order])


def test_a_name_far_from_a_typed_word_is_ruled_out_before_the_ratio(monkeypatch):
    """`name_like` asks difflib's two cheap upper bounds first: a name of another length or
    other letters never gets the ratio's matching (the same answers: the bounds are bounds)."""
    from difflib import SequenceMatcher

    from controller.continuity.item_names import FUZZY_RATIO, _swapped, name_like

    pairs = [("engien.py", "engine.py"), ("scroe", "score"), ("tokenizer", "cavity_pool.py"),
             ("carve", "carver"), ("search", "searches"), ("retry", "policy")]
    rng = np.random.default_rng(11)
    letters = list("abcdeinorst_.")
    pairs += [("".join(rng.choice(letters, size=int(rng.integers(5, 9)))),
               "".join(rng.choice(letters, size=int(rng.integers(3, 12))))) for _ in range(400)]
    for token, name in pairs:
        reference = token == name or (SequenceMatcher(None, token, name).ratio() >= FUZZY_RATIO
                                      or _swapped(token, name))
        assert name_like(token, name) == reference, (token, name)
    ratios = []
    real = SequenceMatcher.ratio
    monkeypatch.setattr(SequenceMatcher, "ratio", lambda self: ratios.append(1) or real(self))
    assert not name_like("tokenizer", "cavity_pool.py") and not name_like("retry", "policy")
    assert ratios == []
    assert name_like("engien.py", "engine.py") and ratios == [1]


def test_a_turn_the_rules_decide_alone_loads_no_model(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path):
    """The reader loads its encoder and model at its first read: a process whose turn is
    exact ("start over") pays for neither (a cold `helix ask --session`)."""
    from controller.continuity.router import route_turn
    from controller.continuity.state import initial_state
    from helix.core.config import load_config
    from helix.session import reader

    loads: list[str] = []
    model_for = reader.model_for

    def counted(embedder):
        loads.append(embedder.model_key)
        return model_for(embedder)

    monkeypatch.setattr(reader, "model_for", counted)
    config = load_config(tmp_path, flags={"continuity.router": "meaning"})
    read = reader.session_reader(config, tmp_path, embedder=FakeEmbedder())
    assert read is not None and loads == []
    exact = route_turn(initial_state("s"), "start over", None, config.continuity, reader=read)
    assert exact.reading is None and loads == []
    route_turn(initial_state("s"), "where is the tokenizer built?", None, config.continuity,
               reader=read)
    route_turn(initial_state("s"), "who calls it?", None, config.continuity, reader=read)
    assert len(loads) == 1


def test_a_reader_that_cannot_load_its_model_leaves_the_rules_plan(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    from controller.continuity.router import route_turn
    from controller.continuity.state import initial_state
    from helix.core.config import load_config
    from helix.core.errors import ConfigError
    from helix.session import reader

    def broken(_embedder):
        raise ConfigError("the meaning router's model cannot be read")

    monkeypatch.setattr(reader, "model_for", broken)
    config = load_config(tmp_path, flags={"continuity.router": "meaning"})
    read = reader.session_reader(config, tmp_path, embedder=FakeEmbedder())
    assert read is not None
    assert read(Features(text="who calls it?", flags=FLAGS, rules="new_question")) is None
    for text in ("where is the tokenizer built?", "pull that up again"):
        plan = route_turn(initial_state("s"), text, None, config.continuity, reader=read)
        assert plan == route_turn(initial_state("s"), text, None, config.continuity)
