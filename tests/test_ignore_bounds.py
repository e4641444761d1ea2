"""Ignore files are bounded in lines, line length and compile cost, and never stop a walk
(issue 28: a `.gitignore` of 500 wildcard lines stopped indexing: "failed to compile Set").

The rules are compiled into RE2 sets of bounded size and memory (`indexers.ignore_rules`);
what of a file is not honoured is one `helix:` notice a kind, naming the first lines.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pathspec
import pytest
from cli_helpers import run

import indexers.ignore_rules as ignore_rules
from helix.core.config import IndexSettings
from helix.core.notices import collect
from indexers.walker import walk
from tests.index_fixtures import write

STARS = 7  # seven words between eight stars: 500 such lines are past one set's 8 MiB


def wildcard_line(number: int) -> str:
    return "*" + "*".join(f"w{number}x{k}" for k in range(STARS)) + "*"


def matching_name(number: int) -> str:
    return "".join(f"w{number}x{k}-" for k in range(STARS)) + ".txt"


@pytest.fixture(autouse=True)
def fresh_rules() -> None:
    ignore_rules._compile.cache_clear()


def test_500_wildcard_lines_are_honoured(tmp_path: Path) -> None:
    lines = [wildcard_line(n) for n in range(500)]
    with pytest.raises(Exception, match="failed to compile Set"):  # one set, as before
        pathspec.GitIgnoreSpec.from_lines(lines, backend="re2")
    write(tmp_path, ".gitignore", "\n".join(lines) + "\n")
    for number in (0, 137, 499):
        write(tmp_path, f"d/{matching_name(number)}", "x\n")
    write(tmp_path, f"d/{matching_name(500)}", "x\n")  # no line names 500
    write(tmp_path, "keep.py", "x = 1\n")
    with collect() as told:
        result = walk(tmp_path, IndexSettings())
    assert [f.record.path for f in result.files] == [
        ".gitignore", f"d/{matching_name(500)}", "keep.py"]
    assert len(result.skipped["ignored"]) == 3
    assert told == []


def test_sets_split_keep_gitignore_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pair of regexes in a set of its own: the last matching line still decides, and a
    file match still beats a directory match, across sets."""
    monkeypatch.setattr(ignore_rules, "SET_REGEXES", 2)
    lines = ["*.log", "!keep.log", "build/", "!build/keep.txt", "/top.txt", "a/**/b",
             "doc?/*.md", "[ab]c", "\\#x", "logs/", "!logs/", "*.tmp", "!*.tmp", "*.tmp",
             "x/y/", "!x/y/z", "**/deep/**", "!deep/"]
    reference = pathspec.GitIgnoreSpec.from_lines(lines, backend="simple")
    rules = ignore_rules.compile_rules(lines, IndexSettings())
    assert len(rules.sets) > 5 and rules.notes == []
    names = ["x.log", "keep.log", "build", "build/keep.txt", "top.txt", "s/top.txt", "a/b",
             "a/x/y/b", "docs/r.md", "doc/r.md", "ac", "cc", "#x", "logs", "logs/a",
             "a.tmp", "x/y", "x/y/z", "deep", "q/deep/r", "plain.py"]
    for name, slash in itertools.product(names, ("", "/")):
        assert rules.check(name + slash) == reference.check_file(name + slash).include, name


