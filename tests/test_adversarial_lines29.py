"""Long adversarial lines a repository may hold: each detector and reader changed in round 29
returns on them (review29). A backtracking pattern or a scan per match took seconds to minutes
on these lines; the timeout is only a safety net, the fixed code takes milliseconds."""

from __future__ import annotations

import pytest

from helix.core.secrets import find_secrets

LINE = 100_000  # characters of one adversarial line


@pytest.mark.timeout(10)
def test_a_long_word_before_a_client_call_is_read_once() -> None:
    # `[\w.$:]*` before `[Cc]lient` tried every start in the run: 2.5 s at 20 KB, ~1 min at 100 KB
    text = "a" * LINE + " Client("
    assert find_secrets(text) == []
    key = 'authToken = "Zq8Lm2Xv7Rt4Kp9Wn3Bd"\n'
    found = find_secrets(key + "x" * LINE + "NewClient(authToken)\n")
    assert [(f.start, f.end) for f in found] == [(13, 33)]


@pytest.mark.timeout(10)
def test_a_segment_line_of_many_password_labels_is_read_once() -> None:
    # each label walked its line and its element again: 6.8 s at 20 KB, minutes at 100 KB
    from helix.core.secret_linked import linked_findings

    text = "UNB+" + "pw?:" * (LINE // 4)
    assert linked_findings(text, text.lower()) == []
    segment = "FTX+AAI+++AUTH?:depotsync/Tallow-Gate-82'"
    text = segment + "pw?:" * (LINE // 4) + "\n" + segment + "\n"
    assert linked_findings(text, text.lower()) == [(10, 40, "assignment"),
                                                   (len(text) - 32, len(text) - 2, "assignment")]


@pytest.mark.timeout(5)
def test_a_long_line_of_code_headings_without_a_colon_is_read_once() -> None:
    # each heading read the rest of its line for a colon: 2.9 s at 100 KB, ~25 s at 300 KB
    from helix.core.secret_runs import run_findings

    text = "recovery codes " * (3 * LINE // 15)
    assert run_findings(text, text.lower()) == []
    text += "\nTOTP secret (app): JBSWY3DPEHPK3PXPQ4\n"
    assert run_findings(text, text.lower()) == [(len(text) - 19, len(text) - 1, "recovery_code")]


@pytest.mark.timeout(5)
def test_many_trap_host_lines_read_the_community_lines_once() -> None:
    # each host line searched the whole text for its community: 2.8 s at 100 KB, ~25 s at 300 KB
    from helix.core.secret_runs import run_findings

    text = "snmp-server community Harbour7x RO\n" + "snmp-server host 10.0.0.1 abcd\n" * (
        3 * LINE // 31) + "snmp-server host 10.0.0.2 version 2c harbour7X\n"
    found = run_findings(text, text.lower())
    assert [text[start:end] for start, end, _ in found] == ["harbour7X"]


@pytest.mark.timeout(10)
def test_a_long_run_of_blanks_before_a_bare_negation_is_read_once() -> None:
    # `\s+` before the contrast word tried every blank of the run: 14 s at 20 KB
    from helix.synthesis.absence_denial import _elided

    assert _elided("The log shows the pause" + " " * LINE + " but not the retries.")
    assert not _elided("The log shows the pause" + " " * LINE + " and the retries.")


@pytest.mark.timeout(10)
def test_an_answer_with_a_long_run_of_blanks_is_cut_into_clauses_once() -> None:
    # the clause marks' `\s*` and `\s+` tried every blank of the run: 19 s at 20 KB
    from helix.synthesis.absence_denial import DENIAL, clauses, denial

    text = "The log shows the pause" + " " * LINE + "x, but not the retries; y ,  ; z."
    assert clauses(text) == [f"The log shows the pause{' ' * LINE}x", "but not the retries",
                             "y", "z."]
    features = dict(zip(DENIAL, denial(text, "what retries", frozenset()), strict=True))
    assert features["partial"] > 0 and features["elided"] > 0


@pytest.mark.timeout(10)
def test_a_long_line_of_got_without_a_requirement_is_read_once() -> None:
    # each "got" scanned every token before it for a requirement: 1.2 s at 20 KB, ~30 s at 100 KB
    from helix.core.negation import read

    error = "it must be a share; got 512, which looks like MB"
    reading = read("x " + "got, " * (LINE // 5) + error)
    assert [t.text for t, d in zip(reading.tokens, reading.denied, strict=True) if d] == [
        "512", "which", "looks", "like", "MB"]


@pytest.mark.timeout(10)
def test_a_long_history_of_rival_units_is_read_once() -> None:
    # each rival in a clause of the past scanned the rest of the text for what holds now and
    # the asked unit: 2.4 s at 30 KB, ~25 s at 100 KB
    from controller.units import unit_lines

    text = ("The heading is in degrees. " + "Release 1 stored radians, " * (LINE // 26)
            + "today it is kept in degrees.")
    assert [(u.states, u.instead) for u in unit_lines(text, "degrees")] == [(True, None)]


@pytest.mark.timeout(10)
def test_a_long_run_of_symbols_before_the_one_word_asked_is_read_once() -> None:
    # the word before it was searched for ending at `$` from every symbol of the run: 4.8 s at
    # 20 KB, minutes at 100 KB
    from controller.route import route_question
    from helix.core.policy import RoutingPolicy

    def knows(word: str) -> bool:
        return word in {"bucket", "refill", "tokens"}

    question = "yaar " + "~" * LINE + "q bucket ka scene"
    assert route_question(question, routing=RoutingPolicy(), knows=knows).ambiguous_term == \
        "bucket"


def test_a_long_evidence_text_is_not_kept_in_the_unit_joins_cache() -> None:
    """A server reads whole evidence texts: only short ones (a unit, a word, a line) are
    remembered, so 4,096 cached entries stay small; a long text is joined all the same."""
    from controller.unit_names import CACHED_TEXT, _join_compounds, join_compounds

    # counted by the cache's lookups, not its size: a full cache (4,096 entries after many test
    # files in one process) evicts one entry for each it adds
    before = _join_compounds.cache_info()
    long_text = "the rate is 5 MB/s here. " * (CACHED_TEXT // 10)
    assert join_compounds(long_text).count("MBˍs") == long_text.count("MB/s")
    after = _join_compounds.cache_info()
    assert (after.hits, after.misses) == (before.hits, before.misses)
    short = "a unique 7 MB/s line for the cache test"
    assert join_compounds(short) == join_compounds(short) == short.replace("MB/s", "MBˍs")
    last = _join_compounds.cache_info()
    assert (last.hits, last.misses) == (before.hits + 1, before.misses + 1)


@pytest.mark.timeout(10)
def test_a_line_of_many_unit_mentions_reads_each_mention_near_it() -> None:
    # each mention rebuilt the line's word list and walked back to its sentence's start for a
    # concession or an appearance, and on to the sentence's end for a rebuttal: the line below
    # took ~17 s; both walks now stop at REACH tokens or the clause, and the index of a token
    # is a binary search
    from controller.unit_rivals import conceded, shown_then_rebutted
    from helix.core.negation import read

    reading = read("The size is in MB. " + "MB " * 3000)
    for at in range(len(reading.tokens)):
        assert not shown_then_rebutted(reading, at) and not conceded(reading, at)
        assert reading.index_at(reading.tokens[at].start) == at
    shown = read("The tooltip says MB " + "x " * 50 + "but the value is actually a count.")
    assert shown_then_rebutted(shown, 3)  # an appearance, rebutted later in its sentence
    assert not shown_then_rebutted(read("The tooltip says MB. The value is a count."), 3)
