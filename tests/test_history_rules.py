"""The history miner's rules: which commits become cases, their question and their gold."""

from __future__ import annotations

import pytest

from evals.history.rules import (
    MAX_QUESTION_CHARS,
    Change,
    Commit,
    classify_path,
    clean_message,
    cut,
    gold_files,
    judge,
)

SRC = (Change(status="M", path="pkg/core.py"),)


def _commit(message: str, changes: tuple[Change, ...] = SRC, *, parents: int = 1,
            author: str = "Ada", email: str = "ada@example.org") -> Commit:
    return Commit(sha="a" * 40, parents=tuple("b" * 40 for _ in range(parents)), committed=1,
                  author=author, email=email, message=message, changes=changes)


# message -> expected reason ("kept" or the drop reason)
MESSAGES = [
    ("Fix crash when the URL has no host component", "kept"),
    ("Allow custom headers in multipart requests (#1936)\n\nCloses #1900.", "kept"),
    ("Merge pull request #12 from someone/branch\n\nFix the parser for empty input", "merge"),
    ("Revert \"Make the parser faster on long inputs\"", "revert"),
    ("Make things faster\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.",
     "revert"),
    ("Release 2.3.0", "release"),
    ("1.4.2", "release"),
    ("Version 0.27.0 (#3095)", "release"),
    ("Support version 3 of the wire protocol in the client", "kept"),
    ("Bump version to 0.9.1 for the next release", "release"),
    ("Preparing release 0.20", "release"),
    ("Back to development: 0.8", "release"),
    ("Bump urllib3 from 1.26.4 to 1.26.5 in the requirements", "dependency_bump"),
    ("Fix typo in the error message of the loader", "typo"),
    ("Fix spelling of a parameter name in the docstring", "typo"),
    ("Reformat the code base with the new line length", "format"),
    ("Run black and isort over the package sources", "format"),
    ("Fix flake8 warnings in the transport module", "format"),
    ("Add disable=import-outside-toplevel pylint lines.", "format"),
    ("style: reorder imports in the session module", "format"),
    ("chore(deps): update the lock file for the new resolver", "format"),
    ("Fix date formatting of the Last-Modified header", "kept"),  # a feature, not a reformat
    ("Add missing type hints to Jinja2Templates() (#2157)", "reserved"),
    ("Disable Jinja's internal auto_reload", "reserved"),
    ("Support the test client of a Flask application in the transport", "reserved"),
    ("Record history of requests made during authentication (#718)", "kept"),  # a plain word
    ("Fix #123", "too_few_words"),
    ("Update core.py", "too_few_words"),
]


@pytest.mark.parametrize(("message", "expected"), MESSAGES)
def test_message_rules(message: str, expected: str) -> None:
    assert judge(_commit(message)).reason == expected


def test_merge_and_root_commits_are_dropped_by_their_parents() -> None:
    text = "Fix the parser for empty input files"
    assert judge(_commit(text, parents=2)).reason == "merge"
    assert judge(_commit(text, parents=0)).reason == "root"


@pytest.mark.parametrize(("author", "email"), [("dependabot[bot]", "x@users.noreply.github.com"),
                                               ("pre-commit-ci[bot]", "x@example.org"),
                                               ("Renovate Bot", "bot@renovateapp.com")])
def test_bot_authors_are_dropped(author: str, email: str) -> None:
    verdict = judge(_commit("Update the pinned versions of the build tools", author=author,
                            email=email))
    assert verdict.reason == "bot"


@pytest.mark.parametrize(("path", "kind"), [
    ("pkg/core.py", "source"), ("setup.py", "source"), ("src/lib/parse.c", "source"),
    ("pkg/testing.py", "source"), ("pkg/history.py", "source"), ("noxfile.py", "source"),
    ("tests/test_core.py", "test"), ("pkg/testsuite/helpers.py", "test"),
    ("pkg/test_core.py", "test"), ("pkg/core_test.py", "test"), ("conftest.py", "test"),
    ("docs/conf.py", "doc"), ("README.md", "doc"), ("docs/index.rst", "doc"),
    ("CHANGELOG.md", "changelog"), ("CHANGES", "changelog"), ("HISTORY.rst", "changelog"),
    ("changelog.d/123.bugfix", "changelog"), ("newsfragments/9.feature.rst", "changelog"),
    ("pyproject.toml", "other"), (".github/workflows/ci.yml", "other"),
])
def test_classify_path(path: str, kind: str) -> None:
    assert classify_path(path) == kind


