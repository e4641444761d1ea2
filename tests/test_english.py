"""English text has one home (`helix.core.english`): its word lists relate as documented, its
stemmers and token estimates behave as named, and no other module keeps a word list of its own."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from typing import NamedTuple

from helix.core import english

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("helix", "indexers", "controller", "evals")


def _walk(tree: ast.AST | list[ast.AST]) -> list[ast.AST]:
    """The tree's nodes (`ast.walk`'s order), or the list of them already walked: each module
    is walked once for the three guards below."""
    return tree if isinstance(tree, list) else list(ast.walk(tree))


class _Found(NamedTuple):
    path: Path
    word_sets: list[int]
    alternation_sites: list[int]
    suffix_cuts: list[int]


@functools.lru_cache(maxsize=1)
def _modules() -> tuple[_Found, ...]:
    """What each guard below finds in every module of PACKAGES, each module parsed once for
    the three (its tree is not kept: half a million nodes alive slowed every later test's
    garbage collection)."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            nodes = list(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))
            found.append(_Found(path, _word_sets(nodes), _alternation_sites(nodes),
                                _suffix_cuts(nodes)))
    return tuple(found)


def test_the_lists_relate_as_documented() -> None:
    assert english.FUNCTION_WORDS < english.QUESTION_WORDS
    assert {"explain", "implemented", "codebase"} <= english.QUESTION_WORDS
    assert {"found", "evidence", "snippet"} <= english.CLAIM_WORDS
    assert not {"up", "down", "out"} & english.CLAIM_WORDS  # can be a claim's object
    assert english.QUESTION_LEADS <= english.QUESTION_WORDS


# What each caller relies on, one row per rule: the word, then `stems` at each strength. The
# strengths are the three stemmers they replace (plural_stem, suffix_stem and
# inflection_variants, merged into `stems` in issue 30; equal on the 158,075 distinct words of
# Helix, the standard library and networkx when they merged).
_STEMS = {
    # word         plural              suffix                   inflection
    "tiles":      (("tile", "tiles"),  ("tile", "tiles"),       ("til", "tile", "tiles")),
    "class":      (("class",),         ("clas", "class"),       ("class",)),
    "bus":        (("bus",),           ("bus",),                ("bus",)),
    "uses":       (("use", "uses"),    ("uses",),               ("use", "uses")),
    "tokenizers": (("tokenizer", "tokenizers"), ("token", "tokenizers"),
                   ("tokenizer", "tokenizers")),
    "serialization": (("serialization",), ("serial", "serialization"), ("serialization",)),
    "decided":    (("decided",),       ("decid", "decided"),    ("decide", "decid", "decided")),
    "stopped":    (("stopped",),       ("stopp", "stopped"),
                   ("stoppe", "stopp", "stop", "stopped")),
    "running":    (("running",),       ("runn", "running"),
                   ("runn", "runne", "run", "running")),
    "applied":    (("applied",),       ("appli", "applied"),
                   ("apply", "applie", "appli", "applied")),
    "policies":   (("policie", "policies"), ("polici", "policies"),
                   ("policy", "polici", "policie", "policies")),
    "built":      (("built",),         ("built",),              ("build", "built")),
    "read":       (("read",),          ("read",),               ("read",)),
}


def test_one_stemmer_at_three_strengths() -> None:
    """`stems` is the only stemmer (`helix.core.english` names no other), and each strength
    does what its callers rely on: the stem first, the word itself last."""
    named = sorted(n for n in dir(english) if not n.startswith("_") and callable(getattr(
        english, n)) and ("stem" in n.lower() or "inflect" in n.lower()))
    assert named == ["stems"]
    found = {w: tuple(english.stems(w, s) for s in ("plural", "suffix", "inflection"))
             for w in _STEMS}
    assert found == _STEMS


def test_token_estimates() -> None:
    assert english.tokens_by_chars("x" * 9, 4) == 3
    assert english.count_tokens("open it, please!") == 5
    assert [m.group() for m in english.token_spans("a-b")] == ["a", "-", "b"]


def test_one_ordinal_parser() -> None:
    from controller.continuity.pending import parse_ordinal
    from controller.continuity.selection_match import parse_selection_input

    assert [english.ordinal_value(t) for t in ("second", "2nd", "2", "two", "Last", "x")] == [
        2, 2, 2, 2, english.LAST, None]
    assert parse_ordinal("the eighth one", 9) == 8 and parse_ordinal("last", 3) == 3
    assert parse_ordinal("ok then, option 2 please", 3) == 2
    assert parse_selection_input("open the third one").ordinal == 3
    assert parse_selection_input("open the last").ordinal == english.LAST
    assert parse_selection_input("open that one").ordinal is None  # "one" is not a position


def _word_sets(tree: ast.AST | list[ast.AST]) -> list[int]:
    """Line numbers of word lists holding eight or more function words: a text of at least
    20 bare lowercase words (a list written as text), or a set / list / tuple literal."""
    found = []
    for node in _walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            words = node.value.split()  # a list written as text: bare lowercase words only
            if (len(words) >= 20 and all(w.isalpha() and w.islower() for w in words)
                    and len(set(words) & english.FUNCTION_WORDS) >= 8):
                found.append(node.lineno)
        elif isinstance(node, ast.Set | ast.List | ast.Tuple):
            listed = {e.value for e in node.elts if isinstance(e, ast.Constant)
                      and isinstance(e.value, str)}
            if len(listed & english.FUNCTION_WORDS) >= 8:
                found.append(node.lineno)
    return found


def test_no_other_module_keeps_a_word_list() -> None:
    owner = ROOT / "helix" / "core" / "english.py"
    stray = [f"{m.path.relative_to(ROOT)}:{line}" for m in _modules() if m.path != owner
             for line in m.word_sets]
    assert stray == []


