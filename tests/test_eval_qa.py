"""`helix eval qa`: gold derived from reference answers, the metrics, the BM25 baseline in the
same run, and the command end to end on a sample written for the answer fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run

from evals.qa.gold import GoldSpan, derive_gold
from evals.qa.score import Span, has_identifier, score_case, summarize, wording

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "evals" / "qa" / "answer_repo_sample.jsonl"
FIXTURE = ROOT / "data" / "fixtures" / "answer_repo"
FILES = ["src/pkg/cli/formatters.py", "src/pkg/cli/commands.py", "src/pkg/core/config.py",
         "docs/index.md", "tests/cli/commands.py"]


class Def:
    def __init__(self, path: str, start: int, end: int) -> None:
        self.path, self.start_line, self.end_line = path, start, end


DEFS = {"format_rules": [Def("src/pkg/cli/formatters.py", 120, 140)],
        "OutputStreamFormatter": [Def("src/pkg/cli/formatters.py", 69, 714)],
        "load_config": [Def("src/pkg/core/config.py", 10, 30)],
        "helper": [Def("src/pkg/cli/commands.py", 5, 9), Def("src/pkg/core/config.py", 40, 44)]}


def find(name: str) -> list[Def]:
    return DEFS.get(name, [])


def test_gold_files_line_ranges_and_backticked_definitions() -> None:
    answer = ("The `format_rules()` method (lines 120-140 in `src/pkg/cli/formatters.py`) is "
              "called at line 639 in `commands.py` and by `OutputStreamFormatter`; see "
              "formatters.py:62-66, and `load_config` elsewhere.")
    gold = derive_gold(answer, FILES, find)
    # commands.py is ambiguous (two files end in it): not gold; formatters.py resolves
    assert gold.files == ("src/pkg/cli/formatters.py",)
    assert GoldSpan(path="src/pkg/cli/formatters.py", start_line=120, end_line=140,
                    source="line_range") in gold.spans
    assert GoldSpan(path="src/pkg/cli/formatters.py", start_line=62, end_line=66,
                    source="line_range") in gold.spans
    assert {s.symbol for s in gold.symbols} == {"format_rules", "OutputStreamFormatter"}
    # load_config is defined, but not in a file the answer names
    assert all(s.path == "src/pkg/cli/formatters.py" for s in gold.spans)


def test_a_fenced_blocks_info_string_is_a_line_range() -> None:
    answer = ("`format_rules()` lists them.\n\n```120:124:src/pkg/cli/formatters.py\n"
              "def format_rules(self):\n    ...\n```\n\n```python\nx = 1\n```")
    gold = derive_gold(answer, FILES, find)
    assert gold.files == ("src/pkg/cli/formatters.py",)
    assert GoldSpan(path="src/pkg/cli/formatters.py", start_line=120, end_line=124,
                    source="line_range") in gold.spans
    assert {s.symbol for s in gold.symbols} == {"format_rules"}
    # an info string naming no file of the tree, or a language, gives no span
    assert derive_gold("```3:9:nowhere/file.py\nx\n```", FILES, find).spans == ()


def test_an_answer_naming_no_file_uses_names_one_file_defines() -> None:
    gold = derive_gold("The OutputStreamFormatter class and the helper() function.", FILES, find)
    assert gold.files == ("src/pkg/cli/formatters.py",)  # helper is defined twice: no gold
    assert [s.source for s in gold.spans] == ["defined_name"]
    assert derive_gold("It downloads files.", FILES, find).files == ()


def test_metrics_and_the_baseline_side_by_side() -> None:
    gold = derive_gold("In `format_rules` of src/pkg/cli/formatters.py.", FILES, find)
    items = [Span(path="docs/index.md", start_line=1, end_line=9),
             Span(path="src/pkg/cli/formatters.py", start_line=1, end_line=60),
             Span(path="src/pkg/cli/formatters.py", start_line=118, end_line=125)]
    case = score_case("q1", "Where are the rules formatted?", gold, items, items[:2],
                      ["src/pkg/cli/commands.py", "src/pkg/cli/formatters.py"], route="location",
                      seconds=0.01)
    assert case.helix_file_rank == 2 and case.bm25_file_rank == 2
    assert case.helix_span_rank == 3 and case.helix_symbol_rank == 3
    assert case.helix_recall is False  # the span was ranked but not sent
    summary = summarize([case])
    assert summary["helix"]["file@1"] == 0.0 and summary["helix"]["file@3"] == 1.0
    assert summary["helix"]["span@5"] == 1.0 and summary["helix"]["recall"] == 0.0
    assert summary["bm25_files"]["mrr"] == 0.5


def test_wording_and_identifier_classes() -> None:
    assert wording("Where is it?") == "where" and wording("Explain it") == "other"
    assert has_identifier("why does `parse()` fail?") and has_identifier("what is load_config")
    assert has_identifier("how does OutputStreamFormatter work?")
    assert not has_identifier("what is the role of the prefetch handler?")


def test_the_command_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "home"))
    out = tmp_path / "qa.json"
    code, stdout, err = run(["eval", "qa", str(SAMPLE), "--repo", str(FIXTURE), "--no-embed",
                             "--out", str(out)], capsys)
    assert code == 0, err
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["read"] == 4 and result["dropped"] == {"malformed_line": 2, "no_gold_file": 1,
                                                     "reserved": 0}
    summary = result["summary"]
    assert summary["questions"] == 3 and summary["with_spans"] == 3
    assert set(summary["helix"]) >= {"file@1", "file@5", "mrr", "span@5", "symbol@5", "recall"}
    assert set(summary["bm25_files"]) >= {"file@1", "mrr"}
    first, second, third = result["cases"]
    assert first["gold_files"] == ["fetchy/retry.py"] and first["gold_spans"] == 2
    assert second["gold_files"] == ["fetchy/client.py"] and second["gold_symbols"] == 1
    assert third["gold_files"] == ["fetchy/retry.py"]  # decide_retry: one file defines it
    for case in result["cases"]:  # both systems ranked in the same run
        assert case["error"] is None and case["top"]
        assert case["bm25_file_rank"] is None or case["bm25_file_rank"] >= 1
    assert "qa answer_repo_sample.jsonl" in stdout and "bm25" in stdout


def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("nothing\n", encoding="utf-8")
    code, _, err = run(["eval", "qa", str(empty), "--repo", str(FIXTURE)], capsys)
    assert code == 2 and "no {\"question\", \"answer\"} lines" in err
    code, _, err = run(["eval", "qa", str(SAMPLE), "--repo", str(tmp_path / "nope")], capsys)
    assert code == 2 and err.count("\n") == 1


def test_a_question_about_a_reserved_project_is_dropped_and_counted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A question whose text, answer or gold file names a project reserved for checks run
    elsewhere is theirs, even when the repository asked about is ours."""
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "home"))
    lines = [{"question": "Where is the decision to try again made?",
              "answer": "In `decide_retry` of fetchy/retry.py."},
             {"question": "Where is the decision to try again made, as Flask would?",
              "answer": "In `decide_retry` of fetchy/retry.py."},
             {"question": "Where is the decision to try again made?",
              "answer": "In `decide_retry` of fetchy/retry.py, as in Django's retry helper."}]
    sample = tmp_path / "reserved.jsonl"
    sample.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    out = tmp_path / "qa.json"
    code, _stdout, err = run(["eval", "qa", str(sample), "--repo", str(FIXTURE), "--no-embed",
                              "--out", str(out)], capsys)
    assert code == 0, err
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["dropped"]["reserved"] == 2 and result["summary"]["questions"] == 1


