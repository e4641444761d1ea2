"""What a focused object stands for in the index graph, and its callers / tests (T4).

    resolve_focus_symbols(graph, target, context=..., section_text=..., max_symbols=...)
    graph_followup(graph, focus, kind, turn_id=..., max_items=...)

A graph follow-up ("who calls it?", "where is it tested?") acts on whatever is focused: a
definition, a span, a doc section, a file. The focus is resolved to definitions
deterministically, in this order:
    a definition node                 -> that definition
    a span inside a definition        -> the innermost enclosing definition
    a doc section / tree node         -> the definitions it documents (`documents` edges), else
                                         the identifiers its text names that are definitions
    a file or a module window         -> the file's definitions the question context names,
                                         else the file itself (its importers, the tests that
                                         exercise its definitions)
Several definitions are answered together (the first `max_symbols` in a stable order). When
the definitions have no edges of the asked kind but the file holding them does, the answer
widens to that file and says so: it never reports "none" while the graph has edges for the
focused file's definitions. Graph reads only: no root retrieval.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from controller.continuity import phrases as say
from controller.continuity import rules
from controller.continuity.optionsets import make_option_set
from controller.continuity.state import OptionSet, TargetRef
from controller.route import route_question
from helix.core.policy import RoutingPolicy
from indexers.graph import is_test_path

if TYPE_CHECKING:
    import networkx as nx

    from controller.continuity.turn_plan import Intent, Turn, TurnPlan

GraphKind = Literal["callers", "tests"]
Basis = Literal["definition", "enclosing definition", "documented by the section",
                "documented under the section", "named in the section",
                "named in the question", "file", "none"]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_NAME_PART = re.compile(r"[A-Z]+\d*(?![a-z])|[A-Z]?[a-z]+\d*|\d+")
_WORD = re.compile(r"[a-z0-9]+")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_CODE_LIKE = re.compile(r"_|\.|[a-z0-9][A-Z]")
# two words name the same thing when they share this many leading letters ("built" ~ "build")
STEM_PREFIX = 4
# identifiers shorter than this in a section's text are never looked up as definitions
MIN_IDENT_CHARS = 3


@dataclass(frozen=True)
class FocusSymbols:
    """The definitions (or the file) a focused object stands for."""

    defs: tuple[str, ...]  # def node ids, stable order, at most max_symbols
    files: tuple[str, ...]  # file node ids the answer covers (file focus or widening)
    basis: Basis
    total: int  # definitions found before the bound

    def names(self, graph: nx.MultiDiGraph) -> list[str]:
        return [_qualname(node) for node in self.defs] or [
            str(graph.nodes[f].get("path", f)) for f in self.files if f in graph]


def _qualname(node: str) -> str:
    return node.split("::", 1)[-1]


def _is_def(node: Any) -> bool:
    return str(node).startswith("def:")


def _attrs(graph: nx.MultiDiGraph, node: str) -> dict:
    return dict(graph.nodes[node]) if node in graph else {}


def _order(graph: nx.MultiDiGraph, nodes: Iterable[str]) -> list[str]:
    def key(node: str) -> tuple[str, int, str]:
        a = _attrs(graph, node)
        return (str(a.get("path", "")), int(a.get("start_line") or 0), node)

    return sorted(set(nodes), key=key)


def _file_defs(graph: nx.MultiDiGraph, path: str) -> list[str]:
    return _order(graph, (str(n) for n, a in graph.nodes(data=True)
                          if _is_def(n) and a.get("path") == path))


def _name_parts(name: str) -> list[str]:
    return [p.lower() for p in _NAME_PART.findall(name.rsplit(".", 1)[-1])]


def _word_matches(part: str, words: set[str]) -> bool:
    if part in words:
        return True
    if len(part) < STEM_PREFIX:
        return False
    return any(len(w) >= STEM_PREFIX and w[:STEM_PREFIX] == part[:STEM_PREFIX]
               and (w.startswith(part[:-1]) or part.startswith(w[:-1])) for w in words)


def _named_in(defs: list[str], context: str) -> list[str]:
    """The definitions every part of whose name the context mentions ("BM25 index built"
    names build_bm25_index and BM25Index)."""
    words = set(_WORD.findall(context.lower()))
    named = []
    for node in defs:
        parts = _name_parts(_qualname(node))
        if parts and all(_word_matches(p, words) for p in parts):
            named.append(node)
    return named


def _defs_by_name(graph: nx.MultiDiGraph) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for node in graph.nodes:
        if _is_def(node):
            qual = _qualname(str(node))
            for name in {qual, qual.rsplit(".", 1)[-1]}:
                out.setdefault(name, []).append(str(node))
    return out


def _enclosing_def(graph: nx.MultiDiGraph, path: str, start: int, end: int) -> str | None:
    inside = []
    for node in _file_defs(graph, path):
        a = _attrs(graph, node)
        lo, hi = int(a.get("start_line") or 0), int(a.get("end_line") or 0)
        if lo <= start and hi >= end:
            inside.append((hi - lo, -lo, node))
    return min(inside)[2] if inside else None


def code_names(text: str) -> list[str]:
    """The names a prose section gives as code, in order: its `code spans` that are bare
    identifiers ("`search/`" is a path, not one); with no code span, the words that look like
    code (snake_case, CamelCase, dotted). Plain words ("search", "index") are never names."""
    spans = _CODE_SPAN.findall(text)
    if spans:
        names = [s.strip().removesuffix("()") for s in spans]
        names = [n for n in names if _IDENT.fullmatch(n)]
    else:
        names = [w for w in _IDENT.findall(text) if _CODE_LIKE.search(w)]
    return list(dict.fromkeys(n for n in names if len(n) >= MIN_IDENT_CHARS))


def _bounded(defs: list[str], files: tuple[str, ...], basis: Basis,
             max_symbols: int) -> FocusSymbols:
    return FocusSymbols(defs=tuple(defs[:max_symbols]), files=files, basis=basis,
                        total=len(defs))


def resolve_focus_symbols(graph: nx.MultiDiGraph, target: TargetRef, *, context: str,
                          section_text: str = "", max_symbols: int) -> FocusSymbols:
    """The definitions `target` stands for (see the module docstring for the order)."""
    node = target.id if target.id in graph else None
    if node is not None and _is_def(node):
        return FocusSymbols(defs=(node,), files=(), basis="definition", total=1)
    kind = str(_attrs(graph, node).get("kind", "")) if node else ""
    if kind in ("section", "tree") or target.kind in ("section", "tree_node"):
        documented = _order(graph, (str(v) for _, v, k in graph.out_edges(node, keys=True)
                                    if k == "documents" and _is_def(v))) if node else []
        if documented:
            return _bounded(documented, (), "documented by the section", max_symbols)
        by_name = _defs_by_name(graph)
        named: list[str] = []
        for ident in code_names(section_text):
            named += [d for d in _order(graph, by_name.get(ident, ())) if d not in named]
        if named or node is None:
            return _bounded(named, (), "named in the section" if named else "none",
                            max_symbols)
        # a heading over subsections (a document's title): what its subsections document
        under = _documented_under(graph, node)
        return _bounded(under, (), "documented under the section" if under else "none",
                        max_symbols)
    path = target.path or (str(_attrs(graph, node).get("path", "")) if node else "")
    file_node = f"file:{path}"
    if not path or file_node not in graph:
        return FocusSymbols(defs=(), files=(), basis="none", total=0)
    whole_file = node == file_node or target.start_line is None
    if not whole_file:
        assert target.start_line is not None
        enclosing = _enclosing_def(graph, path, target.start_line,
                                   target.end_line or target.start_line)
        if enclosing is not None:
            return FocusSymbols(defs=(enclosing,), files=(), basis="enclosing definition",
                                total=1)
    named = _named_in(_file_defs(graph, path), context)
    if named:
        return _bounded(named, (), "named in the question", max_symbols)
    return FocusSymbols(defs=(), files=(file_node,), basis="file", total=0)


def _documented_under(graph: nx.MultiDiGraph, node: str) -> list[str]:
    """The definitions the sections nested in `node` document (`documents` edges), the
    nearest level that documents any, in a stable order."""
    level = [str(v) for _, v, k in graph.out_edges(node, keys=True)
             if k == "contains" and str(v).startswith("sec:")]
    while level:
        found = {str(v) for sec in level for _, v, k in graph.out_edges(sec, keys=True)
                 if k == "documents" and _is_def(v)}
        if found:
            return _order(graph, found)
        level = [str(v) for sec in level for _, v, k in graph.out_edges(sec, keys=True)
                 if k == "contains" and str(v).startswith("sec:")]
    return []


_CONSTRUCTORS = ("__init__", "__new__", "constructor")


def _members(graph: nx.MultiDiGraph, node: str) -> list[str]:
    """A definition and the definitions nested in it (a class and its methods); a
    constructor also stands for its class (calling the class calls it)."""
    out = [node, *(str(v) for _, v, k in graph.out_edges(node, keys=True)
                   if k == "contains" and _is_def(v))]
    if _qualname(node).rsplit(".", 1)[-1] in _CONSTRUCTORS:
        out += [str(u) for u, _, k in graph.in_edges(node, keys=True)
                if k == "contains" and _is_def(u)]
    return out


def graph_or_explain(build: Callable[[Intent], TurnPlan | None], intent: Intent,
                     t: Turn) -> TurnPlan | None:
    """`build(intent)`, a graph follow-up on the object the message means; an explanation of it
    (`build("explain_focused")`) when that object is a test (a test file, or a test function
    or method in one: its name starts with "test") and the words name no edge of the graph
    (`GRAPH_EDGE`: "what does that test call?" asks what it calls), or when the message points
    at it as a test ("this test", `TEST_POINTER`), whatever it is. The test runner is all
    that calls a test and nothing tests it: "what is this test checking?" with a test open,
    read as a graph question (the word "test"), asks what the test does (T4 explain); where
    something is defined or found, with the test on screen, asks about another thing
    (a new question)."""
    plan, text = build(intent), t.body
    target = plan.target if plan is not None and plan.transition == "T4" else None
    if target is None or say.GRAPH_EDGE.search(text):
        return plan
    name = (target.symbol or "").rsplit(".", 1)[-1]
    test = bool(target.path) and is_test_path(target.path or "") \
        and (not name or name.lower().startswith("test"))
    if not test and not say.TEST_POINTER.search(text.lower()):
        return plan
    # "where is it defined in the engine?" with a test open: the test is on screen, so where
    # something is defined or found asks about another thing (a new question),
    # neither the test's callers nor its explanation
    route = route_question(text, routing=RoutingPolicy())
    if route.intent.route == "location" and route.action is None:
        return rules.root_question(t) if test else plan
    return build("explain_focused")


def _is_test(attrs: dict) -> bool:
    return is_test_path(str(attrs.get("path", "")))


def _collect(graph: nx.MultiDiGraph, defs: Iterable[str], files: Iterable[str],
             kind: GraphKind) -> dict[str, set[str]]:
    """source node -> the focused names it reaches, over calls / tests / imports edges."""
    found: dict[str, set[str]] = {}
    for focused in defs:
        inside = set(_members(graph, focused))
        for member in sorted(inside):
            for source, _, key in graph.in_edges(member, keys=True):
                source = str(source)
                if source in inside or not _is_def(source):
                    continue
                test = _is_test(_attrs(graph, source))
                wanted = (key == "calls" if kind == "callers"
                          else key == "tests" or (key == "calls" and test))
                if wanted:
                    found.setdefault(source, set()).add(_qualname(focused))
    for file_node in files:
        path = str(_attrs(graph, file_node).get("path", ""))
        own = set(_file_defs(graph, path))
        for member in own:
            for source, _, key in graph.in_edges(member, keys=True):
                source = str(source)
                a = _attrs(graph, source)
                if source in own or not _is_def(source):
                    continue
                if (key == "calls" if kind == "callers"
                        else key == "tests" or (key == "calls" and _is_test(a))):
                    found.setdefault(source, set()).add(_qualname(member))
        for source, _, key in graph.in_edges(file_node, keys=True):
            source = str(source)
            if key != "imports" or source == file_node:
                continue
            is_test = _is_test(_attrs(graph, source))
            already = any(_attrs(graph, s).get("path") == _attrs(graph, source).get("path")
                          for s in found)
            if (kind == "callers" or is_test) and not already:
                found.setdefault(source, set()).add(path)
    return found


@dataclass(frozen=True)
class GraphFollowup:
    focus: FocusSymbols
    option_set: OptionSet | None
    total: int  # entries found before the list's bound
    widened_to: str | None  # the file the answer widened to when the definitions had none


def graph_followup(graph: nx.MultiDiGraph, focus: FocusSymbols, kind: GraphKind, *,
                   turn_id: int, max_items: int) -> GraphFollowup:
    found = _collect(graph, focus.defs, focus.files, kind)
    widened = None
    if not found and focus.defs:
        paths = sorted({str(_attrs(graph, d).get("path", "")) for d in focus.defs})
        files = tuple(f"file:{p}" for p in paths if f"file:{p}" in graph)
        found = _collect(graph, (), files, kind)
        if found:
            widened = ", ".join(paths)
    ordered = _order(graph, found)
    several = len(focus.defs) + len(focus.files) > 1 or widened is not None
    entries = []
    for node in ordered[:max_items]:
        a = _attrs(graph, node)
        path = str(a.get("path", ""))
        title = _qualname(node) if _is_def(node) else path
        sub = f"{path}:{a.get('start_line', '?')}"
        if several:
            sub += " -> " + ", ".join(sorted(found[node]))
        ref = TargetRef(kind="symbol" if _is_def(node) else "file", id=node, label=title,
                        path=path or None, start_line=a.get("start_line"),
                        end_line=a.get("end_line"), symbol=title if _is_def(node) else None)
        entries.append((node, title, sub, ref, None))
    return GraphFollowup(focus=focus, option_set=make_option_set(turn_id, kind, kind, entries),
                         total=len(ordered), widened_to=widened)


_BASIS_TEXT: dict[Basis, str] = {
    "definition": "", "enclosing definition": "the definition enclosing the focused span",
    "documented by the section": "the definitions the focused section documents",
    "documented under the section": "the definitions its subsections document",
    "named in the section": "the definitions the focused section names",
    "named in the question": "the definitions of the focused file the question names",
    "file": "the focused file", "none": ""}


def describe_followup(kind: GraphKind, target: TargetRef, result: GraphFollowup,
                      graph: nx.MultiDiGraph) -> str:
    focus = result.focus
    shown_name = target.symbol or target.label or target.id
    names = focus.names(graph)
    what = "callers of" if kind == "callers" else "tests exercising"
    count = result.option_set and len(result.option_set.items)
    if count == 1:
        what = "caller of" if kind == "callers" else "test exercising"
    if not names:
        return (f"{shown_name} stands for no definition or file in the index graph, so it has "
                f"no {kind} edges to follow.")
    subject = ", ".join(names)
    if focus.total > len(focus.defs):
        subject += f" (the first {len(focus.defs)} of {focus.total})"
    basis = _BASIS_TEXT[focus.basis]
    lead = f"For {shown_name}: {basis}, {subject}." if basis else ""
    option_set = result.option_set
    if option_set is None:
        body = (f"The index graph has no {what} {subject} (calls/tests/imports edges; no root "
                "search ran).")
    else:
        more = (f" (showing {len(option_set.items)} of {result.total})"
                if result.total > len(option_set.items) else "")
        if result.widened_to:
            none = (f"Nothing calls {subject} directly" if kind == "callers"
                    else f"No test exercises {subject} directly")
            body = (f"{none}; {len(option_set.items)} {what} its file {result.widened_to}"
                    f"{more}:")
        else:
            body = f"{len(option_set.items)} {what} {subject} in the index graph{more}:"
    return f"{lead}\n{body}" if lead else body
