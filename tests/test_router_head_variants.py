"""benchmarks/router_head_variants.py: its many-turns-at-once text features are the trainer's
(`evals.router_train.design`), the held writer is read against a bank without its own rows, and
the "writer" exclusion leaves out what only a turn's own writer gave (routermodel23)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from controller.continuity.meaning import CLASSES, FLAG_NAMES
from evals import router_train as rt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import router_head_variants as hv

K = len(CLASSES)
FILES = ("train_writer2.jsonl", "train_writer4.jsonl", "T3.jsonl")
USED = ("pick", "reopen", "callers", "new_question")


@pytest.fixture()
def data(tmp_path, monkeypatch):
    """Twenty-four turns of three files (two writers), two sessions each, a few wordings
    repeated across writers; one hand exemplar per class used; seeded vectors."""
    rng = np.random.default_rng(7)
    (tmp_path / "exemplars.jsonl").write_text("".join(
        json.dumps({"meaning": c, "text": f"hand {c}"}) + "\n" for c in USED), encoding="utf-8")
    monkeypatch.setattr(rt, "ROUTER_DIR", tmp_path)
    samples, texts = [], [f"hand {c}" for c in USED]
    for n in range(24):
        source = FILES[n % 3]
        text = f"shared {n % 4}" if n % 5 == 0 else f"{source} turn {n}"
        samples.append(rt.Sample(text=text, meaning=USED[n % 4], group=f"{source}-{n % 2}",
                                 source=source, flags=tuple(float(n % 2) for _ in FLAG_NAMES)))
        texts.append(text)
    vectors = {}
    for t in sorted(set(texts)):
        v = rng.standard_normal(8)
        vectors[t] = (v / np.linalg.norm(v)).astype(np.float32)
    found = {"samples": samples, "vectors": vectors}
    hv.prepare(found)
    yield found
    hv.DATA.clear()


def test_the_features_of_the_shipped_exclusion_are_the_trainers(data):
    bank = rt.build_bank(data["samples"], data["vectors"])
    idx = np.arange(len(data["samples"]))
    mine = hv.text_features(idx, np.zeros(0, dtype=np.int64), "session")
    theirs = rt.design(data["samples"], bank, data["vectors"])[:, :2 * K]
    assert np.array_equal(mine, theirs)
    whole = hv.design(idx, np.zeros(0, dtype=np.int64), "session", {})
    assert np.array_equal(whole, rt.design(data["samples"], bank, data["vectors"]))


def test_a_held_writer_is_read_against_the_bank_without_its_own_rows(data):
    writer = FILES[0]
    bank = rt.build_bank(data["samples"], data["vectors"])
    held = np.flatnonzero(hv.DATA["source"] == writer)
    drop = np.array(hv.DATA["only"][writer], dtype=np.int64)
    mine = hv.text_features(held, drop, "none")
    theirs = rt.design([data["samples"][i] for i in held], bank, data["vectors"],
                       writer)[:, :2 * K]
    assert np.array_equal(mine, theirs)


def test_the_writer_exclusion_leaves_out_what_only_the_turns_own_writer_gave(data):
    idx = np.arange(len(data["samples"]))
    none = np.zeros(0, dtype=np.int64)
    masked = hv._masked(idx, none, "writer")
    for a, i in enumerate(idx):
        source = data["samples"][i].source
        only = hv.DATA["only"].get(source, [])
        if source in rt.WRITER_FILES:
            assert np.isneginf(masked[a, only]).all()
        else:  # the vocabulary's files: their session and wording only, as the trainer
            assert np.array_equal(masked[a], hv._masked(idx[a:a + 1], none, "session")[0])
    assert not np.array_equal(masked, hv._masked(idx, none, "session"))


def test_a_variant_fit_is_deterministic_and_reads_its_training_turns(data):
    idx = np.arange(len(data["samples"]))
    x = hv.design(idx, np.zeros(0, dtype=np.int64), "writer", {})
    y = hv.DATA["y"]
    for variant in ({"steps": 300}, {"steps": 300, "balance": 0.5},
                    {"steps": 300, "hidden": 4}):
        one, two = hv.fit(x, y, variant), hv.fit(x, y, variant)
        assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))
        assert (hv.predict(one, x) == y).mean() > 0.5
    writer, held, predicted = hv.held_writer((FILES[1], {"steps": 50}))
    assert writer == FILES[1] and len(held) == len(predicted) == 8
