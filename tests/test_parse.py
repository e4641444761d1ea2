"""parse_file: doc sections, code definitions, module windows, symbols, ids, a real tree."""

from __future__ import annotations

import itertools
from pathlib import Path

import hypothesis
import pytest
from hypothesis import strategies as st

from helix.core.config import IndexSettings
from helix.core.hashing import digest
from helix.core.schemas import Chunk, FileRecord
from indexers.chunkers import windows
from indexers.languages import classify
from indexers.parse import ParsedFile, parse_file

SETTINGS = IndexSettings()


def parse(path: str, text: str, settings: IndexSettings = SETTINGS) -> ParsedFile:
    kind, lang = classify(path)
    record = FileRecord(
        path=path, content_hash=digest(text), size=len(text.encode()), kind=kind, lang=lang
    )
    return parse_file(record, text, settings)


def by_symbol(parsed: ParsedFile) -> dict[str, list[Chunk]]:
    out: dict[str, list[Chunk]] = {}
    for chunk in parsed.chunks:
        if chunk.symbol:
            out.setdefault(chunk.symbol, []).append(chunk)
    return out


def spans(parsed: ParsedFile) -> list[tuple[str, str, int, int, str | None]]:
    return [(d.qualname, d.kind, d.start_line, d.end_line, d.scope) for d in parsed.defs]


# ---- documentation ---------------------------------------------------------------------------

MARKDOWN = """\
Intro line before any heading.

# Guide

Some text.

```bash
# this is a shell comment, not a heading
echo hi
```

## Install
~~~
## still code
~~~
Run it.

### Details ###
deep

Setext Title
============
body

Second Level
------------
more
"""


def test_markdown_sections_and_heading_paths() -> None:
    parsed = parse("docs/guide.md", MARKDOWN)
    got = [(c.start_line, c.end_line, c.heading_path) for c in parsed.chunks]
    assert got == [
        (1, 1, ("guide.md",)),
        (3, 10, ("Guide",)),
        (12, 16, ("Guide", "Install")),
        (18, 19, ("Guide", "Install", "Details")),
        (21, 23, ("Setext Title",)),
        (25, 27, ("Setext Title", "Second Level")),
    ]
    assert all(c.kind == "doc_section" and c.lang == "markdown" for c in parsed.chunks)
    assert parsed.chunks[1].node_id == "sec:docs/guide.md#3"
    assert parsed.chunks[1].text.startswith("# Guide\n\nSome text.")
    assert parsed.defs == () and parsed.refs == ()


def test_markdown_front_matter_and_thematic_break() -> None:
    text = "---\ntitle: x\n---\n# A\n\npara\n\n---\n\nafter break\n"
    parsed = parse("a.md", text)
    assert [(c.start_line, c.heading_path) for c in parsed.chunks] == [
        (1, ("a.md",)), (4, ("A",)),
    ]
    assert parsed.chunks[1].end_line == 10


def test_long_section_is_windowed_with_its_heading_path() -> None:
    body = "\n".join(f"line {i}" for i in range(30))
    settings = IndexSettings(max_chunk_lines=10, window_overlap=2)
    parsed = parse("long.md", f"# Top\n## Long\n{body}\n", settings)
    long = [c for c in parsed.chunks if c.heading_path == ("Top", "Long")]
    assert len(long) == 4
    assert {c.node_id for c in long} == {"sec:long.md#2"}
    assert long[0].start_line == 2 and long[-1].end_line == 32
    assert all(c.end_line - c.start_line + 1 <= 10 for c in long)


RST = """\
=========
 Project
=========

Intro.

Usage
=====

Text.

Options
-------

Opt text.

Another
=======

Bye.
"""


def test_rst_sections_levels_by_first_appearance() -> None:
    parsed = parse("index.rst", RST)
    got = [(c.start_line, c.heading_path) for c in parsed.chunks]
    assert got == [
        (1, ("Project",)),
        (7, ("Project", "Usage")),
        (12, ("Project", "Usage", "Options")),
        (17, ("Project", "Another")),
    ]


