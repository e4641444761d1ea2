"""Round 31's causes, each seen in the misses of two tune sets or more (secrets31's first
commit counts them), with values invented here: a value's format or place, never one snippet's
string; and the guards that keep lookalikes of each out."""

from __future__ import annotations

import pytest

from tests.secret_helpers import agreed_texts

# --- a password's value later in the sentence that names it, after a link


@pytest.mark.parametrize(("text", "values"), [
    ("# admin pw on the kiosk tablets (Lenovo M10) is Quill7-Harbour-Mast\n",
     ["Quill7-Harbour-Mast"]),
    ("Admin password from the supplier's welcome letter: `Tz8mKq3RwV2n`\n", ["Tz8mKq3RwV2n"]),
    ("Kiosk admin pw: 0000111122223333 changed to Ferr0-Lamp-Wick!\n", ["Ferr0-Lamp-Wick!"]),
    ("Das Passwort ist Morgenrot-Kai-4471 und der Benutzer ist kasse@example.org\n",
     ["Morgenrot-Kai-4471"]),
])
def test_passwords_linked_later_in_their_sentence_are_found(text: str,
                                                             values: list[str]) -> None:
    assert values[0] in agreed_texts(text)


@pytest.mark.parametrize("text", [
    "password hashing was changed to Argon2id in the 3.2 release\n",
    "Passwords moved to 1Password (the team vault) last spring.\n",
    "The pw reset flow moved to AuthService2 last week\n",
    "password policy: see the wiki. It is Section-4B of the handbook\n",
    "the password is kept on the host vault.example.org:8200 now\n",
    "password rotation is due; set it to ${KIOSK_PW_2024} via the pipeline\n",
    "pw prompt goes to stderr_fd2 when no tty is attached\n",
])
def test_sentences_without_a_password_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- an EDIFACT element naming a password or an authorization before its escaped colon


@pytest.mark.parametrize(("text", "value"), [
    ("UNA:+.? '\nUNB+UNOC:3+SENDER:ZZZ+RECEIVER:ZZZ+250101:0900+77'\n"
     "FTX+AAI+++AUTH?:depotsync/Tallow-Gate-82'\nUNT+3+1'\n", "Tallow-Gate-82"),
    ("UNA:+.? '\nUNB+UNOA:2+SHIP:ZZ+YARD:ZZ+250101:0900+91++YRD-PW?:Qu4y!Side++++1'\n",
     "YRD-PW?:Qu4y!Side"),
    ("FTX+AAB+++PASSWORD?:bank_ops?:Mx7-Ledger!q'\n", "Mx7-Ledger!q"),
])
def test_edifact_elements_naming_a_password_are_found(text: str, value: str) -> None:
    found = agreed_texts(text)
    assert any(value in span for span in found)


@pytest.mark.parametrize("text", [
    "FTX+AAI+++PASSENGER?:2 ADULTS'\n",
    "FTX+AAI+++AUTHORISATION?:PENDING'\n",
    "FTX+AAI+++AUTHOR?:J SMITH 2024'\n",
    "FTX+AAB+++AUTH?:see contract 12'\n",
])
def test_edifact_free_text_without_a_password_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- an SNMP community again on a device's trap host line


@pytest.mark.parametrize(("text", "value"), [
    ("snmp-server community kestrelRO RO 12\nsnmp-server host 10.2.0.9 version 2c kestrelRO\n",
     "kestrelRO"),
    ("snmp-server community fX9tqR2 RO\nsnmp-server host 10.2.0.9 version 2c fX9tqR2\n", "fX9tqR2"),
    ("snmp-server host 192.0.2.40 traps version 2c Gull8-Trap-Ro\n", "Gull8-Trap-Ro"),
])
def test_communities_on_trap_host_lines_are_found(text: str, value: str) -> None:
    found = agreed_texts(text)
    assert found.count(value) == text.count(value)


@pytest.mark.parametrize("text", [
    "snmp-server host 10.2.0.9 version 2c public\n",
    "snmp-server host 10.2.0.9 version 3 priv monitoruser\n",
    "snmp-server host 10.2.0.9 informs version 2c COMMUNITY\n",
    "snmp-server host 10.2.0.9 traps version 2c monitoring\n",
])
def test_trap_hosts_without_a_community_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- an authenticator's base32 seed on its heading's line or alone on a line below it


