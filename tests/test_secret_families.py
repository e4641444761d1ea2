"""Families of real credential formats the public scanners' samples showed the detector
missing (issue 28, fifth pass), with examples written here (the scanners' samples are not ours
to copy) and the near cases that must stay unmasked: Bundler's per-host credentials, a login
setting that holds a token, the ID half of an access key pair, a Graph app access token, a
YAML mapping whose `secure:`/`value:` key holds the secret, a literal a secret name holds with
no operator (a config directive, `.assign(...)`, a getter's `return`, C++ direct
initialisation), a table row's cell, a token known by the marker ending it, and letters whose
case switches at random."""

from __future__ import annotations

import pytest

from helix.core.secrets import find_secrets, redact_text


def masked(text: str, value: str) -> bool:
    """No occurrence of the value and none of its halves is left in clear."""
    clean, _ = redact_text(text)
    half = len(value) // 2
    return not any(part in clean for part in (value, value[:half], value[half:]))


@pytest.mark.parametrize(("text", "value"), [
    # Bundler: credentials for a private gem server, keyed by its host (dots as `__`)
    ("export BUNDLE_GEMS__ACME__IO=deploy:Tr4ilM1x9", "deploy:Tr4ilM1x9"),
    ('BUNDLE_RUBYGEMS__PKG__GITHUB__COM: "octo:Wq7pLm2Zr8"', "octo:Wq7pLm2Zr8"),
    # a login setting whose value is an issued token (SonarScanner's sonar.login)
    ("sonar.login=9c1e7f0a2b4d6e8f1a3c5b7d9e0f2a4c6b8d0e1f",
     "9c1e7f0a2b4d6e8f1a3c5b7d9e0f2a4c6b8d0e1f"),
    ('SONAR_LOGIN := "a3f9c2e18b7d4f60c5a1e9b3d7f2c8e4a6b0d1f3"',
     "a3f9c2e18b7d4f60c5a1e9b3d7f2c8e4a6b0d1f3"),
    # the ID half of an access key pair (Sumo Logic accessId, Alibaba AccessKeyId)
    ('acme.accessId = "qa7Kd2Pw9Lr4Z"', "qa7Kd2Pw9Lr4Z"),
    ("ALIYUN_ACCESS_KEY_ID=LTAI5tQm8Rv2Kx9Wp4Zn", "LTAI5tQm8Rv2Kx9Wp4Zn"),
    # a Graph API app access token: the app's ID, `|`, its secret or signature
    ("graph call with 2718281828459045|Zk3q_Vt8WmP1xR6yLc0nBd9Hs4A",
     "2718281828459045|Zk3q_Vt8WmP1xR6yLc0nBd9Hs4A"),
    # a YAML mapping under a secret name whose key only holds the value (Travis CI)
    ("notify:\n  api_key:\n    secure: Yp4Nq8Zt2Lw7Rk3Vm9Xc\n", "Yp4Nq8Zt2Lw7Rk3Vm9Xc"),
    ("smtp_password:\n  value: 'fl0wer-Bed!92'\n", "fl0wer-Bed!92"),
    # a literal a secret name holds with no operator between them
    ('smtp_passphrase "horse battery staple";\n', "horse battery staple"),
    ('  vault_secret "Nw3r{Lp]q";', "Nw3r{Lp]q"),
    ('db_password.assign("Rv8#nq2Lzt", 10);', "Rv8#nq2Lzt"),
    ('passphrase.set("oak-Pine-47-fern")', "oak-Pine-47-fern"),
    ('func getRelayToken() string { return "Hm4Xq9Tz2Wv7Lp3K" }', "Hm4Xq9Tz2Wv7Lp3K"),
    ('    def get_api_secret(self): return "s7Kd!pQ2wZr"', "s7Kd!pQ2wZr"),
    ('std::string db_secret("Gk2#Lp9vQw");', "Gk2#Lp9vQw"),
    # a table row: a name's cell, then its value's (Markdown, a Postman variable list)
    ("| db_password | Tr0ub4dor&3 |", "Tr0ub4dor&3"),
    ("deployToken |7c2e9a41f0b8d3c6e5a7f1b2c4d8e0a9", "7c2e9a41f0b8d3c6e5a7f1b2c4d8e0a9"),
    # a token known by the marker ending it (New Relic mobile app tokens, `-NRMA`)
    ("agent: AA4e8c1f7a2b9d3e6f0c5a8b1d4e7f2a9c3b6d0e8f-NRMA",
     "AA4e8c1f7a2b9d3e6f0c5a8b1d4e7f2a9c3b6d0e8f-NRMA"),
    # letters whose case switches at random under a secret's name, unquoted
    ("relay_token: wqRtKbNyPdXm", "wqRtKbNyPdXm"),
])
def test_each_family_is_masked(text: str, value: str) -> None:
    assert masked(text, value), redact_text(text)[0]


@pytest.mark.parametrize("text", [
    "BUNDLE_BUILD__NOKOGIRI=--use-system-libraries",  # a gem's build flags, not a credential
    "BUNDLE_MIRROR__HTTPS://RUBYGEMS__ORG/=https://mirror.example.org",
    'login = "maria.lopez"',  # a user name under a login
    "report_access_id: 0b9d5c1e-2f64-4a8b-9c3d-7e1f0a2b4c6d",  # a record's UUID
    "access_id = request.args.get('id')",
    "row 1234567890123456|total|sum",  # digits and a pipe: no token after them
    "password:\n  min_length: 12\n  required: true\n",  # a schema, no value
    'echo "password reset requested"',  # a command and a message, not a directive
    'return secret("Gk2#Lp9vQw");',  # a call returning, not a declaration
    'tokens.set("lexer", state)',  # a store keyed by a name
    'def get_token_type(self): return "bearer"',  # a getter of a name, not of the secret
    "| token | the session's bearer string |",  # a table documenting a field
    "flags = token | ENCRYPTED",  # a bitwise or, not a cell
    "mode = build-NRMA-release",  # the marker inside words
    "password = getElementById",  # a camelCase name, no random case
])
def test_near_cases_stay(text: str) -> None:
    assert find_secrets(text) == [], [text[f.start:f.end] for f in find_secrets(text)]