def test_plain_text_paragraph_groups() -> None:
    para = "\n".join(["word"] * 4)
    text = "\n\n".join([para] * 5) + "\n"
    parsed = parse("NOTES.txt", text, IndexSettings(window_lines=10))
    assert [(c.start_line, c.end_line) for c in parsed.chunks] == [(1, 9), (11, 19), (21, 24)]
    assert all(c.heading_path == ("NOTES.txt",) for c in parsed.chunks)


def test_other_text_is_line_windows_on_the_file_node() -> None:
    text = "\n".join(f'"k{i}": {i},' for i in range(25)) + "\n"
    parsed = parse("data/tree.json", text, IndexSettings(window_lines=10, window_overlap=2))
    assert [(c.start_line, c.end_line) for c in parsed.chunks] == [
        (1, 10), (9, 18), (17, 25),
    ]
    assert {(c.kind, c.node_id) for c in parsed.chunks} == {("text_window", "file:data/tree.json")}


# ---- Python --------------------------------------------------------------------------------

PYTHON = '''\
"""Module doc."""
import os.path as osp
from . import sibling
from ..pkg.mod import thing as alias, other
from typing import *

LIMIT = 3


class Retry(Base):
    """Retry policy."""

    attempts = LIMIT

    def decide(self, error: Failure) -> bool:
        return self.should(error) and osp.exists("x")

    @property
    def name(self):
        def helper():
            return fmt()
        return helper()


def run(policy):
    return Retry().decide(policy)


if __name__ == "__main__":
    run(None)
'''


def test_python_definitions_lines_and_qualnames() -> None:
    parsed = parse("pkg/retry.py", PYTHON)
    assert spans(parsed) == [
        ("Retry", "class", 10, 22, None),
        ("Retry.decide", "method", 15, 16, "Retry"),
        ("Retry.name", "method", 18, 22, "Retry"),
        ("Retry.name.helper", "function", 20, 21, "Retry.name"),
        ("run", "function", 25, 26, None),
    ]
    defs = {d.qualname: d for d in parsed.defs}
    assert defs["Retry.decide"].node_id == "def:pkg/retry.py::Retry.decide"
    assert defs["Retry.decide"].name == "decide"
    chunks = by_symbol(parsed)
    (decide,) = chunks["Retry.decide"]
    assert (decide.start_line, decide.end_line, decide.def_kind) == (15, 16, "method")
    assert decide.text.startswith("    def decide(self")
    assert decide.node_id == "def:pkg/retry.py::Retry.decide"
    (run,) = chunks["run"]
    assert run.kind == "code_def" and run.text == (
        "def run(policy):\n    return Retry().decide(policy)"
    )


def test_python_module_remainder_windows() -> None:
    parsed = parse("pkg/retry.py", PYTHON)
    module = [c for c in parsed.chunks if c.kind == "code_module"]
    assert [(c.start_line, c.end_line) for c in module] == [(1, 7), (29, 30)]
    assert {c.node_id for c in module} == {"file:pkg/retry.py"}
    assert "import os.path" in module[0].text
    assert all(c.symbol is None for c in module)


def test_python_refs_imports_calls_types() -> None:
    parsed = parse("pkg/retry.py", PYTHON)
    imports = [(r.name, r.module, r.line) for r in parsed.refs if r.kind == "import"]
    assert imports == [
        ("os.path", "os.path", 2), ("sibling", ".", 3), ("thing", "..pkg.mod", 4),
        ("other", "..pkg.mod", 4), ("*", "typing", 5),
    ]
    calls = {(r.name, r.scope) for r in parsed.refs if r.kind == "call"}
    assert calls == {
        ("should", "Retry.decide"), ("exists", "Retry.decide"), ("fmt", "Retry.name.helper"),
        ("helper", "Retry.name"), ("Retry", "run"), ("decide", "run"), ("run", None),
    }
    types = {(r.name, r.scope) for r in parsed.refs if r.kind == "type"}
    assert types == {("Base", "Retry"), ("Failure", "Retry.decide"), ("bool", "Retry.decide")}
    assert ("property", "name") in {(r.name, r.kind) for r in parsed.refs}