def test_reserved_names_match_a_words_start_and_a_path() -> None:
    from evals.reserved import names_reserved, reserved_names

    assert "jinja" in reserved_names() and "pytest" not in reserved_names()
    assert names_reserved("Add type hints to Jinja2Templates()")
    assert names_reserved("src/pkg/templaters/jinja.py")
    assert not names_reserved("the ninja build", "requests and click")
    # the test runner itself is used everywhere (`@pytest.fixture`), its project's own names
    # (organisation, plugins) are not: "copied from pytest-asyncio", github.com/pytest-dev/...
    assert not names_reserved("@pytest.fixture\ndef port(): ...", "with pytest.raises(E):")
    assert names_reserved("# This was copied from pytest-asyncio.")
    assert names_reserved("https://github.com/pytest-dev/pytest-asyncio/blob/main/plugin.py")


def test_a_name_naming_a_reserved_project_is_shown_as_a_placeholder() -> None:
    from evals.reserved import RESERVED_NAME, shown_name

    assert shown_name("JinjaAnalyzer._get_tag_configuration") == RESERVED_NAME
    assert shown_name("Django SECRET_KEY") == RESERVED_NAME
    assert shown_name("Tracer.slice") == "Tracer.slice" and shown_name(None) is None


def test_a_ranked_path_naming_a_reserved_project_is_scored_but_not_written() -> None:
    gold = derive_gold("In `format_rules` of src/pkg/cli/formatters.py.", FILES, find)
    items = [Span(path="src/pkg/templaters/jinja.py", start_line=3, end_line=9),
             Span(path="src/pkg/cli/formatters.py", start_line=118, end_line=125)]
    case = score_case("q1", "Where are the rules formatted?", gold, items, items,
                      ["src/pkg/cli/formatters.py"], route="location", seconds=0.01)
    assert case.helix_file_rank == 2 and case.helix_span_rank == 2
    assert case.top == ("(a path naming a reserved project):3-9",
                        "src/pkg/cli/formatters.py:118-125")


def test_an_unreadable_or_empty_reserved_list_is_a_clear_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evals import reserved
    from helix.core.errors import UserError

    for content in (None, "# only a comment\n"):
        target = tmp_path / "reserved.txt"
        if content is not None:
            target.write_text(content, encoding="utf-8")
        monkeypatch.setattr(reserved, "RESERVED_FILE", target)
        reserved.reserved_names.cache_clear()
        with pytest.raises(UserError, match="reserved-project list"):
            reserved.reserved_names()
    reserved.reserved_names.cache_clear()


def test_a_second_run_at_a_revision_waits_for_the_first_tree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Two runs of one repository share its written-out tree, which a run rewrites and then
    removes: the second waits for the first (here 0.1 s, then a one-line error), instead of
    reading a tree removed under it (seen: BadPathError on the second run's questions)."""
    import shutil
    import subprocess

    from evals.qa import run as qa_run

    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    for args in (["init", "-q"], ["add", "-A"],
                 ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    home = tmp_path / "home"
    monkeypatch.setenv("HELIX_HOME", str(home))
    monkeypatch.setattr(qa_run, "TREE_WAIT_S", 0.1)
    with qa_run.one_run_per_tree(repo, "HEAD"):  # the first run, still going
        code, _, err = run(["eval", "qa", str(SAMPLE), "--repo", str(repo), "--rev", "HEAD",
                            "--no-embed", "--out", str(tmp_path / "qa.json")], capsys)
    assert code == 2 and err.count("\n") == 1 and "another run has held" in err
    code, _, err = run(["eval", "qa", str(SAMPLE), "--repo", str(repo), "--rev", "HEAD",
                        "--no-embed", "--out", str(tmp_path / "qa.json")], capsys)
    assert code == 0, err  # the first run ended: its lock is free
