"""The corpus's pure parts: hunk -> definition mapping, patch parsing, the split rule, the
path and message rules."""

from __future__ import annotations

import pytest

from evals.corpus.defs import file_definitions, touched
from evals.corpus.patches import parse_patch, unquote_path
from evals.corpus.repos import FORCED_TEST, RepoEntry, RepoList, assign_splits, check_repos
from evals.corpus.rules import is_vendored, names_target, says_generated
from helix.core.config import IndexSettings
from helix.core.errors import ConfigError

PY = b'''import os


class Box:
    """A box."""

    def open(self):
        self.opened = True
        return self

    @property
    def size(self):
        return 3


def top(x):
    y = x + 1
    return y
'''

RUST = b'''pub fn parse(s: &str) -> usize {
    s.len()
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses() {
        assert_eq!(super::parse("ab"), 2);
    }
}
'''

GO = b'''package box

type Box struct {
	Size int
}

func (b *Box) Grow(n int) {
	b.Size += n
}
'''


def _defs(path: str, data: bytes):  # type: ignore[no-untyped-def]
    defs = file_definitions(path, data, IndexSettings())
    assert defs is not None
    return defs


def _names(path: str, data: bytes, hunks: list[tuple[int, int]]) -> list[str]:
    return [s.qualname for s in touched(_defs(path, data), hunks)]


def test_a_hunk_maps_to_the_innermost_definition() -> None:
    assert _names("m.py", PY, [(8, 1)]) == ["Box.open"]  # inside the method
    assert _names("m.py", PY, [(13, 1)]) == ["Box.size"]  # under a decorator
    assert _names("m.py", PY, [(11, 1)]) == ["Box.size"]  # the decorator line itself
    assert _names("m.py", PY, [(5, 1)]) == ["Box"]  # the class's own docstring
    assert _names("m.py", PY, [(1, 1)]) == []  # an import: no definition
    assert _names("m.py", PY, [(8, 6)]) == ["Box", "Box.open", "Box.size"]  # three, file order
    assert _names("m.py", PY, [(17, 0)]) == ["top"]  # a line inserted inside a body
    assert _names("m.py", PY, [(14, 0)]) == []  # inserted between two definitions
    assert _names("m.py", PY, [(9, 0)]) == []  # inserted into the class: a new member
    assert _names("m.py", PY, [(8, 1), (17, 1), (8, 1)]) == ["Box.open", "top"]  # each once


def test_rust_test_modules_and_go_methods() -> None:
    defs = {d.qualname: d for d in _defs("src/lib.rs", RUST)}
    assert not defs["parse"].in_test
    assert defs["tests"].in_test and defs["tests.parses"].in_test
    assert _names("box.go", GO, [(8, 1)]) == ["Box.Grow"]
    assert _names("box.go", GO, [(4, 1)]) == ["Box"]


def test_unparsed_files_have_no_definitions() -> None:
    settings = IndexSettings()
    assert file_definitions("data.json", b"{}", settings) is None
    assert file_definitions("big.py", b"x = 1\n" * 10, settings.model_copy(
        update={"max_parse_bytes": 10})) is None
    assert file_definitions("min.js", b"var a=1;" * 5000, settings) is None


def test_patches_parse_hunks_renames_and_whitespace() -> None:
    body = (b"\n"
            b"diff --git a/pkg/old.py b/pkg/new.py\n"
            b"similarity index 90%\nrename from pkg/old.py\nrename to pkg/new.py\n"
            b"index " + b"a" * 40 + b".." + b"b" * 40 + b" 100644\n"
            b"--- a/pkg/old.py\n+++ b/pkg/new.py\n"
            b"@@ -3 +3 @@ def f():\n-    return 1\n+    return 2\n"
            b"@@ -10,0 +11,2 @@\n+x\n+y\n"
            b"diff --git a/s.py b/s.py\n"
            b"index " + b"c" * 40 + b".." + b"d" * 40 + b" 100644\n"
            b"--- a/s.py\n+++ b/s.py\n@@ -1,2 +1,2 @@\n-a = 1\n-b=2\n+a  =  1\n+b = 2\n"
            b"diff --git a/n.py b/n.py\nnew file mode 100644\n"
            b"index " + b"0" * 40 + b".." + b"e" * 40 + b"\n"
            b"--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+z = 1\n"
            b"diff --git a/img.png b/img.png\nindex " + b"1" * 40 + b".." + b"2" * 40 +
            b" 100644\nBinary files a/img.png and b/img.png differ\n")
    patch = parse_patch("f" * 40, body)
    renamed, spaced, added, binary = patch.files
    assert (renamed.old_path, renamed.new_path, renamed.old_blob) == (
        "pkg/old.py", "pkg/new.py", "a" * 40)
    assert [(h.old_start, h.old_count) for h in renamed.hunks] == [(3, 1), (10, 0)]
    assert not renamed.whitespace_only and spaced.whitespace_only
    assert added.old_path is None and added.old_blob is None and added.new_path == "n.py"
    assert binary.binary and not binary.hunks
    assert unquote_path(b'"a/caf\\303\\251 \\"x\\".py"') == 'a/café "x".py'
    assert unquote_path(b"a/with space.py\t") == "a/with space.py"