def test_big_class_keeps_only_its_head_and_own_stretches() -> None:
    methods = "\n".join(
        f"    def m{i}(self):\n        return {i}\n" for i in range(30)
    )
    text = f'class Big:\n    """Doc."""\n    x = 1\n\n{methods}\n    tail = 2\n'
    parsed = parse("big.py", text, IndexSettings(window_lines=20))
    big = by_symbol(parsed)["Big"]
    assert [(c.start_line, c.end_line) for c in big] == [(1, 3), (95, 95)]
    assert big[0].text == 'class Big:\n    """Doc."""\n    x = 1'
    assert len([d for d in parsed.defs if d.kind == "method"]) == 30


def test_small_class_is_kept_whole() -> None:
    parsed = parse("pkg/retry.py", PYTHON)
    (retry,) = by_symbol(parsed)["Retry"]
    assert (retry.start_line, retry.end_line) == (10, 22)


def test_long_function_is_split_into_windows_with_its_symbol() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(50))
    settings = IndexSettings(max_chunk_lines=20, window_overlap=0)
    parsed = parse("f.py", f"def long():\n{body}\n", settings)
    chunks = by_symbol(parsed)["long"]
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 20), (21, 40), (41, 51)]
    assert all(c.node_id == "def:f.py::long" for c in chunks)


def test_leading_comments_and_decorators_join_the_chunk() -> None:
    text = "x = 1\n\n# Explains f.\n# More.\n@cache\ndef f():\n    pass\n"
    parsed = parse("c.py", text)
    (chunk,) = by_symbol(parsed)["f"]
    assert (chunk.start_line, chunk.end_line) == (3, 7)
    assert (parsed.defs[0].start_line, parsed.defs[0].end_line) == (5, 7)


# ---- other languages -----------------------------------------------------------------------

def test_javascript() -> None:
    text = (
        'import def, { a as b } from "./util";\n'
        'const fs = require("fs");\n'
        "export class Store extends Base {\n"
        "  get(key) { return this.load(key); }\n"
        "}\n"
        "function helper() { return new Store(); }\n"
        "export const arrow = (x) => helper(x);\n"
    )
    parsed = parse("src/store.js", text)
    assert spans(parsed) == [
        ("Store", "class", 3, 5, None),
        ("Store.get", "method", 4, 4, "Store"),
        ("helper", "function", 6, 6, None),
        ("arrow", "function", 7, 7, None),
    ]
    imports = {(r.name, r.module) for r in parsed.refs if r.kind == "import"}
    assert imports == {("def", "./util"), ("a", "./util"), ("fs", "fs")}
    calls = {(r.name, r.scope) for r in parsed.refs if r.kind == "call"}
    assert {("load", "Store.get"), ("Store", "helper"), ("helper", "arrow")} <= calls


def test_typescript_and_tsx() -> None:
    text = (
        'import type { Opts } from "../opts";\n'
        "export interface Shape { area(): number }\n"
        "export type Id = string;\n"
        "enum Color { Red }\n"
        "export class Circle implements Shape {\n"
        "  area(): number { return compute(this.r); }\n"
        "}\n"
    )
    for path in ("a.ts", "a.tsx"):
        parsed = parse(path, text)
        assert [(q, k) for q, k, *_ in spans(parsed)] == [
            ("Shape", "interface"), ("Shape.area", "method"), ("Id", "type"),
            ("Color", "enum"), ("Circle", "class"), ("Circle.area", "method"),
        ]
        refs = {(r.name, r.kind, r.module) for r in parsed.refs}
        assert ("Opts", "import", "../opts") in refs
        assert ("Shape", "type", None) in refs
        assert ("compute", "call", None) in refs


