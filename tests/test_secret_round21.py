"""Round 21's classes of the tune set's misses and flagged lookalikes (writer69's), each with
values invented here; general evidence (a value's place, its name in any language, a URL that
is a capability) and the guards that keep lookalikes out."""

from __future__ import annotations

import pytest

from helix.core.secrets import find_secrets
from tests.secret_helpers import agreed_texts

# --- a password that opens with a symbol YAML, a comment or a variable would read


@pytest.mark.parametrize(("text", "value"), [
    ("STORE_LOSENORD=!*Q7tmWx!vRk\n", "!*Q7tmWx!vRk"),
    ("portal.wachtwoord=#KQwpeT*LV3-\n", "#KQwpeT*LV3-"),
    ("$cfg = ['password' => '$#qmxG.TRZ5C8J'];\n", "$#qmxG.TRZ5C8J"),
    ('drv = Db.driver("bolt://db:7687", auth=("svc", "$7Fk-Wd5LX_BmP"))\n', "$7Fk-Wd5LX_BmP"),
])
def test_a_password_opening_with_a_symbol_is_a_literal(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    'password = "$DB_PASSWORD"\n',
    'password: "${DB_PASSWORD}"\n',
    'admin:\n  password: "$2b$12$Kq8Zr2Lx5Vt9Kp3Nw7Hb1Oc4Ms6Df0GaPq8Zr2Lx5Vt9Kp3Nw7Hb1"\n',
    "DB_PASSWORD=#changeme\n",
])
def test_a_variable_a_crypt_hash_or_a_placeholder_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- names: an HMAC, a PIN of an issued key's length, "key" in other languages, a certificate


@pytest.mark.parametrize(("text", "value"), [
    ("BILLING_POSTBACK_HMAC=4f0c2e9a7b1d3f5e6a8c0b2d4f6e8a1c3b5d7f9e0a2c4e6b8d1f3a5c7e9b0d2f4\n",
     "4f0c2e9a7b1d3f5e6a8c0b2d4f6e8a1c3b5d7f9e0a2c4e6b8d1f3a5c7e9b0d2f4"),
    ("gw_pin = Q4ZK8TRW2MXN6PLV9HJC3BDF7GSA5YEU1Q4ZK8TRW2MXN6PLV9HJ\n",
     "Q4ZK8TRW2MXN6PLV9HJC3BDF7GSA5YEU1Q4ZK8TRW2MXN6PLV9HJ"),
    ("FROTA_CHAVE_API=9b1d3f5e7a0c2e4b6d8f1a3c5e7b9d0f2a4c6e8b\n",
     "9b1d3f5e7a0c2e4b6d8f1a3c5e7b9d0f2a4c6e8b"),
    ("VIDEO_APP_CERTIFICATE=7a0c2e4b6d8f1a3c5e7b9d0f2a4c6e8b\n",
     "7a0c2e4b6d8f1a3c5e7b9d0f2a4c6e8b"),
])
def test_a_random_value_under_a_credential_name(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "LED_PIN = 13\n",
    "CA_CERT=ca-bundle-2024.crt\n",
    "ssl_cert = /etc/ssl/certs/site-2024.pem\n",
    "enclave_id = 9b1d3f5e7a0c2e4b6d8f1a3c5e7b9d0f\n",
])
def test_a_pin_number_or_a_certificate_s_file_is_no_key(text: str) -> None:
    assert agreed_texts(text) == []


# --- places: a namespaced attribute pair, T-SQL, libpq, wrapped and quoted-again arguments


