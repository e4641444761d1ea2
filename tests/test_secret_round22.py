"""Round 22's classes of the tune set's misses (writer72's), each with values invented here:
general evidence (a value's place, its name's form) with the guards that keep lookalikes out."""

from __future__ import annotations

import pytest

from tests.secret_helpers import agreed_texts

# --- a generated password with a dot in it, its parts too short to read as a token's


@pytest.mark.parametrize(("text", "value"), [
    ("sftp:\n  user: clinic_ops\n  pass: R7k.WQz4VbNm\n", "R7k.WQz4VbNm"),
    ("password: Hq2.LfX9cPwTk\n", "Hq2.LfX9cPwTk"),
])
def test_a_dotted_password_reads_random(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "password = config.Db2Pass\n",
    "password: settings.DB_PASSWORD2\n",
    "password = Base64Encoder.default\n",
])
def test_an_attribute_path_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a password's name glued to what it opens (`ROOTPASS`), not a word ending so


@pytest.mark.parametrize(("text", "value"), [
    ("    environment:\n      SLAPD_ROOTPASS: Wm4*hq9Zr-Tc\n", "Wm4*hq9Zr-Tc"),
    ("adminpass = Kd8!pVx2Lq.e\n", "Kd8!pVx2Lq.e"),
])
def test_a_glued_pass_name_holds_a_password(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "CACHE_BYPASS: Xr4tLw9qPz2k\n",
    "lowpass = Fh3kQ9zWm2Lp\n",
])
def test_a_word_ending_in_pass_names_no_password(text: str) -> None:
    assert agreed_texts(text) == []


# --- a label's note in parentheses before its colon


@pytest.mark.parametrize(("text", "value"), [
    ("- Shared secret (RADIUS fallback): `pT7vQx2LmZr9WcKd4NbYh8Js`\n", "pT7vQx2LmZr9WcKd4NbYh8Js"),
    ("API key (staging): `KX4R-WQ9T-ZL2M-HB7P-3VNC`\n", "KX4R-WQ9T-ZL2M-HB7P-3VNC"),
    ("* Password (prod): `Gm3!xR8.wq-Zt`\n", "Gm3!xR8.wq-Zt"),
])
def test_a_qualified_label_keeps_its_value(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "    password (str): The password to log in with.\n",
    "API key (see the vault): `<your-api-key>`\n",
    "token (optional): none\n",
])
def test_a_qualified_label_describing_a_value_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- an INSERT's column named for a password: the literal in that column of each row


def test_an_inserted_password_column_is_found_in_each_row() -> None:
    text = ("INSERT INTO operators (login, team, password_initial)\n"
            "VALUES ('night-lead@clinic.example', 'ops', 'Vb6!qLr2Xw_Tz'),\n"
            "       ('day-lead@clinic.example', 'ops', 'Heron_4821q');\n")
    assert agreed_texts(text) == ["Vb6!qLr2Xw_Tz", "Heron_4821q"]


@pytest.mark.parametrize("text", [
    "INSERT INTO users (email, password) VALUES ('a@b.example', "
    "'$2b$12$Kq8Zr2Lx5Vt9Kp3Nw7Hb1Oc4Ms6Df0GaPq8Zr2Lx5Vt9Kp3Nw7H');\n",
    "INSERT INTO users (email, password_hash) VALUES ('a@b.example', 'Xk3Rt9Lp2Qw7');\n",
    "INSERT INTO users (id, password) VALUES (1, 'changeme');\n",
    "INSERT INTO users (email, display_name) VALUES ('a@b.example', 'Qz7!Lp2Xw');\n",
])
def test_a_hash_a_placeholder_or_another_column_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a call that logs in with literals only: the password closing it; a CLI's login verb


@pytest.mark.parametrize(("text", "value"), [
    ('db = cache.connect("cache01.clinic.internal", 1972, "USER", "svc_etl", "Pq7*mZ2xK!rB")\n',
     "Pq7*mZ2xK!rB"),
    ('factory.createConnection("orders_app", "8Tg.wRq_Lm2Vz");\n', "8Tg.wRq_Lm2Vz"),
])
def test_a_login_calls_last_literal_is_its_password(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    'client.connect("broker", "Device01")\n',
    'client.connect("mqtt-bridge", "sensor_01")\n',
    'db.connect("localhost", "db2.example.com")\n',
    'mc.connect("broker", "v1.2.3-beta")\n',
    'client.login("admin", "admin")\n',
    'connect("host", "user", "changeme")\n',
    'session.login(user, "Xk3Rt9Lp2Qw7")\n',  # a variable among the arguments: not all literals
])
def test_a_login_call_without_a_password_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


def test_a_clis_account_authorizing_verb_takes_the_key() -> None:
    text = "objstore authorize-account 00a1b2c3d4e5f60718293a4b5 K00Zq8Lp3Wm7Rt2Xv9Bn4Hc6Jd1Fg5\n"
    assert agreed_texts(text) == ["00a1b2c3d4e5f60718293a4b5", "K00Zq8Lp3Wm7Rt2Xv9Bn4Hc6Jd1Fg5"]


# --- a login pasted as `use <user> / <password>`


@pytest.mark.parametrize(("text", "value"), [
    ("[14:02] ana: try use report_ro / Quartz#5518x! until the reset\n", "Quartz#5518x!"),
    ("use svc_backup / Lantern*2201lamp_\n", "Lantern*2201lamp_"),
])
def test_a_pasted_user_and_password_pair(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "use tabs / spaces\n",
    "use python3 / Python3.11 for the build\n",
    "Use src / dist+2024 folders\n",
    "use admin / changeme\n",
])
def test_a_pair_of_words_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []
