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
