"""Classes of secrets a second writer's snippets showed the detector missing (round 13,
writer41's set studied by class; every example written here): a header inside a literal with
more after it, setters and builder steps named after the secret, quoted literals opening with
`*`, config directives with no operator, literals converted to bytes, URLs that are
credentials themselves, vendor prefixes, keys in base64 PEM and seed blocks, cookie jars and
session cookies, wallets' recovery phrases, pre-shared keys, generated salts."""

from __future__ import annotations

import pytest

from helix.core.secrets import find_secrets, redact_text


def masked(text: str, value: str) -> bool:
    """No occurrence of the value and none of its halves is left in clear."""
    clean, _ = redact_text(text)
    half = len(value) // 2
    return not any(part in clean for part in (value, value[:half], value[half:]))


SEED = "orbit velvet ladder tornado carpet oyster mirror elbow gentle sunset paddle fossil"


@pytest.mark.parametrize(("text", "value"), [
    # a header inside a literal, more arguments after it
    ('curl -sS -H "X-Auth-Token: q7w2e9r4t1y8u3i6o5p0" https://api.acme.test/v1/ping\n',
     "q7w2e9r4t1y8u3i6o5p0"),
    ("curl -H 'Acme-Key: Zt8nR2vL6qW1xP4mK9bC' https://api.acme.test/purge\n",
     "Zt8nR2vL6qW1xP4mK9bC"),
    # a hex key whose entropy is low for its length (hex has 16 symbols)
    ('curl -H "X-Auth-Key: ab12ab34ab56cd78cd90ef12ef34ab56ab7" https://a.test\n',
     "ab12ab34ab56cd78cd90ef12ef34ab56ab7"),
    # setters and a builder's steps named after the secret
    ('ds.setPassword("Kv8!rW2qZx");\n', "Kv8!rW2qZx"),
    ('Client.builder()\n    .apiSecret("Hq3mZ8pW1xR6tL9v")\n    .build();\n', "Hq3mZ8pW1xR6tL9v"),
    ('client = acme.Client.access_token("7/48213/99120:c0ffee1234abcd5678ef")\n',
     "7/48213/99120:c0ffee1234abcd5678ef"),
    # a quoted literal opening with `*`: no YAML alias inside quotes
    ('connect(user="etl", password="*Qw9rT2yU7iO")\n', "*Qw9rT2yU7iO"),
    # config directives: the name, then the value
    ("port 6379\nrequirepass Zq7+Wm2#Lp9xKv4\n", "Zq7+Wm2#Lp9xKv4"),
    ("[OUTPUT]\n    Name   acme\n    Acme_Token 5c3e1a7f-2b9d-4e8a-9c1f-0d2e4f6a8b1c\n",
     "5c3e1a7f-2b9d-4e8a-9c1f-0d2e4f6a8b1c"),
    # a literal converted to bytes where it is assigned
    ('var signingKey = []byte("Xk4!pQ9#zW2$mR7&vL1")\n', "Xk4!pQ9#zW2$mR7&vL1"),
    # URLs that are credentials themselves: the whole URL
    ('HOOK = "https://open.feishu.cn/open-apis/bot/v2/hook/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"\n',
     "https://open.feishu.cn/open-apis/bot/v2/hook/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"),
    ("url = 'https://discord.com/api/webhooks/412345678901234567/Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz'\n",
     "https://discord.com/api/webhooks/412345678901234567/Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz"),
    # vendor prefixes
    ("'key_id' => 'rzp_live_Qw3Er5Ty7Ui9Op',\n", "rzp_live_Qw3Er5Ty7Ui9Op"),
    ("init('sdk-0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b');\n",
     "sdk-0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"),
    ("FLAGS_ENV=ser.Qw3Er5Ty7Ui9Op1As3Df5G\n", "ser.Qw3Er5Ty7Ui9Op1As3Df5G"),
    ('realtime.New("Ab3dE5.Fg7hJ9:Kl1mN3pQ5rS7tU9vW1xY3zA5bC7dE9fG1hJ3kL5mN7pQ9rS")\n',
     "Ab3dE5.Fg7hJ9:Kl1mN3pQ5rS7tU9vW1xY3zA5bC7dE9fG1hJ3kL5mN7pQ9rS"),
    # a PEM private key in base64 on one line; a seed block
    ("    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB\n",
     "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB"),
    ("-----BEGIN USER NKEY SEED-----\nSUAKQ7W2E9R4T1Y8U3I6O5P0ASDFGHJKLZXCVBNMQWERTYUIOPASDFGH\n"
     "------END USER NKEY SEED------\n",
     "SUAKQ7W2E9R4T1Y8U3I6O5P0ASDFGHJKLZXCVBNMQWERTYUIOPASDFGH"),
    # a cookie jar's session; a session cookie in a header's value
    (".acme.test\tTRUE\t/\tTRUE\t1893456000\tsid\tq7w2e9r4t1y8u3i6o5p0a9s8\n",
     "q7w2e9r4t1y8u3i6o5p0a9s8"),
    ('{"name": "Cookie", "value": "theme=dark; connect.sid=s%3AQw3Er5Ty7Ui9Op1.As3Df5Gh7Jk9"}\n',
     "s%3AQw3Er5Ty7Ui9Op1.As3Df5Gh7Jk9"),
    # a wallet's recovery phrase, quoted and not
    (f'MNEMONIC="{SEED}"\n', SEED),
    (f"wallet:\n  recovery_phrase: {SEED}\n", SEED),
    # a pre-shared key, a generated salt under a `<x>_key` name
    ('network={\n    ssid="Office"\n    psk="blueHeron42!"\n}\n', "blueHeron42!"),
    ("define('NONCE_KEY', 'q8#Lm2!Xp7@Kv4$Rt6^Nb1&Xc3*Jd5(Hf');\n",
     "q8#Lm2!Xp7@Kv4$Rt6^Nb1&Xc3*Jd5(Hf"),
    # a log line's name=value pairs, words after them
    ("2026-01-02 03:04:05 DEBUG retry with token=Qw3Er5Ty7Ui9Op1As3 for user bob\n",
     "Qw3Er5Ty7Ui9Op1As3"),
    # a URL whose user part alone is the key (a Sentry-style DSN)
    ('init(dsn="https://0a1b2c3d4e5f60718293a4b5c6d7e8f9@o4411.ingest.example.io/77")\n',
     "0a1b2c3d4e5f60718293a4b5c6d7e8f9"),
    # a (name, value) pair of literals
    ("metadata = [('x-api-key', 'Qw3Er5Ty7Ui9Op1A')]\n", "Qw3Er5Ty7Ui9Op1A"),
    # prose naming what the password is for before saying it
    ("fyi the password for the staging box is: Marigold2026\n", "Marigold2026"),
])
def test_each_class_is_masked(text: str, value: str) -> None:
    assert masked(text, value), redact_text(text)[0]


@pytest.mark.parametrize("text", [
    "user.check_password('Hunter2Blue')\n",  # a call doing something with a password
    "mnemonic = 'LDA'\n",  # an assembler's mnemonic, no recovery phrase
    "RANDOM_SEED = 1234567\n",
    "password combination.\n",  # prose, no directive
    "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX\n",
    "the password for this account expired yesterday\n",
    "git clone https://github.com/acme/widgets.git\n",
    "INFO request done status=200 for user bob\n",
])
def test_near_cases_stay_readable(text: str) -> None:
    assert find_secrets(text) == [], redact_text(text)[0]
