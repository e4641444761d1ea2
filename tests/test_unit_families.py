"""Unit families a repository states its quantities in (issue 32, meaning11): data rates (a
unit per a unit of time, however written: "MB/s", "megabytes per second", "MBps"), bits and
bytes as units of one dimension, and the everyday units of size, distance, mass, frequency,
duration, energy, voltage, current and shares. Every wording here is written for this test,
in no data set; each case fails on the code before meaning11 (whose table knew no data rate,
no mile, pound, week, kWh, kV or fraction)."""

from __future__ import annotations

import pytest

from controller.unit_names import identity, join_compounds, unit_name
from controller.units import stated_instead, states_unit


@pytest.mark.parametrize(("written", "first"), [
    ("Mbit/s", "Mbit/s"), ("Mbps", "Mbit/s"), ("mbps", "Mbit/s"), ("Mb/s", "Mbit/s"),
    ("megabits per second", "Mbit/s"), ("megabits/sec", "Mbit/s"), ("MB/s", "MB/s"),
    ("MBps", "MB/s"), ("megabytes per second", "MB/s"), ("bytes/sec", "B/s"),
    ("KiB/s", "KiB/s"), ("kbps", "kbit/s"), ("Gbps", "Gbit/s"), ("km/h", "km/h"),
    ("mph", "mi/h"), ("MiB", "MiB"), ("GB", "GB"), ("miles", "mi"), ("lbs", "lb"),
    ("kilohertz", "kHz"), ("weeks", "week"), ("kWh", "kWh"), ("kilovolts", "kV"),
    ("milliamps", "mA"), ("%", "percent"), ("fraction", "fraction"),
    ("megabytes per secnod", "MB/s"),  # two letters swapped in a long name
])
def test_every_common_spelling_names_its_unit(written: str, first: str) -> None:
    assert unit_name(written) == first, written


def test_bits_and_bytes_are_units_of_one_dimension_and_a_rate_is_its_own() -> None:
    assert identity("Mb") == ("data", "Mbit") and identity("MB") == ("data", "MB")
    assert identity("MiB") != identity("MB")
    assert identity(join_compounds("MB/s")) == ("data/time", "MB/s")
    # a size's name inside a rate is no mention of the size; "N/A" is no unit per a unit
    assert not states_unit("The upload cap is 50 MB/s.", "MB", ("upload cap",))
    assert join_compounds("N/A and/or 5 MB / s") == "N/A and/or 5 MBˍˍˍs"


@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    # data rates: capital B bytes, lowercase b bits; "per second" and "/s" alike
    ("The sync rate cap is set in Mbps.", "Mbit/s", "sync rate cap", True),
    ("The sync rate cap is in MBps, not Mbps.", "Mbit/s", "sync rate cap", False),
    ("The sync rate cap is in MBps, not Mbps.", "MB/s", "sync rate cap", True),
    ("sync_rate_cap = 12  # megabits/sec", "Mbit/s", "sync rate cap", True),
    ("The sync rate cap takes bytes per second rather than megabits.", "Mbit/s",
     "sync rate cap", False),
    ("The sync rate cap is in megabits per second; 1 MB/s is 8 Mbit/s.", "Mbit/s",
     "sync rate cap", True),
    # sizes: MB is not MiB
    ("The cache size is given in MiB, not MB.", "MB", "cache size", False),
    ("The cache size is given in MiB, not MB.", "MiB", "cache size", True),
    # distances, masses, frequencies, durations, energy, voltage, shares
    ("The route length is reported in miles rather than km.", "km", "route length", False),
    ("Parcel weight: lbs (never kg).", "kg", "parcel weight", False),
    ("The sample rate is in kilohertz.", "kHz", "sample rate", True),
    ("The retention window is counted in weeks, not days.", "days", "retention window", False),
    ("Meter usage is billed in kWh, not joules.", "J", "meter usage", False),
    ("The supply voltage is in kV rather than volts.", "V", "supply voltage", False),
    ("The sampling share is a fraction (0.25), not a percentage.", "percent",
     "sampling share", False),
    ("The sampling share is a percentage (25 means 25%).", "percent", "sampling share", True),
])
def test_a_unit_of_a_family_is_read_by_the_sentence(text: str, unit: str, quantity: str,
                                                    states: bool) -> None:
    assert states_unit(text, unit, (quantity,)) == states, text


@pytest.mark.parametrize(("text", "unit", "quantity", "instead"), [
    ("The sync rate cap is not in Mbps but in MBps.", "Mbit/s", "sync rate cap", "MBps"),
    ("The sync rate cap isn't megabits per second; it is kilobytes per second.", "Mbit/s",
     "sync rate cap", "kilobytes per second"),
    # a quantity of data alone names the rate where a rate is asked
    ("The sync rate cap is in bytes/sec. Not megabits.", "Mbit/s", "sync rate cap",
     "bytes/sec"),
    ("The route length is reported in miles rather than km.", "km", "route length", "miles"),
    # the answer after a reply alone ("A: No.")
    ("Q: Is the sync rate cap in Mbps?\nA: No. It is KiB/s.", "Mbit/s", "sync rate cap",
     "KiB/s"),
])
def test_the_unit_named_instead_is_the_rate_the_line_states(text: str, unit: str,
                                                             quantity: str,
                                                             instead: str) -> None:
    assert stated_instead(text, unit, (quantity,)) == instead, text
    assert unit_name(instead) is not None


@pytest.mark.parametrize(("text", "states"), [
    # a second unit in a clause saying where it is shown is for display, no second answer
    ("The sync rate cap is in Mbps; the status bar shows MB/s.", True),
    ("The sync rate cap is in Mbps; MB/s appears only for display.", True),
    ("The sync rate cap is in Mbps; the agent converts to MB/s.", False),  # no display word
    # a bound on a value, negated, states the unit the value is in
    ("The sync rate cap can't be set below 2 Mbps.", True),
    ("The sync rate cap must not exceed 900 Mbps.", True),
    ("The sync rate cap is in MB/s rather than 2 Mbps.", False),  # no bound: denied
])
def test_a_unit_for_display_or_a_bounded_value_states_the_unit(text: str,
                                                               states: bool) -> None:
    assert states_unit(text, "Mbit/s", ("sync rate cap",)) == states, text


def test_a_question_in_a_rate_written_in_words_is_a_unit_check() -> None:
    from controller.route import route_question
    from evals.unit_lines import judge
    from helix.core.config import HelixConfig, RetrievalSettings

    plan = route_question("Is the sync rate cap in megabytes per second?",
                          routing=RetrievalSettings().routing)
    assert plan.intent.route == "value_check" and plan.unit == "megabytes per second"
    # "per" joins a rate only: another three words are no unit
    other = route_question("is the config loaded in the main thread?",
                           routing=RetrievalSettings().routing)
    assert other.intent.route != "value_check"
    threshold = HelixConfig().retrieval.coverage_threshold
    stated = judge({"text": "sync_rate_cap = 40  # MBps", "kind": "code",
                    "unit": "megabytes per second", "reading": "states"}, "sync rate cap",
                   threshold)
    assert stated["confirmed"] and stated["gives_unit"], stated
    denied = judge({"text": "The sync rate cap is in Mbps, not megabytes per second.",
                    "kind": "doc", "unit": "megabytes per second", "reading": "denies"},
                   "sync rate cap", threshold)
    assert not denied["confirmed"] and denied["instead"] == "Mbps", denied
