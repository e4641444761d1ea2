"""Round 36's causes, with values invented here: a PIN's, a PUK's and a keypad's code after its
name (secret_codes); a documented example JWT written as string literals split over lines
(secret_examples); and the guards that keep other numbers and a real token's parts as they
were."""

from __future__ import annotations

import pytest

from tests.secret_helpers import agreed_texts

# --- a code typed on a keypad or a phone (secret_codes)


@pytest.mark.parametrize(("text", "value"), [
    ("# LTE modem in the boiler room\nPIN: 5082\nPUK: 30917264\n", "30917264"),
    ("[modem]\napn = internet\nsim_pin = 6174\n", "6174"),
    ('{"modem": {"sim_puk": "71049263"}}\n', "71049263"),
    ("- intercom admin via DTMF, access code: *4609#\n", "*4609#"),
    ("Side entrance door code: 8153#\n", "8153#"),
    ("Bike shed code for building C: **7046#**\n", "7046#"),
    ("The lobby keypad code is 39261#.\n", "39261#"),
])
def test_a_code_after_its_name_is_found(text: str, value: str) -> None:
    assert value in agreed_texts(text)


@pytest.mark.parametrize("text", [
    "Shipping: zip code: 80331\n",          # a number of another kind after `<word> code`
    "error code: 4040\n",
    "LED_PIN = 13\n",                        # a GPIO's pin
    "pin = 1111\n",                          # one digit repeated
    "SIM_PIN = 5082.5\n",                    # a number, not a code
    "door code: 8153-12\n",
    "door code: see the wiki\n",
    "country code: *49\n",                   # too few digits
    "mapping: 4471\n",                       # no PIN's name as a word
    "spin = 2048\n",
    "build_code = 4471#2\n",
    '{"pin": 8091, "pink": 8092, "puk": 30917}\n',   # a vocabulary's IDs: JSON numbers
])
def test_a_number_that_is_no_code_stays(text: str) -> None:
    assert agreed_texts(text) == []


# --- a documented example written in parts (secret_examples)

_HEADER = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
_PAYLOAD = "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
_SIGNATURE = "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"  # jwt.io's sample token's


@pytest.mark.parametrize("text", [
    f'EXAMPLE_TOKEN = (\n    "{_HEADER}."\n    "{_PAYLOAD}."\n    "{_SIGNATURE}"\n)\n',
    f'const demo = "{_HEADER}" +\n  ".{_PAYLOAD}" +\n  ".{_SIGNATURE}";\n',
])
def test_a_split_documented_example_jwt_is_no_secret(text: str) -> None:
    assert agreed_texts(text) == []


@pytest.mark.parametrize(("text", "value"), [
    # an invented token split the same way: its signature stays found
    ('TOKEN = (\n  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"\n'
     '  ".eyJzdWIiOiJtaWxsIiwicm9sZSI6Im9wcyIsImV4cCI6MTc5MDAwMDAwMH0"\n'
     '  ".Rk2vQ9mT1pX5wW8yhJ3kL7nP2rT6vX4zB9dF1hJ0lN5"\n)\n',
     "Rk2vQ9mT1pX5wW8yhJ3kL7nP2rT6vX4zB9dF1hJ0lN5"),
    # the example's signature alone, under a secret's name, stays found (no other part here)
    (f'signature_secret = "{_SIGNATURE}"\n', _SIGNATURE),
])
def test_a_tokens_part_not_of_an_example_stays_found(text: str, value: str) -> None:
    assert any(value in found for found in agreed_texts(text))


# --- a `user:password` URL to the loopback's bare name keeps the host (secret_urls)


@pytest.mark.parametrize(("text", "masked"), [
    ("DATABASE_URL=postgres://app:Kx8-Lm2q-Zt7@localhost\n", "Kx8-Lm2q-Zt7"),
    ('cache = "redis://worker:Qw7Er-Ty2Ui9@LOCALHOST"\n', "Qw7Er-Ty2Ui9"),
])
def test_a_url_to_localhost_keeps_its_host(text: str, masked: str) -> None:
    found = agreed_texts(text)
    assert any(masked in value for value in found)
    assert not any("localhost" in value.lower() for value in found)


def test_a_url_to_an_account_is_still_masked_whole() -> None:
    text = "CLOUDINARY_URL=cloudinary://418273645091827:Kx8Lm2qZt7QwErTy@acme-media\n"
    assert agreed_texts(text) == ["cloudinary://418273645091827:Kx8Lm2qZt7QwErTy@acme-media"]
