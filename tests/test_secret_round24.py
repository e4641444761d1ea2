"""Round 24's classes of the tune sets' misses and flagged lookalikes (writer82's, writer78's,
writer72's), each seen in two sets or more, with values invented here: general evidence (a
name's language, a value's place) and the guards that keep lookalikes out."""

from __future__ import annotations

import pytest

from tests.secret_helpers import agreed_texts

# --- "key" and "password" in more languages: Dutch sleutel, Polish klucz, French cle, Japanese
# APIキー, Italian parola d'ordine


@pytest.mark.parametrize(("text", "value"), [
    ("betaling:\n  geheime_sleutel: 4D9A7C2E81F06B3D5A9E7C14\n", "4D9A7C2E81F06B3D5A9E7C14"),
    ("crm.api.sleutel=7c41e9a0d2b85f36c1e07a9d4b2f8e61\n", "7c41e9a0d2b85f36c1e07a9d4b2f8e61"),
    ("PAY_KLUCZ_API=e82b5d0c7f1a39e64d2c8b7a05f1e93c\n", "e82b5d0c7f1a39e64d2c8b7a05f1e93c"),
    ("[erp]\ncle_api=9f3e1b7d5c2a08e4f6b1d3c7a9e5b2f40d8c6a1e\n",
     "9f3e1b7d5c2a08e4f6b1d3c7a9e5b2f40d8c6a1e"),
    ("ベンダー:\n  APIキー: 5e0a8c3f71d49b26e8c0f5a3d7b1e94c26a8f0d3\n",
     "5e0a8c3f71d49b26e8c0f5a3d7b1e94c26a8f0d3"),
    ('{"parola_d_ordine": "Vx7!mQ2p-Rt9Lk"}\n', "Vx7!mQ2p-Rt9Lk"),
])
def test_a_foreign_key_or_password_name_holds_its_value(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "article_key = title\n",
    "cycle_key: 42\n",
    "cle_api: ${ERP_CLE}\n",
    "sleutel = None\n",
])
def test_a_word_holding_cle_or_a_variable_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a literal decoded from hex where it is assigned: its name decides

_HEX1 = "4b7e2a9c1d5f8e03b6a4c7d9e1f2a5b8c0d3e6f9a1b4c7d0e3f6a9b2c5d8e1f4"
_HEX2 = "e3a91c7f05d28b46a0c9e7f13b5d28a4c6e0f9b1d7a35c8e2f4b6d0a9c1e7f35"


@pytest.mark.parametrize(("text", "value"), [
    (f'c.App.cookie_secret = bytes.fromhex("{_HEX1}")\n', _HEX1),
    (f'SIGNING_KEY = binascii.unhexlify("{_HEX2}")\n', _HEX2),
])
def test_a_hex_literal_decoded_under_a_secret_name_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    'def test_decode():\n    raw = bytes.fromhex("8d3fa17c20e95b4c6e07d1a2")\n'
    '    assert decode(raw)\n',
    'frame = bytearray.fromhex("a4c90e7b3f18d2656c0b9e4f7a21d83c")\n',
])
def test_hex_decoded_under_a_data_name_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a service's URL, a user and a password passed by position


@pytest.mark.parametrize(("text", "value"), [
    ('portal = PortalClient("https://maps.example.org/portal", "map_pub", "Kart3n.519%QwZ")\n',
     "Kart3n.519%QwZ"),
    ('var c = new SisClient(\n    "https://sis.example.edu",\n    "svc_bursar",\n'
     '    "Bur5ar!Sync-204");\n', "Bur5ar!Sync-204"),
    ('\tcli := meter.NewClient("https://mdm.example.local", "mdm_ro", "Zahl#618$kPwT")\n',
     "Zahl#618$kPwT"),
])
def test_a_url_user_password_call_passes_its_password(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    'r = fetch("https://api.example.org/v1", "GET", "application/json")\n',
    'x = build("https://ci.example.org/job", "nightly", "Release2024")\n',
    'c = Client("https://a.example.org", "user", "Pw0rd!x9", timeout=3)\n',
    'urls = ["https://a.example.org", "https://b.example.org", "Mirror#3x"]\n',
])
def test_a_url_call_without_a_password_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a login written `<user> / <password>` in a note, a comment or a table