def test_go() -> None:
    text = (
        "package store\n\n"
        'import (\n\tf "fmt"\n\t"net/http"\n)\n\n'
        "type Store struct {\n\tc *http.Client\n}\n\n"
        "type Getter interface {\n\tGet() error\n}\n\n"
        "func (s *Store) Get() error {\n\tf.Println(\"x\")\n\treturn nil\n}\n\n"
        "func New() *Store { return &Store{} }\n"
    )
    parsed = parse("store/store.go", text)
    assert spans(parsed) == [
        ("Store", "struct", 8, 10, None),
        ("Getter", "interface", 12, 14, None),
        ("Store.Get", "method", 16, 19, "Store"),
        ("New", "function", 21, 21, None),
    ]
    imports = {(r.name, r.module) for r in parsed.refs if r.kind == "import"}
    assert imports == {("f", "fmt"), ("http", "net/http")}
    assert ("Println", "call", "Store.Get") in {(r.name, r.kind, r.scope) for r in parsed.refs}
    module = [c for c in parsed.chunks if c.kind == "code_module"]
    assert [(c.start_line, c.end_line) for c in module] == [(1, 6)]


def test_rust() -> None:
    text = (
        "use std::collections::{HashMap, HashSet as Set};\n"
        "use crate::util::helper;\n"
        "pub struct Cache { map: HashMap<String, u32> }\n"
        "pub trait Store { fn get(&self) -> u32; }\n"
        "impl Store for Cache {\n"
        "    fn get(&self) -> u32 { helper(); self.map.len() as u32 }\n"
        "}\n"
        "enum Mode { A, B }\n"
    )
    parsed = parse("src/lib.rs", text)
    assert spans(parsed) == [
        ("Cache", "struct", 3, 3, None),
        ("Store", "interface", 4, 4, None),
        ("Store.get", "method", 4, 4, "Store"),
        ("Cache.get", "method", 6, 6, "Cache"),
        ("Mode", "enum", 8, 8, None),
    ]
    imports = {(r.name, r.module) for r in parsed.refs if r.kind == "import"}
    assert imports == {
        ("HashMap", "std::collections"), ("HashSet", "std::collections"),
        ("helper", "crate::util"),
    }
    calls = {(r.name, r.scope) for r in parsed.refs if r.kind == "call"}
    assert {("helper", "Cache.get"), ("len", "Cache.get")} <= calls


def test_java() -> None:
    text = (
        "package a.b;\n"
        "import java.util.List;\n"
        "import static org.junit.Assert.assertEquals;\n"
        "public class Service extends Base {\n"
        "    public Service() {}\n"
        "    List<Item> items(Query q) { return repo.find(q); }\n"
        "    interface Listener { void on(); }\n"
        "}\n"
    )
    parsed = parse("src/Service.java", text)
    assert spans(parsed) == [
        ("Service", "class", 4, 8, None),
        ("Service.Service", "method", 5, 5, "Service"),
        ("Service.items", "method", 6, 6, "Service"),
        ("Service.Listener", "interface", 7, 7, "Service"),
        ("Service.Listener.on", "method", 7, 7, "Service.Listener"),
    ]
    refs = {(r.name, r.kind, r.module) for r in parsed.refs}
    assert {("List", "import", "java.util"), ("assertEquals", "import", "org.junit.Assert"),
            ("find", "call", None), ("Item", "type", None), ("Base", "type", None)} <= refs


def test_c_cpp_ruby() -> None:
    c = parse("x.c", '#include "x.h"\nstruct P { int a; };\nstatic int *f(int x) { return g(); }\n')
    assert [(q, k) for q, k, *_ in spans(c)] == [("P", "struct"), ("f", "function")]
    assert ("x.h", "import") in {(r.name, r.kind) for r in c.refs}
    cpp = parse("x.cpp", "namespace n { class C { void m() { h(); } }; }\nvoid n::C::k() {}\n")
    assert [(q, k) for q, k, *_ in spans(cpp)] == [
        ("n", "module"), ("n.C", "class"), ("n.C.m", "method"), ("n.C.k", "method"),
    ]
    rb = parse("x.rb", 'require "json"\nclass A < B\n  def m\n    go()\n  end\nend\n')
    assert [(q, k) for q, k, *_ in spans(rb)] == [("A", "class"), ("A.m", "method")]
    assert ("json", "import") in {(r.name, r.kind) for r in rb.refs}


# ---- ids and determinism -------------------------------------------------------------------

