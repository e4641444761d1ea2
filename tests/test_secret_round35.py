"""Round 35's causes, with values invented here: a password set apart in backticks at the end
of a list item naming a login (after an arrow, as a backticked pair's second, after `pass`);
and the guards that keep names, identifiers and user names in such items unmasked."""

from __future__ import annotations

import pytest

from tests.secret_helpers import agreed_texts

# --- a list item's backticked password (secret_items)


@pytest.mark.parametrize(("text", "value"), [
    ("Rotated after the audit:\n\n* office firewall admin -> new pw `Kl0ster!Bay#22`\n"
     "* storage box (QNAP) admin -> `wPx7Rtq3`\n* label printer -> unchanged\n", "wPx7Rtq3"),
    ("Switch notes:\n- SSH to the switches uses device auth: `tech` / `Sw-Mgmt7-Key-9Z`\n",
     "Sw-Mgmt7-Key-9Z"),
    ("- supplier portal: user `depot.south`, pass `Harbour-Crane-Lift4`\n",
     "Harbour-Crane-Lift4"),
    ("1. kiosk root => `Tq4-Mossy-Fern`.\n", "Tq4-Mossy-Fern"),
    ("- cameras: user `viewer`, PASS `Lq8-Otter-Reef`\n", "Lq8-Otter-Reef"),
])
def test_a_list_items_backticked_password_is_found(text: str, value: str) -> None:
    assert value in agreed_texts(text)


@pytest.mark.parametrize("text", [
    "- admin -> `getUser2Name`\n",              # an identifier of words
    "- admin -> `AdminPanel2`\n",
    "- user: `fleetAdmin2`\n",                  # a user's name, no link to a password
    "- login -> `MY_CONST_NAME2`\n",            # a constant's name
    "- admin -> `docs/admin2.md`\n",            # a path
    "- build -> `Release2Fast`\n",              # no login's word
    "Set admin -> `wPx7Rtq3` in prose\n",       # no list item, not the line's end
    "- admin -> `--verbose2x`\n",               # a flag
    "- portal: user `ops`, pass is `Harbour-Crane-Lift4`\n",   # `pass` linked by `is`
    "- admin ->   `wPx7Rtq3`\n",                # (the arrow's one space only)
])
def test_a_list_items_name_or_identifier_is_no_password(text: str) -> None:
    assert agreed_texts(text) == []
