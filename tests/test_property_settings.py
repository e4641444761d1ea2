"""The suite's Hypothesis profile (tests/conftest.py): a property test has no deadline, so a
busy machine cannot fail an example of a pure function; performance is measured in
benchmarks/. A test's own settings still choose its number of examples."""

from __future__ import annotations

import hypothesis
from hypothesis import given
from hypothesis import strategies as st


def test_property_tests_have_no_deadline() -> None:
    assert hypothesis.settings().deadline is None
    assert hypothesis.settings.default.deadline is None


@hypothesis.settings(max_examples=7)
@given(st.integers())
def _counted(n: int) -> None:
    _SEEN.append(n)


_SEEN: list[int] = []


def test_a_tests_own_settings_keep_their_number_of_examples() -> None:
    _counted()
    assert 1 <= len(_SEEN) <= 7
