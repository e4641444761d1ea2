"""Long adversarial lines a repository may hold, round 31 (review32): each reader changed here
walked a long line once per cue, word or match and took tens of seconds to minutes on these
lines; the timeout is only a safety net, the fixed code takes well under a second."""

from __future__ import annotations

import pytest

LINE = 100_000  # characters of one adversarial line


@pytest.mark.timeout(10)
def test_a_long_clause_of_negations_finds_each_scope_end_without_walking_it() -> None:
    # each "not" walked the rest of its clause and counted a reach on every token of it:
    # 27 s at 50 KB, minutes at 100 KB
    from helix.core.negation import read

    reading = read("not " * (LINE // 4))
    assert reading.reaches[:4] == (0, 1, 2, 3) and reading.reaches[-1] == LINE // 4 - 1
    assert sum(reading.denied) == LINE // 8
    reading = read("it is (not GPa, but) not " + "x " * (LINE // 2) + ". never MB")
    assert [t.text for t, d in zip(reading.tokens, reading.denied, strict=True) if d][:3] == [
        "GPa", "x", "x"] and reading.denied[-1]


@pytest.mark.timeout(10)
def test_a_long_line_of_password_names_judges_each_value_window_once() -> None:
    # every name's value (4,096 characters of the names after it) was judged again, its seed
    # phrase read to the line's end, and the one finding (the whole line) searched for by RE2
    # as one 100 KB literal, which its DFA cannot hold: 8.5 s at 50 KB, over 20 s at 100 KB
    from helix.core.secrets import find_secrets

    line = "password=" * (LINE // 9)
    assert [(f.start, f.end) for f in find_secrets(line)] == [(0, len(line) - 9)]
    phrase = "mnemonic: " + " ".join(["abandon", "ability", "able"] * 4)
    assert [(f.start, f.end) for f in find_secrets(phrase)] == [(10, len(phrase))]


def test_long_literals_are_found_where_the_re2_alternation_finds_them() -> None:
    # past DFA_LITERALS characters of values, `str.find` stands in for RE2's alternation
    import random

    import helix.core.secret_literals as literals

    rng = random.Random(5)
    for _ in range(2000):
        text = "".join(rng.choice("abé ") for _ in range(rng.randint(0, 60)))
        values = sorted({"".join(rng.choice("abé ") for _ in range(rng.randint(1, 5)))
                         for _ in range(rng.randint(1, 4))}, key=lambda v: (-len(v), v))
        by_re2 = literals.literal_spans(text, values)
        limit, literals.DFA_LITERALS = literals.DFA_LITERALS, 0
        try:
            assert literals.literal_spans(text, values) == by_re2, (text, values)
        finally:
            literals.DFA_LITERALS = limit


@pytest.mark.timeout(10)
def test_a_long_run_of_digits_and_colons_is_read_once_for_citations() -> None:
    # `(?![\d:]+\b)` read the rest of the run from each of its characters before refusing
    # a citation there: 3 s at 30 KB, 32 s at 100 KB
    from helix.synthesis.absence import content_terms
    from helix.synthesis.absence_citations import PATTERN, Citations

    assert content_terms("::1" * (LINE // 3)) == ()
    text = "see ::1::1 " + "1:" * 5 + "a:12-3 and [E1, E2] x1:2:3a:1 ::1 q"
    assert [m.span() for m in Citations().finditer(text)] == [
        m.span() for m in PATTERN.finditer(text)]


@pytest.mark.timeout(10)
def test_a_long_sentence_of_bare_negations_reads_what_precedes_each_once() -> None:
    # each clause took the paths out of, and read, the whole sentence before it: 0.8 s at
    # 8 KB, minutes at 100 KB, with or without blanks between the clauses
    from helix.core.envelope import EvidenceItem
    from helix.synthesis.absence_grounded import grounded

    evidence = [EvidenceItem(
        id="E1", path="a.py", start_line=1, end_line=2, kind="code", score=1.0,
        content_hash="0" * 64, node_id="n", reasons=(), text="drafts never appear in the feed")]
    assert grounded("no, " * (LINE // 4), evidence) == (0.0,)
    assert grounded("no," * (LINE // 3), evidence) == (0.0,)
    assert grounded("I found, not drafts, no drafts appear. Drafts never appear", evidence)[0] > 0