@pytest.mark.parametrize(("text", "value"), [
    ('<meta-data android:name="io.crash.API_KEY"'
     ' android:value="3c5e7b9d0f2a4c6e8b1d3f5e7a0c2e4b"/>\n',
     "3c5e7b9d0f2a4c6e8b1d3f5e7a0c2e4b"),
    ("EXEC sp_addlinkedsrvlogin @rmtsrvname = N'X', @rmtuser = N'u',"
     " @rmtpassword = N'k~7RbmQ.pZ';\n",
     "k~7RbmQ.pZ"),
    ('c = connect("host=db port=5432 user=ro password=7qk_30Zbxv__m sslmode=require")\n',
     "7qk_30Zbxv__m"),
    ('req.basic_auth("poller", Some("~7q.WbnRmDizkH*"))\n', "~7q.WbnRmDizkH*"),
    ('buildConfigField("String", "ADS_KEY", "\\"8e1b3d5f7a9c0e2a4c6b8d0f1e3a5c7b9d2f4a6c\\"")\n',
     "8e1b3d5f7a9c0e2a4c6b8d0f1e3a5c7b9d2f4a6c"),
])
def test_a_secret_in_its_place(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


def test_a_literal_below_its_assignment_joined_over_lines() -> None:
    text = ('private static final String PORTAL_SECRET =\n'
            '        "Hq5Tz8Lmw2Xr6Vnb4Kp1" +\n'
            '        "Wd7Jf3Ncs9Ga0Ue5Yo2P";\n')
    found = agreed_texts(text)
    assert len(found) == 1
    assert "Hq5Tz8Lmw2Xr6Vnb4Kp1" in found[0] and "Wd7Jf3Ncs9Ga0Ue5Yo2P" in found[0]


def test_a_password_said_in_a_chat() -> None:
    text = "<ana> psql -h replica -U ro db   pw is Harbor@7715qkzp\n"
    assert agreed_texts(text) == ["Harbor@7715qkzp"]


def test_a_k8s_secret_s_password_opening_with_a_dollar() -> None:
    # base64 of "$Kp2Lw.QmRtY.zaB8Fn" (decoded data is never expanded)
    text = "kind: Secret\ndata:\n  DB_PASSWORD: JEtwMkx3LlFtUnRZLnphQjhGbg==\n"
    assert agreed_texts(text) == ["JEtwMkx3LlFtUnRZLnphQjhGbg=="]


def test_a_stream_key_in_an_rtmp_url_and_a_collector_s_capability_url() -> None:
    key = "live_52810377_Qx8Wn2Lm5Vt9Kp3Rb7Hc1Jd4Ms6Gf"
    assert agreed_texts(f"ffmpeg -i in.mp4 -f flv rtmp://ingest.example.tv/app/{key}\n") == [key]
    url = ("https://collectors.example.com/receiver/v1/http/Zq9Lw3Xt7Kp2Vn5Rb8Hc1Ms4Jd6Gf0Ya3"
           "Ue9Oi2Tw7Pk5Qz=Mx8Nb4Vc6Lk2Jh0Gf8Dd5Ss3Aa1Pp9Oo7Ii5Uu3Yy")
    assert agreed_texts(f"<url>{url}</url>\n") == [url]


@pytest.mark.parametrize("text", [
    "rtmp://ingest.example.tv/app/{stream_key}\n",
    "https://example.com/assets/dist/main.4f3a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a.js\n",
    "https://github.com/o/r/commit/4f3a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a\n",
])
def test_a_url_with_no_stream_key_or_capability(text: str) -> None:
    assert agreed_texts(text) == []


@pytest.mark.parametrize(("text", "value"), [
    ("radius server NPS2\n address ipv4 10.0.0.5 auth-port 1812\n key Xq7*!mLp2Rz#\n",
     "Xq7*!mLp2Rz#"),
    ("tacacs-server host 10.1.1.1 key Vb8#rt2Lmq9\n", "Vb8#rt2Lmq9"),
])
def test_a_radius_or_tacacs_server_s_key(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


def test_a_key_file_printed_in_a_transcript() -> None:
    text = "$ cat config/master.key\n3f5e7a0c2e4b6d8f1a3c5e7b9d0f2a4c\n$ bin/rails c\n"
    assert agreed_texts(text) == ["3f5e7a0c2e4b6d8f1a3c5e7b9d0f2a4c"]
    assert agreed_texts("$ cat NOTES.md\n3f5e7a0c2e4b6d8f1a3c5e7b9d0f2a4c\n") == []


# --- lookalikes: none of these is a secret


@pytest.mark.parametrize("text", [
    "upload ok key=media/ep7_master.mxf etag=\"d3a1\" size=1932\n",
    "x-amz-id-2: Kp8Zr2Lx5Vt9Kp3Nw7Hb1Jc4Ms6Df0GaPq8Zr2Lx5Vt9Kp3Nw7Hb1Jc4Ms6Df0Ga9+Q=\n",
    '<meta name="google-site-verification"'
    ' content="Qr8Zt2Lx5Vt9Kp3Nw7Hb1Jc4Ms6Df0GaPq8Zr2Lx_y" />\n',
    "<cenc:pssh>AAAAW3Bzc2gAAAAA7e+LqXnWSs6jyCfc1R0h7QAAADsIARIQKp8Zr2Lx5Vt9Kp3Nw7Hb1J==</cenc:pssh>\n",
    "ssl_pin = {{ lookup('hashi_vault', 'secret=secret/kiosk/gw:pin') }}\n",
    "datadog:\n  apiKeyExistingSecret: datadog-keys\n",
])
def test_paths_ids_published_values_and_references_are_no_secrets(text: str) -> None:
    assert agreed_texts(text) == []


@pytest.mark.parametrize("text", [
    "'crypt' => [\n    'key' => 'q2v8ow35bmhyl92tzdrqi7vbf18n4e0k'\n],\n",
    'acme_key1 = "4QMW9eBDux2v1sLpreCoilvmnP337XNeiV01JFJ8uAAVVyH5qX0NPaa0d54E"\n',
])
def test_the_prefilter_and_the_whole_text_agree_on_kinds(text: str) -> None:
    assert find_secrets(text) == find_secrets(text, prefilter=False)
    assert find_secrets(text)


def test_mosquitto_s_port_is_no_password_its_password_is() -> None:
    text = "mosquitto_pub -h broker.local -p 1883 -u sensor -P Xq7mLp2Rz9 -t t/1 -m hi\n"
    assert agreed_texts(text) == ["Xq7mLp2Rz9"]
    assert agreed_texts("mosquitto_sub -h broker.local -p 8883 -t '#'\n") == []