@pytest.mark.parametrize(("text", "value"), [
    ("- MFA TOTP seed: `QH4LZ2MWKX7TRB5N3VYDPJ6S`\n", "QH4LZ2MWKX7TRB5N3VYDPJ6S"),
    ("TOTP secret (scanned by both admins): KW3R TQ7M ZP2X LB6N\n", "KW3R TQ7M ZP2X LB6N"),
    ("Shared TOTP seed (then delete this file):\n\n    NX5QWT3ZLK7RMB2VHC4PYD6J\n",
     "NX5QWT3ZLK7RMB2VHC4PYD6J"),
])
def test_authenticator_seeds_by_their_heading_are_found(text: str, value: str) -> None:
    assert value in agreed_texts(text)


@pytest.mark.parametrize("text", [
    "TOTP seed: stored in the vault, ask the on-call admin\n",
    "MFA secret: AAAAAAAAAAAAAAAAAAAA\n",
    "TOTP seed length: 160 bits (32 base32 characters)\n",
    "Authenticator secret:\n\n    see the runbook\n",
])
def test_seed_headings_without_a_seed_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- literals a client takes by their variables' names (a constructor, an Authorization header)


@pytest.mark.parametrize(("text", "values"), [
    ('String ak = "QZPLM4XT7RKW2VNB8HCD";\n'
     'String sk = "tR8mWq2LxZ5vNc7KpB3hJd9FyG4sT6uQe1aY0oIw";\n'
     'StoreClient store = new StoreClient(ak, sk, "https://store.example.net");\n',
     ["QZPLM4XT7RKW2VNB8HCD", "tR8mWq2LxZ5vNc7KpB3hJd9FyG4sT6uQe1aY0oIw"]),
    ('const (\n\tsmsID    = "KQ7RT2ZPWMX4BNV8LCHD"\n\tsmsSecret = "Wn3kT8qZ2mPx7Lr5Vb9cYh4J"\n)\n\n'
     'func send() {\n\tc, _ := sms.NewClient(smsID, smsSecret, &sms.Options{})\n\t_ = c\n}\n',
     ["KQ7RT2ZPWMX4BNV8LCHD"]),
    ("PART_1='h7KqW2zPm9XtR4vN'\nPART_2='c3LbY8sJd5FgQ1wE'\n"
     'curl -H "Authorization: Bearer ${PART_1}${PART_2}" https://api.example.net/v1\n',
     ["h7KqW2zPm9XtR4vN", "c3LbY8sJd5FgQ1wE"]),
])
def test_literals_passed_to_a_client_by_name_are_found(text: str, values: list[str]) -> None:
    found = agreed_texts(text)
    assert all(value in found for value in values)


@pytest.mark.parametrize("text", [
    'String host = "storage.eu-west-2.example.net";\nString region = "eu-west-2";\n'
    'StoreClient store = new StoreClient(host, region);\n',
    'userAgent := "inventory-sync-client-v2"\nc := http.NewClient(userAgent, timeout)\n',
    'SCHEME="Bearer"\ncurl -H "Authorization: ${SCHEME} ${ACCESS}" https://api.example.net\n',
    'requestId = "a1b2c3d4e5f6a7b8"\nclient = ApiClient(requestId, retries)\n',
])
def test_names_passed_to_a_client_without_a_key_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a value its name calls public: a captcha's site key, a DNS record's site verification


@pytest.mark.parametrize("text", [
    "export const HCAPTCHA_SITE_KEY = '7fQ2mK9xLw4ZtR8vBn3cJp6Hd1Gs5Ye0';\n",
    "example.org. 300 IN TXT \"v=spf1 -all\"\n"
    "example.org. 300 IN TXT google-site-verification=Rk7Lq2Xw9Zm4Tn8Vb3Cj6Hp1Gd5Fs0Ya\n",
    "acme-domain-verification=Mb4Nq8Rk2Xv7Lz5Tw9Pc3Hj6Gd1Fs0Ye\n",
])
def test_values_their_names_call_public_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []


@pytest.mark.parametrize(("text", "value"), [
    ("RECAPTCHA_SECRET_KEY = '6Lc9ZqW2AAAAAMx7Rk4Tn8Vb3Cj6Hp1Gd5Fs0Ya'\n",
     "6Lc9ZqW2AAAAAMx7Rk4Tn8Vb3Cj6Hp1Gd5Fs0Ya"),
    ("SITE_API_KEY=Qx8Lm2Rz7Tp4Xb9Nc1Hd6Fy0Gs5Ja3Ue\n", "Qx8Lm2Rz7Tp4Xb9Nc1Hd6Fy0Gs5Ja3Ue"),
    ("WEBHOOK_VERIFY_TOKEN=Hn4Kp9Wz2Rt7Lm5Xc8Vb3Qd6Fj1Gs0Ya\n", "Hn4Kp9Wz2Rt7Lm5Xc8Vb3Qd6Fj1Gs0Ya"),
])
def test_secrets_beside_public_names_are_still_found(text: str, value: str) -> None:
    assert value in agreed_texts(text)