@pytest.mark.parametrize(("text", "value"), [
    ("Switch web UI http://sw-core/  admin / Sw7c-C0re#Lab\n", "Sw7c-C0re#Lab"),
    ("<!-- rest api: digest user ops_rest / Rq4-Ap1-Adm#7 -->\n", "Rq4-Ap1-Adm#7"),
    ("- backup login: `night-ops@example.de` / `B4ckup!Nacht7`\n", "B4ckup!Nacht7"),
    ("| Fares | https://fares.example | user `team@example.aero` / `Wing-4471?zQpX` |\n",
     "Wing-4471?zQpX"),
])
def test_a_user_slash_password_pair_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "ratio = total / Rate#2ab\n",
    "use tabs / spaces\n",
    "read / write access for the ops / Admins group\n",
    "see docs / README.md#setup-2024\n",
])
def test_a_division_or_a_choice_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- lookalikes: a request's idempotency key, data a name calls carried bytes


@pytest.mark.parametrize("text", [
    '{"order": "ord_9", "idempotency_key": "0b7d3e52-9a1c-4f86-b2e4-7c5a1d9f3e08"}\n',
    '{"signal": "SIMPLE",\n'
    ' "payload": "Zq8Tn2LwP5vRk7XmC4yHb9JdG3sF6aE1uQ0oN8iVtW2rY5eK7pL3zM9xB4cD6fA1"}\n',
    '  "encrypted_data": "Hk2Lp9Wz4Xq7Rv1Nm8Tc3Bs6Dj5Fa0Yg2Uo4Ie7Kh9Ql1Pw3Zx",\n',
    '  "auth_tag": "p7Yq2Lx9Wm4Rz1Tk8Vn3Hc6B",\n',
])
def test_an_idempotency_key_or_carried_data_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


@pytest.mark.parametrize(("text", "value"), [
    ("client-key-data: Zq8Tn2LwP5vRk7XmC4yHb9JdG3sF6aE1uQ0oN8iVtW2rY5eK7pL3zM9x\n",
     "Zq8Tn2LwP5vRk7XmC4yHb9JdG3sF6aE1uQ0oN8iVtW2rY5eK7pL3zM9x"),
    ('  signing_iv: "b3e9d1f70a5c28e46d0b9f3a7c1e5d82"\n', "b3e9d1f70a5c28e46d0b9f3a7c1e5d82"),
    ('LICENSE_IV = bytes.fromhex("c84f1e09b7a3d265e0f9c3b718d4a62e")\n',
     "c84f1e09b7a3d265e0f9c3b718d4a62e"),
])
def test_a_key_or_an_issued_iv_stays_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


# --- a secret split into literals: joined with `+` on one line, or by `.join("")`


@pytest.mark.parametrize(("text", "parts"), [
    ('const player = {\n  key: "9c4e71a2-" + "5d3b-4f80-" + "a6e1-d2b7c9f4e830", // licence\n};\n',
     ["9c4e71a2-", "5d3b-4f80-", "a6e1-d2b7c9f4e830"]),
    ('const seg = [\n  "qT7mx4",\n  "Lw2Rk9Vz",\n  "8Hc3Np6Bs1Dy5Ga",\n];\n'
     'export const MAPS_KEY = seg.join(""); // geocoder\n',
     ["qT7mx4", "Lw2Rk9Vz", "8Hc3Np6Bs1Dy5Ga"]),
    ('const a1 = "b83e5d17f2c9046a";\nconst a2 = "7d01c4e9a6f2b358";\n'
     'const STORM_KEY = [a1, a2].join("");\n', ["b83e5d17f2c9046a", "7d01c4e9a6f2b358"]),
    ('API_TOKEN = "".join(["Zr8kQ2xLp4", "Wn7Tc3Vb9Hm"])\n', ["Zr8kQ2xLp4", "Wn7Tc3Vb9Hm"]),
])
def test_a_secret_joined_from_literals_is_masked_in_each(text: str, parts: list[str]) -> None:
    from helix.core.secrets import redact_text

    masked, _ = redact_text(text)
    assert not any(part in masked for part in parts)
    assert agreed_texts(text)


