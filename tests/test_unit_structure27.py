"""Negation scope by sentence structure (issue 32, meaning27): what "only looks like" a unit is
not in it; a past tense opening an aside in parentheses after what a sentence says is over
("in MiB (was bytes)"); after a past clause, when it ended ("until 1.4") and a clause with no
verb of its own ("in bytes in 2.0") go on with the past; a condition on what the reader means
after its clause ("write `512Mi` if you mean mebibytes") states nothing (helix/core/negation.toml
`forward`, `past_tense`, `elided_sequels`, `past_ends`, `suppositions`). fresh26 (data size in
MiB, now a tune set) had 3 of 63 denials confirmed and 4 of 40 statements missed; 1 and 0 after
these and tests/test_unit_scripts27.py. Every case is a wording of no data set; 8 of the 13
fail on the code before it (the others, a rival's denial and the units named instead, held
there already: they guard what the new readings must not undo)."""

from __future__ import annotations

import pytest

from controller.unit_names import unit_name
from controller.units import stated_instead, states_unit

CACHE = ("cache size",)


@pytest.mark.parametrize(("text", "unit", "states"), [
    # what only looks like it
    ("The cache size only looks like MB because the numbers are small; it counts pages.", "MB",
     False),
    ("These figures merely look like KiB; the cache size is a page count.", "KiB", False),
    # a past tense opening an aside after what the sentence says
    ("Returns the cache size in KiB (was MB).", "KiB", True),
    ("Returns the cache size in KiB (was MB).", "MB", False),
    ("The cache size is in GiB (were MB in the beta).", "GiB", True),
    # when the past ended, and a clause with no verb going on with it
    ("The cache size was in KB until 2.0, in MB in 2.1, and has been GiB since 3.0.", "GiB",
     True),
    ("The cache size was in KB until 2.0, in MB in 2.1, and has been GiB since 3.0.", "MB",
     False),
    ("The cache size was in KB before 1.2, as MB in 1.3, and is GiB now.", "GiB", True),
    # a condition on what the reader means
    ("Give the cache size in MB; use the `Mi` suffix if you mean mebibytes.", "MiB", False),
    ("Give the cache size in MB; use the `Mi` suffix if you mean mebibytes.", "MB", True),
    ("Set the cache size in pages, unless you want KiB, then add the suffix.", "KiB", False),
])
def test_a_unit_read_by_the_structure_of_its_sentence(text: str, unit: str,
                                                      states: bool) -> None:
    assert states_unit(text, unit, CACHE) is states, text


@pytest.mark.parametrize(("text", "unit", "instead"), [
    ("Returns the cache size in KiB (was MB).", "MB", "KiB"),
    ("Give the cache size in MB; use the `Mi` suffix if you mean mebibytes.", "MiB", "MB"),
])
def test_the_unit_stated_where_the_structure_denies_the_asked_one(text: str, unit: str,
                                                                  instead: str) -> None:
    found = stated_instead(text, unit, CACHE)
    assert found is not None and unit_name(found) == instead, (text, found)
