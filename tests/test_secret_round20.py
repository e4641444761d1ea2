"""Round 20's classes of the tune sets' misses and flagged lookalikes (writer63's, writer64's),
each with values invented here."""

from __future__ import annotations

import pytest

from tests.secret_helpers import agreed_texts

# --- lookalikes: none of these is a secret


def test_an_argon2_hash_is_no_secret_though_its_parameters_are_long() -> None:
    text = ('carol:\n  password_digest: "$argon2id$v=19$m=65536,t=3,p=4$Wq3LpZt8NcYv2RkHs0'
            'JdXa$Hq8Zc2LmVt5Rw1Kp9Xs4Yb7Nf3Gd6Je0Ua2Ti5Lo8Pr"\n')
    assert agreed_texts(text) == []


def test_base64_lines_that_decode_to_json_are_no_key_body() -> None:
    text = ("# replayed events\n"
            "eyJraW5kIjogImxvZ2luIiwgInVzZXIiOiAibWFyYSIsICJ0cyI6IDE3MDAwMDAwMDB9\n"
            "eyJraW5kIjogImxvZ291dCIsICJ1c2VyIjogIm1hcmEiLCAidHMiOiAxNzAwMDAwMzAwfQ==\n")
    assert agreed_texts(text) == []


@pytest.mark.parametrize("text", [
    "x-amz-cf-id: Zq9Lw3Xt7Kp2Vn5Rb8Hc1Ms4Jd6Gf0Ya3Ue9Oi2Tw7Pk5Qz-==\n",
    '{"PersistentGuid": "9F3A1C7E5B2D4F6A8C0E1B3D5F7A9C2E"}\n',
    'device_uuid = "7c1e9a3f5b2d4e6a8c0f1b3d5e7a9c2b"\n',
])
def test_a_value_under_a_guid_or_a_header_id_name_is_an_identifier(text: str) -> None:
    assert agreed_texts(text) == []


def test_a_key_pair_s_id_half_and_a_key_s_header_id_stay_found() -> None:
    pair = ('{\n  "acme_key": "Zt3KqLw9Vn2Rb7Hc4Ms8Jd1Gf6Ya0Ue",\n'
            '  "acme_id": "pQ8Zr2Lx5Vt9Kp3Nw7Hb1Jc4Ms6Df0Ga"\n}\n')
    assert agreed_texts(pair) == ["Zt3KqLw9Vn2Rb7Hc4Ms8Jd1Gf6Ya0Ue",
                                  "pQ8Zr2Lx5Vt9Kp3Nw7Hb1Jc4Ms6Df0Ga"]
    value = "Zq9Lw3Xt7Kp2Vn5Rb8Hc1Ms4Jd6Gf0Ya3Ue9Oi2Tw7Pk5Qz"
    assert agreed_texts(f"x-api-key-id: {value}\n") == [value]


@pytest.mark.parametrize("text", [
    "docker run -e POSTGRES_PASSWORD=postgres -p 5432:5432 postgres:16\n",
    "REDIS_PASSWORD=redis\n",
    'grafana:\n  admin_password: "admin"\n',
])
def test_a_password_that_is_a_word_of_its_own_name_is_a_default(text: str) -> None:
    assert agreed_texts(text) == []


def test_a_password_that_merely_starts_like_its_name_stays_found() -> None:
    assert agreed_texts("POSTGRES_PASSWORD=postgres2024Xq\n") == ["postgres2024Xq"]


def test_not_set_is_no_value() -> None:
    assert agreed_texts("ACME_API_KEY=not-set\nOTHER_SECRET_KEY=not_set\n") == []


def test_a_usage_line_s_metavar_is_no_token() -> None:
    text = ("usage: sync [-h] [--token TOKEN] [--password PASSWORD] SRC\n\n"
            "  --token TOKEN   the API token\n")
    assert agreed_texts(text) == []
    assert agreed_texts("sync --token Zq9Lw3Xt7Kp2Vn5R src\n") == ["Zq9Lw3Xt7Kp2Vn5R"]


def test_a_vault_path_after_the_word_secret_is_where_it_is_kept() -> None:
    text = '{{ with secret "secret/data/lab/spectrometer-400" }}\n{{ .Data.data.user }}\n'
    assert agreed_texts(text) == []


def test_the_secret_s_name_as_a_german_label_is_no_secret() -> None:
    assert agreed_texts('{\n  "settings.apiKey": "API-Schlüssel"\n}\n') == []


def test_a_password_holding_the_word_password_stays_found() -> None:
    text = "[pypi]\nusername:me\npassword:qz^%#rest-of-my-password\n"
    assert agreed_texts(text) == ["qz^%#rest-of-my-password"]


def test_a_bare_path_of_base64_characters_is_no_token() -> None:
    text = ('"ids": ["{Runtime}/StandaloneLinux64/'
            'shared_assets_all_7c1e9a3f5b2d4e6a8c0f1b3d5e7a9c2b.bundle"]\n')
    assert agreed_texts(text) == []


