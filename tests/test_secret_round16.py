"""Round 16's classes of the tune sets' misses and flagged lookalikes (writer49's, with
writer40's, writer41's and writer44's), each with values invented here: C macros holding a
secret, vendor token formats, typed object IDs under an `id` name, IPFS content IDs."""

from __future__ import annotations

import pytest

from tests.secret_helpers import agreed_texts


def test_a_c_macro_holding_a_secret_is_found_and_its_other_macros_not() -> None:
    text = ('#define MQTT_HOST   "broker.lan"\n#define MQTT_USER   "garage"\n'
            '#define MQTT_PASS   "hQ7vLk29xPzR"\n#define SECRET_SSID "Gartenhaus"\n'
            '#  define DEVICE_KEY "R8TQ2MZ7KD0VXW4N9PLA"\n#define PASSWORD_MAX_LEN 64\n')
    assert agreed_texts(text) == ["hQ7vLk29xPzR", "R8TQ2MZ7KD0VXW4N9PLA"]


BODY = "q7w2e9r4t1y8u3i6o5p0a2s7d4f9g1h8j3k6l5z0x2c7v4b9n1m8"


@pytest.mark.parametrize("token", [
    "hcaik_" + BODY[:58],
    "os_v2_app_" + (BODY * 2)[:100],
    "aio_" + "Rt5Wq9LmZx2Kp7Vn3Bc8Yd4Hs6Jf",
    "oauth:" + BODY[:30],
    "patQ3rT8vLk2MzX9w." + "9f2c7a1e" * 8,
])
def test_vendor_token_formats_are_found_wherever_they_stand(token: str) -> None:
    for text in (f"client.connect(host, {token!r})\n", f"[10:02:11] sending PASS {token}\n",
                 f"headers: x-team={token}\n"):
        assert agreed_texts(text) == [token], text


def test_the_prefixes_before_words_or_short_bodies_are_no_tokens() -> None:
    text = ("The oauth:authorize_url setting, aio_client_helpers and the\n"
            "patterns.compile.step() call, os_v2_app_name = 'demo'\n")
    assert agreed_texts(text) == []


def test_a_typed_object_id_under_an_id_name_is_no_secret() -> None:
    text = ('{"id": "ch_3Nq8ZrLk2VbT9wXyAb4Cd6Ef", "object": "charge",\n'
            ' "refund": {"id": "re_1Mt4PqXy8ZwV3nLk7Rs2Tu5W",\n'
            '            "charge_id": "ch_3Nq8ZrLk2VbT9wXy"}}\n')
    assert agreed_texts(text) == []


def test_an_ipfs_content_id_is_no_secret_but_a_key_beside_it_is() -> None:
    cid0 = "QmT5NvUtoM5nWFfrQdVrFtvGfKFmG7AHE8P34isapyhCxX"
    cid1 = "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"
    text = (f'{{"image": "ipfs://{cid0}", "animation_url": "ipfs://{cid1}"}}\n'
            f"{cid0}  logo.svg\n")
    assert agreed_texts(text) == []
    keyed = text + 'PINATA_SECRET="c83Ld9Xq2RtV7mZp4KwB1nHs6JfYe0Ga"\n'
    assert agreed_texts(keyed) == ["c83Ld9Xq2RtV7mZp4KwB1nHs6JfYe0Ga"]


@pytest.mark.parametrize(("comment", "value"), [
    ("// 本番サーバーのパスワード: Qm7TzK2wLp9x （変更したら連絡）", "Qm7TzK2wLp9x"),
    ("# compte de service, mot de passe : Rb4!kTz92mQ", "Rb4!kTz92mQ"),
    ("// 관리자 비밀번호: Wq8Ls3Xv7Nk! (운영)", "Wq8Ls3Xv7Nk!"),
    ("# Testserver (nur intern), Passwort: Tg5wZ8pLq2Xc", "Tg5wZ8pLq2Xc"),
    ("-- пароль: Vx83kqLm2zPr", "Vx83kqLm2zPr"),
    ("# 数据库密码：Hn6vB2xQ9tWs", "Hn6vB2xQ9tWs"),
])
def test_a_password_in_a_comment_in_another_language_isfound_texts(comment: str,
                                                               value: str) -> None:
    assert agreed_texts(f"{comment}\nHOST = 'db.internal'\n") == [value]


