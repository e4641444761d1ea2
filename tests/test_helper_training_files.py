"""A helper's own training turns (train_writer_<helper>.jsonl) are read by the router's trainer
after the writers' numbered files, and keep the labelling conventions of HELDAPART.md."""

from __future__ import annotations

import json

from evals.router_train import DEFAULT_CLASS, TRAIN_FILES, TRAIN_WRITERS
from evals.scenarios import SUITE_DIR
from evals.suites import read_jsonl, writer_order


def test_numbered_writers_sort_by_number_and_named_files_after_them():
    names = ["train_writer_zeta.jsonl", "train_writer100.jsonl", "train_writer9.jsonl",
             "train_writer_alpha.jsonl", "train_writer12.jsonl"]
    assert sorted(names, key=writer_order) == [
        "train_writer9.jsonl", "train_writer12.jsonl", "train_writer100.jsonl",
        "train_writer_alpha.jsonl", "train_writer_zeta.jsonl"]


def test_every_training_file_in_the_suite_is_read_by_the_trainer_and_labelled_by_the_table():
    written = {p.name for p in SUITE_DIR.glob("train_writer*.jsonl")}
    assert written == set(TRAIN_WRITERS) and written <= set(TRAIN_FILES)
    for name in sorted(written):  # (`int("_router26b")` once raised at the trainer's import)
        for _, session in read_jsonl(SUITE_DIR / name):
            for turn in session["turns"]:
                label = (turn["expect"]["transition"], turn["expect"]["lane"])
                assert label in DEFAULT_CLASS or label[0] == "T10", (name, turn["text"])


def test_a_helpers_training_turns_keep_the_labelling_conventions():
    for path in SUITE_DIR.glob("train_writer_*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            session = json.loads(line)
            first = session["turns"][0]["expect"]
            assert (first["transition"], first["lane"]) in {("T1", "root"), ("T0", "chat")}
            for turn in session["turns"]:
                expect = turn["expect"]
                alt = {(a["transition"], a["lane"]) for a in turn.get("alt", [])}
                if expect["transition"] in {"T8", "T9"}:
                    assert (expect["transition"], "semantic") in alt, turn["text"]
