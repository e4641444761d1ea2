"""Round 29's causes, each seen in the misses of two tune sets or more (secrets29's first
commit counts them), with values invented here: a value's format or place, never one snippet's
string; and the guards that keep lookalikes of each out."""

from __future__ import annotations

import pytest

from tests.secret_helpers import agreed_texts

# --- recovery codes and an authenticator's seed on the lines under their heading


@pytest.mark.parametrize(("text", "values"), [
    ("## Break-glass account\n\nBackup codes (each works once):\n\n"
     "    5HQ3-W8KT   Z2RM-7VPA   C9LD-4XNE\n",
     ["5HQ3-W8KT", "Z2RM-7VPA", "C9LD-4XNE"]),
    ("Emergency codes for the shared mailbox\n  3318 0472   9946 2751\n  6083 1195   2740 8862\n",
     ["3318 0472", "9946 2751", "6083 1195", "2740 8862"]),
    ("TOTP secret for the payroll admin:\n  QF7T 2KWX M4RB 9ZJN H6VC S3PE\n",
     ["QF7T 2KWX M4RB 9ZJN H6VC S3PE"]),
    ("recovery codes:\n- `a7k2m-9qx4r`\n- `p3w8n-6tz1c`\n", ["a7k2m-9qx4r", "p3w8n-6tz1c"]),
])
def test_codes_under_their_heading_are_found(text: str, values: list[str]) -> None:
    assert agreed_texts(text) == values


@pytest.mark.parametrize("text", [
    "Backup codes are printed once; store them in the vault.\n\nSee the runbook section\n",
    "Recovery codes:\n    XXXX-XXXX   XXXX-XXXX\n",
    "Error codes (HTTP):\n    404   500   503\n",
    "Seed (ASCII): `12345678901234567890` per RFC 6238\nnext line of prose here\n",
    "Backup codes policy\n  Keep them safe please\n",
])
def test_no_codes_below_a_heading_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- an SNMPv3 user's passphrases after their protocols' names


@pytest.mark.parametrize(("text", "values"), [
    ('createUser telemetry SHA "Quarry-Lamp#61" AES "Ferry9Dock!zq"\n',
     ["Quarry-Lamp#61", "Ferry9Dock!zq"]),
    ("v3 user: nocpoll  auth SHA: hT4kW9pLm2QzR7xB  priv AES: Vn3Ys8Jd1Fq6Lc0G\n",
     ["hT4kW9pLm2QzR7xB", "Vn3Ys8Jd1Fq6Lc0G"]),
    ("snmp-server user mon grp v3 auth sha Birch7Cable% priv aes 128 Slate4Moss&\n",
     ["Birch7Cable%", "Slate4Moss&"]),
])
def test_passphrases_after_protocol_names_are_found(text: str, values: list[str]) -> None:
    assert agreed_texts(text) == values


@pytest.mark.parametrize("text", [
    "Release notes SHA-256: 5f2a9c0e7b3d41a8c6e2f9b0d4a7c1e3f8b2d6a0c4e9f1b3d5a7c9e2f4b6d8a0\n",
    "/* AES-128 test vector from the standard, auth tag check */\n",
    'createUser monitor SHA "${SNMP_AUTH}" AES "${SNMP_PRIV}"\n',
])
def test_hashes_tests_and_templates_after_protocol_names_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a community string under its name


@pytest.mark.parametrize(("text", "values"), [
    ("snmp:\n  v2c:\n    read_community: fjord-ro-82kq\n    write_community: fjord-rw-Z4tp\n",
     ["fjord-ro-82kq", "fjord-rw-Z4tp"]),
    ("core-sw2 10.8.0.3  community ro: mill-watch-ro   rw: Gr4nary!Sw2\n",
     ["mill-watch-ro", "Gr4nary!Sw2"]),
])
def test_community_strings_under_their_names_are_found(text: str, values: list[str]) -> None:
    assert agreed_texts(text) == values


@pytest.mark.parametrize("text", [
    "The read-only community is kept in Vault (key `ro_community`).\n",
    "snmp_community: public\n",
    "community: Developers\n",
    "community_url: https://forum.example.org/c/help\n",
    "read_community: ${SNMP_RO_COMMUNITY}\n",
    "var cfg = new HarbourCommunityConfig(name);\n",
])
def test_community_lookalikes_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- `user:password` lines


@pytest.mark.parametrize(("text", "values"), [
    ("# plain list, hash before deploying\n"
     "kiln-sensor-4:Wq7Rz2Lp9Xv3Nb8T\ndock-cam-2:Hm5Jt8Ks1Df4Gy6Q\n",
     ["Wq7Rz2Lp9Xv3Nb8T", "Hm5Jt8Ks1Df4Gy6Q"]),
    ("opsadmin:Harbour&Lamp1984:Admin\n", ["Harbour&Lamp1984"]),
])
def test_user_password_lines_are_found(text: str, values: list[str]) -> None:
    assert agreed_texts(text) == values


@pytest.mark.parametrize("text", [
    "nginx:1.25.3-alpine\n",
    "localhost:8080\n",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n",
    "module:ClassName\n",
    "created:2024-11-05T10:22:31Z\n",
    "admin:password123\n",
    "fastcodec:arm64-Uwp=fail\n",
])
def test_name_colon_value_lookalikes_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- grouped licence keys in a list or table that names them


@pytest.mark.parametrize(("text", "values"), [
    ("# Tools\n\n| Tool | Seats | Licence | Until |\n|---|---|---|---|\n"
     "| Survey CAD | 2 | `K7Q2-M4XT-9PLR-W3ZN-B8VD` | 2028 |\n"
     "| Plotter RIP | 1 | `RP5-20418-FJRD-4KX9T-QW2M` | - |\n",
     ["K7Q2-M4XT-9PLR-W3ZN-B8VD", "RP5-20418-FJRD-4KX9T-QW2M"]),
    ("## Software keys\n\n- Scanner suite: `SCN-4H8Q-2XW7-KM3P-9TRB`\n"
     "- Viewer (site): `T4QW9-8MKX2-P7RN3-VZ5HB-C6JLD`\n",
     ["SCN-4H8Q-2XW7-KM3P-9TRB", "T4QW9-8MKX2-P7RN3-VZ5HB-C6JLD"]),
])
def test_grouped_keys_a_list_or_table_names_are_found(text: str, values: list[str]) -> None:
    assert agreed_texts(text) == values


@pytest.mark.parametrize("text", [
    "| Order | Ref |\n|---|---|\n| key order | `PO-2026-11-0048812-AX` |\n",
    "cipher suite key exchange: ECDHE-RSA-AES256-GCM-SHA384 is preferred\n",
    "Licence serial V150-2049-21873 (turbine nameplate)\n",
    "keys: 0f8e6d4c-2b1a-4987-a6b5-c4d3e2f1a0b9\n",
])
def test_grouped_lookalikes_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []
