"""Round 25's classes of the tune set's misses and flagged lookalikes (writer93's), with values
invented here: general evidence (a value's format or place, a name's form) and the guards that
keep lookalikes out."""

from __future__ import annotations

import pytest

from tests.secret_helpers import agreed_texts

# --- a URL's password holding an unescaped `@`: the user info ends at the authority's last `@`


@pytest.mark.parametrize(("text", "value"), [
    ("DATABASE_URL: postgres://etl:Marigold@77#@pg-main:5432/farm\n", "Marigold@77#"),
    ('AMQP = "amqp://hub:w1nd@mill!@rabbit.local:5672/vh"\n', "w1nd@mill!"),
])
def test_a_url_password_with_an_at_sign_is_masked_whole(text: str, value: str) -> None:
    found = agreed_texts(text)
    assert any(value in span for span in found)


@pytest.mark.parametrize("text", [
    "pip install git+https://example.org/team/tool.git@v1.4.2\n",
    "ssh://deploy@bastion.example.org:2222/srv/app@main\n",
])
def test_a_url_naming_a_revision_after_at_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a typed declaration whose type holds brackets or a reference (Rust's `&[u8]`, `[u8; N]`,
# `Option<&str>`), a byte or raw string's two-letter prefix (`br"..."`, `rb"..."`), a literal
# wrapped by `String::from`/`Some`

_HEXKEY = "9c1e7a3f5b2d8e4062a1c9f7d3b5e8a0c4f2d6b9e1a7c3f5d8b2e0a4c6f9d1b3"


@pytest.mark.parametrize(("text", "value"), [
    (f'const SIGNING_SECRET: &[u8] = b"{_HEXKEY}";\n', _HEXKEY),
    ('static API_KEY: &[u8; 24] = b"Qw7Rt2Yp9Lm4Zx8Vc3Bn6Hj1";\n', "Qw7Rt2Yp9Lm4Zx8Vc3Bn6Hj1"),
    ('let db_password: Option<&str> = Some("Gr4nary-Lift#9");\n', "Gr4nary-Lift#9"),
    ('let api_token: String = String::from("Ph5kWq8zTr3mXv6Ln2Bd9Cy");\n',
     "Ph5kWq8zTr3mXv6Ln2Bd9Cy"),
    ('const AUTH_KEY: &[u8] = br"Mz4Xq9Lw2Vt7Kp5Rb8Nc3Hd";\n', "Mz4Xq9Lw2Vt7Kp5Rb8Nc3Hd"),
    ('HMAC_SECRET = rb"Tq2Wn8Ls5Xz3Rv7Kd4Mp9Bj"\n', "Tq2Wn8Ls5Xz3Rv7Kd4Mp9Bj"),
])
def test_a_typed_or_prefixed_literal_under_a_secret_name_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "let token: &[u8] = &frame[..n];\n",
    "let secret: [u8; 32] = derive_key(&seed);\n",
    "password: Option<&str> = None;\n",
    'let key: &[u8] = b"key";\n',
])
def test_a_typed_declaration_of_an_expression_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a vendor's token by its prefix: HubSpot's private app token (`pat-<region>-<UUID>`)


@pytest.mark.parametrize(("text", "value"), [
    ("service,owner,credential\ncrm,m.okafor,pat-eu1-7d2b9e41-3c5a-4f80-b6d1-0a9e8c7f5b32,\n",
     "pat-eu1-7d2b9e41-3c5a-4f80-b6d1-0a9e8c7f5b32"),
    ('hubspot:\n  access: "pat-na1-c41f8a27-92d6-4e3b-a05c-7b18e6d9f240"\n',
     "pat-na1-c41f8a27-92d6-4e3b-a05c-7b18e6d9f240"),
])
def test_a_hubspot_private_app_token_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "ref: pat-na1-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\n",
    "see pat-eu1-docs for the format\n",
])
def test_a_hubspot_token_placeholder_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- an IPsec gateway's secrets file: `<ids> : PSK "X"`, `: EAP "X"`, `: RSA <file> "X"`