def test_chunk_ids_are_stable_readable_and_content_addressed() -> None:
    first = parse("pkg/retry.py", PYTHON)
    second = parse("pkg/retry.py", PYTHON)
    assert first == second
    run = by_symbol(first)["run"][0]
    assert run.id.startswith("pkg/retry.py:25-26#")
    assert run.content_hash == digest(run.text)
    assert len({c.id for c in first.chunks}) == len(first.chunks)
    edited = parse("pkg/retry.py", PYTHON.replace("return Retry().decide(policy)",
                                                  "return Retry().decide(policy or 1)"))
    old = {c.id for c in first.chunks}
    new = {c.id for c in edited.chunks}
    changed = old - new
    assert changed == {run.id}
    assert edited.content_hash != first.content_hash


def test_chunk_id_literal_is_pinned() -> None:
    # An accidental change of the id scheme or of the hash function is caught here.
    parsed = parse("a.py", "def f():\n    return 1\n")
    assert [c.id for c in parsed.chunks] == ["a.py:1-2#bee024f77b54dfdc"]


def test_chunks_sorted_by_start_then_id() -> None:
    parsed = parse("pkg/retry.py", PYTHON)
    keys = [(c.start_line, c.id) for c in parsed.chunks]
    assert keys == sorted(keys)


def test_broken_source_still_parses() -> None:
    parsed = parse("bad.py", "def ok():\n    pass\n\ndef broken(:\n    ???\n")
    assert "ok" in {d.qualname for d in parsed.defs}
    assert parsed.chunks


def test_empty_files() -> None:
    for path in ("e.py", "e.md", "e.json", "e.txt"):
        assert parse(path, "").chunks == ()


# ---- a real tree nobody here wrote ---------------------------------------------------------

@pytest.mark.slow
def test_networkx_source_parses() -> None:
    import networkx

    root = Path(networkx.__file__).parent
    defs: dict[str, set[str]] = {}
    files = sorted(root.rglob("*.py"))
    assert len(files) > 100
    for file in files:
        rel = "networkx/" + file.relative_to(root).as_posix()
        text = file.read_text(encoding="utf-8", errors="replace")
        parsed = parse(rel, text)
        lines = text.split("\n")
        assert all(1 <= c.start_line <= c.end_line <= len(lines) for c in parsed.chunks)
        # Every line of code is in some chunk (only blank lines and stray comments are not).
        covered = {i for c in parsed.chunks for i in range(c.start_line, c.end_line + 1)}
        assert all(
            i in covered for i, line in enumerate(lines, start=1)
            if line.strip() and not line.lstrip().startswith("#")
        ), rel
        defs[rel] = {d.qualname for d in parsed.defs}
    assert "shortest_path" in defs["networkx/algorithms/shortest_paths/generic.py"]
    assert {"Graph", "Graph.add_edge", "Graph.neighbors"} <= defs["networkx/classes/graph.py"]
    assert "DiGraph.predecessors" in defs["networkx/classes/digraph.py"]


def test_crlf_documents() -> None:
    md = parse("w.md", "# One\r\ntext\r\nTwo\r\n---\r\nmore\r\n")
    assert [c.heading_path for c in md.chunks] == [("One",), ("One", "Two")]
    rst = parse("w.rst", "Title\r\n=====\r\n\r\nbody\r\n")
    assert [c.heading_path for c in rst.chunks] == [("Title",)]


def test_attribute_accesses_are_refs_but_calls_only_once() -> None:
    parsed = parse("m.py", "def f(cfg):\n    size = cfg.max_bytes\n    return cfg.load(size)\n")
    refs = [(r.name, r.kind, r.line, r.scope) for r in parsed.refs]
    assert refs == [("max_bytes", "attribute", 2, "f"), ("load", "call", 3, "f")]
    go = parse("m.go", "package m\nfunc F(s S) int { return s.n + s.Len() }\n")
    assert {(r.name, r.kind) for r in go.refs} >= {("n", "attribute"), ("Len", "call")}
    assert ("Len", "attribute") not in {(r.name, r.kind) for r in go.refs}