def test_prose_in_another_language_naming_no_value_is_left() -> None:
    text = ("# Mot de passe oublié ? Cliquez ici.\n// パスワードを入力してください\n"
            'label = "Passwort: bitte eingeben"\n# пароль: см. хранилище\n')
    assert agreed_texts(text) == []


def test_a_user_and_password_after_a_login_word_in_a_comment_arefound_texts() -> None:
    text = ("# temp admin login for staging: admin / Zp4Lq9Tw2Xv7\n"
            "# Zugang zum Dashboard: admin / Kc8vRt3Qm6Ws\nPORT = 8080\n")
    assert agreed_texts(text) == ["Zp4Lq9Tw2Xv7", "Kc8vRt3Qm6Ws"]
    assert agreed_texts("# login: read / write access\n# login flow: GET /login then POST\n") == []


def test_a_key_file_holding_one_token_alone_is_masked_not_a_digest_or_an_id() -> None:
    for key in ("4be2c7a91d0f3e6b8a5c2d7f1e9b3a60", "Vq3Zt8LmR2xW9pKs4Nb7Hc1Jd6Fy0GeA"):
        assert agreed_texts(key + "\n") == [key]
    for text in ("da39a3ee5e6b4b0d3255bfef95601890afd80709\n", "ref: refs/heads/main\n",
                 "3b0f6e4c-2a7d-4e1f-9c8b-5d6a7e8f9a0b\n", "3.11.7\n",
                 "aGVsbG8gd29ybGQsIHRoaXMgaXMgbm90IGEga2V5--" * 4 + "\n"):
        assert agreed_texts(text) == [], text


@pytest.mark.parametrize(("line", "value"), [
    ('my $dbh = DBI->connect("DBI:Pg:dbname=crm;host=db", "export", "Hs72kQpLz9", {});',
     "Hs72kQpLz9"),
    ('$link = mysqli_connect("localhost", "shop", "Kx93!mmQ2z", "shop");', "Kx93!mmQ2z"),
    ('client.username_pw_set("sensor-7", "Tq82LmZx4Wp")', "Tq82LmZx4Wp"),
    ("const driver = neo4j.driver(uri, neo4j.auth.basic('app', 'Pz5-Rk8Wq2Lm'));",
     "Pz5-Rk8Wq2Lm"),
    ("const api = new Api(new BearerTokenAuthenticator('N7qR2xLp9ZkW4tVm8sB3'));",
     "N7qR2xLp9ZkW4tVm8sB3"),
    ("$lib = new \\Vendor\\Sdk($client_id, $client_secret, 'c4e9a1f7b3d8e2a6f0c5b9d1e7a3f8c2');",
     "c4e9a1f7b3d8e2a6f0c5b9d1e7a3f8c2"),
])
def test_a_secret_passed_by_position_to_a_login_call_isfound_texts(line: str, value: str) -> None:
    assert agreed_texts(line + "\n") == [value]


def test_calls_with_dummies_or_no_secret_beside_a_literal_are_left() -> None:
    text = ("conn = connect('localhost', 'root', 'password')\n"
            "self.assertEqual(len(password), 3)\n"
            "render(template_name, 'N7qR2xLp9ZkW4tVm8sB3')\n")
    assert agreed_texts(text) == []


def test_a_generated_key_of_symbols_in_a_dotenv_line_is_found_whole() -> None:
    generated = "x9!m$k2(q^z7@w#e4+r)t8&y-u3%i6=o1*p5_a"
    text = (f"APP_SECRET_KEY=!Tq7#Lm2@Zx9%Wp4&Rt8*Vb3_Nc6^Yd1\nENV WEB_SECRET_KEY={generated}\n"
            "DEBUG=false\n")
    assert agreed_texts(text) == ["!Tq7#Lm2@Zx9%Wp4&Rt8*Vb3_Nc6^Yd1", generated]
    assert agreed_texts("key: !vault |\n  $ANSIBLE_VAULT\nsecret: *db_pw\n") == []


