"""Round 33's cause, seen in the misses of four tune sets (secrets33's first commit counts them),
with values invented here: a password named in prose and said later than right after its name;
and the guards that keep lookalikes of it out."""

from __future__ import annotations

import pytest

from tests.secret_helpers import agreed_texts

# --- a password said later than its name's slot: a second one, the next line, the next field


@pytest.mark.parametrize(("text", "value"), [
    ("Morning, my password is Harbour7Lights? and the VPN rejects it. Before that I used "
     "Lantern-Quay-4417 for a year.\n", "Lantern-Quay-4417"),
    ("- the kiosk password was wiped by the firmware update,\n"
     "  we put it back to `Saltmarsh_Reed82` until Friday\n", "Saltmarsh_Reed82"),
    ("<Item><Name>Password</Name><Data>Copper-Kettle-9031</Data></Item>\n",
     "Copper-Kettle-9031"),
    ("Passphrase rotated on the depot router; new one below\nOrchard!Gate2025x\n",
     "Orchard!Gate2025x"),
])
def test_a_password_said_after_its_slot_is_found(text: str, value: str) -> None:
    assert value in agreed_texts(text)


@pytest.mark.parametrize("text", [
    # a site's, a host's, a file's and a version's names near the word
    "Reset the password on Booster-03 and North-Pump-7 today.\n",
    "The password policy moved to docs/Security-Policy-v2.md last week.\n",
    "Password resets go through helpdesk@Example-Corp2024.org now.\n",
    "Password manager upgraded to KeeVault-Desktop-2.4.1 on all laptops.\n",
    # no digit, or no capital, or too short: words, a ticket, a slug
    "The password for the Staff-Wifi-Network is on the fridge.\n",
    "Password rotation tracked in ops-ticket-48213-rotate.\n",
    "Password reset for Dock-Ab12 was done.\n",
    # on the line after a blank one: another paragraph
    "Ask IT for the password.\n\nRelease-Train-2025Q3 ships on Monday.\n",
    # a placeholder
    "password: <PASSWORD>, then YOUR-Password-Here1 in the form\n",
])
def test_names_near_the_word_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []
