"""Credentials in evidence are redacted before a prompt exists; the report never holds them."""

from __future__ import annotations

import pytest

from helix.core.envelope import EvidenceItem
from helix.synthesis.redact import looks_secret, redact_evidence, redact_text, shannon_entropy

AWS = "AKIAIOSFODNN7EXAMPLQ"
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
GITLAB = "glpat-" + "xY7zQ2wE9rT4yU1iO3pA"
OPENAI = "sk-proj-" + "T3BlbkFJq8w7e6r5t4y3u2i1o0pLkJhGf"
ANTHROPIC = "sk-ant-api03-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1"
SLACK = "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKlMnOp"
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
       "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
PEM = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\nq2Zx0Lw==\n"
       "-----END RSA PRIVATE KEY-----")


@pytest.mark.parametrize(("text", "secret", "kind"), [
    (f"key = {AWS}", AWS, "aws_access_key"),
    (f"TOKEN={GITHUB}", GITHUB, "github_token"),
    (f"gitlab: {GITLAB}", GITLAB, "gitlab_token"),
    (f"client = OpenAI(api_key='{OPENAI}')", OPENAI, "openai_key"),
    (f"ANTHROPIC_API_KEY={ANTHROPIC}", ANTHROPIC, "anthropic_key"),
    (f"slack {SLACK}", SLACK, "slack_token"),
    (f"auth: {JWT}", JWT, "jwt"),
    (f"before\n{PEM}\nafter", "MIIEowIBAAKCAQEA7bq", "private_key"),
    ("headers = {'Authorization': 'Bearer abcDEF123456ghiJKL789'}", "abcDEF123456ghiJKL789",
     "bearer_token"),
    ('password = "Zq8!vR2#mK9$pL4w"', "Zq8!vR2#mK9$pL4w", "assignment"),
    ('db_password: "Xk29fLq0Wm7Zp3"', "Xk29fLq0Wm7Zp3", "assignment"),
    ('{"api_key": "f3a9c1e7b2d84f6a9c0e"}', "f3a9c1e7b2d84f6a9c0e", "assignment"),
    ("export API_KEY=9f8e7d6c5b4a3f2e1d0c", "9f8e7d6c5b4a3f2e1d0c", "assignment"),
])
def test_each_kind_is_redacted_and_counted(text: str, secret: str, kind: str) -> None:
    clean, counts = redact_text(text)
    assert secret not in clean
    assert f"[REDACTED:{kind}]" in clean
    assert counts[kind] == 1


@pytest.mark.parametrize("text", [
    'password = request.form["password"]',
    "api_key = settings.api_key",
    'password = "changeme"',
    'token = os.environ.get("TOKEN")',
    'API_KEY = "<your-key-here>"',
    "The password must be rotated every 90 days.",
    'secret = "aaaaaaaaaaaa"',  # long but not random
    "def get_token(self) -> str:",
])
def test_ordinary_code_is_left_alone(text: str) -> None:
    clean, counts = redact_text(text)
    assert clean == text
    assert not counts


def test_private_key_keeps_line_count() -> None:
    text = f"a\n{PEM}\nb"
    clean, _ = redact_text(text)
    assert clean.count("\n") == text.count("\n")
    assert clean.splitlines()[-1] == "b"


def test_truncated_private_key_block_is_redacted_to_the_end() -> None:
    clean, counts = redact_text("x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n")
    assert "b3BlbnNzaC1rZXk" not in clean and counts["private_key"] == 1


def test_entropy_and_placeholder_rules() -> None:
    assert shannon_entropy("") == 0.0
    assert shannon_entropy("abab") == 1.0
    assert looks_secret("f3a9c1e7b2d84f6a9c0e")
    assert not looks_secret("your_api_key_here")
    assert not looks_secret("short")


def test_report_counts_kinds_never_secrets() -> None:
    items = [
        EvidenceItem(id="e1", path="a.py", start_line=1, end_line=3, kind="code", score=1.0,
                     content_hash="sha256:1", node_id="file:a.py", reasons=(),
                     text=f"A = '{AWS}'\nB = '{GITHUB}'"),
        EvidenceItem(id="e2", path="b.py", start_line=1, end_line=1, kind="code", score=0.5,
                     content_hash="sha256:2", node_id="file:b.py", reasons=(), text="x = 1"),
    ]
    clean, report = redact_evidence(items)
    assert report.counts == {"aws_access_key": 1, "github_token": 1}
    assert report.total == 2
    assert report.evidence_ids == ("e1",)
    assert AWS not in report.model_dump_json() and GITHUB not in report.model_dump_json()
    assert clean[1] is items[1]
    assert AWS not in clean[0].text
