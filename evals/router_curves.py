"""How often the class the meaning router acts on is right, per setting of its bars, given the
head's cross-validated readings of the training turns (`evals.router_train` writes these curves
into the model's manifest; the settings are chosen by them, never by a reported file).

    routed_class(reading, confidence, rules, rescue, override, phrase, exact) -> class
    routing_curve(cv, samples)  per (`router_rescue`, `router_override`)
    phrase_curve(cv, samples)   per (`router_rescue`, `router_phrase`), the override held
    best_settings(curve)        the best pair, the most cautious among equals
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from controller.continuity.meaning import CLASSES

if TYPE_CHECKING:
    from evals.router_train import Sample


def rules_reading(flags: tuple[float, ...]) -> str:
    """The vocabulary router's reading of a turn, from its `rule_*` flags."""
    from controller.continuity.meaning import FLAG_NAMES

    named = [n.removeprefix("rule_") for n, v in zip(FLAG_NAMES, flags, strict=True)
             if n.startswith("rule_") and v]
    return named[0] if named else "boundary"


def exact_rule(flags: tuple[float, ...]) -> bool:
    """Did the vocabulary rules read the turn from something exact (`EXACT_RULE_FLAGS`: a
    number in the list's range, a listed path or name, a quoted name)?"""
    from controller.continuity.meaning import EXACT_RULE_FLAGS, FLAG_NAMES

    return any(flags[FLAG_NAMES.index(n)] for n in EXACT_RULE_FLAGS)


def routed_class(reading: str, confidence: float, rules: str, rescue: float,
                 override: float, phrase: float | None = None, exact: bool = True) -> str:
    """The class `router.read_plan` acts on: the reading when the rules agree, when the rules
    took the message for a new question (or read nothing) and the reading is `rescue` sure,
    when the rules read it from their phrases alone (not `exact`) and the reading is `phrase`
    sure, or when it is `override` sure; else the rules' reading."""
    if reading == rules:
        return reading
    if rules in ("new_question", "boundary"):
        bar = rescue
    else:
        bar = override if exact or phrase is None else phrase
    return reading if confidence >= bar else rules


RESCUE_GRID = tuple(round(0.1 + 0.05 * i, 2) for i in range(13))  # 0.1 .. 0.7
OVERRIDE_GRID = (0.6, 0.7, 0.8, 0.9, 0.95)
PHRASE_GRID = (0.3, 0.45, 0.6, 0.7, 0.8, 0.9)


def _routed_share(predicted: list[int], confidence: list[float], samples: Sequence[Sample],
                  rescue: float, override: float, phrase: float | None) -> float:
    right = [routed_class(CLASSES[p], c, rules_reading(s.flags), rescue, override, phrase,
                          exact_rule(s.flags)) == s.meaning
             for p, c, s in zip(predicted, confidence, samples, strict=True)]
    return sum(right) / len(right) if right else 0.0


def routing_curve(cv: dict[str, Any], samples: Sequence[Sample]) -> dict[str, float]:
    """Per (`continuity.router_rescue`, `router_override`) of the grids ("0.45/0.90"): the
    share of training turns whose routed class (`routed_class`, with the cross-validated
    reading: the head fit without the turn's session; a phrase rule held to the override bar)
    is their label. The settings are chosen by this, never by a reported file."""
    return {f"{rescue:.2f}/{override:.2f}": round(_routed_share(
        cv["predicted"], cv["confidence"], samples, rescue, override, None), 4)
        for rescue in RESCUE_GRID for override in OVERRIDE_GRID}


PHRASE_CURVE_OVERRIDE = 0.9  # the override bar the phrase curves hold (the shipped one)


def phrase_curve(cv: dict[str, Any], samples: Sequence[Sample]) -> dict[str, float]:
    """Per (`router_rescue`, `router_phrase`) ("0.45/0.60"), the override bar held at
    `PHRASE_CURVE_OVERRIDE` for the exact rules: the share of turns whose routed class is
    their label."""
    return {f"{rescue:.2f}/{phrase:.2f}": round(_routed_share(
        cv["predicted"], cv["confidence"], samples, rescue, PHRASE_CURVE_OVERRIDE, phrase), 4)
        for rescue in RESCUE_GRID for phrase in PHRASE_GRID}


def best_settings(curve: dict[str, float]) -> dict[str, float]:
    """The (rescue, override) of `routing_curve` that is right most often; among equals the
    most cautious: the highest bars (the vocabulary's reading kept where it does as well)."""
    best = max(curve.values())
    key = max(k for k, v in curve.items() if v == best)
    rescue, override = (float(v) for v in key.split("/"))
    return {"router_rescue": rescue, "router_override": override, "cv_routed": best}
