"""A unit set against the asked one by a contrast, whatever the vocabulary knows (issue 32,
meaning16; controller/unit_contrast.py): "in tokens, not characters" names tokens instead of
characters though neither is a unit of the tables, read from the sentence's structure (the
contrast's marks and words around the asked unit), never from a list of units. The cases with
a word named fail on main (None there: the unit named instead came only from the vocabulary);
the None ones guard what is no such unit."""

from __future__ import annotations

import pytest

from controller.units import stated_instead, states_unit

QUANTITY = ("quota", "batch size", "limit", "ticket price", "rotation")


@pytest.mark.parametrize(("text", "unit", "instead"), [
    ("The quota is counted in tokens, not characters.", "characters", "tokens"),
    ("The quota is counted in tokens (not characters).", "characters", "tokens"),
    ("quota: tokens, not characters", "characters", "tokens"),
    ("The batch size is in rows rather than pages.", "pages", "rows"),
    ("The limit is given in requests instead of calls.", "calls", "requests"),
    ("Batch size is pages, not rows.", "rows", "pages"),
    ("The quota isn't characters but tokens.", "characters", "tokens"),
    ("The quota is not in characters but in tokens.", "characters", "tokens"),
    ("Ticket prices: JPY (not sen).", "sen", "JPY"),  # a known unit against an unknown one
    ("Rotation is in turns, not degrees.", "deg", "turns"),
    # what stands in no unit's place, a function word, a number: no unit instead
    ("The quota is counted per user, not in characters.", "characters", None),
    ("Send 12.50, not 1250 cents.", "cents", None),
    ("The quota is it, not characters.", "characters", None),
    ("A value is given, not characters.", "characters", None),  # a participle
])
def test_the_word_a_contrast_keeps_is_the_unit_instead(text: str, unit: str,
                                                       instead: str | None) -> None:
    assert not states_unit(text, unit, QUANTITY), text
    assert stated_instead(text, unit, QUANTITY) == instead, text


def test_the_word_kept_is_stated() -> None:
    assert states_unit("The quota is counted in tokens, not characters.", "tokens", QUANTITY)
    assert stated_instead("The quota is counted in tokens, not characters.", "tokens",
                          QUANTITY) is None