MSG = "Handle empty input in the tokenizer loop"


@pytest.mark.parametrize(("changes", "expected"), [
    ((Change(status="M", path="CHANGELOG.md"),), "changelog_only"),
    ((Change(status="M", path="docs/usage.md"), Change(status="M", path="CHANGES.rst")),
     "docs_only"),
    ((Change(status="M", path="tests/test_core.py"), Change(status="M", path="README.md")),
     "tests_only"),
    ((Change(status="M", path="pyproject.toml"),), "no_source"),
    (tuple(Change(status="M", path=f"pkg/m{i}.py") for i in range(4)), "too_many_files"),
    ((Change(status="A", path="pkg/new.py"), Change(status="M", path="tests/test_new.py")),
     "gold_added_only"),
    (tuple(Change(status="M", path=f"pkg/m{i}.py") for i in range(3))
     + tuple(Change(status="M", path=f"tests/test_{i}.py") for i in range(5))
     + (Change(status="M", path="CHANGELOG.md"), Change(status="M", path="docs/a.md")), "kept"),
])
def test_file_rules(changes: tuple[Change, ...], expected: str) -> None:
    assert judge(_commit(MSG, changes)).reason == expected


def test_gold_is_the_parent_side_non_test_source_files() -> None:
    changes = (
        Change(status="M", path="pkg/core.py"),
        Change(status="R", old_path="pkg/old_name.py", path="pkg/new_name.py"),
        Change(status="A", path="pkg/added.py"),
        Change(status="D", path="pkg/removed.py"),
        Change(status="M", path="tests/test_core.py"),
        Change(status="M", path="docs/conf.py"),
        Change(status="M", path="CHANGELOG.md"),
    )
    assert gold_files(changes) == ("pkg/core.py", "pkg/old_name.py", "pkg/removed.py")
    # the added file counts towards "touches 1-3 source files" (4 here: dropped)
    assert judge(_commit(MSG, changes)).reason == "too_many_files"
    verdict = judge(_commit(MSG, changes[:3]))
    assert verdict.kept
    assert verdict.gold == ("pkg/core.py", "pkg/old_name.py")
    assert verdict.source_files == ("pkg/added.py", "pkg/core.py", "pkg/new_name.py")


def test_question_keeps_issue_references_and_drops_trailers() -> None:
    message = ("Fix the retry loop on timeouts (#42)\n\nThe loop retried forever; see #41.\n"
               "[skip ci]\n\nSigned-off-by: Ada <ada@example.org>\n"
               "Co-authored-by: Bob <bob@example.org>\n"
               "(cherry picked from commit 0123456789abcdef)\n")
    verdict = judge(_commit(message))
    assert verdict.kept
    assert verdict.question == ("Fix the retry loop on timeouts (#42)\n\n"
                                "The loop retried forever; see #41.")
    assert clean_message("Subject here\r\n\r\n\r\nBody\r\n") == "Subject here\n\nBody"


def test_trailers_alone_do_not_make_enough_words() -> None:
    message = "Fix it\n\nSigned-off-by: Somebody With A Long Name <s@example.org>"
    assert judge(_commit(message)).reason == "too_few_words"


def test_long_messages_are_cut_at_a_word_boundary() -> None:
    body = " ".join(f"word{i}" for i in range(2000))
    verdict = judge(_commit("Fix the overflow in the parser stack\n\n" + body))
    assert verdict.kept and verdict.truncated
    assert len(verdict.question) <= MAX_QUESTION_CHARS
    assert body.startswith(verdict.question.split("\n\n", 1)[1])
    assert verdict.question.split()[-1] in body.split()  # no word cut in half
    assert cut("short") == ("short", False)
    hard, was_cut = cut("x" * 5000, 100)
    assert was_cut and hard == "x" * 100


def test_history_questions_fit_the_question_limit() -> None:
    from helix import inputs

    assert MAX_QUESTION_CHARS <= inputs.MAX_QUESTION_CHARS
    verdict = judge(_commit("Fix the overflow in the parser stack\n\n" + "x " * 30_000))
    inputs.check_question(verdict.question, "question")  # accepted, no error
