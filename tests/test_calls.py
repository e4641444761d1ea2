"""Calls edges resolved by import and receiver (indexers/calls.py), on small repositories."""

from __future__ import annotations

from pathlib import Path

import networkx as nx

from helix.core.config import IndexSettings
from indexers.graph import build_graph
from indexers.parse import parse_file
from indexers.walker import walk


def _graph(root: Path, files: dict[str, str]) -> nx.MultiDiGraph:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    settings = IndexSettings()
    walked = walk(root, settings)
    records = [wf.record for wf in walked.files]
    parsed = [parse_file(wf.record, wf.text, settings) for wf in walked.files]
    return build_graph(records, parsed)


def _calls(root: Path, files: dict[str, str], kind: str = "calls") -> set[tuple[str, str]]:
    graph = _graph(root, files)
    return {(str(u), str(v)) for u, v, k in graph.edges(keys=True) if k == kind}


def _into(calls: set[tuple[str, str]], target: str) -> set[str]:
    return {u for u, v in calls if v == target}


CLI = '''"""The command line."""
import click


@click.group()
def main():
    """Entry point."""


@main.command()
def index(path):
    """Index a repository."""
    return path
'''


def test_a_list_method_is_not_a_call_of_a_repository_function(tmp_path: Path) -> None:
    calls = _calls(tmp_path, {
        "cli.py": CLI,
        "lists.py": "def position(names):\n    first = [1, 2].index(1)\n"
                    "    return names.index('a') + first\n",
        "run_a.py": "import cli\n\n\ndef rebuild():\n    return cli.index('x')\n",
        "run_b.py": "from cli import index\n\n\ndef refresh():\n    return index('y')\n",
        "run_c.py": "def alone():\n    return index('z')\n",  # not imported: a builtin
    })
    assert _into(calls, "def:cli.py::index") == {"def:run_a.py::rebuild",
                                                 "def:run_b.py::refresh"}


def test_self_and_super_resolve_in_the_class_and_its_bases(tmp_path: Path) -> None:
    calls = _calls(tmp_path, {
        "shapes.py": (
            "class Base:\n    def area(self):\n        return 0\n\n    def name(self):\n"
            "        return 'base'\n\n\n"
            "class Square(Base):\n    def area(self):\n        return super().area() + 1\n\n"
            "    def describe(self):\n        return self.name() + str(self.area())\n\n\n"
            "class Other:\n    def name(self):\n        return 'other'\n"),
    })
    assert ("def:shapes.py::Square.area", "def:shapes.py::Base.area") in calls
    assert ("def:shapes.py::Square.describe", "def:shapes.py::Square.area") in calls
    assert ("def:shapes.py::Square.describe", "def:shapes.py::Base.name") in calls
    assert ("def:shapes.py::Square.describe", "def:shapes.py::Other.name") not in calls
    assert ("def:shapes.py::Square.describe", "def:shapes.py::Base.area") not in calls


def test_a_bare_name_never_reaches_a_method(tmp_path: Path) -> None:
    calls = _calls(tmp_path, {
        "job.py": "class Job:\n    def run(self):\n        return 1\n\n\n"
                  "def start():\n    return run()\n",
    })
    assert ("def:job.py::start", "def:job.py::Job.run") not in calls


def test_module_and_class_receivers(tmp_path: Path) -> None:
    calls = _calls(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/codec.py": "def dumps(x):\n    return x\n\n\nclass Cart:\n"
                        "    def add_item(self, x):\n        return x\n",
        "pkg/other.py": "class Basket:\n    def add_item(self, x):\n        return x\n",
        "app.py": ("import json\nimport pkg.codec as codec\nfrom pkg.codec import Cart\n"
                   "from pkg.other import Basket\n\n\n"
                   "def save(x):\n    json.dumps(x)\n    return codec.dumps(x)\n\n\n"
                   "def fill(x):\n    return Cart.add_item(None, x)\n"),
    })
    assert _into(calls, "def:pkg/codec.py::dumps") == {"def:app.py::save"}
    assert _into(calls, "def:pkg/codec.py::Cart.add_item") == {"def:app.py::fill"}
    assert _into(calls, "def:pkg/other.py::Basket.add_item") == set()


def test_an_outside_module_never_resolves_into_the_repository(tmp_path: Path) -> None:
    calls = _calls(tmp_path, {
        "paths.py": "def join(*parts):\n    return '/'.join(parts)\n",
        "use.py": "import os\n\n\ndef where(a, b):\n    return os.path.join(a, b)\n",
    })
    assert _into(calls, "def:paths.py::join") == set()


def test_an_unknown_receiver_means_one_visible_class_method(tmp_path: Path) -> None:
    calls = _calls(tmp_path, {
        "engine.py": "class Engine:\n    def search(self, q):\n        return q\n\n\n"
                     "def search(q):\n    return q\n",
        "twice.py": "class A:\n    def render(self):\n        return 1\n\n\n"
                    "class B:\n    def render(self):\n        return 2\n",
        "ui.py": ("from engine import Engine\nimport twice\n\n\ndef ask(engine, q, view):\n"
                  "    view.render()\n    items = [engine]\n    items.append(q)\n"
                  "    return engine.search(q)\n"),
    })
    assert _into(calls, "def:engine.py::Engine.search") == {"def:ui.py::ask"}
    assert _into(calls, "def:engine.py::search") == set()  # never a plain function
    assert not any(v.startswith("def:twice.py") for u, v in calls)  # two classes: ambiguous


