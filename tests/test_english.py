"""English text has one home (`helix.core.english`): its word lists relate as documented, its
stemmers and token estimates behave as named, and no other module keeps a word list of its own."""

from __future__ import annotations

import ast
from pathlib import Path

from helix.core import english

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("helix", "indexers", "controller", "evals")


def test_the_lists_relate_as_documented() -> None:
    assert english.FUNCTION_WORDS < english.QUESTION_WORDS
    assert {"explain", "implemented", "codebase"} <= english.QUESTION_WORDS
    assert {"found", "evidence", "snippet"} <= english.CLAIM_WORDS
    assert not {"up", "down", "out"} & english.CLAIM_WORDS  # can be a claim's object
    assert english.QUESTION_LEADS <= english.QUESTION_WORDS


def test_stemmers_and_token_estimates() -> None:
    assert english.plural_stem("tiles") == "tile" and english.plural_stem("class") == "class"
    assert english.suffix_stem("tokenizers") == "token"
    assert english.suffix_stem("uses") == "uses"  # fewer than four letters would remain
    assert english.tokens_by_chars("x" * 9, 4) == 3
    assert english.count_tokens("open it, please!") == 5
    assert [m.group() for m in english.token_spans("a-b")] == ["a", "-", "b"]


def _word_sets(tree: ast.AST) -> list[int]:
    """Line numbers of word lists holding eight or more function words: a text of at least
    20 bare lowercase words (a list written as text), or a set / list / tuple literal."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            words = node.value.split()  # a list written as text: bare lowercase words only
            if (len(words) >= 20 and all(w.isalpha() and w.islower() for w in words)
                    and len(set(words) & english.FUNCTION_WORDS) >= 8):
                found.append(node.lineno)
        elif isinstance(node, ast.Set | ast.List | ast.Tuple):
            words = {e.value for e in node.elts if isinstance(e, ast.Constant)
                     and isinstance(e.value, str)}
            if len(words & english.FUNCTION_WORDS) >= 8:
                found.append(node.lineno)
    return found


def test_no_other_module_keeps_a_word_list() -> None:
    owner = ROOT / "helix" / "core" / "english.py"
    stray = [f"{path.relative_to(ROOT)}:{line}"
             for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
             if path != owner
             for line in _word_sets(ast.parse(path.read_text(encoding="utf-8")))]
    assert stray == []