def test_an_overlong_line_is_not_honoured_and_costs_nothing(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.log\n" + "*?" * 100_000 + "\n*.tmp\n")
    write(tmp_path, "a.log", "x\n")
    write(tmp_path, "b.tmp", "x\n")
    write(tmp_path, "c.py", "x = 1\n")
    with collect() as told:
        result = walk(tmp_path, IndexSettings())
    assert [f.record.path for f in result.files] == [".gitignore", "c.py"]
    assert told == [".gitignore: line 2 is not honoured: 200,000 characters, over "
                    "index.max_ignore_line_chars = 4,096"]


def test_a_pattern_too_costly_to_compile_alone_is_not_honoured(tmp_path: Path) -> None:
    settings = IndexSettings(ignore_max_mem=1024 * 1024)
    write(tmp_path, "sub/.helixignore", "*.log\n" + "*a" * 2000 + "\n*.tmp\n")
    write(tmp_path, "sub/a.log", "x\n")
    write(tmp_path, "sub/b.tmp", "x\n")
    write(tmp_path, "sub/" + "a" * 200, "x\n")  # the costly line would have ignored it
    with collect() as told:
        result = walk(tmp_path, settings)
    assert [f.record.path for f in result.files] == ["sub/.helixignore", "sub/" + "a" * 200]
    assert told == ["sub/.helixignore: line 2 is not honoured: its pattern does not compile "
                    "within index.ignore_max_mem = 1,048,576 bytes"]


def test_lines_git_reads_as_no_pattern_are_skipped_with_one_notice(tmp_path: Path) -> None:
    # `!` alone and a trailing backslash raised from the pattern compiler: the whole index
    # failed ("internal error: GitIgnorePatternError"); git skips them and keeps the rest.
    bad = ["!", "\\"] * 4
    write(tmp_path, ".gitignore", "!\n*.log\n[\n" + "\n".join(bad) + "\nbuild/\n")
    write(tmp_path, "a.log", "x\n")
    write(tmp_path, "build/b.py", "x = 1\n")
    write(tmp_path, "c.py", "x = 1\n")
    with collect() as told:
        result = walk(tmp_path, IndexSettings())
    assert [f.record.path for f in result.files] == [".gitignore", "c.py"]
    assert told == [".gitignore: lines 1, 4, 5, 6, 7 and 4 more are not honoured: git reads "
                    "no pattern there (a lone `!`, a trailing `\\`)"]


def test_many_lines_not_honoured_are_one_notice_a_kind(tmp_path: Path) -> None:
    # one notice a line before: 100 overlong lines were 100 notices, 7 costly lines 7 more
    settings = IndexSettings(ignore_max_mem=1024 * 1024)
    lines = ["x" * 5000] * 100 + ["*.log"] + ["*a" * 2000] * 7 + ["!", "build/"]
    write(tmp_path, ".gitignore", "\n".join(lines) + "\n")
    write(tmp_path, "a.log", "x\n")
    write(tmp_path, "build/b.py", "x = 1\n")
    write(tmp_path, "c.py", "x = 1\n")
    with collect() as told:
        result = walk(tmp_path, settings)
    assert [f.record.path for f in result.files] == [".gitignore", "c.py"]
    assert told == [
        ".gitignore: lines 1, 2, 3, 4, 5 and 95 more are not honoured: up to 5,000 "
        "characters, over index.max_ignore_line_chars = 4,096",
        ".gitignore: line 109 is not honoured: git reads no pattern there (a lone `!`, "
        "a trailing `\\`)",
        ".gitignore: lines 102, 103, 104, 105, 106 and 2 more are not honoured: their patterns "
        "do not compile within index.ignore_max_mem = 1,048,576 bytes"]


def test_an_ignore_file_over_the_size_bound_is_cut_at_a_line_and_said(tmp_path: Path) -> None:
    # it was cut at index.max_file_bytes in silence, mid-line: its last lines were lost unsaid
    settings = IndexSettings(max_file_bytes=1000)
    write(tmp_path, ".gitignore", "*.log\n" + "".join(f"name{n}\n" for n in range(200)))
    write(tmp_path, "a.log", "x\n")
    write(tmp_path, "name199", "x\n")
    with collect() as told:
        result = walk(tmp_path, settings)
    assert [f.record.path for f in result.files] == ["name199"]  # .gitignore: over the bound
    assert told == [".gitignore: only its first 1,000 bytes are honoured (index.max_file_bytes)"]


def test_many_ignore_files_not_honoured_are_named_up_to_a_bound(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    # 30 directories each with a `.gitignore` holding a lone `!` were 30 notices
    monkeypatch.setattr(ignore_rules, "_told", set())
    for n in range(30):
        write(tmp_path, f"d{n:02d}/.gitignore", "!\n*.log\n")
        write(tmp_path, f"d{n:02d}/a.log", "x\n")
    with collect() as told:
        result = walk(tmp_path, IndexSettings())
    assert not [f for f in result.files if f.record.path.endswith(".log")]
    assert len(told) == ignore_rules.TOLD_FILES + 1
    assert told[0] == ("d00/.gitignore: line 1 is not honoured: git reads no pattern there "
                       "(a lone `!`, a trailing `\\`)")
    assert told[-1] == ("more ignore files have lines that are not honoured (the first 10 are "
                        "named above)")


def test_lines_past_the_bound_are_not_honoured(tmp_path: Path) -> None:
    settings = IndexSettings(max_ignore_lines=100)
    write(tmp_path, ".gitignore", "".join(f"name{n}\n" for n in range(150)))
    write(tmp_path, "name5", "x\n")
    write(tmp_path, "name120", "x\n")
    with collect() as told:
        result = walk(tmp_path, settings)
    assert [f.record.path for f in result.files] == [".gitignore", "name120"]
    assert told == [".gitignore: 150 lines: only the first 100 are honoured "
                    "(index.max_ignore_lines)"]


def test_the_cli_indexes_and_says_it_in_one_line(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    repo = tmp_path / "repo"
    lines = [wildcard_line(n) for n in range(500)] + ["*?" * 3000]
    write(repo, ".gitignore", "\n".join(lines) + "\n")
    write(repo, f"{matching_name(3)}", "x\n")
    write(repo, "mod.py", "def f():\n    return 1\n")
    code, out, err = run(["index", str(repo)], capsys)
    assert code == 0, err
    assert err.strip().splitlines() == [
        "helix: .gitignore: line 501 is not honoured: 6,000 characters, over "
        "index.max_ignore_line_chars = 4,096"]
    assert "2 indexed" in out and "ignored 1" in out