def test_a_builtin_method_name_is_left_alone(tmp_path: Path) -> None:
    calls = _calls(tmp_path, {
        "queue.py": "class Queue:\n    def append(self, x):\n        return x\n",
        "use.py": "import queue\n\n\ndef f(xs):\n    xs.append(1)\n",
    })
    assert _into(calls, "def:queue.py::Queue.append") == set()


def test_re_exports_are_followed_nearest_first(tmp_path: Path) -> None:
    calls = _calls(tmp_path, {
        "lib/__init__.py": "from lib.core import *\nfrom lib import extra\n",
        "lib/core.py": "def build(x):\n    return x\n",
        "lib/extra/__init__.py": "from .deep import *\n",
        "lib/extra/deep.py": "def tune(x):\n    return x\n",
        "tools/build.py": "def build(x):\n    return x\n\n\ndef tune(x):\n    return x\n",
        "main.py": ("import lib\nfrom lib import build\n\n\ndef go(x):\n"
                    "    return build(x) + lib.build(x) + lib.extra.tune(x)\n"),
    })
    assert _into(calls, "def:lib/core.py::build") == {"def:main.py::go"}
    assert _into(calls, "def:lib/extra/deep.py::tune") == {"def:main.py::go"}


def test_a_root_package_imports_itself_by_its_own_name(tmp_path: Path) -> None:
    # networkx indexed at its own directory: `import networkx as nx`, no path says networkx
    calls = _calls(tmp_path, {
        "__init__.py": "from mylib.graphs import *\nfrom mylib import algos\n",
        "graphs.py": "class Graph:\n    pass\n",
        "algos/__init__.py": "from mylib.algos.paths import *\n",
        "algos/paths.py": "def shortest(g):\n    return g\n",
        "scripts/bench.py": "def shortest(g):\n    return g\n",
        "tests/test_paths.py": ("import mylib as nx\n\n\ndef test_shortest():\n"
                                "    assert nx.shortest(nx.Graph())\n"),
    })
    test = "def:tests/test_paths.py::test_shortest"
    assert (test, "def:algos/paths.py::shortest") in calls
    assert (test, "def:graphs.py::Graph") in calls


def test_languages_that_see_names_without_importing_them(tmp_path: Path) -> None:
    calls = _calls(tmp_path, {
        "c/util.c": "int helper(int x) { return x; }\n",
        "c/main.c": "int main(void) { return helper(1); }\n",
        "go/a/a.go": "package a\nfunc Helper() int { return 1 }\n",
        "go/a/b.go": "package a\nfunc Use() int { return Helper() }\n",
        "go/c/c.go": "package c\nfunc Other() int { return Helper() }\n",
        "js/util.js": "export function helper() { return 1; }\n",
        "js/main.js": "function main() { return helper(); }\n",
    })
    assert ("def:c/main.c::main", "def:c/util.c::helper") in calls  # C: repository-unique
    assert ("def:go/a/b.go::Use", "def:go/a/a.go::Helper") in calls  # Go: same package
    assert ("def:go/c/c.go::Other", "def:go/a/a.go::Helper") not in calls
    assert ("def:js/main.js::main", "def:js/util.js::helper") not in calls  # JS: imports only


def test_javascript_namespace_and_named_imports(tmp_path: Path) -> None:
    calls = _calls(tmp_path, {
        "src/math.js": "export function add(a, b) { return a + b; }\n",
        "src/app.js": ("import * as m from './math';\nimport { add as plus } from './math';\n"
                       "function one() { return m.add(1, 2); }\n"
                       "function two() { return plus(1, 2); }\n"),
    })
    assert _into(calls, "def:src/math.js::add") == {"def:src/app.js::one", "def:src/app.js::two"}


def test_java_class_imports_and_this(tmp_path: Path) -> None:
    calls = _calls(tmp_path, {
        "src/a/Cart.java": ("package a;\npublic class Cart {\n"
                            "  public void pay() { this.check(); }\n"
                            "  void check() {}\n}\n"),
        "src/b/Shop.java": ("package b;\nimport a.Cart;\npublic class Shop {\n"
                            "  void buy() { Cart c = new Cart(); c.add(); c.pay(); }\n}\n"),
        "src/c/Cart.java": "package c;\npublic class Cart {\n  public void pay() {}\n}\n",
    })
    assert ("def:src/a/Cart.java::Cart.pay", "def:src/a/Cart.java::Cart.check") in calls
    assert ("def:src/b/Shop.java::Shop.buy", "def:src/a/Cart.java::Cart") in calls
    assert ("def:src/b/Shop.java::Shop.buy", "def:src/a/Cart.java::Cart.pay") in calls


def test_tests_edges_follow_the_resolved_calls(tmp_path: Path) -> None:
    tests = _calls(tmp_path, {
        "cli.py": CLI,
        "tests/test_lists.py": "def test_position():\n    assert [3, 4].index(4) == 1\n",
        "tests/test_cli.py": "from cli import index\n\n\ndef test_index():\n"
                             "    assert index('p') == 'p'\n",
    }, kind="tests")
    assert tests == {("def:tests/test_cli.py::test_index", "def:cli.py::index")}
