"""The pattern of a clause that names the asked quantity and then only an auxiliary, its
predicate left out ("the cutoff is in GPa; tile pressure, however, is not"), built from the
words of controller/units.toml's [lines] (`controller.unit_names.names`). Pure."""

from __future__ import annotations

import re

from helix.core.english import word_alternation


def ellipsis_pattern(auxiliaries: list[str], asides: list[str], joins: list[str],
                     determiners: list[str]) -> str:
    """A clause of the quantity's phrase (`{q}`, filled in by `controller.units`) and an
    auxiliary alone, negated or not, up to the end of its clause."""
    aside = r"(?:" + "|".join(re.escape(a).replace(r"\ ", r"\s+") for a in asides) + r")"
    aux = r"(?:" + word_alternation(tuple(auxiliaries)) + r")"
    join = r"(?:" + word_alternation(tuple(joins)) + r")"
    determiner = r"(?:" + word_alternation(tuple(determiners)) + r")"
    return (r"(?i)(?:^|[;,:—–]|\s-{1,2}\s|\b" + join + r")\s*"
            r"(?:" + determiner + r"\s+)?`?{q}`?\s*(?:,\s*" + aside + r"\s*,\s*)?" + aux
            + r"(?P<no>n['’]t|\s+not|\s+never)?(?:\s*,?\s*" + aside + r")?\s*(?=[.;,!)]|$)")
