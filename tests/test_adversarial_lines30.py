"""Long adversarial lines a repository may hold, round 30 (review30): each reader changed here
read a long line once per cue, name or match and took seconds to minutes on these lines; the
timeout is only a safety net, the fixed code takes milliseconds."""

from __future__ import annotations

import pytest

LINE = 100_000  # characters of one adversarial line


@pytest.mark.timeout(10)
def test_a_long_clause_of_renames_without_a_new_name_is_read_once() -> None:
    # each "rename" walked the rest of its clause for "to": 7 s at 20 KB, minutes at 100 KB
    from helix.core.negation import read

    assert not any(read("rename " * (LINE // 7)).denied)
    reading = read("x " + "rename " * 3000 + "to y")
    assert [t.text for t, d in zip(reading.tokens, reading.denied, strict=True) if d] == [
        "rename"] * 2999
    reading = read("Please rename `dpi` to `dpr`.")
    assert [t.text for t, d in zip(reading.tokens, reading.denied, strict=True) if d] == [
        "`", "dpi", "`"]
