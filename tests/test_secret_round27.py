"""Round 27's classes of the tune set's misses and flagged lookalikes (writer99's), with values
invented here: general evidence (a value's format or place, a name's form) and the guards that
keep lookalikes out."""

from __future__ import annotations

import pytest

from tests.secret_helpers import agreed_texts

# --- an Authorization scheme's word of a vendor before the key in `NAME=Scheme <key>`


@pytest.mark.parametrize(("text", "value"), [
    ("SMSGATE_API_KEY=App 3f9a1c7e52b84d06a9e1f7c3b5d2e8a4-7b2e9c41\n",
     "3f9a1c7e52b84d06a9e1f7c3b5d2e8a4-7b2e9c41"),
    ("FLEET_TOKEN=SSWS 00qK7vR2mX9tL4pZ8wN3bC6yH1jF5dG0sA\n", "00qK7vR2mX9tL4pZ8wN3bC6yH1jF5dG0sA"),
])
def test_a_vendor_scheme_word_before_the_key_is_not_the_value(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "SMSGATE_API_KEY=App your-smsgate-key-here\n",
    "SMSGATE_API_KEY=App <smsgate-key>\n",
])
def test_a_vendor_scheme_word_before_a_stand_in_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


@pytest.mark.parametrize("text", [
    'logger.debug("JWT Auth: Fetching OIDC discovery document from %s", url)\n',
    '"expected token: PaliGemma uses \'<pad>\', Qwen2 uses \'<|endoftext|>\'"\n',
])
def test_a_capital_word_before_more_words_is_no_scheme(text: str) -> None:
    assert agreed_texts(text) == []


# --- a URL's password slot holding the name of what goes there in angle brackets


@pytest.mark.parametrize("text", [
    "DATABASE_URL=postgres://ledger_rw:<password>@localhost:5432/ledger\n",
    "AMQP_URL=amqp://relay:<rabbit-password>@mq.internal:5672/\n",
])
def test_a_url_password_in_angle_brackets_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


def test_a_url_password_opening_with_a_bracket_is_found() -> None:
    text = "DATABASE_URL=postgres://ledger_rw:<Tq9v>Lm2x@db:5432/ledger\n"
    assert agreed_texts(text) == ["ledger_rw:<Tq9v>Lm2x"]


# --- a lower case name ending in a secret's word is the name of a secret kept elsewhere


@pytest.mark.parametrize("text", [
    "  data:\n    - secretKey: orders-s3-secret\n      remoteRef: { key: shop/orders }\n",
    "    - secretKey: kafka2_sasl_password\n",
])
def test_a_secret_name_as_the_value_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


@pytest.mark.parametrize(("text", "value"), [
    ("    - secretKey: Orders-S3-Secret9!\n", "Orders-S3-Secret9!"),
    ("db_password: Tide7-pier4-token\n", "Tide7-pier4-token"),
])
def test_a_password_holding_a_secret_word_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


# --- a name ending in `pw` glued to what it opens, a directive's value after spaces


@pytest.mark.parametrize(("text", "value"), [
    ("URI ldaps://dir.example.test\nBINDPW   Quay-Crane-Wheel!48\n", "Quay-Crane-Wheel!48"),
    ("rootpw      Sl0t-Harbor-7Kq\n", "Sl0t-Harbor-7Kq"),
])
def test_a_glued_pw_name_before_its_value_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "BINDPW   ${LDAP_BIND_PW}\n",
    "set hostname fw-branch04\n",
])
def test_a_glued_pw_name_before_a_variable_or_another_setting_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


def test_a_device_cli_set_of_a_secret_setting_is_found() -> None:
    text = "    edit \"to-branch\"\n        set psksecret Marl1n-Dock-Quay-88\n    next\n"
    assert agreed_texts(text) == ["Marl1n-Dock-Quay-88"]


# --- a login given as `user / password` right after `login`, the user maybe a domain's


@pytest.mark.parametrize(("text", "value"), [
    ("- scanner frozen, rebooted. scanner login scanop / Pall3t-Jack-9\n", "Pall3t-Jack-9"),
    ("vpn login CORP\\opsadm / Gantry!Beam72\n", "Gantry!Beam72"),
    ("Domain login: CORP\\opsadm / Gantry!Beam72\n", "Gantry!Beam72"),
])
def test_a_login_pair_after_its_word_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "the login page / the signup page\n",
    "login: read / write\n",
])
def test_words_around_a_slash_after_a_login_word_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a key in dashed groups of capitals and digits on a line naming a licence or recovery key


@pytest.mark.parametrize(("text", "values"), [
    ("- CAD suite, licence key: `QD4R-7KX2-M9PT-3VB8-ZL6N`\n", ["QD4R-7KX2-M9PT-3VB8-ZL6N"]),
    ("re-enter the license key `NAV-DOC-K7-2W9Q-48RT-MX31-QPL5` on lic02.\n",
     ["NAV-DOC-K7-2W9Q-48RT-MX31-QPL5"]),
    ("plotter_license_key: PL-PRO-2026-7A31C9E4-B58D02F6\n", ["PL-PRO-2026-7A31C9E4-B58D02F6"]),
    ("BitLocker recovery key (escrow): H3K9-P2WQ-7TXM-4LNB-8ZRC-6VYD\n",
     ["H3K9-P2WQ-7TXM-4LNB-8ZRC-6VYD"]),
])
def test_a_grouped_key_named_a_licence_or_recovery_key_is_found(text: str,
                                                                values: list[str]) -> None:
    assert agreed_texts(text) == values


@pytest.mark.parametrize("text", [
    "License key cipher: ECDHE-RSA-AES256-GCM-SHA384\n",
    "licence key order TC-ORD-2026-11-0048812\n",
    "licence key id {7C9E6679-7425-40DE-944B-E07FC1F90AE7}\n",
    "License key format: XXXXX-XXXXX-XXXXX-XXXXX-XXXXX\n",
    "Ticket QD4R-7KX2-M9PT-3VB8-ZL6N closed\n",
])
def test_dashed_groups_that_are_no_named_key_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a lookup's fallback operator opening the next line (Kotlin's `?:`, a chain's `||`)


@pytest.mark.parametrize(("text", "value"), [
    ('val dbPassword = System.getenv("LEDGER_DB_PASSWORD")\n    ?: "Quay!Lamp-2291"\n',
     "Quay!Lamp-2291"),
    ('const token = process.env.ROUTER_TOKEN\n  || "rt_8Kq2Lm9Vx4Tz7Wb3Nc6Y";\n',
     "rt_8Kq2Lm9Vx4Tz7Wb3Nc6Y"),
])
def test_a_fallback_opening_the_next_line_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


def test_a_fallback_to_another_lookup_on_the_next_line_stays_unfound() -> None:
    text = 'val dbPassword = System.getenv("LEDGER_DB_PASSWORD")\n    ?: readSecret("ledger")\n'
    assert agreed_texts(text) == []


def test_a_wrapped_condition_opening_its_line_with_or_stays_unfound() -> None:
    text = ('        if (\n            "model_rpm_cap" in user_api_key_meta\n'
            '            or "model_tpm_cap" in user_api_key_meta\n        ):\n')
    assert agreed_texts(text) == []
