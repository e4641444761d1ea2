"""References record their receiver (the object of a member access, as written), and imports
the local alias they bind: one snippet per language that has a query file."""

from __future__ import annotations

import pytest

from indexers.symbols import RECEIVER_MAX, extract

# language -> (file name, source, expected (kind, name, receiver) among the non-import refs)
CASES: dict[str, tuple[str, str, set[tuple[str, str, str | None]]]] = {
    "python": ("m.py", "def f(x):\n    self.run()\n    a.b.c(1)\n    x.index(1)\n    g()\n"
               "    super().go()\n    ( obj  .  spaced ).z()\n", {
                   ("call", "run", "self"), ("call", "c", "a.b"), ("attribute", "b", "a"),
                   ("call", "index", "x"), ("call", "g", None), ("call", "go", "super()"),
                   ("call", "z", "(obj.spaced)")}),
    "javascript": ("m.js", "function f() { this.run(); a?.b.c(); ns.f(); g(); }\n", {
        ("call", "run", "this"), ("call", "c", "a?.b"), ("attribute", "b", "a"),
        ("call", "f", "ns"), ("call", "g", None)}),
    "typescript": ("m.ts", "let x: ns.T = a.b(); g();\n", {
        ("type", "T", "ns"), ("call", "b", "a"), ("call", "g", None)}),
    "tsx": ("m.tsx", "function F() { return this.draw(); }\n", {("call", "draw", "this")}),
    "go": ("m.go", "package m\nfunc f() { pkg.Do(); s.run(); var t pkg.Type; g() }\n", {
        ("call", "Do", "pkg"), ("call", "run", "s"), ("type", "Type", "pkg"),
        ("call", "g", None)}),
    "rust": ("m.rs", "fn m() { self.x(); Foo::new(); crate::a::b(); g(); }\n", {
        ("call", "x", "self"), ("call", "new", "Foo"), ("call", "b", "crate::a"),
        ("call", "g", None)}),
    "java": ("A.java", "class A { void f() { obj.foo(1); this.bar(); Foo.qux(); x.y.z(); "
                       "g(); } }\n", {
        ("call", "foo", "obj"), ("call", "bar", "this"), ("call", "qux", "Foo"),
        ("call", "z", "x.y"), ("attribute", "y", "x"), ("call", "g", None)}),
    "kotlin": ("a.kt", "fun f() { a.b.c(1); x?.y(); Foo.bar(); g() }\n", {
        ("call", "c", "a.b"), ("call", "y", "x"), ("call", "bar", "Foo"), ("call", "g", None)}),
    "csharp": ("A.cs", "class A { void F() { obj.Foo(1); this.Bar(); base.Baz(); G(); } }\n", {
        ("call", "Foo", "obj"), ("call", "Bar", "this"), ("call", "Baz", "base"),
        ("call", "G", None)}),
    "php": ("a.php", "<?php $this->foo(); Foo::bar(); \\Ns\\baz(); $x?->y(); g();\n", {
        ("call", "foo", "$this"), ("call", "bar", "Foo"), ("call", "baz", "Ns"),
        ("call", "y", "$x"), ("call", "g", None)}),
    "ruby": ("a.rb", "a.b(1)\nFoo::bar(2)\nself.x(1)\nfoo(3)\n", {
        ("call", "b", "a"), ("call", "bar", "Foo"), ("call", "x", "self"),
        ("call", "foo", None)}),
    "c": ("a.c", "void f() { a.b(); p->q(); g(); }\n", {
        ("call", "b", "a"), ("call", "q", "p"), ("call", "g", None)}),
    "cpp": ("a.cpp", "void f() { this->h(); ns::sub::g(); ns::k(); o.m(); }\n", {
        ("call", "h", "this"), ("call", "g", "ns::sub"), ("call", "k", "ns"),
        ("call", "m", "o")}),
}


@pytest.mark.parametrize("lang", sorted(CASES))
def test_each_language_records_receivers(lang: str) -> None:
    path, source, expected = CASES[lang]
    refs = extract(path, lang, source.encode()).refs
    got = {(r.kind, r.name, r.receiver) for r in refs if r.kind != "import"}
    assert expected <= got, sorted(expected - got)


def test_every_language_with_a_query_is_covered() -> None:
    from importlib import resources

    shipped = {p.name.removesuffix(".scm")
               for p in resources.files("indexers").joinpath("queries").iterdir()
               if p.name.endswith(".scm")}
    assert shipped <= set(CASES)


def test_a_long_or_multiline_receiver_is_normalised_and_bounded() -> None:
    source = ("def f():\n    (builder\n        .add(1)\n        .add(2)).finish()\n"
              f"    g({'x' * 100}, y).h()\n")
    refs = {r.name: r.receiver for r in extract("m.py", "python", source.encode()).refs}
    assert refs["finish"] == "(builder.add(1).add(2))"
    long = refs["h"]
    assert long is not None and len(long) == RECEIVER_MAX and long.endswith("…")


IMPORTS: dict[str, tuple[str, str, set[tuple[str, str | None, str | None]]]] = {
    "python": ("m.py", "import numpy as np\nimport os.path\nfrom p import n as k, z\n", {
        ("numpy", "numpy", "np"), ("os.path", "os.path", None), ("n", "p", "k"),
        ("z", "p", None)}),
    "javascript": ("m.js", "import * as ns from './x';\nimport {a as b, c} from './y';\n"
                           "import d from './z';\nconst q = require('./q');\n", {
        ("*", "./x", "ns"), ("a", "./y", "b"), ("c", "./y", None), ("d", "./z", None),
        ("./q", "./q", "q")}),
    "rust": ("m.rs", "use a::b::{c as d, e};\nuse f::g as h;\n", {
        ("c", "a::b", "d"), ("e", "a::b", None), ("g", "f", "h")}),
    "kotlin": ("a.kt", "import a.b.C as D\nimport e.F\n", {("C", "a.b", "D"), ("F", "e", None)}),
    "php": ("a.php", "<?php use A\\B\\C as D; use E\\F;\n", {
        ("C", "A\\B", "D"), ("F", "E", None)}),
}


@pytest.mark.parametrize("lang", sorted(IMPORTS))
def test_imports_record_the_alias_they_bind(lang: str) -> None:
    path, source, expected = IMPORTS[lang]
    refs = extract(path, lang, source.encode()).refs
    assert {(r.name, r.module, r.receiver) for r in refs if r.kind == "import"} == expected
