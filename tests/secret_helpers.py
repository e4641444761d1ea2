"""What the secret detector finds in a text, for the secret tests: the spans' texts, and the same
findings with and without the prefilter."""

from __future__ import annotations

from helix.core.secrets import find_secrets


def found_texts(text: str) -> list[str]:
    return [text[start:end] for start, end, _ in find_secrets(text)]


def agreed_texts(text: str) -> list[str]:
    """The findings, the same with and without the prefilter."""
    plain = [text[start:end] for start, end, _ in find_secrets(text, prefilter=False)]
    assert found_texts(text) == plain
    return plain
