"""Values published as examples (`secret_rules.toml`'s `[examples]`: jwt.io's sample token,
RFC test vectors, vendors' documented test keys) are no credentials, whole or written in parts.

A JWT is three parts joined by `.`, and a test or a README often writes a long one as string
literals split over lines (`("eyJhbGciOi..."` / `"eyJzdWIiOi..."` / `"SflKxwRJ...")`): a
part of it found alone (its signature, by its entropy) is the example's part when the text
holds every part of that example (each at least MIN_PART characters long), not a secret.

    without_examples(text, found) -> the findings less documented examples and their parts
"""

from __future__ import annotations

from functools import cache

from helix.core.secret_gates import Finding
from helix.core.secret_rules import rules

__all__ = ["MIN_PART", "without_examples"]

MIN_PART = 16  # a shorter part (`eyJ9`, a bare header) could be any value's


@cache
def _parts() -> dict[str, tuple[str, ...]]:
    """Each part of an example written with `.`, to all of that example's parts."""
    out: dict[str, tuple[str, ...]] = {}
    for example in sorted(rules().examples):
        parts = tuple(example.split("."))
        if len(parts) > 1 and all(len(part) >= MIN_PART for part in parts):
            for part in parts:
                out.setdefault(part, parts)
    return out


def _example_part(text: str, value: str) -> bool:
    parts = _parts().get(value.strip("."))
    return parts is not None and all(part in text for part in parts)


def without_examples(text: str, found: list[Finding]) -> list[Finding]:
    examples = rules().examples

    def published(value: str) -> bool:
        return value in examples or _example_part(text, value)

    return [f for f in found if not published(text[f.start:f.end])]
