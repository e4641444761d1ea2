"""Round 18's classes of the tune sets' misses and flagged lookalikes (writer54's, with
writer40's, 41's, 44's, 49's and 51's), each with values invented here."""

from __future__ import annotations

import pytest

from helix.core.secret_names import name_strength
from tests.secret_helpers import agreed_texts


@pytest.mark.parametrize("text, value", [
    ("[lager]\nbenutzer = lvs\nkennwort = Rk4%T.qwz_H+-+=\n", "Rk4%T.qwz_H+-+="),
    ("DB_SENHA=Vb7#Nk2Qz9Lx\n", "Vb7#Nk2Qz9Lx"),
    ('$cfg["mot_de_passe"] = "Az9!Er4Ty7Ui";\n', "Az9!Er4Ty7Ui"),
    ('{"motDePasse": "Lq3!Er4Ty7Pw"}\n', "Lq3!Er4Ty7Pw"),
    ("пароль_бд = 'Qw8!Ez3Rt6Yu'\n", "Qw8!Ez3Rt6Yu"),
    ("データベースパスワード: Hq7mZ2xpL9aa\n", "Hq7mZ2xpL9aa"),
    ("hasło=Tk9!Vb3Nq7Lz\n", "Tk9!Vb3Nq7Lz"),
    ("jelszo: \"Jh8!Gf3Ds7Aq\"\n", "Jh8!Gf3Ds7Aq"),
    ('токен = "Kf83jLm2Qx9Zr7Tp4Vw1"\n', "Kf83jLm2Qx9Zr7Tp4Vw1"),
])
def test_a_value_under_a_name_in_another_language_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    'senha_label = "Digite sua senha"\n', "kennwort = ${KENNWORT}\n", 'theslot = "Kf83jLm2"\n',
    'пароль = "********"\n'])
def test_a_foreign_name_that_describes_or_refers_to_a_secret_is_not_one(text: str) -> None:
    assert agreed_texts(text) == []


def test_a_short_foreign_word_counts_as_a_whole_segment_a_long_one_anywhere() -> None:
    assert name_strength("adminSenha") == "strong"
    assert name_strength("adminkennwort") == "strong"
    assert name_strength("theslot") is None


@pytest.mark.parametrize("text, values", [
    ("$api = new AcmePayGateway(\n    '7730193551',   // terminal\n"
     "    'q7vx2mr9kd4ta8we'  // its key\n);\n",
     ["q7vx2mr9kd4ta8we"]),
    ('var creds = Credentials.FromKeyAndSecret(\n    "d41c8e2a",\n    "Vt5kPq8ZmL2rXw9N"\n);\n',
     ["Vt5kPq8ZmL2rXw9N"]),
    ("$sms = new SmsHub('4F1A77C2-90DE-4B3A-8C5E-2D6F0B91A7E4');\n",
     ["4F1A77C2-90DE-4B3A-8C5E-2D6F0B91A7E4"]),
    ("$shop = new Client(\n    'https://shop.example.org',\n    'kk_91c0e4b7a2d85f6e3c1b',\n"
     "    'ks_0f7a3c9e1b5d2846ae7c',\n    ['version' => 'v3']\n);\n",
     ["kk_91c0e4b7a2d85f6e3c1b", "ks_0f7a3c9e1b5d2846ae7c"]),
    ('api = netscan.NetScan("Hq2Lr8vT0pXk5mWzR4Nb")\n', ["Hq2Lr8vT0pXk5mWzR4Nb"]),
    ("  m = Postbox::API.new 'pb-Xk29mVqLr7TzW'\n", ["pb-Xk29mVqLr7TzW"]),
    ('Flags.initApp("2C0B8E51-7A44-4F0B-9D26-E1A3C5B7D9F0", "k3Lm9QxZ2vR8tW5pJ7Dc");\n',
     ["2C0B8E51-7A44-4F0B-9D26-E1A3C5B7D9F0", "k3Lm9QxZ2vR8tW5pJ7Dc"]),
])
def test_a_key_passed_by_position_to_an_sdk_client_is_found(text: str, values: list[str]) -> None:
    assert agreed_texts(text) == values


@pytest.mark.parametrize("text", [
    'final ThreadGroup group = new ThreadGroup("thread_group_DDZZ99__");\n',
    'const doc = new ObjectId("65a1f0c2e4b0d8a9");\n',
    'const g = new Guid("0D24D16C-8EC7-408A-BE3E-BF40FD069FE8");\n',
    'File f = new File("src/main/resources/app2.properties");\n',
    'buf = new Buffer("aGVsbG8gd29ybGQ9MTIz", "base64");\n',
    "meta = DirectMetaProperty.ofImmutable(\n    this, \"legalEntityGroup\", Bean.class);\n",
    'const owner = new PublicKey("7Xq2mVb9LkR4tWz8");\n',
])
def test_a_value_a_constructor_builds_is_no_key(text: str) -> None:
    assert agreed_texts(text) == []


