"""The library's units of a dimension the table names (issue 32, meaning36): pint's poise and reyn
are dynamic viscosities, as the table's Pa·s and cP are (scripts/units_from_pint.py's
DIMENSIONS), not a dimension of their own named by structure ("mass/length·time"), so a line that
moved from one to the other reads as a history of rivals; and the table's centipoise has its
plural, as its pascal·second has. Wordings of no data set, on another
quantity than fresh34's; the cases fail on main 48e39b02."""

from __future__ import annotations

from controller.unit_names import rival
from controller.units import stated_instead, states_unit


def test_the_cgs_viscosity_units_are_rivals_of_the_si_ones() -> None:
    assert rival("poise", "mPa·s") and rival("poises", "cP") and rival("reyn", "Pa·s")
    assert not rival("poise", "kPa")  # a pressure is no viscosity


def test_a_history_that_ends_in_poise_sets_the_older_unit_aside() -> None:
    text = ("Earlier exports wrote the honey thickness in mPa·s; since 4.1 the column holds "
            "poise instead.")
    assert not states_unit(text, "mPa·s", ("honey thickness",))
    assert stated_instead(text, "mPa·s", ("honey thickness",)) == "poise"


def test_the_centipoise_has_its_plural() -> None:
    assert states_unit("Syrup thickness is logged in centipoises.", "cP", ("syrup thickness",))
