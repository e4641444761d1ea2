"""Round 26's classes of the tune set's misses and flagged lookalikes (writer94's), with values
invented here: general evidence (a value's format or place, a name's form) and the guards that
keep lookalikes out."""

from __future__ import annotations

import pytest

from tests.secret_helpers import agreed_texts

_HEX64 = "5e0b9d3a7c1f4e8b2a6d0c9f3e7b1a5d8c2f6e0a4b9d3c7f1e5a8b2d6c0f4e9a"


# --- a name whose last word says how the value is written (`_HEX`, `_B64`): the name before it


@pytest.mark.parametrize(("text", "value"), [
    (f"const FRAME_KEY_HEX = '{_HEX64}';\n", _HEX64),
    ("relay:\n  wake_key_raw: Lk7Qw2Zx9Rv4Tn8Mp3Bc6\n", "Lk7Qw2Zx9Rv4Tn8Mp3Bc6"),
])
def test_a_secret_name_with_an_encoding_word_last_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    f"PUBLIC_KEY_HEX = '{_HEX64}'\n",
    'CHECKSUM_HEX = "9f2c4e6a8b0d1f3e5a7c9b2d4f6e8a0c"\n',
    'PASSWORD_HASHERS = ["app.auth.hashers.Argon2Hasher"]\n',
])
def test_a_named_encoding_or_hashers_list_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- what stands in for a value until a build or a command fills it, or says where it is kept


@pytest.mark.parametrize("text", [
    "    <password>__MARINA_DB_PASS__</password>\n",
    'db.password = "@db.password@"\n',
    "vault kv put secret/dock/gate api_key=@rotated.key\n",
    '<add key="TideFeedApiKey" value="from-keyvault" />\n',
    'PAYMENT_TOKEN = "in-vault"\n',
    'SESSION_SECRET = "harbor-local-only-not-for-production"\n',
])
def test_a_stand_in_for_a_value_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


@pytest.mark.parametrize(("text", "value"), [
    ('password = "@Keel2031!wx"\n', "@Keel2031!wx"),
    ('password = "__Jx4!mooring"\n', "__Jx4!mooring"),
    ('api_key = "from-Qx7rTz2LpV9k"\n', "from-Qx7rTz2LpV9k"),
])
def test_a_literal_opening_like_a_stand_in_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


# --- a Spring or Quarkus placeholder's literal default (`${NAME:X}`)


@pytest.mark.parametrize(("text", "value"), [
    ("    password: ${DOCK_DB_PASSWORD:Bollard#Gull42}\n", "Bollard#Gull42"),
    ("quay.api.token=${quay.api.token:Rv7Lm2Xq9Tz4Kp8W}\n", "Rv7Lm2Xq9Tz4Kp8W"),
])
def test_a_placeholder_default_under_a_secret_name_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    'echo "${BERTH_PASSWORD:0:4}"\n',
    "    password: ${DOCK_DB_PASSWORD:}\n",
    "    url: ${DOCK_DB_URL:jdbc:postgresql://db:5432/dock}\n",
])
def test_a_substring_or_an_empty_default_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


def test_a_shell_default_of_digits_stays_found() -> None:
    assert agreed_texts('PIN="${GATE_PASSWORD:-73915064}"\n') == ["73915064"]


# --- literals joined with Perl's and PHP's ` . `


@pytest.mark.parametrize(("text", "value"), [
    ('my $dbh = DBI->connect(\n    "DBI:Pg:dbname=berths;host=db1.marina.test",\n'
     '    "harbor", "Lighthouse-" . "Keeper-Q7x9",\n    { AutoCommit => 1 });\n',
     'Lighthouse-" . "Keeper-Q7x9'),
    ("$db_password = 'Ma5t-' . 'Jib' . '-Q2vz';\n", "Ma5t-' . 'Jib' . '-Q2vz"),
])
def test_literals_joined_with_a_dot_are_found_whole(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    '$greeting = "Ahoy " . $name . " from the dock";\n',
    'print "berth: " . "A" . $n . "\\n";\n',
])
def test_text_joined_with_a_dot_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a Markdown table's row naming a secret in its first cell


@pytest.mark.parametrize(("text", "value"), [
    ("| Setting | Value |\n|---|---|\n| Host | 198.51.100.7 |\n"
     "| Admin password | `Spinnaker.Tide.Rope.8830` |\n", "Spinnaker.Tide.Rope.8830"),
    ("| **API token** | Fq8Lz3Wx7Rk2Mv9Tn4 | rotated each spring |\n", "Fq8Lz3Wx7Rk2Mv9Tn4"),
])
def test_a_table_row_naming_a_secret_holds_one(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "| Name | Description |\n|---|---|\n| API token | Use the one from the vault |\n",
    "| DB_PASSWORD | Database password | yes |\n",
    "| password | string | the user's password |\n",
    "| Token | `<your token>` |\n",
    "| Password policy | 12 characters |\n",
])
def test_a_table_row_describing_a_secret_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- said in prose: a bold password, a PIN of digits, a login `log in as U / P`


@pytest.mark.parametrize(("text", "value"), [
    ("- the shared pw is **lowtide2027** for all kiosks\n", "lowtide2027"),
    ("Boaters pay at the pump; the attendant PIN is 6029.\n", "6029"),
    ("enter the dockhand PIN `830417` when asked\n", "830417"),
    ("The gate passcode: 47120\n", "47120"),
    ("3. Open HarborDesk and log in as `dockadmin` / `Mooring_Line_552`.\n", "Mooring_Line_552"),
    ("Sign in as harbormaster / Buoy-Lantern-61 on first boot\n", "Buoy-Lantern-61"),
])
def test_a_secret_said_in_prose_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "the LED pin is 13\n",
    "set pin 4471 high before the read\n",
    "the PIN is 0000 until you change it\n",
    "log in as admin / password\n",
    "log in as the admin / operator role\n",
    "the password is **required** here\n",
])
def test_prose_near_a_secret_word_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- HTTP Basic authentication's user and password given together


@pytest.mark.parametrize(("text", "value"), [
    ('  f.request :authorization, :basic, "marina_api", "Slipway-Gantry-7714"\n',
     "Slipway-Gantry-7714"),
    ('      SEARCH_OPTS: "-Dbasicauth=search:Anchor-Chain-Locker"\n', "Anchor-Chain-Locker"),
    ("BASIC_AUTH=ops:Fender-Pike-Cleat\n", "Fender-Pike-Cleat"),
])
def test_a_basic_auth_pair_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "basicauth=admin:admin\n",
    "BASIC_AUTH=ops:secret\n",
    "conn.request(:basic, 'user', 'changeme')\n",
    'basic_auth: "ops:${BASIC_PASS}"\n',
])
def test_a_basic_auth_pair_without_a_password_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a .pgpass line's password of joined words: the field says it is one


def test_a_pgpass_password_of_joined_words_is_found() -> None:
    text = ("db1.marina.test:5432:*:backup:Fathom-Pier-44\n"
            "localhost:5432:*:postgres:slack-tide-night\n")
    assert agreed_texts(text) == ["Fathom-Pier-44", "slack-tide-night"]


@pytest.mark.parametrize("text", [
    "hostname:port:database:username:password\n",
    "localhost:5432:*:postgres:changeme\n",
])
def test_a_pgpass_template_line_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []
