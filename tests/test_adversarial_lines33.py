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


@pytest.mark.timeout(60)
def test_a_long_clause_of_past_and_evaluative_cues_denies_each_scope_as_a_range() -> None:
    # each "formerly", "used to be" and "wrong" listed its whole clause (or the rest of it) and
    # denied it token by token: at 200 KB 'wrong ' about 50 s, 'used to be ' 40 s,
    # 'formerly ' 15 s; well under a second each now
    from helix.core.negation import read

    reading = read("wrong " * (2 * LINE // 6))
    assert not reading.denied[0] and all(reading.denied[1:]) and not any(reading.reaches)
    for cue in ("used to be ", "formerly "):
        reading = read(cue * (2 * LINE // len(cue)))
        assert all(reading.denied) and not any(reading.reaches)
    words = "GPa was wrong , the deprecated GPa field is kept , formerly GPa ; now pascal"
    reading = read(words)
    assert [t.text for t, d in zip(reading.tokens, reading.denied, strict=True) if d] == [
        "GPa", "was", "wrong", "GPa", "field", "formerly", "GPa"]


@pytest.mark.timeout(60)
def test_a_long_line_of_negated_evaluations_makes_each_scope_even_run_by_run() -> None:
    # each negated "wrong" (and a negated change, "never switched from") made the count of every
    # token of the rest of its clause even one token at a time: 1.6 s at 10 KB, 40 s at 50 KB,
    # minutes at 100 KB
    from helix.core.negation import read

    reading = read("not wrong " * (LINE // 10))
    assert reading.reaches[:5] == (0, 1, 2, 3, 4) and all(reading.denied[1::2])
    assert not any(reading.denied[::2])
    reading = read("never switched from " * (LINE // 20))
    assert reading.reaches[:7] == (0, 1, 1, 2, 3, 3, 4) and sum(reading.denied) == LINE // 10


def test_counts_made_even_run_by_run_are_the_counts_made_even_one_by_one() -> None:
    from helix.core.negation_reach import Parities

    rng = random.Random(7)
    for _ in range(3000):
        n = rng.randint(1, 20)
        counts, naive = Parities(n), [0] * n
        for _ in range(rng.randint(1, 30)):
            lo = rng.randint(0, n)
            hi = rng.randint(lo, n)
            if rng.random() < 0.5:
                value = rng.randint(0, 3)
                counts.add(lo, hi, value)
                naive[lo:hi] = [v + value for v in naive[lo:hi]]
            else:
                counts.make_even(range(lo, hi))
                naive[lo:hi] = [v + v % 2 for v in naive[lo:hi]]
            assert counts.values() == naive and [counts.get(i) for i in range(n)] == naive


@pytest.mark.timeout(60)
def test_claims_in_a_long_text_find_their_sentence_by_bisection() -> None:
    # each claim read the text before it for the last sentence end and searched the rest of
    # the line for the next: 7.8 s at 100 KB of 'the evidence does not show ', 6.6 s at 100 KB
    # of 'nothing about drafts. ', over a minute at 300 KB
    from helix.synthesis.absence import _sentence, absence_claims
    from helix.synthesis.absence_asked import missing_subjects

    claims = absence_claims("the evidence does not show " * (3 * LINE // 27))
    assert [(c.start, c.end, c.terms) for c in claims] == [(4, 26, ())]
    subjects = missing_subjects("nothing about drafts. " * (3 * LINE // 22))
    assert len(subjects) == 3 * LINE // 22 and subjects[1] == (22, "drafts.")
    assert _sentence("a. b c.\nd", 4, 5) == (3, 7) and _sentence("a.  b", 3, 3) == (3, 5)


@pytest.mark.timeout(60)
def test_a_long_word_of_letters_is_not_read_for_swapped_letters_of_a_name() -> None:
    # a word no unit name is read with each two neighbouring letters swapped, each swap a new
    # copy of the word looked up: 3.2 s at 100 KB, over a minute at 500 KB
    from controller.unit_names import _named
    from controller.units import unit_lines

    assert unit_lines("kPa" * (5 * LINE // 3), "MB") == []
    assert _named("kilometres") is not None and _named("kilomteres") == _named("kilometres")
