"""The secret scan's cost cuts change no finding (issue 28, scan cost): the rule detectors read
only the windows of their own triggers' lines (a data file whose every line wakes the entropy
detector is not read whole by the rules); detect-secrets' format plugins run only on a text
their RE2 gate finds; an entropy is computed only when the distinct characters allow it to
pass; overlapping findings are merged by bisection. The masked output is byte-identical to the
detector without any of these (every detector on the whole text, no gate, the quadratic merge)
on the corpora and on generated data files with secrets planted in them."""

from __future__ import annotations

import json
import random
import string
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helix.core import secret_plugins, secrets
from helix.core.secret_gates import BASE64_LIMIT, HEX_LIMIT, Finding, may_exceed, shannon_entropy
from helix.core.secret_prefilter import plan
from helix.core.secrets import find_secrets, masked, redact_text
from tests.secret_corpus import CORPUS
from tests.secret_formats import FILES, QUESTIONS

PLANTED = [text for _, text, _ in CORPUS] + [p.text for p in FILES] + [q for q, _ in QUESTIONS]


def _hex(rng: random.Random, size: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(size))


def _token(rng: random.Random, size: int) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits + "+/_-") for _ in range(size))


def _data_files(seed: int) -> list[str]:
    """Data files as a repository holds them (JSON lines with ids and digests, JSON, YAML,
    CSV, SQL), some with planted secrets among their lines."""
    rng = random.Random(seed)
    jsonl = [json.dumps({"ts": 1700000000 + i, "session": _hex(rng, 32),
                         "user": f"{_hex(rng, 8)}-{_hex(rng, 4)}-{_hex(rng, 4)}-{_hex(rng, 12)}",
                         "blob": _token(rng, 44), "digest": _hex(rng, 40)})
             for i in range(60)]
    config = json.dumps({"name": "svc", "items": [{"id": _hex(rng, 24), "sig": _token(rng, 36)}
                                                   for _ in range(30)]}, indent=2).split("\n")
    yaml = [f"- name: item{i}\n  checksum: {_hex(rng, 64)}\n  ref: \"{_token(rng, 40)}\""
            for i in range(40)]
    csv = ["id,token,count"] + [f"{i},{_token(rng, 48)},{rng.randint(0, 99)}" for i in range(80)]
    sql = [f"INSERT INTO t VALUES ({i}, '{_hex(rng, 32)}', '{_token(rng, 30)}');"
           for i in range(50)]
    out = []
    for lines in (jsonl, config, yaml, csv, sql):
        out.append("\n".join(lines) + "\n")
        planted = list(lines)
        for text in rng.sample(PLANTED, 6):
            planted.insert(rng.randrange(len(planted) + 1), text.rstrip("\n"))
        out.append("\n".join(planted) + "\n")
    return out


DATA = _data_files(28) + _data_files(2028)
SAMPLE = PLANTED + DATA


def _reference_merge(found: list[Finding]) -> list[Finding]:
    """The merge as it was: each finding against every accepted one."""
    accepted: list[Finding] = []
    for finding in found:
        if finding.end <= finding.start:
            continue
        overlapping = [a for a in accepted if a.start < finding.end and finding.start < a.end]
        if not overlapping:
            accepted.append(finding)
            continue
        merged = Finding(min(finding.start, *(a.start for a in overlapping)),
                         max(finding.end, *(a.end for a in overlapping)), overlapping[0].kind)
        accepted = [a for a in accepted if a not in overlapping] + [merged]
    return sorted(accepted)


def _unoptimized(texts: Iterable[str], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    with monkeypatch.context() as patch:
        patch.setattr(secret_plugins, "_may_find", lambda kind, subject: True)
        patch.setattr(secret_plugins, "may_exceed", lambda value, limit: True)
        patch.setattr(secrets, "_merge", _reference_merge)
        return [masked(text, find_secrets(text, prefilter=False)) for text in texts]


def test_masked_output_is_byte_identical_to_the_detector_without_the_cuts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    fast = [redact_text(text)[0] for text in SAMPLE]
    assert fast == _unoptimized(SAMPLE, monkeypatch)
    assert sum(a != b for a, b in zip(fast, SAMPLE, strict=True)) > len(DATA) // 2


def test_the_rules_read_a_dense_data_file_only_around_their_triggers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = DATA[1]  # JSON lines (every line wakes the entropy detector), secrets planted
    chosen = plan(text)
    assert chosen is not None and chosen.whole
    read: list[int] = []
    real = secrets.structural_findings
    monkeypatch.setattr(secrets, "structural_findings",
                        lambda piece: read.append(len(piece)) or real(piece))
    redact_text(text)
    assert read and sum(read) < len(text) / 4


def test_every_format_plugin_has_a_gate_that_every_match_passes() -> None:
    gates = secret_plugins._PLUGIN_GATES
    assert set(gates) == set(secret_plugins.format_kinds())
    for kind, detector in secret_plugins._plugins().regex:
        for text in SAMPLE:
            if text.isascii() and any(secret_plugins._plugin_spans(detector, text)):
                assert secret_plugins._may_find(kind, text.encode("ascii")), (kind, text)


def test_a_data_file_without_a_format_skips_the_format_plugins() -> None:
    subject = DATA[0].encode("ascii")
    assert not any(secret_plugins._may_find(kind, subject)
                   for kind in ("ibm_cloud_iam_key", "mailchimp_key", "telegram_token",
                                "softlayer_key", "cloudant_key"))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789abcdefABCDEF+/xyz", min_size=1, max_size=60))
def test_the_distinct_bound_never_hides_an_entropy_above_the_limit(value: str) -> None:
    hex_value = "".join(c for c in value if c in string.hexdigits) or "0"
    hex_plugin = secret_plugins._plugins().hex
    if not may_exceed(value, BASE64_LIMIT):
        assert shannon_entropy(value) <= BASE64_LIMIT
    if not may_exceed(hex_value, HEX_LIMIT):
        assert hex_plugin.calculate_shannon_entropy(hex_value) <= HEX_LIMIT


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 12), st.sampled_from("abc")),
                max_size=25))
def test_the_merge_by_bisection_is_the_quadratic_merge(spans: list[tuple[int, int, str]]) -> None:
    found = [Finding(start, start + size, kind) for start, size, kind in spans]
    assert secrets._merge(found) == _reference_merge(found)


def test_the_keyword_lines_are_found_when_lower_case_changes_a_texts_length() -> None:
    # "İ".lower() is two characters: offsets in the lowered text no longer fit the text, so the
    # keyword detector reads it whole rather than the wrong lines (the value is invented)
    text = "İ" * 40 + "\npassword = 'Zx9vQ2mLr8Tp'\n" + "x\n" * 30
    start = text.index("Zx9v")
    assert (start, start + 12, "keyword") in secret_plugins.line_findings(text)
