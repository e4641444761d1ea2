"""`helix stale-docs` on a repository with known changes (a changed default, a renamed
function, a moved file, a reformatted body; issue 34)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests import change_fixtures as cf
from tests.cli_helpers import run
from tests.history_helpers import DAY, EPOCH, commit, git

# tests/conftest.py; a repository built before under the same inputs is a copy of that build
pytestmark = pytest.mark.usefixtures("shared_embeddings", "cached_builds")


def _stale(repo: Path, capsys: pytest.CaptureFixture[str], *args: str
           ) -> tuple[int, dict[str, Any]]:
    code, out, err = run(["stale-docs", "--repo", str(repo), "--json", *args], capsys)
    assert code in (0, 1), err
    return code, json.loads(out)


def _found(report: dict[str, Any]) -> dict[str, list[tuple[str, list[tuple[str, str]]]]]:
    return {s["heading"][-1]: [(d["symbol"], [(c["kind"], c["detail"]) for c in d["changes"]])
                               for d in s["definitions"]] for s in report["stale"]}


def test_only_changes_of_meaning_after_a_section_make_it_stale(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, shas = cf.build(tmp_path)
    code, report = _stale(repo, capsys)
    assert code == 0 and report["stale"] == [] and report["aligned"] == 4
    cf.change(repo, shas)
    code, report = _stale(repo, capsys)
    assert code == 1
    # the moved file (Headers) and the reformatted body (Rendering) are not findings
    assert _found(report) == {
        "Timeouts": [("Client", [("defaults", "timeout: 5.0 -> 10.0")])],
        "Backoff": [("compute_backoff", [("removed",
                                          "compute_backoff removed (now backoff_delay?)")])]}
    timeouts = next(s for s in report["stale"] if s["heading"][-1] == "Timeouts")
    assert timeouts["touched"]["sha"] == shas["v1"]
    assert [c["sha"] for c in timeouts["definitions"][0]["commits"]] == [shas["v2"]]
    assert (timeouts["start_line"], timeouts["end_line"]) == (3, 5)
    cf.fix_docs(repo, shas)
    code, report = _stale(repo, capsys)
    assert code == 1 and list(_found(report)) == ["Backoff"]  # the fixed section is clear


def test_human_output_names_the_change_and_the_commits(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, shas = cf.build(tmp_path)
    cf.change(repo, shas)
    code, out, _ = run(["stale-docs", "--repo", str(repo)], capsys)
    assert code == 1
    assert "2 stale section(s) of 3 aligned to code" in out
    assert 'docs/guide.md:3-5 "Guide > Timeouts"' in out
    assert "defaults: timeout: 5.0 -> 10.0" in out and f"in {shas['v2'][:12]} 2020-09-14" in out
    assert f"section last changed in {shas['v1'][:12]} 2020-09-13" in out


def test_a_baseline_acknowledges_known_findings_until_the_code_changes_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, shas = cf.build(tmp_path)
    cf.change(repo, shas)
    baseline = tmp_path / "baseline.json"
    code, report = _stale(repo, capsys, "--write-baseline", str(baseline))
    assert code == 0 and len(report["stale"]) == 2
    assert len(json.loads(baseline.read_text())["acknowledged"]) == 2
    code, report = _stale(repo, capsys, "--baseline", str(baseline))
    assert code == 0 and report["stale"] == [] and report["acknowledged"] == 2
    commit(repo, "Fewer retries", {"src/client.py": cf.CLIENT.replace(
        "timeout=5.0, retries=3", "timeout=10.0, retries=2")}, EPOCH + 3 * DAY)
    code, report = _stale(repo, capsys, "--baseline", str(baseline))
    assert code == 0 and report["acknowledged"] == 2  # the section never mentions retries
    new = commit(repo, "Longer still", {"src/client.py": cf.CLIENT.replace(
        "timeout=5.0, retries=3", "timeout=20.0, retries=2")}, EPOCH + 4 * DAY)
    code, report = _stale(repo, capsys, "--baseline", str(baseline))
    assert code == 1 and report["acknowledged"] == 1
    assert _found(report)["Timeouts"] == [("Client", [("defaults", "timeout: 5.0 -> 20.0")])]
    (timeouts,) = report["stale"]
    assert [c["sha"] for c in timeouts["definitions"][0]["commits"]] == [new, shas["v2"]]
    bad = tmp_path / "bad.json"
    bad.write_text("[1]", encoding="utf-8")
    code, _, err = run(["stale-docs", "--repo", str(repo), "--baseline", str(bad)], capsys)
    assert code == 2 and "not a stale-docs baseline" in err and len(err.splitlines()) == 1


def test_the_work_tree_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = cf.build(tmp_path)
    (repo / "src" / "client.py").write_text(cf.CLIENT.replace("timeout=5.0", "timeout=4.0"),
                                            encoding="utf-8")
    code, report = _stale(repo, capsys)
    assert code == 1
    (client,) = report["stale"][0]["definitions"]
    assert [(c["kind"], c["detail"]) for c in client["changes"]] == [
        ("defaults", "timeout: 5.0 -> 4.0")]
    assert client["commits"][0]["sha"] == "(working tree)"
    guide = repo / "docs" / "guide.md"
    guide.write_text(cf.GUIDE.replace("by default", "unless told otherwise"), encoding="utf-8")
    code, report = _stale(repo, capsys)  # the section is being edited: not stale
    assert code == 0 and report["stale"] == []


def test_body_changes_count_when_asked_for_a_section_about_the_definition(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    repo, _ = cf.build(tmp_path)
    commit(repo, "a page on merging", {"docs/merging.md": "# Merging\n\n## merge_headers\n\n"
                                                          "`merge_headers()` copies the defaults "
                                                          "and lays the extra ones over.\n"},
           EPOCH + DAY)
    commit(repo, "merge by loop", {"src/util/headers.py": cf.HEADERS.replace(
        "    merged.update(extra)\n", "    for key in extra:\n        merged[key] = extra[key]\n")},
        EPOCH + 2 * DAY)
    code, report = _stale(repo, capsys)
    assert code == 0 and report["stale"] == []  # body changes are off by default
    monkeypatch.setenv("HELIX_STALE_DOCS__BODY_CHANGES", "true")
    _, report = _stale(repo, capsys)
    # the page about it is stale; the guide's "Headers" section, which only names it, is not
    assert _found(report) == {"merge_headers": [("merge_headers", [
        ("body", "the body's code changed")])]}


def test_annotations_and_unmentioned_parameters_are_not_findings(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    repo, _ = cf.build(tmp_path)
    commit(repo, "types and a hook", {"src/client.py": cf.CLIENT.replace(
        "def __init__(self, timeout=5.0, retries=3):",
        "def __init__(self, timeout: float = 5.0, retries=3, hook=None):")}, EPOCH + DAY)
    code, report = _stale(repo, capsys)
    # `timeout` gained a type, and a parameter the section does not list was added
    assert code == 0 and report["stale"] == []
    monkeypatch.setenv("HELIX_STALE_DOCS__ANNOTATION_CHANGES", "true")
    _, report = _stale(repo, capsys)  # the section names `timeout`: its type counts now
    assert _found(report) == {"Timeouts": [("Client", [
        ("annotations", "timeout: (none) -> float")])]}


def test_paths_limit_the_documents_and_bad_input_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, shas = cf.build(tmp_path)
    cf.change(repo, shas)
    code, report = _stale(repo, capsys, "src")
    assert code == 0 and report["sections"] == 0
    code, report = _stale(repo, capsys, str(repo / "docs" / "guide.md"))
    assert code == 1 and len(report["stale"]) == 2
    for args, says in (([str(tmp_path)], "outside the repository"),
                       (["docs/nothing.md"], "does not exist")):
        code, _, err = run(["stale-docs", "--repo", str(repo), *args], capsys)
        assert code == 2 and says in err and len(err.splitlines()) == 1, err
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.md").write_text("# A\n\n`thing_here`\n", encoding="utf-8")
    code, _, err = run(["stale-docs", "--repo", str(plain)], capsys)
    assert code == 2 and "not a git repository" in err and len(err.splitlines()) == 1


def test_a_repository_inside_a_larger_work_tree(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    outer = tmp_path / "outer"
    outer.mkdir()
    git(outer, "init", "-q")
    files = {"sub/src/client.py": cf.CLIENT, "sub/docs/guide.md": cf.GUIDE}
    commit(outer, "one", files, EPOCH)
    commit(outer, "two", {"sub/src/client.py": cf.CLIENT.replace("timeout=5.0", "timeout=7.0")},
           EPOCH + DAY)
    code, report = _stale(outer / "sub", capsys)
    assert code == 1 and _found(report) == {
        "Timeouts": [("Client", [("defaults", "timeout: 5.0 -> 7.0")])]}


def test_history_example_names_tests_and_linked_documents(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = cf.build(tmp_path)
    commit(repo, "more docs", {
        "docs/upgrading.md": "# Upgrading\n\n## To 2.0\n\n`compute_backoff()` is the way.\n",
        "docs/more.md": "# More\n\n## Upgrading to 2.0\n\nCall `compute_backoff()`.\n\n"
                        "## Example\n\n```python\nclass HelperThing:\n    pass\n```\n"
                        "Then `HelperThing` and `check_thing()`.\n",
        "tests/test_things.py": "def check_thing():\n    return 1\n"}, EPOCH + DAY)
    (repo / "README.md").symlink_to("docs/guide.md")
    git(repo, "add", "README.md")
    commit(repo, "a readme", {}, EPOCH + 2 * DAY)
    commit(repo, "rename and drop", {
        "src/backoff.py": cf.BACKOFF.replace("compute_backoff", "backoff_delay"),
        "tests/test_things.py": None}, EPOCH + 3 * DAY)
    _, report = _stale(repo, capsys)
    stale = {(s["doc_path"], s["heading"][-1]) for s in report["stale"]}
    # the guide's Backoff section, also read through the README link (its history is the
    # guide's); not the upgrading guide, not a section about upgrading, not the example's
    # own class, not a test helper that was deleted
    assert stale == {("docs/guide.md", "Backoff"), ("README.md", "Backoff")}
    readme = next(s for s in report["stale"] if s["doc_path"] == "README.md")
    assert readme["touched"]["subject"] == "Client, backoff, headers, rendering and a guide"


PAST = '''# Project log

## 2.0.0 (2020-09-01)

`Client` waits 5 seconds by default (`timeout=5.0`); `compute_backoff()` doubles.

## 1.0.0 (2020-08-01)

First release.
'''


def test_release_histories_and_older_versions_docs_are_not_stale(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, shas = cf.build(tmp_path)
    commit(repo, "histories and versioned docs", {
        "docs/past.md": PAST,  # a release history by its headings, whatever its name
        "doc/release/notes_2.md": "# Project 2\n\n## API\n\n" + cf.GUIDE.split("\n", 2)[2],
        "docs/v1/guide.md": cf.GUIDE,  # the older of two versions' documentation
        "docs/v2/guide.md": cf.GUIDE,
        "docs/reference/previous-versions/guide-1.md": cf.GUIDE},
        EPOCH + DAY // 2)
    cf.change(repo, shas)
    _, report = _stale(repo, capsys)
    stale = {(s["doc_path"], s["heading"][-1]) for s in report["stale"]}
    # the current guides' stale sections still are
    assert stale == {("docs/guide.md", "Timeouts"), ("docs/guide.md", "Backoff"),
                     ("docs/v2/guide.md", "Timeouts"), ("docs/v2/guide.md", "Backoff")}


def test_a_users_document_is_not_aligned_to_a_test_helper(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = cf.build(tmp_path)
    helper = "def make_logger(level='info'):\n    return level\n"
    text = "# Logging\n\n## Levels\n\n`make_logger()` logs at `level` 'info' by default.\n"
    commit(repo, "a test helper and two documents naming it", {
        "tests/helpers.py": helper, "docs/logging.md": text, "tests/README.md": text},
        EPOCH + DAY)
    commit(repo, "helper logs at debug", {
        "tests/helpers.py": helper.replace("'info'", "'debug'")}, EPOCH + 2 * DAY)
    _, report = _stale(repo, capsys)
    # the tests' own notes are about the helper; the user's document is not
    assert [s["doc_path"] for s in report["stale"]] == ["tests/README.md"]


def test_a_name_dropped_from_a_declaration_file_is_not_a_removal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = cf.build(tmp_path)
    commit(repo, "typings for an old runtime, a guide using them", {
        "types/compat.d.ts": "export interface LegacyQueue<T> {\n  push(item: T): void;\n}\n",
        "src/queue.ts": "export class WorkQueue {\n  push(item: string): void {}\n}\n",
        "docs/queues.md": "# Queues\n\n## Runtime\n\nA `LegacyQueue` holds the items.\n\n"
                          "## Work\n\nPut jobs on a `WorkQueue`.\n"}, EPOCH + DAY)
    commit(repo, "drop the typings and the work queue", {
        "types/compat.d.ts": None, "src/queue.ts": "export const VERSION = 2;\n"},
        EPOCH + 2 * DAY)
    _, report = _stale(repo, capsys, "docs/queues.md")
    assert _found(report) == {"Work": [("WorkQueue", [("removed", "WorkQueue removed")])]}
