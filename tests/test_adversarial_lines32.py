"""Long adversarial lines a repository may hold, round 31 (review32): each reader changed here
walked a long line once per cue, word or match and took tens of seconds to minutes on these
lines; the timeout is only a safety net (the sizes are such that the old code takes over a
minute), the fixed code takes a second or two."""

from __future__ import annotations

import pytest

LINE = 100_000  # characters of one adversarial line


@pytest.mark.timeout(60)
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


@pytest.mark.timeout(60)
def test_a_long_line_of_password_names_judges_each_value_window_once() -> None:
    # every name's value (4,096 characters of the names after it) was judged again, its seed
    # phrase read to the line's end, and the one finding (the whole line) searched for by RE2
    # as one 100 KB literal, which its DFA cannot hold: 8.5 s at 50 KB, 17 s at 100 KB, over
    # 250 s at 300 KB (2.4 s now)
    from helix.core.secrets import find_secrets

    line = "password=" * (3 * LINE // 9)
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


@pytest.mark.timeout(60)
def test_a_long_run_of_digits_and_colons_is_read_once_for_citations() -> None:
    # `(?![\d:]+\b)` read the rest of the run from each of its characters before refusing
    # a citation there: 3 s at 30 KB, 32 s at 100 KB, minutes at 200 KB
    from helix.synthesis.absence import content_terms
    from helix.synthesis.absence_citations import PATTERN, Citations

    assert content_terms("::1" * (2 * LINE // 3)) == ()
    text = "see ::1::1 " + "1:" * 5 + "a:12-3 and [E1, E2] x1:2:3a:1 ::1 q"
    assert [m.span() for m in Citations().finditer(text)] == [
        m.span() for m in PATTERN.finditer(text)]


@pytest.mark.timeout(60)
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


@pytest.mark.timeout(60)
def test_a_line_of_struck_mentions_reads_each_replacement_once() -> None:
    # each struck-out mention read the rest of its line for the unit replacing it (the line's
    # last strike is the one kept) and counted the lines before it: over 100 s at 42 KB
    from controller.units import unit_lines

    lines = unit_lines("~~MB~~ " * (LINE // 7), "MB")
    assert [(u.offset, u.states, u.instead) for u in lines] == [(0, False, None)]
    text = "The size is ~~MB~~ GB, ~~MB~~ KiB.\nIs it in MB?\nNo, GB.\n"
    assert [(u.offset, u.states, u.instead) for u in unit_lines(text, "MB")] == [
        (0, False, "GB"), (1, False, "GB")]
    text = "It was ~~MB~~ KiB then ~~MB~~ GB\n"
    assert [(u.offset, u.states, u.instead) for u in unit_lines(text, "MB")] == [
        (0, False, "KiB")]


@pytest.mark.timeout(60)
def test_a_line_of_questions_answered_no_reads_each_reply_once() -> None:
    # each question read the whole rest of the text as its reply: 5.6 s at 48 KB, 22 s at
    # 100 KB, about four times that at 200 KB
    from helix.core.negation import read

    reading = read("MB? No. " * (2 * LINE // 8))
    assert all(reading.denied[::4]) and all(reading.denied[1::4])
    assert not any(reading.denied[2::4]) and not any(reading.denied[3::4])
    reading = read("Is it kPa? **No**, pascal.")
    assert [t.text for t, d in zip(reading.tokens, reading.denied, strict=True) if d] == [
        "Is", "it", "kPa", "?", "*", "*"]
