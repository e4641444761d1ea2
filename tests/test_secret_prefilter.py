"""The secret scan's prefilter changes nothing but the cost: `find_secrets` with and without it
gives the same findings, over every corpus the tests hold and over texts built from them with
ordinary lines around (hypothesis); a text with no trigger is not scanned at all; the rule
tables (token prefixes, command-line programs) find an example of each of their rows."""

from __future__ import annotations

import random
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helix.core.secret_prefilter import (
    _trigger_lines,
    _triggers,
    plan,
)
from helix.core.secret_re2 import line_spans
from helix.core.secret_rules import BODY_CHARS, rules
from helix.core.secret_windows import compact, map_back
from helix.core.secrets import find_secrets, redact_text
from tests.secret_corpus import CORPUS
from tests.secret_formats import FILES, QUESTIONS

TEXTS = ([text for _, text, _ in CORPUS] + [p.text for p in FILES]
         + [q for q, _ in QUESTIONS])
FILLER = ["", "    return value", "def handler(request):", "  - item", "x = compute(a, b)",
          "# a comment about the design", "}", "    ", "\t\tindented: true", "[section]",
          "import os", "    nested:", "        deeper: 1", "</config>", "\\", "\"\"\"",
          "The quick brown fox.", "  key: value", "name = \"value\"", "-----END"]


def test_every_corpus_text_is_found_the_same_with_and_without_the_prefilter() -> None:
    for text in TEXTS:
        assert find_secrets(text) == find_secrets(text, prefilter=False), text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(TEXTS), st.sampled_from(FILLER)), min_size=1,
                max_size=12),
       st.sampled_from(["\n", "\r\n"]), st.integers(min_value=0, max_value=4))
def test_texts_built_from_the_corpora_agree(parts: list[str], newline: str,
                                            indent: int) -> None:
    text = newline.join(" " * indent + part if i % 2 else part for i, part in enumerate(parts))
    assert find_secrets(text) == find_secrets(text, prefilter=False)


def test_a_text_without_any_trigger_is_not_scanned() -> None:
    text = "def add(a, b):\n    return a + b\n\nclass Point:\n    x: int\n    y: int\n" * 50
    assert plan(text) is None
    assert find_secrets(text) == []


def test_the_windows_hold_only_the_lines_around_a_trigger() -> None:
    ordinary = "\n".join(f"value_{i} = compute({i})" for i in range(200))
    text = ordinary + '\nDB_PASSWORD = "plumtree-velvet-42"\n' + ordinary
    chosen = plan(text)
    assert chosen is not None and not chosen.whole
    assert sum(end - start for start, end in chosen.windows) < len(text) / 20
    joined, compact_starts, starts = compact(text, chosen.windows)
    at = joined.index("plumtree")
    start, _ = map_back(at, at + 8, compact_starts, starts, chosen.windows)
    assert text[start:start + 8] == "plumtree"
    assert "plumtree" not in redact_text(text)[0]


def _body(chars: str, size: int, rng: random.Random) -> str:
    return "".join(rng.choice(chars) for _ in range(size))


def test_every_token_prefix_of_the_table_is_found() -> None:
    rng = random.Random(28)
    for token in rules().tokens:
        chars = "".join(sorted(token.body - set("xX*.0-_<>=")))
        body = _body(chars, token.min + 4, rng)
        value = (_body(string.ascii_lowercase + string.digits, 8, rng) + token.prefix + body
                 if token.infix else body + token.prefix if token.suffix
                 else token.prefix + body)  # a suffix ends its token: `<body>:fx`
        text = f"the value {value} here\n"
        clean, counts = redact_text(text)
        assert value not in clean, (token.prefix, clean)
        assert counts, token.prefix


def test_a_filler_body_is_a_placeholder_not_a_token() -> None:
    assert redact_text("hf_" + "x" * 40)[1] == {}
    assert redact_text("dop_v1_" + "0" * 64)[1] == {}


