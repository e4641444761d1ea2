"""Training files a helper writes are named train_writer_<helper>.jsonl (issue 32, router26b):
the trainer reads them after the numbered writers instead of failing on a name that is no
number (`int("_router26b")` raised at import, so no file could be added under that name)."""

from __future__ import annotations

from evals.router_train import DEFAULT_CLASS, SUITE_DIR, TRAIN_FILES, TRAIN_WRITERS
from evals.suites import read_jsonl, writer_order


def test_numbered_writers_come_first_in_their_order_then_named_ones():
    names = ["train_writer_zeta.jsonl", "train_writer12.jsonl", "train_writer2.jsonl",
             "train_writer_alpha.jsonl", "train_writer101.jsonl"]
    assert sorted(names, key=writer_order) == [
        "train_writer2.jsonl", "train_writer12.jsonl", "train_writer101.jsonl",
        "train_writer_alpha.jsonl", "train_writer_zeta.jsonl"]


def test_every_training_writer_file_is_read_and_labelled_by_the_table():
    on_disk = {p.name for p in SUITE_DIR.glob("train_writer*.jsonl")}
    assert on_disk == set(TRAIN_WRITERS) and set(TRAIN_WRITERS) <= set(TRAIN_FILES)
    for name in sorted(on_disk):
        for _, session in read_jsonl(SUITE_DIR / name):
            for turn in session["turns"]:
                label = (turn["expect"]["transition"], turn["expect"]["lane"])
                assert label in DEFAULT_CLASS or label[0] == "T10", (name, turn["text"])