_ALTERNATIVE = re.compile(r"[a-z]+(?:'[a-z]+)?(?: [a-z]+(?:'[a-z]+)?)*")
_REGEX_MARKS = re.compile(r"\?[aiLmsux]+\)?|\\[bsS][*+?]?|\?:|\?<?[=!]|[?^$*+]|\\s")
# (an inline flag, `(?i)`, is no word)


def _alternation_sites(tree: ast.AST | list[ast.AST]) -> list[int]:
    """Line numbers of regex alternations of five or more English words or phrases: a string
    whose parts between `|` and group marks are, once `\\b`, `\\s`, `?:` and the like are
    dropped, bare lowercase words (a word list written as a regex)."""
    docstrings = {id(node.body[0].value) for node in _walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                                | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)}
    found = []
    for node in _walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str) and "|" in node.value
                and id(node) not in docstrings):
            parts = (" ".join(_REGEX_MARKS.sub(" ", part).split())
                     for part in re.split(r"[|()]", node.value))
            if sum(1 for part in parts if part and _ALTERNATIVE.fullmatch(part)) >= 5:
                found.append(node.lineno)
    return sorted(set(found))


# Word lists written as regex alternations that have not moved to a vocabulary yet (sites per
# module). The count may only go down: a new one belongs in `helix.core.english` or a
# vocabulary file (`controller/route_phrases.toml`, `controller/continuity/vocabulary.toml`).
ALTERNATIONS_LEFT: dict[str, int] = {
    "controller/evidence.py": 1,
    "evals/history/rules.py": 4,
    "evals/html_report.py": 1,
    "helix/core/secret_blocks.py": 1,
    "helix/core/secret_gates.py": 1,
    "helix/core/secret_places.py": 5,
    "helix/core/secret_plugins.py": 3,  # format gates: the prefilter's triggers, one a plugin
    "helix/core/secret_prefilter.py": 8,
    "helix/core/secret_shapes.py": 1,
    "helix/core/secret_structure.py": 2,
    "helix/core/secrets.py": 1,
    "helix/store/db.py": 1,
    "helix/synthesis/absence.py": 21,
    "helix/synthesis/citations.py": 1,  # moved from contract.py (meaning9)
    "helix/synthesis/contract.py": 1,
    "helix/staledocs/sections.py": 1,  # came with helix stale-docs (issue 34)
}


def test_the_guard_sees_a_word_list_written_as_a_regex() -> None:
    code = 'FILLER = re.compile(r"\\b(?:please|thanks|ok|okay|then|i mean)\\b", re.I)\n'
    assert _alternation_sites(ast.parse(code)) == [1]
    assert _alternation_sites(ast.parse('PATH = re.compile(r"(\\w+)/(\\w+)|[.]py$")\n')) == []
    assert _alternation_sites(ast.parse('X = rf"({word_alternation(WORDS)})"\n')) == []


def test_no_new_regex_alternation_of_english_words() -> None:
    counts: dict[str, int] = {}
    for m in _modules():
        if m.alternation_sites:
            counts[str(m.path.relative_to(ROOT))] = len(m.alternation_sites)
    grown = {name: (count, ALTERNATIONS_LEFT.get(name, 0)) for name, count in counts.items()
             if count > ALTERNATIONS_LEFT.get(name, 0)}
    assert grown == {}, "word lists written as regexes (found, allowed): move them to data"


def test_the_alternation_guard_counts_words_not_inline_flags() -> None:
    four = 'W = re.compile(r"(?i)\\b(?:cat|dog|owl|fox)\\b")\n'
    five = 'W = re.compile(r"(?i)\\b(?:cat|dog|owl|fox|elk)\\b")\n'
    assert _alternation_sites(ast.parse(four)) == []
    assert _alternation_sites(ast.parse(five)) == [1]


_INFLECTIONS = frozenset({"s", "es", "ies", "ed", "ied", "ing", "er", "ers"})


def _suffix_cuts(tree: ast.AST | list[ast.AST]) -> list[int]:
    """Line numbers of a stemmer's working: `.rstrip`, `.removesuffix` or `.endswith` of an
    English inflection ("s", "es", "ed", "ing", ...)."""
    return sorted({node.lineno for node in _walk(tree)
                   if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                   and node.func.attr in {"rstrip", "removesuffix", "endswith"} and node.args
                   and isinstance(node.args[0], ast.Constant)
                   and node.args[0].value in _INFLECTIONS})


def test_the_guard_sees_a_stemmer() -> None:
    assert _suffix_cuts(ast.parse('forms = {term.rstrip("s"), term.removesuffix("es")}\n')) == [1]
    assert _suffix_cuts(ast.parse('ok = name.endswith(".py") or name.rstrip("/")\n')) == []


def test_one_home_of_the_stemmers() -> None:
    """stems, plural_forms, looks_past_tense: no other
    module cuts an English ending off a word."""
    owner = ROOT / "helix" / "core" / "english.py"
    stray = [f"{m.path.relative_to(ROOT)}:{line}" for m in _modules() if m.path != owner
             for line in m.suffix_cuts]
    assert stray == []
    assert english.stems("decided", "inflection")[0] == "decide"
    assert {"test", "tests"} <= english.plural_forms("tests")
    assert english.looks_past_tense("Computed") and not english.looks_past_tense("size")


def test_the_continuity_ordinals_read_the_one_table() -> None:
    from controller.continuity.meaning import ordinals_in

    assert ordinals_in("open result 40") == [40]
    assert ordinals_in("the third one") == [3]
    assert ordinals_in("the 2nd one") == [2]
    assert ordinals_in("number to") == [2]  # dictated after a list noun
    assert ordinals_in("two mirrors") == []  # a bare number word is no position
