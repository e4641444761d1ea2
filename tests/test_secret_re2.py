"""The scan's direct RE2 searches (`secret_re2`) find what the wrapper's `search` and
`finditer` find: the same spans, empty matches included, on ASCII and UTF-8 bytes."""

from __future__ import annotations

import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from helix.core.secret_re2 import first, spans

PATTERNS = [r"x*", r"(?i)pass|key", r"[A-Za-z0-9]{4,}", r"\bsk-|tok(en)?", r"$", r"(?m)^"]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="xX kKpassey-\n0123é", max_size=40))
def test_spans_are_finditer_spans(text: str) -> None:
    subject = text.encode("utf-8")
    for pattern in PATTERNS:
        compiled = re2.compile(pattern)
        assert list(spans(compiled, subject)) == [m.span() for m in compiled.finditer(subject)]


def test_first_is_search_from_an_offset() -> None:
    compiled = re2.compile(r"(?i)token")
    subject = b"a TOKEN, then token\n"
    assert first(compiled, subject) == (2, 7)
    assert first(compiled, subject, 3) == (14, 19)
    assert first(compiled, subject, 15) is None
