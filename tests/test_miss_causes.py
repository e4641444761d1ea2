"""Round 30's miss table: causes of the hand order's misses, and the training lists read."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from miss_causes import causes, file_cause, project, span_cause
from qa_misses import _sets


def _row(what: str, gold: str, gold_at: str = "2", channel: str = "bm25") -> dict:
    return {"what": what, "gold": [gold], "gold_at": gold_at, "channel": channel}


def test_a_file_miss_is_put_down_to_one_cause() -> None:
    assert file_cause(_row("test", "pkg/a.py")) == "test_lead"
    assert file_cause(_row("sibling", "tests/test_a.py")) == "code_lead_test"
    assert file_cause(_row("sibling", "pkg/a.py", "none")) == "gold_far"
    assert file_cause(_row("package", "pkg/a.py", "3-5")) == "same_package"
    assert file_cause(_row("doc", "pkg/a.py")) == "doc_example"
    assert file_cause(_row("other", "pkg/a.py")) == "other"
    assert [span_cause({"stage": s}) for s in ("span_in_file", "rank", "compaction", "budget",
                                                "pool", "gold_odd")] == [
        "span_in_file", "rank", "pool", "pool", "pool", "other"]
    assert project("arrow_process") == "arrow" and project("more_itertools") == "more_itertools"


def test_the_table_counts_per_project_and_skips_span_hits() -> None:
    fm = {"results": {"arrow": {"rows": [_row("sibling", "pkg/a.py")]},
                      "arrow_process": {"rows": [_row("package", "pkg/b.py", "2", "files")]}}}
    qm = {"results": {"arrow": {"misses": [{"stage": "rank"}, {"stage": None}]}}}
    table = causes(fm, qm)
    assert table["file@1"]["same_package"] == {
        "questions": 2, "projects": 1, "per_project": {"arrow": 2},
        "lead_channel": {"bm25": 1, "files": 1}}
    assert table["span@5"] == {"rank": {"questions": 1, "projects": 1,
                                        "per_project": {"arrow": 1}}}


def test_the_misses_scripts_read_another_question_list(tmp_path: Path) -> None:
    from evals.corpus.qa_cases import load_question_list
    from evals.corpus.repos import owner_name

    root = Path(__file__).resolve().parents[1] / "data" / "evals"
    train = root / "qa_train" / "manifest.json"
    for entry in [*load_question_list(train), *load_question_list(
            root / "qa_validation" / "manifest.json")]:  # empty git directories, as fetched
        gitdir = tmp_path / owner_name(entry.source).replace("/", "+") / "repo"
        (gitdir / "objects").mkdir(parents=True, exist_ok=True)
        (gitdir / "HEAD").write_text("ref: refs/heads/main\n")
    args = argparse.Namespace(mirrors=tmp_path, list=train, only=["arrow", "toolz_tests"])
    sets = [(name, path) for name, path, _repo, _rev in _sets(args, {}, tmp_path)]
    assert sets == [("arrow", train.parent / "arrow.jsonl"),
                    ("toolz_tests", train.parent / "toolz_tests.jsonl")]
    default = argparse.Namespace(mirrors=tmp_path)  # no --list: the validation set, as before
    names = [name for name, *_ in _sets(default, {}, tmp_path)]
    assert "lark" in names and "arrow" not in names
