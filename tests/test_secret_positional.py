"""Classes of secrets round 14's tune sets showed missed (writer40's and writer41's, studied by
class; every value here invented for the test): keys handed to a client by position, a tool's
login command, an Authorization header with a vendor's scheme, an API key in a query or in a
URL's path, a vendor's key under `routing_key`, an encoding named before a value (part of it),
passwords
that read as attribute paths or flags."""

from __future__ import annotations

import pytest

from helix.core.secrets import find_secrets, redact_text


def masked(text: str, value: str) -> bool:
    clean, _ = redact_text(text)
    half = len(value) // 2
    return not any(part in clean for part in (value, value[:half], value[half:]))


@pytest.mark.parametrize(("text", "value"), [
    # a literal handed to a call that opens a client, by position
    ('sender = NotifyClient("B7GtjN98aRTuuTT8s4wVXF52")\n', "B7GtjN98aRTuuTT8s4wVXF52"),
    ("api = Acme::Client.new('c0ffee12ab34cd56ef78ab90cd12ef34-77aa88bb-1234abcd')\n",
     "c0ffee12ab34cd56ef78ab90cd12ef34-77aa88bb-1234abcd"),
    ('\tc := smsgate.New("Hq3LmaaZ8tR5wX2vN7pK4s")\n', "Hq3LmaaZ8tR5wX2vN7pK4s"),
    ('Voice.Init("ACabc", "tQ7nQ2vR9tL4wK8z", "region")\n', "tQ7nQ2vR9tL4wK8z"),
    ("s = ApiSession('v+Tq8LmZ-3xWr7NpK2sY')\n", "v+Tq8LmZ-3xWr7NpK2sY"),
    ("f = get_factory('9f1c0a7e3b5d2c4e6a8b0d1f3e5c7a9b20461837', config={'mode': 'x'})\n",
     "9f1c0a7e3b5d2c4e6a8b0d1f3e5c7a9b20461837"),
    ('if err := conn.Bind("cn=svc,dc=corp", "Wm4qT9xL2vR7nK8pB3zY5c"); err != nil {\n',
     "Wm4qT9xL2vR7nK8pB3zY5c"),
    ("$db = new PDO($dsn, 'app', 'tK8mW2qZ7xR4vN9pL3sY6b', []);\n", "tK8mW2qZ7xR4vN9pL3sY6b"),
    ('  password: SecretValue.unsafePlainText("Zr5nQ8wL2mX7vT4kP9bY3c"),\n',
     "Zr5nQ8wL2mX7vT4kP9bY3c"),
    # a tool logging in with a token on its command line
    ("      - run: scanner auth 3f9a2c71-58de-4b0a-9c6e-d4b7a1f0e862\n",
     "3f9a2c71-58de-4b0a-9c6e-d4b7a1f0e862"),
    ("store account authorize 00a1b2c3d4e5f60718293a4b Kq8Lm2Zx7Rv4Wn9Tp3Sy6Bc1/Df5\n",
     "Kq8Lm2Zx7Rv4Wn9Tp3Sy6Bc1/Df5"),
    # an Authorization header with a vendor's own scheme
    ('  -H "Authorization: Intake 8d2f7a41-3c9e-4b6d-a05f-e1c7b9d24f68" \\\n',
     "8d2f7a41-3c9e-4b6d-a05f-e1c7b9d24f68"),
    # an API key in a query string, in a URL's path after its version
    ('"GET /v1/weather?q=Oslo&appid=5e7c1a9d3b8f2e6a4c0d9b7f1e3a5c8d HTTP/1.1" 200\n',
     "5e7c1a9d3b8f2e6a4c0d9b7f1e3a5c8d"),
    ('rpc = Provider("https://eth-main.node.test/v2/Zq7XmL2vR9tK4wN8pB3yC6fH1dJ5")\n',
     "Zq7XmL2vR9tK4wN8pB3yC6fH1dJ5"),
    # a vendor's key under routing_key
    ("receivers:\n  - pager_configs:\n      - routing_key: 4be1c9d07a3f62e85d1b9c0a7e4f2d63\n",
     "4be1c9d07a3f62e85d1b9c0a7e4f2d63"),
    # a password that reads as an attribute path, one that opens with a dash
    ("    environment:\n      DB_PASSWORD: kqz.WmR7vLtPqXnZ3sYb\n", "kqz.WmR7vLtPqXnZ3sYb"),
    ("db01 ansible_user=ops ansible_password=-Q=!481TkorPel\n", "-Q=!481TkorPel"),
])
def test_positional_and_vendor_secrets_are_masked(text: str, value: str) -> None:
    assert masked(text, value)


def test_an_encoding_named_before_a_value_is_part_of_it() -> None:
    text = "APP_KEY=base64:Wq3rT8yU1iO6pA4sD9fG2hJ7kL5zX0cV3bN8mQ1wE4r=\n"
    assert [text[start:end] for start, end, _ in find_secrets(text)] == [
        "base64:Wq3rT8yU1iO6pA4sD9fG2hJ7kL5zX0cV3bN8mQ1wE4r="]


@pytest.mark.parametrize("text", [
    'h = hashlib.new("sha256")\n',
    'err := errors.New("connection refused by the remote host")\n',
    'c = HttpClient("https://api.example.test/v1/items", timeout=30)\n',
    "conn.Bind(\"cn=admin,dc=example,dc=org\", password)\n",
    "exchange.publish(routing_key='orders.created', body=payload)\n",
    'git auth login --with-token\n',
    'url = "https://api.example.test/v1/4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f"\n',
    "java -Xmx512m -jar app.jar\npassword=-Xmx512m\n",
    "DB_PASSWORD: settings.database.password\n",
])
def test_what_only_looks_so_is_left(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize("text", [
    # digests named by their algorithm: an HTTP Digest header, a pin set, a pin element
    "Digest: sha-256=Xq4Rvj0nrL7LvCfdirpBZz49hfcmt083PGm6PG7cmzk=\n",
    '    "backup_pin": "sha256/Kq9EfRWB/0WXcNzM/EWFM9FeKt/1SvZ/oDtJPy2a7OA="\n',
    '        <pin digest="SHA-256">Ht7Dh1Y4UyQ6K6gtTFEA4QvEsqW6WjY7VgUxNQumGVjc=</pin>\n',
    # an account's address
    '{"Token": "0x3fA9b2C4d5E6f7081a2B3c4D5e6F708192a3B4c5"}\n',
    # where the password goes, not a password; prose about a flag; a log's masks; dummies
    "DATABASE_URL=mysql://USER:PASSWORD@db.internal:3306/shop\n",
    "WARNING: passing --password on the command line is unsafe\n",
    "Authorization: Bearer [FILTERED]\n",
    "STRIPE_API_KEY=test-key\n",
    # a sealed secret's ciphertext
    "kind: SealedSecret\nspec:\n  encryptedData:\n    password: Ag" + "Bq7x/Kd2+Lm9" * 12 + "==\n",
])
def test_public_and_dummy_values_are_left(text: str) -> None:
    assert find_secrets(text) == []