def test_every_command_row_finds_its_password() -> None:
    for index, command in enumerate(rules().commands):
        for program in command.programs:
            secret = f"Pw{index}x{len(program)}-Qz7"
            lines = []
            for flag in command.flags:
                value = {"password": secret, "pass:password": f"pass:{secret}"}.get(
                    flag.form, f"alice{flag.form[4]}{secret}")
                if flag.spaced:
                    lines.append(f"{program} {flag.flag} {value} target")
                if flag.attached:
                    lines.append(f"{program} {flag.flag}{value} target")
                if flag.eq:
                    lines.append(f"{program} {flag.flag}={value} target")
            if command.positional:
                args = [*command.subcommands[:1], "first", "second", "third"][
                    : command.positional - 1]
                lines.append(" ".join([program, *args, secret.replace("-", "/") if
                                       command.form == "user/password@" else secret]))
            for line in lines:
                assert secret.split("-")[0] not in redact_text(line)[0], line


def test_body_kinds_are_known() -> None:
    names = {name for name, chars in BODY_CHARS.items() if chars}
    assert all(token.body <= set("".join(BODY_CHARS[n] for n in names))
               for token in rules().tokens)


def test_trigger_lines_of_text_beyond_ascii_are_in_its_characters_offsets() -> None:
    """The trigger lines found in the text's UTF-8 bytes are mapped back to its characters:
    each window starts and ends on a line of the text, wherever wide characters stand."""
    text = ("# Café — conﬁguration ✓\n" + "x = 'ü' * 3\n" * 3
            + "db_password = 'Hq7Lm2Zx9Rv4Wn8Tp3'  # 密码\n" + "ünïcode = 1\n"
            + "api_token = \"Zr5nQ8wL2mX7vT4kP9bY\"\n")
    lines = [line for ids, _ in _triggers().groups
             for line in _trigger_lines(text, text.encode("utf-8"), ids)]
    assert {text[s:e].split(" = ")[0] for s, e in lines} >= {"db_password", "api_token"}
    chosen = plan(text)
    assert chosen is not None
    for start, end in [*lines, *chosen.windows]:
        assert start == 0 or text[start - 1] == "\n"
        assert end == len(text) or text[end] == "\n"
    assert find_secrets(text) == find_secrets(text, prefilter=False)
    assert {text[s:e] for s, e, _ in find_secrets(text)} == {"Hq7Lm2Zx9Rv4Wn8Tp3",
                                                            "Zr5nQ8wL2mX7vT4kP9bY"}


def test_lines_with_a_word_are_each_line_once() -> None:
    """The one-line rules read only the lines holding their words (each once, in order); a
    text whose lower case is longer than itself is read whole."""
    from helix.core.secret_shapes import lines_with

    text = "a = 1\nPassword: x password\n\nb == c != d\nlast password"
    assert [text[s:e] for s, e in lines_with(text, text.lower(), ("password", "=="))] == [
        "Password: x password", "b == c != d", "last password"]
    wide = "\u0130 password\nx\n"  # 'İ' lowers to two characters
    assert lines_with(wide, wide.lower(), ("password",)) == [(0, len(wide))]


def test_a_trigger_that_can_match_nothing_still_ends() -> None:
    """A trigger pattern that matches the empty string (a rule written so by mistake) on an
    empty line: the search moves past the newline instead of finding it again forever."""
    import re2

    assert line_spans(re2.compile(r"x*"), b"a\n\nxx") == [(0, 1), (1, 1), (2, 2), (3, 5)]


def test_a_line_with_several_triggers_is_one_trigger_line() -> None:
    """A trigger is matched alone and its line found from it: a line holding several
    triggers is one line, and the search goes on from its end (the last line too)."""
    text = ("x = 1\napi_token = 'a' + secret + password + AKIA\nplain\n"
            "first token\nno trigger here\npassword token secret")
    lines = sorted({line for ids, _ in _triggers().groups
                    for line in _trigger_lines(text, text.encode("utf-8"), ids)})
    assert [text[s:e] for s, e in lines] == [
        "api_token = 'a' + secret + password + AKIA", "first token", "password token secret"]
    for ids, _ in _triggers().groups:
        found = _trigger_lines(text, text.encode("utf-8"), ids)
        assert len(found) == len(set(found))