def test_stray_comment_dividers_are_not_module_chunks() -> None:
    text = (
        "def e():\n    pass\n\n# ---- helpers ----\n\ndef f():\n    pass\n\n"
        "# A longer note that\n# spans three\n# lines.\n\nX = 1\n"
    )
    parsed = parse("m.py", text)
    module = [(c.start_line, c.end_line) for c in parsed.chunks if c.kind == "code_module"]
    assert module == [(9, 13)]
    js = parse("m.js", "// ---- section ----\n\nfunction f() {}\n")
    assert [c.kind for c in js.chunks] == ["code_def"]


def test_minified_code_is_sliced_text_without_symbols() -> None:
    from indexers.chunkers import MAX_WINDOW_CHARS

    line = "".join(f"function a{i}(){{return b({i})}};" for i in range(2000))  # ~64,000 chars
    parsed = parse("static/app.min.js", f"/* header */\n{line}\n")
    assert parsed.defs == () and parsed.refs == ()
    assert {c.kind for c in parsed.chunks} == {"text_window"}
    assert all(len(c.text) <= MAX_WINDOW_CHARS for c in parsed.chunks)
    full = f"/* header */\n{line}"
    assert sum(len(c.text) for c in parsed.chunks) == len(full)
    assert all(c.text in full for c in parsed.chunks)
    assert sorted((c.start_line, c.end_line) for c in parsed.chunks) == [(1, 2)] + [(2, 2)] * 3
    assert len({c.id for c in parsed.chunks}) == len(parsed.chunks)


def test_javascript_assigned_functions() -> None:
    text = (
        "module.exports.load = function (path) { return read(path); };\n"
        "const api = {\n  save: (x) => write(x),\n};\n"
        "class View {\n  onClick = () => this.render();\n}\n"
    )
    parsed = parse("lib/api.js", text)
    assert spans(parsed) == [
        ("load", "function", 1, 1, None),
        ("save", "function", 3, 3, None),
        ("View", "class", 5, 7, None),
        ("View.onClick", "method", 6, 6, "View"),
    ]
    assert ("read", "load") in {(r.name, r.scope) for r in parsed.refs}


def test_markdown_html_comments_hide_headings() -> None:
    text = "# A\n<!--\n# hidden\n-->\n<!-- # also hidden -->\n## B\nx\n"
    parsed = parse("c.md", text)
    assert [(c.start_line, c.heading_path) for c in parsed.chunks] == [
        (1, ("A",)), (6, ("A", "B")),
    ]


def test_sibling_definitions_sharing_one_statement() -> None:
    parsed = parse("a.js", "const a = () => 1, b = () => 2;\n")
    assert spans(parsed) == [("a", "function", 1, 1, None), ("b", "function", 1, 1, None)]


# ---- properties ----------------------------------------------------------------------------

@hypothesis.given(
    start=st.integers(1, 50), length=st.integers(1, 400), size=st.integers(1, 80),
    overlap=st.integers(0, 90),
)
def test_windows_cover_the_range_in_bounded_steps(
    start: int, length: int, size: int, overlap: int
) -> None:
    end = start + length - 1
    got = windows(start, end, size, overlap)
    assert got[0][0] == start and got[-1][1] == end
    assert all(lo <= hi and hi - lo + 1 <= size for lo, hi in got)
    assert all(b[0] > a[0] and b[0] <= a[1] + 1 for a, b in itertools.pairwise(got))


LINE = st.sampled_from([
    "# H1", "## H2", "### H3", "text", "", "```", "~~~", "    # indented", "Title", "=====",
    "-----", "- item", "<!--", "-->", "# x #", "| a | b |",
])


@hypothesis.settings(max_examples=200, deadline=None)
@hypothesis.given(
    lines=st.lists(LINE, max_size=60), lang=st.sampled_from(["m.md", "m.rst", "m.txt"])
)
def test_doc_chunks_are_well_formed(lines: list[str], lang: str) -> None:
    text = "\n".join(lines) + "\n"
    parsed = parse(lang, text, IndexSettings(max_chunk_lines=7, window_lines=5, window_overlap=2))
    n = len(lines)
    for chunk in parsed.chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= n
        assert chunk.text == "\n".join(lines[chunk.start_line - 1:chunk.end_line])
        assert chunk.heading_path and chunk.end_line - chunk.start_line < 7
    assert parsed == parse(lang, text, IndexSettings(max_chunk_lines=7, window_lines=5,
                                                     window_overlap=2))
    # every non-blank line belongs to some chunk
    covered = {i for c in parsed.chunks for i in range(c.start_line, c.end_line + 1)}
    assert {i + 1 for i, line in enumerate(lines) if line.strip()} <= covered