@pytest.mark.parametrize(("text", "value"), [
    ('# tunnel to the packing shed\n10.20.0.1 10.30.0.1 : PSK "Hq3vZr8pLw2Tn6Xc9Kb4Md7F"\n',
     "Hq3vZr8pLw2Tn6Xc9Kb4Md7F"),
    ('dana@lab.example.org : EAP "Pl0ver&Reed55"\n', "Pl0ver&Reed55"),
    (': RSA gateway-key.pem "Orch4rd!Gate"\n', "Orch4rd!Gate"),
    (": XAUTH Silo7#Dusk22 # field techs\n", "Silo7#Dusk22"),
])
def test_an_ipsec_secret_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "Authentication: PSK required\n",
    ": RSA gateway-key.pem %prompt\n",
    ': PSK "<shared secret here>"\n',
    "security mode: PSK only on the guest SSID\n",
])
def test_an_ipsec_line_without_a_secret_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a passphrase of words joined by dashes, said in prose (`the password is <words>`, or
# after a user named on the line: `user is ops, pw <words>`)

_WORDS = "lantern-otter-meadow-crisp"


@pytest.mark.parametrize("text", [
    f"[10:02] kim: user is ops, pw {_WORDS}\n",
    f"The wifi password is {_WORDS}.\n",
    f"login fieldtech pw {_WORDS}\n",
])
def test_a_word_passphrase_said_in_prose_is_found(text: str) -> None:
    assert agreed_texts(text) == [_WORDS]


@pytest.mark.parametrize("text", [
    "password reset-link-expiry-window is 30 minutes\n",
    "token per-request-rate-limit applies\n",
    "the password is auto-generated-by-vault\n",
    f"pw {_WORDS}\n",
])
def test_dashed_words_beside_a_secret_word_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- guards: a log's `auth: token <verb> ...` message, a documentation's example cookie


@pytest.mark.parametrize("text", [
    "2026-03-02T08:00:01Z INFO auth: token renewed for device_id=silo-4 ttl=900\n",
    "Set-Cookie: connect.sid=s%3AVb8Xq2Lm9Rt4Kw7Zp3Nc6Hd1Jf5Gs0Ty.EXAMPLE; Path=/; HttpOnly\n",
])
def test_a_log_message_or_an_example_cookie_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


@pytest.mark.parametrize(("text", "value"), [
    ("Authorization: token Ur5Kx8Pm2Wq7Ln4Zt9Bv3Hc\n", "Ur5Kx8Pm2Wq7Ln4Zt9Bv3Hc"),
    ("auth: token qmtrvlxzkwpbnhgd\n", "qmtrvlxzkwpbnhgd"),
])
def test_a_header_token_stays_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


# --- a delimited export's secret column (CSV, TSV, `;`): the header names the column, each row
# below with the header's count of cells holds one, when the cell reads as one


@pytest.mark.parametrize(("text", "values"), [
    ("site,login,password,notes\nnorth barn,feeder01,Gr8n!Bin-44,co-op\n"
     "south barn,feeder02,Hay#Loft-719,co-op\n", ["Gr8n!Bin-44", "Hay#Loft-719"]),
    ("device\tapi_key\tzone\nsilo-3\tb71e4c09d2a85f3e6c1d7a90e4b28f56\tF4\n",
     ["b71e4c09d2a85f3e6c1d7a90e4b28f56"]),
    ('"crew_id";"Credential"\n"FO-2291";"Rw4!kTm9zQx2"\n', ["Rw4!kTm9zQx2"]),
])
def test_a_secret_column_of_a_delimited_export_is_found(text: str, values: list[str]) -> None:
    assert agreed_texts(text) == values


@pytest.mark.parametrize("text", [
    "id,password_hash,created\n7,$2b$12$Qm4nWp8rTz2vXc6bLk9dHe3sJf7gAy1u0oR5tN,2026-01-04\n",
    "user,has_password,role\nmlee,true,admin\n",
    "name,token,count\nwheat,none,3\nbarley,abc,4\n",
    "for key, value in pairs:\n    total, count = value, 1\n",
    "dev_eui,join_eui,field\n70B3D57ED0051A2B,0000000000000000,F9\n",
])
def test_a_table_without_a_secret_cell_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


def test_rows_below_a_header_are_found_far_below_it() -> None:
    rows = "".join(f"bay{i},pump{i},Tq{i}!Wx{i}Lm-Rz\n" for i in range(40))
    found = agreed_texts("bay,user,password\n" + rows)
    assert len(found) == 40 and found[-1] == "Tq39!Wx39Lm-Rz"


# --- an interchange segment's credential by position: X12's ISA02/ISA04 (when their qualifier
# says one is there), EDIFACT's UNB password, HL7's MSH-8 security field

_ISA_TAIL = "*ZZ*GROWERSCOOP   *ZZ*MILLINGCO      *261104*0615*^*00501*000000417*0*P*:~\n"


@pytest.mark.parametrize(("text", "values"), [
    ("ISA*00*          *01*Wq5!Rn8zKc" + _ISA_TAIL, ["Wq5!Rn8zKc"]),
    ("ISA*03*COOPSHIP07*01*Lm3#Tv6pXa" + _ISA_TAIL, ["COOPSHIP07", "Lm3#Tv6pXa"]),
    ("UNB+UNOC:3+4012345000016:14+4098765000025:14+261104:0615+ICR0093+Pz7$kW2qNe:AA'\n",
     ["Pz7$kW2qNe"]),
    ("MSH|^~\\&|SEQLAB|UNIV|LIMS|UNIV|20261104061500|Hb6!Jt3wQz9R|ORU^R01|A0093|P|2.5\n",
     ["Hb6!Jt3wQz9R"]),
])
def test_an_interchange_segments_credential_is_found(text: str, values: list[str]) -> None:
    assert agreed_texts(text) == values


@pytest.mark.parametrize("text", [
    "ISA*00*          *00*          " + _ISA_TAIL,
    "UNB+UNOC:3+4012345000016:14+4098765000025:14+261104:0615+ICR0093'\n",
    "MSH|^~\\&|SEQLAB|UNIV|LIMS|UNIV|20261104061500||ORU^R01|A0093|P|2.5\n",
    "card = VISA*1234 exp 04/29\n",
])
def test_a_segment_without_a_credential_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


@pytest.mark.parametrize(("text", "values"), [
    ("| host | user | password |\n|---|---|---|\n| grain-db | etl | Wn3!pZq8Kt |\n"
     "| yard-db | ro | `Lc6#rTm2Vx` |\n", ["Wn3!pZq8Kt", "Lc6#rTm2Vx"]),
    ("sensor | api_key\n--- | ---\nsilo-2 | 5c8e1a4f7b2d9e06c3a8f5b1d7e4a92c\n",
     ["5c8e1a4f7b2d9e06c3a8f5b1d7e4a92c"]),
])
def test_a_secret_column_of_a_markdown_table_is_found(text: str, values: list[str]) -> None:
    assert agreed_texts(text) == values


@pytest.mark.parametrize("text", [
    "| name | key | default |\n|---|---|---|\n| retries | max_retries | 5 |\n",
    "| field | type | secret |\n|---|---|---|\n| api_key | string | yes |\n",
])
def test_a_markdown_table_naming_secrets_without_one_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []
