"""Round 32's causes, each seen in the misses of two tune sets or more (secrets32's first
commit counts them), with values invented here: a value's format or place, never one snippet's
string; and the guards that keep lookalikes of each out."""

from __future__ import annotations

import pytest

from tests.secret_helpers import agreed_texts

# --- recovery codes under their heading, a note line or two between


@pytest.mark.parametrize(("text", "values"), [
    ("Payroll portal - backup codes for finance@example.org\n"
     "(printed 2025-01-09, kept in the grey folder)\n\n"
     " 5102 8837    2264 9015\n 7740 3381    9923 6402\n", ["5102 8837", "9923 6402"]),
    ("Registry recovery codes for release-bot\nStore them offline.\n\n"
     "k4m2q-8zt7w\nr9c3v-5nb1x\nw2p8d-6hy4j\n", ["k4m2q-8zt7w", "w2p8d-6hy4j"]),
    ("Backup codes for the ops account\nEach works once.\nDo not share.\n\n"
     + "".join(f"{n:04d} {n * 7 % 10000:04d}\n" for n in range(4811, 4820)),
     ["4811 3677", "4819 3733"]),
])
def test_codes_after_a_note_under_their_heading_are_found(text: str,
                                                          values: list[str]) -> None:
    found = agreed_texts(text)
    assert all(value in found for value in values), found


@pytest.mark.parametrize("text", [
    "Backup codes for the ops account\nAsk the on-call lead for one.\n\nSee ticket OPS 4411\n",
    "Recovery codes are printed once.\nKeep them safe.\nThe rotation runs every 90 days.\n",
    "Backup codes for the portal\nNote one.\nNote two.\nNote three.\n\n5102 8837    2264 9015\n",
])
def test_prose_under_a_codes_heading_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- an SNMP community under a name with its access level glued on, or shaped as a name


@pytest.mark.parametrize(("text", "value"), [
    ("snmp:\n  community_ro: Lantern5-view\n", "Lantern5-view"),
    ("snmp:\n  community-rw: GreyHeron_rw_41\n", "GreyHeron_rw_41"),
    ("snmp_community = tideGauge42\n", "tideGauge42"),
])
def test_communities_with_access_or_a_name_shape_are_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    "community_ro: public\n",
    "snmp_community = community_name\n",
    "community_rw = settings.snmp_rw2\n",
    "snmp_community: SNMP_COMMUNITY2\n",
])
def test_community_names_and_defaults_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a login then its password in adjacent fields of an HL7 segment

_MSH = "MSH|^~\\&|SENDAPP|SITE^A|RECVAPP|SITE|20250301101500||ORU^R01|MSG7001|P|2.5.1\n"


@pytest.mark.parametrize(("text", "value"), [
    (_MSH + "PID|1||MRN5500213^^^SITE^MR||ROE^ANN||19700101|F\n"
            "ZCR|1|PACS|pacs_feed_user|Ortho!Ward#77|https://pacs.example.org/in\n",
     "Ortho!Ward#77"),
    (_MSH + "ZLG|SENDER|imaging_node12|RadNode9Qx4\nOBR|1|ORD-1|ACC-2|XR^Chest\n", "RadNode9Qx4"),
])
def test_an_hl7_login_and_password_are_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("text", [
    _MSH + "PID|1||MRN5500213^^^SITE^MR||ROE^ANN||19700101|F\nOBX|1|NM|HCT^Hct||44.2|%|37-55|N\n",
    _MSH + "ZCR|1|PACS|pacs_feed_user|<password>|https://pacs.example.org/in\n",
    _MSH + "NTE|1||result_note|MRN5500213\nZXT|pacs_user|pacs_feed_user2\n",
    "ZCR|1|PACS|pacs_feed_user|Ortho!Ward#77\n",  # (no message: no MSH above)
])
def test_hl7_fields_without_a_login_pair_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a `user:password` URL whose host is one bare name: the whole URL is the credential


def test_a_credential_url_ending_in_an_account_name_is_masked_whole() -> None:
    url = "mediastore://728104559302114:Qp4Lm9vXr2Tz7Kb1Nw8Hc3Yd5@lanternhall"
    assert agreed_texts(f"MEDIASTORE_URL={url}\n") == [url]


def test_a_credential_url_with_a_host_keeps_it() -> None:
    text = "BROKER_URL=amqp://relay:Wq8vTz3LpR6n@mq.example.org:5672/jobs\n"
    assert agreed_texts(text) == ["relay:Wq8vTz3LpR6n"]


# --- a flagged lookalike's format (writer126's lookalikes, and writer108's secrets snippet
# beside its password): a `$7$` password hash (scrypt's modular crypt id, Mosquitto's password
# file) is no secret


def test_a_dollar_seven_password_hash_stays_unfound() -> None:
    text = ("gate-02:$7$101$Hb5nW2qT8xLm3Zr6$Pq7mV3xN9cK2sR8tW4yL6bD1fH5jG0aE9uI2oT7rY3wQ8kZ4nB6h"
            "M1cS5vF8dX2zA7lP9gU3iO6yT1eR5w==\n")
    assert agreed_texts(text) == []
