"""Classes of lookalikes round 15's tune sets showed flagged (writer44's, writer40's and
writer41's, by class; every value here invented for the test): a JWT signed by nobody, base64
of a media file, a typed object ID under its type's name, crypto test data named as such, a
site key, a SOPS envelope's parameters, a private key's markers with no body, a publishable
token, dummies and references the keyword detector read as passwords, a qualified call after
`credentials:`. (An unsigned JWT stays found: the public samples count it as a secret. A
URL's `user:password@` did too until round 18: three tune sets' templates showed it flagged,
against one public sample, detect-secrets' own `https://username:password@yelp.com`.)"""

from __future__ import annotations

import base64

import pytest

from helix.core.secrets import find_secrets

_MEDIA = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(7, 250, 3))).decode()


@pytest.mark.parametrize("text", [
    f'{{"name": "icon.png", "data": "{_MEDIA}"}}\n',
    '{"order": "order_Vq4mZr8Tn2Lx7Wc5Kp9Hs3JdQe",\n'
    ' "payment_intent": "pi_Hx3Kq9vLm2Tz8WnR5sYb6Fc1Ga"}\n',
    'invoice = "inv_Zx7Lq2Wm9Tv4Rk8NcY3pB6hJ1sD"\n',
    '{"plaintext": "7fd3a1c9e20b4e58a6c1f0d39b2e7a45", '
    '"ciphertext": "c2e85d1f0a9b37e64f18d2ca5b09e371"}\n',
    'EXPECTED = bytes.fromhex("9a3c71e0d25b48f6c1e07a93d5b2f480")\n',
    '<div class="captcha" data-sitekey="6Lf3Qx8ZAAAAAJt7Wm2Kv9Rz4Lq8Xn3Tp5Yc1Bd"></div>\n',
    "db_password: ENC[AES256_GCM,data:k3Vx9QmT2Lr8Zw4Np7Yc5Bh1Df6Gj0=,"
    "iv:Wq7Rz2Lm9Tx4Kv8Np3Yc5Bh1Df6Gj0Ls2Qe4Uo7Ia9=,tag:Hn5Tq2Wm8Lx3Rv7Kz9Pc4Yb1Df6Gj0=,"
    "type:str]\n",
    '    static final String BEGIN = "-----BEGIN PRIVATE KEY-----";\n'
    '    static final String END = "-----END PRIVATE KEY-----";\n',
    "map.accessToken = 'pk.eyJ1IjoicWEtbWFwcyIsImEiOiJjbHF4N3oyIn0.Tq8vWm2LxR7nZp4KHx3Kq9';\n",
    'ADMIN_PASSWORD = "password123"  # fixture\n',
    'secret_path = "kv/data/staging/billing"\n',
    'secret_id = "staging/api/primary"\n',
    "  credentials: Acme::Credentials.new(\n",
])
def test_lookalikes_of_these_classes_are_left(text: str) -> None:
    assert find_secrets(text) == [], [text[s:e] for s, e, _ in find_secrets(text)]


@pytest.mark.parametrize(("text", "value"), [
    # an unsigned JWT (the public samples count it), a signed token,
    # an ID under a secret's name, a real URL password, a key's ID: kept
    ('bad = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJxYS03In0."\n',
     "eyJhbGciOiJub25lIn0.eyJzdWIiOiJxYS03In0."),
    ('token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJxYS03In0.Tq8vWm2LxR7nZp4KHx3Kq9vLm2Tz8"\n',
     "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJxYS03In0.Tq8vWm2LxR7nZp4KHx3Kq9vLm2Tz8"),
    ('api_secret = "sec_Tq8vWm2LxR7nZp4KHx3K"\n', "sec_Tq8vWm2LxR7nZp4KHx3K"),
    ("DATABASE_URL=postgres://app:Tq8vWm2LxR7nZp@db.internal:5432/app\n", "Tq8vWm2LxR7nZp"),
    ('"private_key_id": "4f0c9a7e21b83d56c0e9f1a2b7d46e8c3a15f902",\n',
     "4f0c9a7e21b83d56c0e9f1a2b7d46e8c3a15f902"),
    # a key block cut short: its body however short is a key's
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n", "b3BlbnNzaC1rZXk"),
])
def test_secrets_beside_those_classes_are_kept(text: str, value: str) -> None:
    assert any(value in text[s:e] for s, e, _ in find_secrets(text)), text
