"""Long adversarial lines a repository may hold, round 30 (review30): each reader changed here
read a long line once per cue, name or match and took seconds to minutes on these lines; the
timeout is only a safety net, the fixed code takes milliseconds."""

from __future__ import annotations

import pytest

LINE = 100_000  # characters of one adversarial line


@pytest.mark.timeout(10)
def test_a_long_clause_of_renames_without_a_new_name_is_read_once() -> None:
    # each "rename" walked the rest of its clause for "to": 7 s at 20 KB, minutes at 100 KB
    from helix.core.negation import read

    assert not any(read("rename " * (LINE // 7)).denied)
    reading = read("x " + "rename " * 3000 + "to y")
    assert [t.text for t, d in zip(reading.tokens, reading.denied, strict=True) if d] == [
        "rename"] * 2999
    reading = read("Please rename `dpi` to `dpr`.")
    assert [t.text for t, d in zip(reading.tokens, reading.denied, strict=True) if d] == [
        "`", "dpi", "`"]


@pytest.mark.timeout(10)
def test_a_name_after_a_colon_finds_its_resource_start_by_a_scan() -> None:
    # each name after a `:` walked back character by character up to 4,096 characters for the
    # start of an ARN, URN or URL: ~0.3 ms a name in Python, now a C scan per separator
    from helix.core.secret_structure import _in_resource_name

    line = "a" * LINE
    assert not any(_in_resource_name(line, at) for at in range(5_000, LINE, 4))
    assert _in_resource_name("arn:aws:secretsmanager:" + line[:100], 123)
    assert not _in_resource_name("arn:aws:secretsmanager:" + line[:5000], 5023)  # too far
    assert _in_resource_name("x=https://user:" + line[:100], 15)
    assert not _in_resource_name("x=user:" + line[:100], 7)


@pytest.mark.timeout(10)
def test_a_long_hyphenated_word_is_read_once_for_an_argument_name() -> None:
    # `\b[A-Za-z_][\w-]*=` was tried from every dash of "a-a-a-..." and read the rest of the
    # word each time: 2.5 s at 20 KB, about a minute at 100 KB
    from controller.tool_call_text import syntax_words

    assert syntax_words("a-" * (LINE // 2)) == set()
    assert syntax_words("a-" * (LINE // 2) + "b=x") == {"a-" * (LINE // 2) + "b"}
    assert syntax_words("9-" * (LINE // 2) + "b=x") == {"b"}
    assert syntax_words('LOOKUP term=cavity, {"query": "x"}') == {"lookup", "term", "query"}


@pytest.mark.timeout(10)
def test_a_long_run_of_dashes_is_read_once_for_paths() -> None:
    # a path's pattern was tried from every dash of the run and read the rest of it each time:
    # `_path_hints` took 19 s at 20 KB, minutes at 100 KB
    from controller.route import _path_hints, _terms

    assert _path_hints("-" * LINE) == () and _terms("-" * LINE) == ()
    text = "see " + "-" * LINE + "x/y.py and a.md-b/c, `docs/x.rst`"
    assert _path_hints(text) == ("-" * LINE + "x/y.py", "a.md-b/c", "docs/x.rst")
    from controller.route_paths import PATHLIKE, pathlike_spans

    short = "in .-a.py-b.c--x/y, ./z.md/ and q.py."
    assert pathlike_spans(short) == [m.span() for m in PATHLIKE.finditer(short)]


@pytest.mark.timeout(10)
def test_a_line_of_many_unit_mentions_reads_the_text_before_each_once() -> None:
    # each mention re-read the line before it (its tokens, an equation ending there, the
    # strike-outs of the paragraph) and listed its sentence and the next: 8,000 mentions
    # (24 KB) took ~22 s
    from controller.units import unit_lines

    lines = unit_lines("The size is in MB. " + "MB " * 8000, "MB")
    assert [(u.offset, u.states, u.instead) for u in lines] == [(0, True, None)]
    text = "1 mm = 36000 EMU\nThe size is ~~MB~~ GB.\nIs it in MB?\nNo, GB.\n" + "5 MB " * 2000
    assert [(u.offset, u.states, u.instead) for u in unit_lines(text, "MB")] == [
        (1, False, "GB"), (2, False, "GB"), (4, True, None)]


@pytest.mark.timeout(10)
def test_a_text_of_many_blank_lines_is_read_once_for_retracted_conditions() -> None:
    # every line looked through all the lines after it for the next one with words (a
    # condition's body): 20,000 blank lines took over a minute
    from controller.unit_markup import retracted
    from controller.units import unit_lines

    assert unit_lines("\n" * LINE + "The size is in MB.", "MB")[0].offset == LINE
    text = 'if unit == "GPa":\n' + "\n" * LINE + "    raise ValueError\nx = 1 # GPa\n"
    assert retracted(text) == {0}


@pytest.mark.timeout(10)
def test_a_question_of_many_blank_lines_is_read_once_for_a_traceback() -> None:
    # a frame's `^\s*` read the rest of the blank run from every line start of it: 2.3 s at
    # 30,000 newlines, about a minute at 100,000
    from controller.issue_text import _TRACEBACK

    assert _TRACEBACK.search("\n" * LINE) is None
    assert _TRACEBACK.search("\n" * LINE + "  File \"a.py\", line 3") is not None
    assert _TRACEBACK.search("x\n\nat f (") is not None and _TRACEBACK.search("at f (") is None


@pytest.mark.timeout(10)
def test_an_answer_holding_a_long_word_is_read_once_for_citations() -> None:
    # `\S+:\d+` was tried from every character of the word and read the rest of it each time:
    # absence_claims took 1.1 s at 30 KB, about 12 s at 100 KB
    from helix.synthesis.absence import _CITATION, absence_claims

    assert absence_claims("a" * LINE) == []
    text = "See " + "a" * LINE + " and pkg/x.py:12-30 [E1, E2] at 08:00."
    assert [m.group() for m in _CITATION.finditer(text)] == ["pkg/x.py:12-30", "[E1, E2]"]
    assert _CITATION.sub(" ", "no [E3] here x.py:4") == "no   here  "
