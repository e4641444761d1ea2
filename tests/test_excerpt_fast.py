"""An excerpt reads what it needs: the lines up to the first that matches (not every line of a
long definition), and its token counts from the lines' lengths (not a joined text per step);
the same excerpt as reading them all."""

from __future__ import annotations

import pytest

import controller.text as text_module
from controller.compaction import excerpt
from controller.text import lines_matching
from helix.core.english import tokens_by_chars
from helix.core.envelope import EvidenceItem


def _item(text: str) -> EvidenceItem:
    return EvidenceItem(id="a", path="pkg/m.py", start_line=10,
                        end_line=10 + text.count("\n"), kind="definition", score=1.0,
                        content_hash="h", node_id="def:pkg/m.py::f", reasons=(), text=text)


TEXT = "\n".join(["def decide(policy):", "    # the retry policy", *(
    f"    value_{n} = policy.retry({n})" for n in range(300))])


def test_the_lines_after_the_first_match_are_not_tokenized(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    read: list[str] = []
    token_set = text_module.token_set

    def counted(line: str) -> frozenset[str]:
        read.append(line)
        return token_set(line)

    monkeypatch.setattr(text_module, "token_set", counted)
    assert lines_matching(TEXT, ["retry policy"], first=True) == [1]
    assert len(read) == 2
    read.clear()
    cut = excerpt(_item(TEXT), ["retry policy"], 40, 3)
    assert len(read) == 2
    assert cut.start_line == 10 and "retry policy" in cut.text
    assert tokens_by_chars(cut.text, 4) <= 40


def _joined(item: EvidenceItem, terms: list[str], budget: int, context: int) -> tuple[int, str]:
    """The excerpt as it was made before: every line read, a joined text per step."""
    def tokens(text: str) -> int:
        return tokens_by_chars(text, 4)

    lines = item.text.splitlines()
    centre = (lines_matching(item.text, terms) or [0])[0]
    lo, hi = max(0, centre - context), min(len(lines), centre + context + 1)
    while lo > 0 or hi < len(lines):
        grown = False
        if hi < len(lines) and tokens("\n".join(lines[lo:hi + 1])) <= budget:
            hi, grown = hi + 1, True
        if lo > 0 and tokens("\n".join(lines[lo - 1:hi])) <= budget:
            lo, grown = lo - 1, True
        if not grown:
            break
    while hi - lo > 1 and tokens("\n".join(lines[lo:hi])) > budget:
        if hi - 1 > centre:
            hi -= 1
        else:
            lo += 1
    text = "\n".join(lines[lo:hi])
    return item.start_line + lo, text if tokens(text) <= budget else text[:budget * 4]


def test_the_excerpt_is_the_one_every_line_gives() -> None:
    long_lines = TEXT.replace("value_7 ", "value_7 " + "x" * 90 + " ")
    for text in (TEXT, long_lines, "", "one line only"):
        for terms in (["retry policy"], ["value_150"], ["absent"], []):
            for budget in (1, 7, 40, 200, 5000):
                for context in (0, 3):
                    cut = excerpt(_item(text), terms, budget, context)
                    assert (cut.start_line, cut.text) == _joined(_item(text), terms, budget,
                                                                 context)