# --- misses: each of these is a secret


def test_an_x_app_only_bearer_token_is_found_whole() -> None:
    token = "A" * 21 + "Kq7ZrLw2Xt9Vn4Rb%3DHc1Ms8Jd6Gf0Ya3Ue5Oi2Tw7Pk9Qz4Lx6Nb1Vc3Ze8Rt2Wy"
    assert agreed_texts(f'const api = new TwitterApi("{token}");\n') == [token]


def test_base64_zeros_are_no_bearer_token() -> None:
    assert agreed_texts('blob = "' + "A" * 90 + '"\n') == []


def test_a_deepl_free_key_is_found_with_its_suffix() -> None:
    key = "5b2d4e6a-8c0f-4b3d-9e7a-9c2b7c1e9a3f:fx"
    assert agreed_texts(f'translator = deepl.Translator("{key}")\n') == [key]
    assert agreed_texts('run_id = "5b2d4e6a-8c0f-4b3d-9e7a-9c2b7c1e9a3f"\n') == []


def test_a_key_built_from_a_literal_by_its_type_is_found() -> None:
    key = "3f5b2d4e6a8c0f1b3d5e7a9c2b7c1e9a-4e6a8c0f-1b3d-4e7a-9c2b-7c1e9a3f5b2d"
    text = f'return Client.forApiKey(ApiKey.from("{key}")).build();\n'
    assert agreed_texts(text) == [key]


@pytest.mark.parametrize("text, value", [
    ('var cert = new X509Certificate2("certs/partner.pfx", "Heron%5150basalt.");\n',
     "Heron%5150basalt."),
    ('KeyPair kp = Keys.load(\n    "/etc/acme/signing.p12",\n    "alias1",\n'
     '    "Maple$8812otter?");\n', "Maple$8812otter?"),
    ('        return DriverManager.getConnection(\n'
     '            "jdbc:postgresql://db.example.org:5432/lims", "lims", "Cobalt*4471reed");\n',
     "Cobalt*4471reed"),
])
def test_a_password_passed_with_the_resource_it_opens_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    'c = DriverManager.getConnection("jdbc:mysql://h/db", "user", password);\n',
    'f = open("store.p12", "rb")\n',
    'x = ["a.p12", "b.p12"]\n',
])
def test_a_resource_without_a_literal_password_after_it_is_no_secret(text: str) -> None:
    assert agreed_texts(text) == []


def test_steamcmd_s_login_password_is_found() -> None:
    text = "%STEAMCMD% +login build_bot Quill@6620harbor^ +run_app_build app.vdf +quit\n"
    assert agreed_texts(text) == ["Quill@6620harbor^"]
    assert agreed_texts("steamcmd +login anonymous +app_update 740 validate +quit\n") == []


@pytest.mark.parametrize("text, value", [
    ('    "AT#SGACT=1,1,\\"fleet\\",\\"Rq7Lm2Zx9Kw\\"",\n', "Rq7Lm2Zx9Kw"),
    ('AT+QICSGP=1,1,"iot.apn","dev","Tz4Np8Vq2Lc",1\n', "Tz4Np8Vq2Lc"),
    ('AT+CSTT="corp.apn","unit","Hb5Wr9Xm3Jd"\n', "Hb5Wr9Xm3Jd"),
])
def test_a_modem_s_connection_password_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


def test_a_modem_command_without_a_password_is_no_secret() -> None:
    assert agreed_texts('AT+CGDCONT=1,"IP","internet"\nAT+CSTT="internet","",""\n') == []


def test_a_backtrace_submission_url_is_masked_whole() -> None:
    url = ("https://studio.backtrace.io/post/studio/"
           "7c1e9a3f5b2d4e6a8c0f1b3d5e7a9c2b7c1e9a3f5b2d4e6a8c0f1b3d5e7a9c2b")
    assert agreed_texts(f'DataRouterUrl="{url}"\n') == [url]


def test_a_perforce_ticket_is_found() -> None:
    text = "ssl:p4.example.org:1666=builder:7C1E9A3F5B2D4E6A8C0F1B3D5E7A9C2B\n"
    assert agreed_texts(text) == ["7C1E9A3F5B2D4E6A8C0F1B3D5E7A9C2B"]


@pytest.mark.parametrize("text", [
    "bash <(curl -s https://codecov.io/bash) -t 5b2d4e6a-8c0f-4b3d-9e7a-9c2b7c1e9a3f\n",
    "codecovcli upload-process -t 5b2d4e6a-8c0f-4b3d-9e7a-9c2b7c1e9a3f -F unit\n",
])
def test_a_codecov_upload_token_is_found(text: str) -> None:
    assert agreed_texts(text) == ["5b2d4e6a-8c0f-4b3d-9e7a-9c2b7c1e9a3f"]
    assert agreed_texts("./codecov -t ${CODECOV_TOKEN}\n") == []
