"""Round 17's classes of the tune sets' misses and flagged lookalikes (writer51's, with
writer40's, 41's, 44's and 49's), each with values invented here; and the scan's cost cuts
(the triggers outside ASCII read only a text outside ASCII; a rule whose literal is in most
code tried only where a hint that starts with a literal finds its shape)."""

from __future__ import annotations

import pytest

from helix.core import secret_prefilter, secrets
from helix.core.secrets import find_secrets


def _found(text: str) -> list[str]:
    return [text[start:end] for start, end, _ in find_secrets(text)]


def _agree(text: str) -> list[str]:
    """The findings, the same with and without the prefilter."""
    plain = [text[start:end] for start, end, _ in find_secrets(text, prefilter=False)]
    assert _found(text) == plain
    return plain


def test_the_triggers_outside_ascii_are_one_group_passed_over_only_a_text_outside_ascii(
        monkeypatch: pytest.MonkeyPatch) -> None:
    triggers = secret_prefilter._triggers()
    wide = {i for i, pattern in enumerate(triggers.patterns) if not pattern.isascii()}
    assert wide and set(triggers.wide) == wide
    assert all(set(ids) == wide or not wide & set(ids) for ids, _ in triggers.groups)
    passes: list[tuple[int, ...]] = []
    lines = secret_prefilter._trigger_lines

    def counted(text: str, subject: bytes, ids: tuple[int, ...]) -> list[tuple[int, int]]:
        passes.append(ids)
        return lines(text, subject, ids)

    monkeypatch.setattr(secret_prefilter, "_trigger_lines", counted)
    assert _found("[sftp]\nuser = ops\npassword = Vq8dL2xTr9Kw\n") == ["Vq8dL2xTr9Kw"]
    assert triggers.wide not in passes
    passes.clear()
    assert _found("Zugang (Server):\n  Hasło: Vq8dL2xTr9Kw\n") == ["Vq8dL2xTr9Kw"]
    assert triggers.wide in passes


@pytest.mark.parametrize("kind", ["ably_key", "url_password"])
def test_a_rule_whose_literal_is_in_most_code_runs_only_where_its_shape_may_be(kind: str) -> None:
    pattern = next(p for k, p, _ in secrets._REGEX_RULES if k == kind)
    code = ('import os.path\nURL = "https://example.org/api"\nx = {"a": b.c, "d": e}\n'
            "def f(self: object) -> str:\n    return self.name\n")
    assert not secrets._may_match(kind, pattern, code)


@pytest.mark.parametrize("text, value", [
    ("ABLY = 'xVLyHw.Dq3zTg:Q8vW2mZx7Lk4Rt9Yp1Nc6Hb3Jf5Gd0Sa8Ke2Ui7Oo4P'\n",
     "xVLyHw.Dq3zTg:Q8vW2mZx7Lk4Rt9Yp1Nc6Hb3Jf5Gd0Sa8Ke2Ui7Oo4P"),
    ("mirror = ftp://deploy:Zr8vQ2mLx7Tk@files.example.net/out\n", "deploy:Zr8vQ2mLx7Tk"),
    ("tok = 'patQ3rT8vLk2MzX9w." + "9f2c7a1e" * 8 + "'\n", "patQ3rT8vLk2MzX9w." + "9f2c7a1e" * 8),
])
def test_the_cheaper_rules_find_what_they_found(text: str, value: str) -> None:
    assert value in "".join(_agree(text))


def test_an_airtable_shape_inside_a_longer_word_is_not_a_token() -> None:
    token = "patQ3rT8vLk2MzX9w." + "9f2c7a1e" * 8
    assert not [f for f in find_secrets("ref: xx" + token + "\n") if f.kind == "airtable_token"]
