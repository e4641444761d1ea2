"""Round 23's lookalikes (writer78's and writer72's flagged ones, by cause), each with values
invented here: a template's word, a registry's number, a request line's protocol, webpack's
build hash and RFC 7519's example token are no secrets; real values next to them still are."""

from __future__ import annotations

import pytest

from tests.secret_helpers import agreed_texts

# --- `REPLACE_ME` and its kin stand for the secret (as `changeme` does)


@pytest.mark.parametrize("text", [
    "SMTP_PASSWORD=REPLACE_ME\n",
    "vault:\n  unseal_key: \"replace-me\"\n",
    "auth:\n  signing_key: \"ReplaceMe\"\n",
    "STRIPE_SECRET=sk_live_REPLACEME\n",
    "billing = {\n  key: 'sk_test_PLACEHOLDER',\n}\n",
])
def test_a_template_word_is_no_secret(text: str) -> None:
    assert agreed_texts(text) == []


@pytest.mark.parametrize(("text", "value"), [
    ("SMTP_PASSWORD=Vq7-Lm2pXe9w\n", "Vq7-Lm2pXe9w"),
    ("billing = {\n  key: 'sk_test_51Hq8ZtRk2VbPq0Lm3Nx7Wc',\n}\n",
     "sk_test_51Hq8ZtRk2VbPq0Lm3Nx7Wc"),
])
def test_a_real_value_in_the_same_place_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


# --- a Windows registry file's typed number


@pytest.mark.parametrize("text", [
    "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Acme\\Client]\n\"UseToken\"=dword:00000001\n",
    "[HKEY_CURRENT_USER\\Software\\Acme]\n\"SecretTimeout\"=qword:000000000000ea60\n",
])
def test_a_registry_number_is_no_secret(text: str) -> None:
    assert agreed_texts(text) == []


def test_a_registry_string_password_is_still_found() -> None:
    text = "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Acme\\Client]\n\"Password\"=\"Tq4#mZ8vLp2w\"\n"
    assert agreed_texts(text) == ["Tq4#mZ8vLp2w"]


# --- an access log's request line: the protocol after a path that ends in `token`


def test_a_request_lines_protocol_is_no_secret() -> None:
    text = ('198.51.100.7 - - [02/Mar/2025:08:14:55 +0000] "POST /api/token HTTP/1.1" 200 91\n'
            '198.51.100.7 - - [02/Mar/2025:08:14:56 +0000] "GET /login/token HTTP/2" 200 13\n')
    assert agreed_texts(text) == []


# --- webpack's runtime: the compilation's hash after the public path


@pytest.mark.parametrize("text", [
    'function r(e){return o[e].exports}r.p="/assets/",r.h="4c1e9a07b2d85f36e0a9";\n',
    '__webpack_require__.p = "";\n__webpack_require__.h = "a07c3e91d5b4f28e6c1d";\n',
])
def test_a_webpack_build_hash_is_no_secret(text: str) -> None:
    assert agreed_texts(text) == []


def test_a_hex_key_in_a_bundle_is_still_found() -> None:
    text = 'var cfg={apiSecret:"4c1e9a07b2d85f36e0a97d2b5e81f4c3"};r.p="/assets/";\n'
    assert agreed_texts(text) == ["4c1e9a07b2d85f36e0a97d2b5e81f4c3"]


# --- RFC 7519's example JWT (section 3.1), with and without its signature

_RFC7519 = ("eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzO"
            "DAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ")


@pytest.mark.parametrize("token", [
    _RFC7519, _RFC7519 + ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"])
def test_the_rfc7519_example_token_is_public(token: str) -> None:
    assert agreed_texts(f'EXAMPLE_JWT = "{token}"\n') == []


# --- a vendor's token prefix alone, the rest built by code


@pytest.mark.parametrize("text", [
    'STUB_GITHUB_TOKEN = "ghp_" + "0" * 36\n',
    'SLACK_BOT_TOKEN = "xoxb-" + make_body()\n',
])
def test_a_bare_token_prefix_is_no_secret(text: str) -> None:
    assert agreed_texts(text) == []


def test_a_token_after_its_prefix_is_still_found() -> None:
    text = 'GITHUB_TOKEN = "ghp_R8kd2LqZ0vXn5TmW3yPb7HcJ4sFg1AeU9oQi"\n'
    assert agreed_texts(text) == ["ghp_R8kd2LqZ0vXn5TmW3yPb7HcJ4sFg1AeU9oQi"]


# --- where a secret is kept: a path of words, relative or absolute


@pytest.mark.parametrize("text", [
    "[Service]\nLoadCredential=broker-password:/etc/credstore/broker-main\n",
    'ROTATE = [\n    "crm/sfdc/password",\n    "mail/sendgrid/api_key",\n'
    '    "plant/scada/svc_reader",\n]\n',
])
def test_a_secrets_path_is_no_secret(text: str) -> None:
    assert agreed_texts(text) == []


def test_a_password_with_a_slash_is_still_found() -> None:
    text = 'db_password = "Zq8/vLm2#Xp4"\n'
    assert agreed_texts(text) == ["Zq8/vLm2#Xp4"]


# --- an ECDSA signature (DER, base64): public, verified with the public key

_SIGNATURE = ("MEUCIQAHCAkKCwwNDg8QERITFBUWFxgZGhscHR4fICEiIyQlJgIgKCkqKywtLi8wMTIzNDU2Nzg5Ojs8PT4/"
              "QEFCQ0RFRkc=")


@pytest.mark.parametrize("text", [
    f'{{"artifact": "fw-2.4.1.bin", "signature": "{_SIGNATURE}"}}\n',
    f"release:\n  sig: {_SIGNATURE}\n",
])
def test_a_der_signature_is_no_secret(text: str) -> None:
    assert agreed_texts(text) == []
