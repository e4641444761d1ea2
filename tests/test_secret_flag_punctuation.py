"""A command-line flag followed by punctuation only (a Markdown table's cell border, an
ellipsis) has no password after it: nothing is masked; a real value after the flag still is."""

from __future__ import annotations

import pytest

from helix.core.secrets import find_secrets


@pytest.mark.parametrize("text", ["| --password | the password to use |",
                                  "| `-p` / --password | ... |",
                                  "--password |"])
def test_a_flag_before_punctuation_only_masks_nothing(text: str) -> None:
    assert find_secrets(text) == []


def test_a_value_after_the_flag_is_still_masked() -> None:
    text = "mysql -u root --password Wq7!fzR2pv"
    spans = [text[f.start:f.end] for f in find_secrets(text)]
    assert spans == ["Wq7!fzR2pv"]
