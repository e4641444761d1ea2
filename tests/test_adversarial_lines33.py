"""Long adversarial lines a repository may hold, round 32 (review33): each reader changed here
re-read a long line once per clause, word or match; the timeout is only a safety net (the
sizes are such that the old code takes over a minute), the fixed code takes well under a
second."""

from __future__ import annotations

import random

import pytest

LINE = 100_000  # characters of one adversarial line


def _evidence() -> list:
    from helix.core.envelope import EvidenceItem

    return [EvidenceItem(
        id="E1", path="a.py", start_line=1, end_line=2, kind="code", score=1.0,
        content_hash="0" * 64, node_id="n", reasons=(), text="drafts never appear in the feed")]


@pytest.mark.timeout(60)
def test_a_blank_free_word_of_dots_and_negations_is_read_once_for_paths() -> None:
    # each bare negation took the paths out of the whole word before it again once the word
    # held a '.' or '/': 6.9 s at 24 KB, about two minutes at 100 KB
    from helix.synthesis.absence_grounded import grounded

    assert grounded("no.," * (LINE // 4), _evidence()) == (0.0,)
    assert grounded("no.(" * (LINE // 4), _evidence()) == (0.0,)
    # a path's words are no finding; what follows a file name's end or a '(' is read
    assert grounded("x/I,no drafts appear", _evidence())[0] > 0
    assert grounded("x.md:3,no drafts appear", _evidence())[0] > 0
    assert grounded("x.md(I,no drafts appear", _evidence()) == (0.0,)
    assert grounded("x.md,I,no drafts appear", _evidence()) == (0.0,)


def test_a_path_word_read_piece_by_piece_reads_as_the_whole_word() -> None:
    from helix.synthesis.absence_grounded import _PathWord, _words_about_finding

    rng = random.Random(3)
    parts = ["no", "i", "see", "docs", "py", "x", "/", ".", "(", "[", ",", ":", "–", "1",
             "'t", "K", "İ", "found", "md", "abcdef", ")"]
    for _ in range(3000):
        word = "".join(rng.choice(parts) for _ in range(rng.randint(1, 30)))
        path = _PathWord(word, 0)
        for end in sorted({rng.randint(0, len(word)) for _ in range(6)}):
            assert path.about(end) == _words_about_finding(word[:end]), (word, end)