def test_every_code_language_has_a_compiling_query() -> None:
    from indexers.languages import CODE_LANGUAGES
    from indexers.symbols import _tools, supported

    for lang in sorted(CODE_LANGUAGES):
        assert supported(lang), lang
        _tools(lang)  # parser + query compile
    assert not supported("cobol") and not supported(None)


def test_csharp_and_php() -> None:
    cs = parse("a.cs", (
        "using System.Text;\nusing IO = System.IO;\nnamespace N.M {\n  public class C : B {\n"
        "    public C() {}\n    public void Run(int x) { Foo(x); o.Bar(); }\n  }\n}\n"
    ))
    assert spans(cs) == [
        ("N.M", "module", 3, 8, None), ("N.M.C", "class", 4, 7, "N.M"),
        ("N.M.C.C", "method", 5, 5, "N.M.C"), ("N.M.C.Run", "method", 6, 6, "N.M.C"),
    ]
    assert {(r.name, r.kind, r.module) for r in cs.refs} >= {
        ("System.Text", "import", "System.Text"), ("IO", "import", "System.IO"),
        ("B", "type", None), ("Foo", "call", None), ("Bar", "call", None),
    }
    php = parse("a.php", (
        '<?php\nuse App\\Models\\User;\nrequire_once "lib/x.php";\n'
        "class C extends B {\n  public function m($x) { foo($x); $this->bar(); }\n}\n"
        "function f() { return new C(); }\n"
    ))
    assert spans(php) == [
        ("C", "class", 4, 6, None), ("C.m", "method", 5, 5, "C"), ("f", "function", 7, 7, None),
    ]
    assert {(r.name, r.kind, r.module, r.scope) for r in php.refs} >= {
        ("User", "import", "App\\Models", None), ("lib/x.php", "import", "lib/x.php", None),
        ("foo", "call", None, "C.m"), ("bar", "call", None, "C.m"), ("C", "call", None, "f"),
    }


def test_kotlin() -> None:
    kt = parse("a.kt", (
        "package p\nimport a.b.C\nclass K : B() {\n  fun m(x: Int) { foo(x); o.bar() }\n}\n"
        "interface I { fun g() }\nfun top() = 1\n"
    ))
    assert spans(kt) == [
        ("K", "class", 3, 5, None), ("K.m", "method", 4, 4, "K"), ("I", "interface", 6, 6, None),
        ("I.g", "method", 6, 6, "I"), ("top", "function", 7, 7, None),
    ]
    assert {(r.name, r.kind, r.module) for r in kt.refs} >= {
        ("C", "import", "a.b"), ("B", "type", None), ("foo", "call", None), ("bar", "call", None),
    }


def test_code_with_one_long_literal_keeps_its_symbols() -> None:
    body = "\n".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(200))
    text = f'TABLE = "{"ab" * 1500}"\n\n{body}'
    parsed = parse("table.py", text)
    assert len(parsed.defs) == 200


def test_python_except_clauses_reference_exception_types() -> None:
    text = (
        "def f():\n    try:\n        g()\n    except (A, m.B) as e:\n        pass\n"
        "    except C:\n        pass\n    except D as e:\n        raise E() from e\n"
    )
    refs = [(r.name, r.kind, r.scope) for r in parse("a.py", text).refs]
    assert refs == [
        ("g", "call", "f"), ("A", "type", "f"), ("B", "attribute", "f"), ("C", "type", "f"),
        ("D", "type", "f"), ("E", "call", "f"),
    ]


def test_byte_order_mark_before_the_first_heading() -> None:
    assert [c.heading_path for c in parse("b.md", "\ufeff# Title\ntext\n").chunks] == [("Title",)]
    rst = parse("b.rst", "\ufeffTitle\n=====\n\ntext\n")
    assert [c.heading_path for c in rst.chunks] == [("Title",)]