@pytest.mark.parametrize("text", [
    'const cols = ["id", "name"];\nconst sort_key = cols.join("");\n',
    'label = "".join(["Hello, ", "world"])\n',
    'const sep = [a, b].join("");\n',
    'greeting = "Hello, " + "world" + "!"\n',
])
def test_words_joined_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- vendors' prefixes and command lines

_TTN = ("NNSXS.ZXCVBNMASDFGHJKLQWERTYUIOP2345670ABCDEF."
        "POIUZTREWQLKJHGFDSAMNBVCXY76543210QAYWSXEDCRFVTGBZHNUJ")


@pytest.mark.parametrize(("text", "value"), [
    ("[newrelic:api]\nuser_key = NRAK-W8QTZKXM3VDR7HNCPLY2BGFJ4SE\n",
     "NRAK-W8QTZKXM3VDR7HNCPLY2BGFJ4SE"),
    (f"mqtt:\n  password: {_TTN}\n", _TTN),
    ("./rcon -H 10.0.0.5 -p 27015 -P 'Vb3!nqRt7*' \"say restart\"\n", "Vb3!nqRt7*"),
    ("sentinel monitor cache-main 10.0.4.9 6379 2\nsentinel auth-pass cache-main Sn7!cache-Lq4\n",
     "Sn7!cache-Lq4"),
])
def test_a_vendor_prefix_or_a_command_line_password_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "sentinel = object()\n",
    "sentinel monitor cache-main 10.0.4.9 6379 2\n",
    "./rcon -H 10.0.0.5 -p 27015 -P \"$RCON_PASSWORD\" status\n",
])
def test_a_sentinel_or_rcon_without_a_password_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a header's scheme joined to a name: the literal assigned to it above


@pytest.mark.parametrize(("text", "value"), [
    ('_t = ("Hq4Lz9WmX2RvPk7TcN8b"\n      "Yd3Fs6Gj1Ka5Ue0Wo_Zx")\n'
     'HEADERS = {"Authorization": "Bearer " + _t}\n',
     "Hq4Lz9WmX2RvPk7TcN8bYd3Fs6Gj1Ka5Ue0Wo_Zx"),
    ('const tk = "r7Qm2XwL9vKp4TzN8cHb3Ys6";\n'
     'fetch(u, {headers: {Authorization: "Token " + tk}});\n',
     "r7Qm2XwL9vKp4TzN8cHb3Ys6"),
])
def test_a_scheme_joined_to_a_name_masks_its_literal(text: str, value: str) -> None:
    from helix.core.secrets import redact_text

    masked, _ = redact_text(text)
    assert value not in masked.replace('"\n      "', "")
    assert agreed_texts(text)


@pytest.mark.parametrize("text", [
    'name = "Alice"\nmsg = "Token " + name\n',
    'kind = "refresh_token_v2"\nlabel = "Bearer " + kind\n',
])
def test_a_scheme_joined_to_a_word_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- lookalikes: a jasypt-encrypted value, identifiers a name calls ULID, KSUID or UMID


@pytest.mark.parametrize("text", [
    "crm.db.password=ENC(Wq8Lm3Tz7Xp2Vk9Rn4Bc6Hd1Jf5Gs0Ya)\n",
    'SAMPLE_ORDER_ULID = "01HZX4K7QW9M2T8VRB6N3CJD5F"\n',
    '{"umid": "060A2B340101010501010D4313000000B2C9E4F17A3D58E06F1B9C2E7A4D8F3B"}\n',
])
def test_an_encrypted_value_or_a_named_identifier_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []
