"""Natural questions as ranker training cases (`evals.corpus.qa_cases`): the lines an answer
cites become the definitions overlapping them (the innermost, unless the range holds the
enclosing definition's first line), a backticked name in a cited file its definition, as
`helix eval qa` derives gold."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evals.corpus.qa_cases import Question, cited_definitions, convert, read_questions
from evals.qa.gold import GoldSpan
from helix.core.errors import ConfigError
from helix.core.schemas import SymbolDef

PATH = "pkg/store.py"


def _def(qualname: str, start: int, end: int, kind: str = "function") -> SymbolDef:
    return SymbolDef(name=qualname.rsplit(".", 1)[-1], qualname=qualname, kind=kind,  # type: ignore[arg-type]
                     path=PATH, start_line=start, end_line=end,
                     scope=qualname.rsplit(".", 1)[0] if "." in qualname else None,
                     node_id=f"def:{PATH}:{qualname}")


DEFS = [_def("Store", 10, 60, "class"), _def("Store.get", 12, 20, "method"),
        _def("Store.put", 22, 40, "method"), _def("Store.put.check", 25, 28),
        _def("helper", 70, 80), _def("other", 90, 95)]


def _defs_of(path: str) -> list[SymbolDef]:
    return DEFS if path == PATH else []


def _find(name: str) -> list[SymbolDef]:
    return [d for d in DEFS if d.name == name or d.qualname == name]


def _span(start: int, end: int) -> GoldSpan:
    return GoldSpan(path=PATH, start_line=start, end_line=end, source="line_range")


def test_a_cited_range_inside_a_method_names_the_method_not_its_class() -> None:
    assert [d.qualname for d in cited_definitions(_span(14, 16), DEFS)] == ["Store.get"]
    # inside a nested helper: the helper alone
    assert [d.qualname for d in cited_definitions(_span(26, 27), DEFS)] == ["Store.put.check"]


def test_a_range_holding_a_definition_s_first_line_names_it_and_what_it_holds() -> None:
    assert [d.qualname for d in cited_definitions(_span(22, 40), DEFS)] == [
        "Store.put", "Store.put.check"]
    assert [d.qualname for d in cited_definitions(_span(10, 60), DEFS)] == [
        "Store", "Store.get", "Store.put", "Store.put.check"]
    assert cited_definitions(_span(62, 66), DEFS) == []  # between definitions: none


def test_a_question_becomes_a_case_whose_targets_are_the_cited_definitions() -> None:
    questions = [
        Question("How does the store save a value?",
                 f"`Store.put` ({PATH}:23-30) validates it with `check`, then writes it; "
                 f"`helper` ({PATH}:72-75) formats the key.", "how"),
        Question("Where is the cache?", "It lives in `cache.py:1-3`.", "where"),  # no such file
        Question("What is between?", f"Module constants ({PATH}:62-66).", "what"),
    ]
    converted = convert(questions, "toy", "train", "abc123", [PATH, "pkg/other.py"],
                        _defs_of, _find)
    assert converted.skipped == {"no_gold_file": 1, "no_definition": 1}
    (case,) = converted.cases
    assert case.id == "qa:toy:1" and case.message == questions[0].question
    assert case.split == "train" and case.revision == "abc123"
    assert case.files == (PATH,)
    # the range 23-30 lies inside put (22-40) and holds check's lines; helper by its range;
    # the backticked `check` and `helper` are defined in the cited file (symbol gold)
    assert [(t.qualname, t.start, t.end) for t in case.targets] == [
        ("Store.put", 22, 40), ("Store.put.check", 25, 28), ("helper", 70, 80)]


def test_a_malformed_question_file_is_one_line_error(tmp_path: Path) -> None:
    good = tmp_path / "q.jsonl"
    good.write_text(json.dumps({"question": "q?", "answer": "a", "kind": "how"}) + "\n\n",
                    encoding="utf-8")
    assert read_questions(good) == [Question("q?", "a", "how")]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": 3}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.jsonl:1"):
        read_questions(bad)
    bad.write_text("not json\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.jsonl:1: not JSON"):
        read_questions(bad)
    bad.write_bytes(b'{"question": "caf\xe9?", "answer": "a"}\n')  # Latin-1, not UTF-8
    with pytest.raises(ConfigError, match=r"bad\.jsonl: not UTF-8"):
        read_questions(bad)


def test_the_validation_questions_are_listed_validation_projects_read_as_dev_gold() -> None:
    """data/evals/qa_validation/: each file matches its digest, its project is in the corpus's
    validation split at the commit the list names, and every answer's fenced blocks give gold
    line ranges (the reader dev's gold goes through)."""
    from evals.corpus.qa_cases import load_question_list, read_questions
    from evals.qa.gold import derive_gold

    root = Path(__file__).resolve().parents[1] / "data" / "evals"
    entries = load_question_list(root / "qa_validation" / "manifest.json")
    corpus = {r["source"]: r for r in json.loads(
        (root / "corpus_repos.json").read_text(encoding="utf-8"))["repos"]}
    hidden = {"tenacity", "lark", "marshmallow", "mockito", "retrofit", "commander"}
    # round 29: writer133's questions whose answers rest first on the tests, a file of their
    # own per project (`*_tests`) so the old 200 stay measurable apart
    tests_led = {"lark_tests", "tenacity_tests", "retrofit_tests"}
    assert {e.name for e in entries} == hidden | tests_led
    assert sum(e.questions for e in entries if e.name in hidden) == 200
    assert sum(e.questions for e in entries if e.name in tests_led) == 90
    for e in entries:
        assert e.split == "validation" and e.style == ("hidden" if e.name in hidden
                                                       else "process")
        assert corpus[e.source]["split"] == "validation"
        assert corpus[e.source]["until"] == e.revision
        for q in read_questions(root / "qa_validation" / e.file):
            cited = re.findall(r"```(\d+):(\d+):(\S+)\n", q.answer)
            gold = derive_gold(q.answer, sorted({p for _, _, p in cited}), lambda _n: [])
            assert cited and {(s.path, s.start_line, s.end_line) for s in gold.spans} == {
                (p, int(a), int(b)) for a, b, p in cited}


def test_the_committed_question_list_matches_its_digests(tmp_path: Path) -> None:
    from evals.corpus.qa_cases import add_question_file, load_question_list

    root = Path(__file__).resolve().parents[1] / "data" / "evals" / "qa_train"
    entries = load_question_list(root / "manifest.json")
    named = {"structlog", "tqdm", "arrow", "typer", "boltons", "pendulum",  # round 10
             "more_itertools", "toolz", "pint", "jsoup", "zod", "express"}  # qa_train_next
    hidden = {"starlette", "python_fire", "commons_lang", "joda_time", "commons_io", "javapoet",
              "tqdm_hidden", "boltons_hidden", "more_itertools_hidden"}  # round 11's writers
    process = {"starlette_process", "pint_process", "arrow_process",  # round 13: writer45
               "structlog_process", "typer_process", "jsoup_process",  # writer46
               "uvicorn_process", "tablib_process",  # round 23: writer87
               "pyparsing_process", "commons_text_process",  # writer88
               "packaging_process", "dateutil_process",  # writer89
               "uvicorn_tests", "toolz_tests", "commons_text_tests",  # round 29: writer132
               "precommit_roles", "flake8_roles", "beets_roles"}  # round 30: writer137
    report = {"structlog_report", "tqdm_report", "arrow_report"}  # round 19: writer65
    assert {e.name for e in entries} == named | hidden | process | report
    assert {e.name for e in entries if e.style == "hidden"} == hidden
    assert {e.name for e in entries if e.style == "process"} == process
    assert {e.name for e in entries if e.style == "report"} == report
    assert all(e.split == "train" and len(e.revision) == 40 for e in entries)
    assert sum(e.questions for e in entries) == 1283  # 7 naming a reserved project removed
    # a repository's two files cite the same commit (one fold of leave-one-project-out)
    by_source: dict[str, set[str]] = {}
    for e in entries:
        by_source.setdefault(e.source, set()).add(e.revision)
    assert all(len(revs) == 1 for revs in by_source.values()) and len(by_source) == 27
    # a copy whose file changed after it was listed is refused
    source = tmp_path / "src.jsonl"
    source.write_text(json.dumps({"question": "q?", "answer": "a", "kind": "how"}) + "\n",
                      encoding="utf-8")
    listed = tmp_path / "list" / "manifest.json"
    add_question_file(listed, "toy", "github:o/toy", "a" * 40, source, "w")
    assert [e.questions for e in load_question_list(listed)] == [1]
    add_question_file(listed, "toy2", "github:o/toy", "a" * 40, source, "w", style="hidden")
    assert [e.style for e in load_question_list(listed)] == ["named", "hidden"]
    with pytest.raises(ConfigError, match="style"):
        add_question_file(listed, "toy3", "github:o/toy", "a" * 40, source, "w", style="x")
    # a question or answer naming a reserved project is refused, as `helix eval qa` drops it
    naming = tmp_path / "naming.jsonl"
    naming.write_text(json.dumps({"question": "q?", "answer": "a", "kind": "how"}) + "\n"
                      + json.dumps({"question": "How are Jinja2Templates set up?",
                                    "answer": "a", "kind": "how"}) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"line\(s\) 2 name a project reserved"):
        add_question_file(listed, "toy4", "github:o/toy", "a" * 40, naming, "w")
    assert [e.name for e in load_question_list(listed)] == ["toy", "toy2"]
    (listed.parent / "toy.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="does not match"):
        load_question_list(listed)
