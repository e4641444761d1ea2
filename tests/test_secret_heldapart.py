"""benchmarks/secret_heldapart.py: a held-apart secret set scored per value, per snippet and on
lookalikes, with no text of the set in the result."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import secret_heldapart  # noqa: E402

# invented for this test: a PEM private key block (always a secret) and a word with no sign
KEY = ("-----BEGIN OPENSSH PRIVATE KEY-----\n"
       "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
       "-----END OPENSSH PRIVATE KEY-----")


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_snippet_counts_only_when_every_secret_is_masked(tmp_path: Path) -> None:
    secrets = _write(tmp_path / "s.jsonl", [
        {"id": "a", "text": f"key = '''{KEY}'''", "secrets": [KEY], "service": "ssh",
         "context": "python"},
        {"id": "b", "text": f"{KEY}\nnote: tulip", "secrets": [KEY, "tulip"],
         "service": "ssh+word", "context": "text"}])
    looks = _write(tmp_path / "l.jsonl", [
        {"id": "c", "text": "colour = 'blue'", "secrets": [], "service": "none",
         "context": "python"}])
    out = tmp_path / "r.json"
    assert secret_heldapart.main(["--secrets", str(secrets), "--lookalikes", str(looks),
                                  "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert (result["secret_values"], result["recall_values"]) == (3, round(2 / 3, 4))
    assert result["recall_snippets"] == 0.5
    assert result["misses"] == [{"id": "b", "service": "ssh+word", "context": "text",
                                 "missed": 1, "of": 2}]
    assert (result["lookalikes_flagged"], result["false_positive_rate"]) == (0, 0.0)
    assert "tulip" not in out.read_text() and "BEGIN" not in out.read_text()


def test_a_line_that_is_not_json_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(SystemExit) as raised:
        secret_heldapart.main(["--secrets", str(bad), "--lookalikes", str(bad),
                               "--out", str(tmp_path / "r.json")])
    assert str(raised.value).startswith("bad.jsonl:1: not JSON")
    assert not (tmp_path / "r.json").exists()


def test_a_missing_file_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as raised:
        secret_heldapart.main(["--secrets", str(tmp_path / "none.jsonl"),
                               "--lookalikes", str(tmp_path / "none.jsonl"),
                               "--out", str(tmp_path / "r.json")])
    assert str(raised.value).startswith("cannot read ")
    assert "\n" not in str(raised.value)


def test_a_service_label_naming_a_reserved_project_is_not_written(tmp_path: Path) -> None:
    from evals.reserved import RESERVED_NAME

    secrets = _write(tmp_path / "s.jsonl", [
        {"id": "a", "text": "note: tulip", "secrets": ["tulip"], "service": "Django word",
         "context": "text"}])
    looks = _write(tmp_path / "l.jsonl", [
        {"id": "c", "text": KEY, "secrets": [], "service": "Flask key", "context": "pem"}])
    out = tmp_path / "r.json"
    assert secret_heldapart.main(["--secrets", str(secrets), "--lookalikes", str(looks),
                                  "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert [m["service"] for m in result["misses"] + result["flagged"]] == [RESERVED_NAME] * 2
    assert "Django" not in out.read_text() and "Flask" not in out.read_text()