def test_the_split_rule_is_by_repository_stable_and_stratified() -> None:
    pairs = [(f"github:o/py{i}", "python") for i in range(10)]
    pairs += [(f"github:o/js{i}", "javascript" if i % 2 else "typescript") for i in range(7)]
    pairs += [(f"github:o/go{i}", "go") for i in range(5)]
    pairs += [("github:mkdocs/mkdocs", "python"), ("github:wntrblm/nox", "python")]
    one = assign_splits(pairs, seed=7)
    assert one == assign_splits(list(reversed(pairs)), seed=7)  # order of the list: no matter
    assert one != assign_splits(pairs, seed=8)  # the seed decides
    assert one["github:mkdocs/mkdocs"] == one["github:wntrblm/nox"] == "test"
    assert {f"{o}/{n}" for o, n in (("mkdocs", "mkdocs"), ("wntrblm", "nox"))} == FORCED_TEST
    for prefix, total in (("github:o/py", 12), ("github:o/js", 7), ("github:o/go", 5)):
        family = [s for s in one if s.startswith(prefix)] + (
            ["github:mkdocs/mkdocs", "github:wntrblm/nox"] if prefix.endswith("py") else [])
        splits = [one[s] for s in family]
        assert len(splits) == total
        assert splits.count("test") == -(-total * 20 // 100)  # ceil(20%)
        assert splits.count("validation") == -(-total * 15 // 100)  # ceil(15%)
    # adding a repository of another family moves no existing one
    more = assign_splits([*pairs, ("github:o/rs0", "rust")], seed=7)
    assert all(more[s] == one[s] for s in one)


def test_a_stored_split_must_be_the_rules() -> None:
    split = assign_splits([("github:o/a", "go")], 3)["github:o/a"]
    entry = RepoEntry(name="a", source="github:o/a", language="go", revision="1" * 40,
                      until="2" * 40, split=split)
    listing = RepoList(description="", split_rule="", split_seed=3, pin_rule="",
                       repos=(entry,))
    assert check_repos(listing) == listing
    other = "train" if split != "train" else "test"
    with pytest.raises(ConfigError, match="is not the rule's"):
        check_repos(listing.model_copy(update={"repos": (entry.model_copy(
            update={"split": other}),)}))
    with pytest.raises(ConfigError, match="listed twice"):
        check_repos(listing.model_copy(update={"repos": (entry, entry)}))


def test_path_and_message_rules() -> None:
    assert is_vendored("vendor/x/y.go") and is_vendored("third_party/z.py")
    assert is_vendored("api/service.pb.go") and is_vendored("web/app.min.js")
    assert is_vendored("pkg/foo_pb2.py") and is_vendored("node_modules/a/index.js")
    assert not is_vendored("src/vendors.py") and not is_vendored("lib/distance.js")
    assert says_generated(b"// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x\n")
    assert says_generated(b"# @generated by a tool\n")
    assert not says_generated(b"def f():\n    pass\n")
    assert names_target("Fix Store.get for missing keys", ["get"])
    assert names_target("parse_line fails on empty lines", ["parse_line"])
    assert not names_target("parse_lines fails", ["parse_line"])
    assert not names_target("getter is broken", ["get"])
    assert not names_target("Get it right", ["get"])  # case matters: verbatim