@pytest.mark.parametrize("text, value", [
    ('$grant = "sp=rl&st=2026-02-01T00:00:00Z&se=2027-02-01T00:00:00Z&spr=https&sv=2022-11-02'
     '&sr=c&sig=Mx7pQ2vLk9Rt4Wz8Nb3Yc6Df1Hj5Gs0A%2BeU7iO%3D"\n',
     "sp=rl&st=2026-02-01T00:00:00Z&se=2027-02-01T00:00:00Z&spr=https&sv=2022-11-02&sr=c"
     "&sig=Mx7pQ2vLk9Rt4Wz8Nb3Yc6Df1Hj5Gs0A%2BeU7iO%3D"),
    ("curl -o a.csv 'https://acct.blob.core.windows.net/c/a.csv?sv=2021-06-08&se=2026-09-01"
     "&sr=b&sp=r&sig=Zq8vN3kP2wX9yT4mL7bR1cF6hJ0dS5aE%2BuI8oQ%3D'\n",
     "sv=2021-06-08&se=2026-09-01&sr=b&sp=r&sig=Zq8vN3kP2wX9yT4mL7bR1cF6hJ0dS5aE%2BuI8oQ%3D"),
    ("GET /k.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260101T000000Z&X-Amz-Expires=600"
     "&X-Amz-Signature=4be1c07d92a3f85e6d0b7c1a9e3f5d2b8c6a4e0f1d3b5a7c9e2f4d6b8a0c1e3f5"
     " HTTP/1.1\n",
     "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260101T000000Z&X-Amz-Expires=600"
     "&X-Amz-Signature=4be1c07d92a3f85e6d0b7c1a9e3f5d2b8c6a4e0f1d3b5a7c9e2f4d6b8a0c1e3f5"),
])
def test_a_signed_query_string_is_masked_whole(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


def test_a_signature_without_a_grant_s_parameters_is_masked_alone() -> None:
    text = "https://img.example.org/a.png?w=200&sig=Kq8mZ2xLp9Rv4TwB\n"
    assert agreed_texts(text) == ["Kq8mZ2xLp9Rv4TwB"]


@pytest.mark.parametrize("text", [
    "DATABASE_URL=postgres://app:password@localhost:5432/app\n",
    "INFO db: connecting to mysql://svc_orders:****@db-1:3306/orders\n",
    "BROKER=amqp://guest:secret@rabbit/\n",
])
def test_a_url_whose_password_is_where_one_goes_or_masked_is_no_secret(text: str) -> None:
    assert agreed_texts(text) == []


def test_a_url_s_real_password_is_still_found() -> None:
    assert agreed_texts("DATABASE_URL=postgres://app:Xk29mVq7@db:5432/app\n") == ["app:Xk29mVq7"]


_KEY_HEX = "5c0e9a7f31b24d86a1f3e8c27b90d4a6f15e3c8b72d09a4e6b1f8c35d27a90e4"


@pytest.mark.parametrize("text", [
    f'  networks: {{\n    goerli: {{\n      accounts: ["0x{_KEY_HEX}"],\n    }},\n  }},\n',
    f'accounts: [\n  "0x{_KEY_HEX}",\n  "0x{_KEY_HEX[::-1]}"\n]\n',
])
def test_a_chain_config_s_account_keys_are_found(text: str) -> None:
    assert agreed_texts(text) and all(v.startswith("0x") and len(v) == 66
                                      for v in agreed_texts(text))


def test_an_account_list_of_addresses_is_no_key() -> None:
    assert agreed_texts('accounts: ["0x8ba1f109551bD432803012645Ac136ddd64DBA72"]\n') == []


def test_a_file_that_is_64_bytes_in_an_array_is_a_keypair() -> None:
    numbers = ",".join(str((n * 97 + 31) % 256) for n in range(64))
    assert agreed_texts(f"[{numbers}]\n") == [f"[{numbers}]"]


@pytest.mark.parametrize("text", [
    "[" + ",".join(str(n) for n in range(63)) + "]\n",
    "[" + ",".join(str(n * 5) for n in range(64)) + "]\n",  # 315 is no byte
    "x = [" + ",".join(str(n) for n in range(64)) + "]\n",
])
def test_an_array_that_is_not_a_whole_keypair_file_is_no_key(text: str) -> None:
    assert agreed_texts(text) == []


@pytest.mark.parametrize("text, value", [
    ('DARAJA_PASSKEY = "b7e2c91f4a0d3e68c5f1a2b9d7e04c3a81f6b2d9e5c07a4f3b1d8e6c2a9f5b07"\n',
     "b7e2c91f4a0d3e68c5f1a2b9d7e04c3a81f6b2d9e5c07a4f3b1d8e6c2a9f5b07"),
    ("ldap_default_authtok = Wq9*Lm+2zX#r\n", "Wq9*Lm+2zX#r"),
    ("sms.gateway.appkey=Rt7vKq2mWx9LpZ3b\n", "Rt7vKq2mWx9LpZ3b"),
])
def test_a_passkey_an_authtok_and_an_appkey_hold_secrets(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


def test_a_device_config_s_passwords_and_communities_are_found() -> None:
    text = ("hostname EDGE-7\nenable secret 5 $1$pQ7z$Vb3Nk8LmQx2Rt9Wz4YcDe0\n"
            "username noc privilege 15 password 7 1F0A3B5C7D9E2846\n"
            "snmp-server community Hv7qLm2xPz RW\nsnmp-server community public RO\n")
    assert agreed_texts(text) == ["$1$pQ7z$Vb3Nk8LmQx2Rt9Wz4YcDe0", "1F0A3B5C7D9E2846",
                                  "Hv7qLm2xPz"]
    assert agreed_texts("rwcommunity Tq8-Lm2vXz9K 10.1.0.0/16\n") == ["Tq8-Lm2vXz9K"]
