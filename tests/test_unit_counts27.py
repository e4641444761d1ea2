"""A count of things given instead of a unit (issue 32, meaning27): raw sensor counts ("raw ADC
counts", "LSB", "encoder counts") and pages, blocks, sectors, segments are a `count`, steps and
ticks a `quantum`, each a share a quantity of any dimension may be given in where a line denies
the asked unit (controller/units.toml); "counts" as a verb or before what it counts ("counts
in units of 25 mW", "counts of 4 KiB pages", "it counts WAL segments") and a unit sizing the
things counted ("4 KiB pages", "512-byte blocks") are no unit the line gives: the counted
thing's name is (controller/units.py `_counting`); a unit before a quantum is the unit ("in
0.25 dBm steps": dBm). Units named instead over every set 1184 -> 1198 of 1314 (fresh26 50 ->
56, fresh25 45 -> 47, fresh14 52 -> 55, fresh16 38 -> 40, fresh22 53 -> 54), no set the wrong
way. Every case is a wording of no data set; the first six fail on the code before it (the
last three held there: they guard the readings of "counts in", a unit alone and a quantum)."""

from __future__ import annotations

import pytest

from controller.unit_names import unit_name
from controller.units import stated_instead

QUANTITY = ("buffer size",)


@pytest.mark.parametrize(("text", "unit", "instead"), [
    ("The buffer size isn't in MB; it is a number of 4 KiB pages.", "MB", "pages"),
    ("buffer_size: 64  # in 4096-byte blocks, not KiB", "KiB", "blocks"),
    ("The buffer size is not MiB but a count of 512-byte sectors.", "MiB", "sectors"),
    ("The buffer size is never given in MB; it counts log segments.", "MB", "segments"),
    ("Don't read the buffer size as MB: those are raw ADC counts.", "MB", "counts"),
    ("The buffer size isn't in mV, it is LSB of the converter.", "mV", "counts"),
    ("The buffer size isn't in bytes; it counts in units of 4 KiB.", "B", "KiB"),
    ("The buffer size is not in mm but in motor steps.", "mm", "steps"),
    ("The buffer size is not in W: it comes in 0.5 dBm steps.", "W", "dBm"),
])
def test_a_count_of_things_is_the_unit_named_instead(text: str, unit: str,
                                                     instead: str) -> None:
    found = stated_instead(text, unit, QUANTITY)
    assert found is not None and unit_name(found) == unit_name(instead), (text, found)
