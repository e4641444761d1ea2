"""Units read by structure (issue 32, meaning9): the short names of durations, a unit as the
last word of an identifier named after the quantity, a negation that reaches a value, and what
only looks like a unit (a plural mark, a format specifier, a count of dimensions). Each case
marked `old` is judged the other way by the code before meaning9 (a2e1129)."""

from __future__ import annotations

import pytest

from controller.units import stated_instead, states_unit, unit_name

LIFETIME = ("cache lifetime",)


def test_the_short_names_of_durations() -> None:  # old: none of them was a unit's name
    assert unit_name("hrs") == unit_name("hr") == unit_name("hours") == "h"
    assert unit_name("min") == unit_name("mins") == "minute"
    assert unit_name("d") == "day"


@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    ("cache_ttl: int = 24  # hrs", "h", LIFETIME, True),  # old
    ('"""Cache lifetime, in hr. No other unit is accepted."""', "h", LIFETIME, True),  # old
    ("cache_lifetime = 45  # mins", "min", LIFETIME, True),  # old
    # the unit as the last word of an identifier named after the quantity
    ("CACHE_LIFETIME_HOURS = 12", "h", LIFETIME, True),  # old
    ("cacheLifetimeHours: 12", "h", LIFETIME, True),  # old
    ("request_timeout_ms = 500", "ms", ("request timeout",), True),  # old
    ("SESSION_TTL_HOURS = 12", "h", LIFETIME, False),  # another quantity's name
    ('raise ConfigError("cache_lifetime_hours was removed; use seconds")', "h", LIFETIME, False),
    # a negation reaching a value denies the value, not the unit
    ("You can't set the cache lifetime below one hour, because the value is a whole number "
     "of hours.", "h", LIFETIME, True),  # old
    ("The cache lifetime is never below 2 hours; it is given in hours.", "h", LIFETIME,
     True),  # old
    ("The cache lifetime is not in hours, and never below 2 hours.", "h", LIFETIME, False),
    # a plural mark is no unit: "hour(s)" names hours, never "(s)" seconds
    ('logger.info("cache lifetime set to %s hour(s)", n)', "h", LIFETIME, True),  # old
    # a format specifier is no unit, its width no value
    ('log.Printf("cache lifetime %5s", v)', "s", LIFETIME, False),  # old
    ('print(f"{cache_lifetime:>8s}")', "s", LIFETIME, False),  # old
    ("The cache lifetime is 30 s.", "s", LIFETIME, True),
    # a count of dimensions is no unit
    ("The cache lifetime is in days; hit counts sit in a 2d array.", "d", LIFETIME, True),
    ("The cache lifetime is in hours; hit counts sit in a 2d array.", "h", LIFETIME, True),
    ("Keep the cache lifetime at 7d.", "d", LIFETIME, True),
])
def test_units_by_structure(text: str, unit: str, quantity: tuple[str, ...],
                            states: bool) -> None:
    assert states_unit(text, unit, quantity) is states, text


@pytest.mark.parametrize(("text", "instead"), [
    ("`cache_ttl` sets the lifetime of a cached entry in minutes (not hours).", "minutes"),
    ("cache_lifetime: int = 90  # mins, never hrs", "mins"),  # old: no name for either
    ("Contrary to the admin guide, the cache lifetime is not an hour value but a count of "
     "days.", "days"),
])
def test_the_unit_named_instead_of_hours(text: str, instead: str) -> None:
    found = stated_instead(text, "h", LIFETIME)
    assert found is not None and unit_name(found) == unit_name(instead), (text, found)


@pytest.mark.parametrize(("text", "instead"), [
    # a one-letter name after "not" is the unit denied (old: not read as a unit)
    ("| `cache_lifetime` | integer | 300 | seconds (not h) |", "seconds"),
    # a hyphen written as a dash ends a clause: the negation before it does not reach the unit
    # after it (old: "seconds" read as denied too)
    ("Is `ttl` in hours? It isn't -- the cache lifetime is read as seconds.", "seconds"),
    ("Is `ttl` in hours? It isn't - the cache lifetime is read as seconds.", "seconds"),
])
def test_not_before_a_letter_and_a_dash(text: str, instead: str) -> None:
    assert stated_instead(text, "h", LIFETIME) == instead, text


def test_a_hyphen_inside_a_word_or_before_a_number_is_no_dash() -> None:
    from helix.core.negation import read

    reading = read("It is not a per-second value in hours")
    assert reading.denied_at(len("It is not a per-second value in ")), reading
    assert read("never -5 hours").denied_at(len("never -5 ")), "a sign"
