"""Round 29's unit wordings (issue 32, meaning33), in wordings of no data set, each on a
quantity and a unit other than the sets' that show it; each structure is in the leftovers of two
tune sets at least: an error message's report of the input it rejects, after a requirement
(fresh29, fresh32); a rival in a clause of the past before what holds now (fresh22, fresh32); a
display's participle, then "actually" (fresh31, fresh32); and for the unit named instead, one of
another dimension (ten sets) and the new name of a rename (fresh18, fresh20). Every case but the
guards fails on the code before meaning33; the guards pass on both."""

from __future__ import annotations

import pytest

from controller.units import stated_instead, states_unit


@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    # the rejected input in the clause "got" opens after a requirement, and the relative
    # clause that says what it looks like
    ('HTTP 400: "heading" must be a compass step (0-15); got 270, which looks like degrees.',
     "deg", "heading", False),
    ('raise ConfigError("quota must be a share of the disk, got an MB-sized number: " + v)',
     "MB", "quota", False),
    ("error: --quota expects a fraction, received 512 which looks like MB", "MB", "quota",
     False),
    # guards: a value the error reports is the value's, the requirement's unit stated; a "got"
    # with no requirement before it; a name interpolated in braces is a variable's
    ("ValueError: quota must be between 1 and 500 MB, got 900 MB", "MB", "quota", True),
    ("We got the quota readings in MB from the old server.", "MB", "quota", True),
    ('raise ValueError(f"quota in MB must be positive, got {MB!r}")', "MB", "quota", True),
])
def test_an_error_message_rejects_what_it_got(text: str, unit: str, quantity: str,
                                              states: bool) -> None:
    assert states_unit(text, unit, (quantity,)) == states, text


@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    # a rival in a clause of the past (a verb in the past tense), then a cue of what holds now
    # and the asked unit: a history the line ends with what holds, no second answer (fresh22:
    # "1.0 used kgf·cm, 2.0 switched to lbf·in, and since 3.0 every torque value is N·m";
    # fresh32: "The old ... panel showed percent, ... That is no longer an issue: ... ppm")
    ("Changelog: v1 logged the quota in kilobytes, v2 moved it to GiB, and since v3 the quota "
     "is MB.", "MB", "quota", True),
    ("Release 1 stored the heading in radians; today it is kept in degrees.", "deg", "heading",
     True),
    ("The first plotter sent radians, and nobody could read it. That is no longer a problem: "
     "every heading we keep is in degrees.", "deg", "heading", True),
    # guards: the asked unit in the past clause; "since" of cause; what a report says now; a
    # rival after the asked unit
    ("Release 1 sent degrees; today it is kept in radians.", "deg", "heading", False),
    ("The plotter always sent radians, and since the manual says degrees, people misread it.",
     "deg", "heading", False),
    ("We measured it: the sensor reported GiB. The docs now say MB.", "MB", "quota", False),
])
def test_a_rival_in_a_history_before_what_holds_now(text: str, unit: str, quantity: str,
                                                    states: bool) -> None:
    assert states_unit(text, unit, (quantity,)) == states, text


@pytest.mark.parametrize(("text", "unit", "quantity", "states"), [
    # what a display's participle shows, then "actually" says what the value is (fresh32: "CO2
    # value shown as 'ppm' in the app is actually the sensor's millivolt output"; fresh31: "says
    # 300 dpi but the value is actually ppi")
    ("The heading printed as degrees on the chart is actually a raw encoder count.", "deg",
     "heading", False),
    ("Quota shown as 'MB' on the settings page is actually a count of files.", "MB", "quota",
     False),
    # guard: a display stated with no construal
    ("The quota is shown in MB on the settings page, but rounded.", "MB", "quota", True),
])
def test_what_a_display_shows_then_actually(text: str, unit: str, quantity: str,
                                            states: bool) -> None:
    assert states_unit(text, unit, (quantity,)) == states, text


@pytest.mark.parametrize(("text", "unit", "quantity", "instead"), [
    # a line that denies the unit and names no unit of its dimension names one of another
    # dimension instead (ten tune sets: "`tx_power` is expressed in dBm. It is not a wattage.",
    # fresh20; "percent by volume, NOT ppm", fresh32; "rate here is kg/h of fuel, not L/min",
    # fresh23)
    ("The heading field is not in degrees. It holds metres of cross-track error.", "deg",
     "heading", "metres"),
    ("The quota isn't MB; it is measured in hours of upload time.", "MB", "quota", "hours"),
    ("oven_temp is never °C -- the controller reports watts of heater power here", "°C",
     "oven temperature", "watts"),
    # guard: a unit of the dimension comes first
    ("The quota is not in MB, it is in GiB of which hours are logged.", "MB", "quota", "GiB"),
])
def test_the_unit_named_instead_may_be_of_another_dimension(text: str, unit: str, quantity: str,
                                                            instead: str) -> None:
    assert stated_instead(text, unit, (quantity,)) == instead, text


@pytest.mark.parametrize(("text", "unit", "quantity", "instead"), [
    # the new name of a rename ends with the unit the line names instead (fresh18: "rename
    # max_ma -> max_a, the value hasn't been milliamps ..."; fresh20: "`max_draw_w` was renamed
    # to `max_draw_mw` because the values were never really watts")
    ("Please rename `ang_deg` to `ang_rad`; the field was never in degrees.", "deg", "heading",
     "rad"),
    ("cap_mb was renamed to cap_GiB, because the values were never MB.", "MB", "quota", "GiB"),
    ("TODO: rename tmo_s -> tmo_ms, the value hasn't been seconds for years", "s",
     "flush interval", "ms"),
])
def test_a_renamed_name_names_the_unit_instead(text: str, unit: str, quantity: str,
                                               instead: str) -> None:
    assert stated_instead(text, unit, (quantity,)) == instead, text
