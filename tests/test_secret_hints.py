"""Scan cost, no finding changed: a rule whose every match lies on one line and holds a hint
(a literal, or a class of a few characters a search skips to) is read only on the lines holding
the hint (`secret_gates.hinted`): the same matches, in the same order, as `finditer` over the
whole text or window, for each rule read so (webhook URLs, a URL's user as a key, a triple-quoted
or list value under a name, a name given joined identifiers); and adjacent literals under a
name, tried only at the starts of the lines ending in `(` (`secret_parts._adjacent`)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helix.core import secret_blocks, secret_parts, secret_places, secret_shapes
from helix.core.secret_gates import hinted
from tests.secret_corpus import CORPUS
from tests.secret_formats import FILES

RULES = {
    "webhook": (secret_places._WEBHOOK, secret_places._WEBHOOK_HINT),
    "userinfo": (secret_shapes._USERINFO_KEY, secret_shapes._USERINFO_HINT),
    "triple": (secret_blocks._TRIPLE, secret_blocks._TRIPLE_HINT),
    "array": (secret_blocks._ARRAY, secret_blocks._ARRAY_HINT),
    "joined": (secret_parts._JOINED, secret_parts._JOINED_HINT),
}

# pieces the rules' matches are made of, to put together at random (and across lines)
PIECES = ["https://", "http://", "hooks.slack.com/services/", "discord.com/api/webhooks/123/",
          "hc-ping.com/", "example.org/hooks/", "/api/push/", "T0AB12CD/B0EF34/",
          "Xq9vL2mK7pR4tZ8w",
          "redis://", "AKIAXQ9VL2MK7PR4TZ8W", "@", "@host", ":", "=", ":=", " = ", "[", "]",
          '"""', "'''", '"', "'", "+", " + ", "$", "${A}", "${B}", "$X", "token", "api_keys",
          "export ", "const ", "part1", "part_2", " ", "\t", "\n", "\r\n", "é", "# c", "//", ",",
          "SECRET = (\n", "x=( \n", "(", ")", '  "abc"\n', "  'def'\n"]


def _spans(matches: object) -> list[tuple[int, int, tuple[str | None, ...]]]:
    return [(m.start(), m.end(), m.groups()) for m in matches]  # type: ignore[attr-defined]


def _same(pattern: re.Pattern[str], hint: re.Pattern[str], text: str, start: int = 0,
          end: int | None = None) -> bool:
    stop = len(text) if end is None else end
    return (_spans(hinted(pattern, hint, text, start, end))
            == _spans(pattern.finditer(text, start, stop)))


@pytest.mark.parametrize("name", sorted(RULES))
def test_a_hinted_rule_finds_what_it_finds_over_the_whole_text(name: str) -> None:
    pattern, hint = RULES[name]
    texts = [text for _, text, _ in CORPUS] + [f.text for f in FILES] + [
        'api_keys = ["k1", "k2"]\nx: ["a"]\n',
        'secret = """\nabc\n"""\n  token := \'\'\'x\'\'\'\n',
        "url = https://hooks.slack.com/services/T0AB12CD/B0EF34/Xq9vL2mK7pR4tZ8w\n"
        "hooks.slack.com/workflows/T0AB12CD/B0EF34x\nxhooks.slack.com/services/T0AB12CD/x\n",
        "redis://AKIAXQ9VL2MK7PR4TZ8W:@host\nhttps://Xq9vL2mK7pR4tZ8wXq9vL2@h/\n",
        "TOKEN=\"${A}${B}\"\nexport const key = part1 + part_2 // c\nk = a+b # c\n",
    ]
    assert all(_same(pattern, hint, text) for text in texts)


@pytest.mark.parametrize("name", sorted(RULES))
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_a_hinted_rule_finds_what_it_finds_in_any_window(name: str, data: st.DataObject) -> None:
    pattern, hint = RULES[name]
    text = "".join(data.draw(st.lists(st.sampled_from(PIECES), max_size=40)))
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert _same(pattern, hint, text) and _same(pattern, hint, text, start, end)


def test_every_match_of_a_hinted_rule_holds_its_hint_on_one_line() -> None:
    examples = {
        "webhook": "https://hooks.slack.com/services/T0AB12CD/B0EF34/Xq9vL2mK7pR4tZ8w",
        "userinfo": "redis://AKIAXQ9VL2MK7PR4TZ8WAKIA@host",
        "triple": 'secret = """',
        "array": "api_keys = [",
        "joined": "token = part1 + part_2",
    }
    for name, example in examples.items():
        pattern, hint = RULES[name]
        match = pattern.search(example)
        assert match is not None and "\n" not in match.group()
        assert hint.search(match.group()) is not None


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_adjacent_literals_are_found_as_finditer_finds_them(data: st.DataObject) -> None:
    text = "".join(data.draw(st.lists(st.sampled_from(PIECES), max_size=40)))
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    for low, high in ((0, len(text)), (start, end)):
        assert (_spans(secret_parts._adjacent(text, low, high))
                == _spans(secret_parts._ADJACENT.finditer(text, low, high)))


def test_adjacent_literals_over_the_corpora_and_over_lines() -> None:
    texts = [text for _, text, _ in CORPUS] + [f.text for f in FILES] + [
        'SECRET = (\n    "abc"\n    "def"\n)\nTOKEN = (  \n "x"\n \'y\'\n  )\nz = (\n)\n',
        'a = (\n"1"\n"2"\n) ; b = (\n"3"\n"4"\n)\n']
    for text in texts:
        assert (_spans(secret_parts._adjacent(text, 0, len(text)))
                == _spans(secret_parts._ADJACENT.finditer(text)))
    assert len(list(secret_parts._adjacent(texts[-2], 0, len(texts[-2])))) == 2