def test_names_a_vendor_gives_its_secret_are_read_as_such() -> None:
    text = ("exporters:\n  otlp:\n    headers:\n      x-honeycomb-team: Qx7Lm2Zw9Kp4Rt8V\n"
            "      x-honeycomb-dataset: orders\n"
            "RABBITMQ_ERLANG_COOKIE: WQ7TZ2LK9PXM4RB8VN3C\n"
            "const ETSY_KEYSTRING = 'k7q2m9x4t8w1z5r3v6b0n2c8';\n")
    assert agreed_texts(text) == ["Qx7Lm2Zw9Kp4Rt8V", "WQ7TZ2LK9PXM4RB8VN3C",
                                  "k7q2m9x4t8w1z5r3v6b0n2c8"]
    assert agreed_texts("x-honeycomb-team: my-team\nERLANG_COOKIE_PATH=/var/lib/rabbitmq\n") == []


def test_a_secret_in_a_value_child_of_a_password_element_isfound_texts() -> None:
    text = ("<AutoLogon>\n  <Password>\n    <Value>Tz8wQm2LkP4x</Value>\n"
            "    <PlainText>true</PlainText>\n  </Password>\n</AutoLogon>\n"
            "<AdministratorPassword><Value>Kq7Lm2Zx9Wp</Value></AdministratorPassword>\n")
    assert agreed_texts(text) == ["Tz8wQm2LkP4x", "Kq7Lm2Zx9Wp"]
    assert agreed_texts("<PasswordPolicy>\n  <Value>12</Value>\n</PasswordPolicy>\n") == []


def test_the_entries_of_a_block_of_tokens_arefound_texts() -> None:
    first, second = "3f1c9a2e-7b4d-4e8a-9c1f-2d6b8e0a4c7f", "8b2e4d6f-1a3c-4e5b-9d7f-0c2a4e6b8d1f"
    text = ('acl {\n  enabled = true\n  default_policy = "deny"\n  tokens {\n'
            f'    agent = "{first}"\n    replication = "{second}"\n  }}\n}}\n')
    assert agreed_texts(text) == [first, second]
    assert agreed_texts('tokens {\n  lparen = "("\n  arrow = "=>"\n}\n') == []


def test_documented_examples_and_stand_ins_are_no_secrets() -> None:
    text = ("`otpauth://totp/Acme:alice@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme`\n"
            'const refSecret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"\n'
            "const s = new FakeStripe({ webhookSecret: 'whsec_test', apiKey: 'sk_live_demo' });\n"
            '{"settings.apiKey.revokeConfirm": "Revoke this key? Apps using it will stop."}\n'
            "export const FLAGS = { apiKeyRotation: 'ops-api-key-rotation-ui' };\n")
    assert agreed_texts(text) == []
    real = "otpauth://totp/Acme:bob@example.com?secret=KQ7TZL2WM4XP9VRB&issuer=Acme\n"
    assert agreed_texts(real) == ["KQ7TZL2WM4XP9VRB"]  # the query's next parameter left out
    assert agreed_texts('password = "Correct horse battery staple"\n') == [
        "Correct horse battery staple"]  # a passphrase is no sentence


def test_an_openvpn_static_key_block_is_a_private_key() -> None:
    lines = [f"{(0x1D2C3B4A59687F8E9DACBBCAED0F1E2D * (i + 3)) % (1 << 128):032x}"
             for i in range(8)]
    block = ("-----BEGIN OpenVPN Static key V1-----\n" + "\n".join(lines)
             + "\n-----END OpenVPN Static key V1-----")
    assert agreed_texts(f"#\n# 2048 bit OpenVPN Static key\n#\n{block}\n") == [block]


@pytest.mark.parametrize("url", [
    "https://hook.eu2.make.com/q7w2e9r4t1y8u3i6o5p0a2s7d4f9g1h8",
    "https://status.example.net/api/push/Kq7TzL2wMp?status=up&msg=OK&ping=",
    "https://chat.googleapis.com/v1/spaces/AAAAq7W2e9R/messages?key=k7Q2m9X4t8W1z5R3v6B0n2C8"
    "&token=Zq8LmX2vKp4Wt9RbQx7Lm2Zw9Kp4Rt8V%3D",
])
def test_a_webhook_url_is_masked_whole_with_its_query(url: str) -> None:
    assert agreed_texts(f'WEBHOOK = "{url}"\n') == [url]
