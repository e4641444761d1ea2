"""Secret detection (detect-secrets' plugins + the formats they lack) and whole-message
redaction: every planted format is masked, ordinary code and commit hashes survive, line
numbers stay true, JSON payloads are redacted value by value."""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import pytest

from helix.core.secrets import find_secrets, looks_password
from helix.synthesis.redact import redact_content, redact_messages, redact_text

STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
STRIPE_TEST = "sk_test_" + "51HqLyjWDarjtT1zdp7dcXyZ"
URL_PW = "Pg4dm1nPw9"
PROSE_PW = "Tr0ub4dor&3"
YAML_PW = "hunter2x"
MYSQL_PW = "S3cr3tPass!"
SALT = "f3a9c1e7b2d84f6a9c0e5d7b3a1f9e2c"


def key_body(lines: int = 6, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    raw = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(48 * lines))).decode()
    return [raw[i:i + 64] for i in range(0, len(raw), 64)]


@pytest.mark.parametrize(("text", "secret"), [
    (f'STRIPE_SECRET_KEY = "{STRIPE}"', STRIPE),
    (f"stripe.api_key = {STRIPE_TEST}", STRIPE_TEST),
    (f'DATABASE_URL = "postgres://billing:{URL_PW}@db.internal:5432/billing"', URL_PW),
    ("url: postgres://user:pw@host/db", ":pw@"),
    (f"The billing database password: {PROSE_PW} is rotated every quarter.", PROSE_PW),
    (f"database:\n  password: {YAML_PW}\n  pool_size: 5\n", YAML_PW),
    (f"Connect with `mysql -u billing -p{MYSQL_PW} billing` from the bastion.", MYSQL_PW),
    ("mysql -uroot -pSECRET", "SECRET"),
    (f"redis-cli -a {MYSQL_PW} ping", MYSQL_PW),
    (f"pg_restore --password={MYSQL_PW} dump.sql", MYSQL_PW),
    (f'SIGNING_SALT = "{SALT}"', SALT),
    (f'WEBHOOK = "{SALT}"', SALT),  # no secret name: detect-secrets' hex entropy
])
def test_each_planted_format_is_found(text: str, secret: str) -> None:
    clean, counts = redact_text(text)
    assert secret not in clean, clean
    assert counts and "[REDACTED:" in clean


def test_key_body_without_its_begin_line_is_redacted_keeping_line_numbers() -> None:
    body = key_body()
    chunk = "def deploy_key_body():\n    return '''\n" + "\n".join(body) + "\n'''\n"
    clean, counts = redact_text(chunk)
    assert counts == {"private_key": 1}
    assert not any(line in clean for line in body)
    assert clean.count("\n") == chunk.count("\n")
    assert clean.splitlines()[0] == "def deploy_key_body():"
    assert clean.splitlines()[-1] == "'''"


def test_begin_block_without_end_stops_at_the_body() -> None:
    body = key_body(2)
    text = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(body) + "\ndef after():\n    pass\n"
    clean, counts = redact_text(text)
    assert counts == {"private_key": 1}
    assert "def after():\n    pass" in clean and body[0] not in clean
    assert clean.count("\n") == text.count("\n")


@pytest.mark.parametrize("text", [
    'password = request.form["password"]',
    "password = get_password(user)",
    "api_key = settings.api_key",
    "def login(password: str, token: Optional[str] = None) -> None:",
    "password: Optional[str] = None",
    "The password must be rotated every 90 days.",
    "password: required",
    'TOKEN_TYPE_IDS = "token_type_ids"',
    '"CHAT_HISTORY_MAX_TOKENS": "chat_history_max_tokens",',
    "Fixed in commit d77520e1ca15b2eebf39fb2cc4d3e9a1b2c3d4e5 (see git log).",
    'EXPECTED_SHA = "d77520e1ca15b2eebf39fb2cc4d3e9a1b2c3d4e5"',
    '"parent": "0bdcbaef72c569aaaac548b99f2ecfee5a0a76dd",',
    'rev = "0bdcbaef72c569aaaac548b99f2ecfee5a0a76dd0bdcbaef72c569aaaac548b9"',
    '["0bdcbaef72c569aaaac548b99f2ecfee5a0a76dd", "13b28b6ebb40"]',
    "sha256:3f0a7c9e1b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d2f4a",
    'request_id = "7d9f8e2a1c4b"',
    "mysql -u root -p mydb",
    "psql -p 5432 billing",
    'url = "https://example.org/a/b?c=d"',
    "See https://www.researchgate.net/publication/200034365_An_Improved_Algorithm_for_Matching",
    'API_KEY = "${API_KEY}"',
    "postgres://user:${DB_PASSWORD}@host/db",
])
def test_ordinary_text_survives(text: str) -> None:
    assert find_secrets(text) == [], text


def test_password_words_and_identifiers_are_not_passwords() -> None:
    assert looks_password("hunter2x") and looks_password("Tr0ub4dor&3")
    assert not looks_password("required") and not looks_password("new_password")
    assert not looks_password("request.form") and not looks_password("12345")


def test_redaction_is_idempotent() -> None:
    once, _ = redact_text(f"key = '{STRIPE}'\npassword: {YAML_PW}")
    twice, counts = redact_text(once)
    assert twice == once and not counts


def test_json_payload_is_redacted_value_by_value() -> None:
    body = key_body(3)
    payload = {"question": "what does it mean?",
               "recentTurns": [f"turn 1: why does {STRIPE} fail?",
                               "turn 2: opened\n" + "\n".join(body)]}
    content = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    clean, counts = redact_content(content)
    decoded = json.loads(clean)
    assert STRIPE not in clean and body[0] not in clean
    assert decoded["question"] == "what does it mean?"
    assert counts == {"private_key": 1, "stripe_key": 1}


def test_every_message_is_redacted_roles_kept() -> None:
    messages = [{"role": "system", "content": f"system {STRIPE}"},
                {"role": "user", "content": f"mysql -p{MYSQL_PW}"},
                {"role": "assistant", "content": "nothing secret"}]
    clean, counts = redact_messages(messages)
    assert [m["role"] for m in clean] == ["system", "user", "assistant"]
    assert STRIPE not in repr(clean) and MYSQL_PW not in repr(clean)
    assert clean[2] == messages[2] and counts == {"command_password": 1, "stripe_key": 1}


def test_helix_own_source_has_no_false_positives() -> None:
    """Ordinary code: Helix's own packages (not the detector's docs) redact nothing."""
    root = Path(__file__).resolve().parents[1]
    hits = []
    for package in ("helix", "controller", "indexers", "evals"):
        for path in sorted((root / package).rglob("*.py")):
            if path.name == "secrets.py" or path.name.startswith("secret_"):
                continue  # the detector's own modules: their docs show what they find
            text = path.read_text(encoding="utf-8")
            hits += [f"{path.relative_to(root)}: {text[f.start:f.end][:40]!r}"
                     for f in find_secrets(text)]
    assert hits == []


def test_text_with_undecodable_bytes_is_scanned_at_the_same_offsets() -> None:
    # a file's bytes decoded with surrogateescape (what the corpus trees write from): RE2
    # refused the lone surrogates with a UnicodeEncodeError before
    raw = b'\xc9t\xe9 = 1\npassword = "' + PROSE_PW.encode() + b'"\n'
    text = raw.decode("utf-8", "surrogateescape")
    findings = find_secrets(text)
    assert findings and all(PROSE_PW in text[f.start:f.end] for f in findings)
