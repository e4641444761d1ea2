"""Secrets in a network device's config and a terminal's transcript, where no `name = value`
names them:

- a RADIUS or TACACS+ server's shared key (`radius-server key X`, `tacacs-server host h key
  X`, the `key X` line of a `radius server NAME` block, below its address and ports);
- a key file printed in a transcript (`$ cat config/master.key`, `cat ~/.vault_pass`): the
  line below is the file's content, a secret when the file's name says so and it reads as an
  issued key;
- an IPsec gateway's secrets file (strongSwan's and Libreswan's `ipsec.secrets`): after the
  peers' IDs and a colon, the secret's type, then the secret (`<ids> : PSK "X"`, `user : EAP
  "X"`, `: XAUTH X`), or a private key's file, then its passphrase (`: RSA key.pem "X"`).

    server_keys(text), printed_keys(text), ipsec_secrets(text) -> [(start, end, kind)]
    reads_below(line) -> lines below a trigger line these rules read (the prefilter's window)
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from helix.core.english import word_alternation
from helix.core.secret_gates import CONTEXT_AFTER, MIN_PASSWORD_LEN, looks_password
from helix.core.secret_names import name_strength
from helix.core.secret_structure import Found, placeholder, random_token

__all__ = ["IPSEC_TRIGGER", "ipsec_secrets", "printed_keys", "reads_below", "server_keys"]

_PROTOCOLS = ("radius", "tacacs")
_SERVER_KEY = re.compile(
    r"(?m)^[ \t]*(?:" + word_alternation(_PROTOCOLS) + r")"
    r"(?:-server[ \t]+(?:host[ \t]+\S+(?:[ \t]+(?!key\b)\S+){0,8}[ \t]+)?|"
    r"[ \t]+server[ \t]+\S+[ \t]*\r?\n(?:[ \t]+(?!key\b)\S[^\n]{0,200}\n){0,6}[ \t]+)"
    r"key[ \t]+(?:[0-7][ \t]+)?(\S+)[ \t]*\r?$")
_SERVER_BLOCKS = ("radius server", "tacacs server")
# `cat` first (a literal the search skips to), the prompt before it checked on its line
_CAT_KEY = re.compile(r"cat[ \t]+([^\s|<>;&]{1,200})[ \t]*\r?\n[ \t]*([A-Za-z0-9+/=_\-.~]{16,4096})"
                      r"[ \t]*\r?$", re.M)
_PROMPT = re.compile(r"[ \t]*(?:[$#>%][ \t]*)?(?:sudo[ \t]+)?")  # before `cat` on its line
# a key file's name: the words the prefilter's KEYWORDS wake the line on
_FILE_WORDS = ("secret", "token", "cred")
_PASS_ENDINGS = ("w", "phrase", "code")
_KEY_FILE = re.compile(r"(?i)[a-z0-9][_.\-]?keys?\b|pw\b|" + word_alternation(_FILE_WORDS)
                       + r"|pass(?:" + word_alternation(_PASS_ENDINGS) + r"|[_\-:.])"
                       + r"|[a-z0-9_.\-]pass\b")
_TEXT_SUFFIXES = (".txt", ".secret", ".conf")


def server_keys(text: str) -> Iterator[Found]:
    for match in _SERVER_KEY.finditer(text):
        value = match.group(1)
        if len(value) >= MIN_PASSWORD_LEN and not placeholder(value):
            yield Found(match.start(1), match.end(1), "assignment")


def _cat_at(line: str) -> bool:
    """The line prints a file (`$ cat <file>`)."""
    at = line.find("cat ")
    return at != -1 and _PROMPT.fullmatch(line, 0, at) is not None


def reads_below(line: str) -> int:
    """Lines below a trigger line (one that opens no value and names no pair) a rule here
    reads: a RADIUS or TACACS+ server's block (its key), a key file printed (its content)."""
    if "server" in line and line.lstrip().startswith(_SERVER_BLOCKS):
        return CONTEXT_AFTER
    return 1 if "cat " in line and _cat_at(line) else 0


def printed_keys(text: str) -> Iterator[Found]:
    for match in _CAT_KEY.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        base = match.group(1).rstrip("/").rsplit("/", 1)[-1]
        if (_PROMPT.fullmatch(text, line_start, match.start()) is None
                or _KEY_FILE.search(base) is None):
            continue
        base = base.lstrip(".")
        stem = base.rsplit(".", 1)[0] if base.endswith(_TEXT_SUFFIXES) else base
        value = match.group(2)
        if name_strength(stem) is not None and random_token(value) and not placeholder(value):
            yield Found(match.start(2), match.end(2), "assignment")


_SECRET_TYPES = ("PSK", "EAP", "XAUTH", "NTLM")  # the secret itself follows
_KEY_TYPES = ("RSA", "ECDSA", "P12", "PKCS8", "BLISS")  # a key's file, then its passphrase
IPSEC_TRIGGER = r":[ \t]+(?:" + "|".join(_SECRET_TYPES + _KEY_TYPES) + r")[ \t]"
_IPSEC_SECRET = re.compile(
    r":[ \t]+(?:(?:" + "|".join(_SECRET_TYPES) + r")|(?:" + "|".join(_KEY_TYPES)
    + r")[ \t]+[^\s\"']+)[ \t]+(?:\"([^\"\n]{1,4096})\"|'([^'\n]{1,4096})'|([^\s\"'#%]\S{0,4095}))")


def ipsec_secrets(text: str) -> Iterator[Found]:
    for match in _IPSEC_SECRET.finditer(text):
        if match.start() > 0 and text[match.start() - 1] not in " \t\n":
            continue  # the colon of a word (`host:PSK ...`), not the file's separator
        group = next(g for g in (1, 2, 3) if match.group(g) is not None)
        value = match.group(group)
        line_end = text.find("\n", match.end())
        rest = text[match.end():None if line_end == -1 else line_end].strip()
        if group == 3 and (not looks_password(value) or rest[:1] not in ("", "#")):
            continue  # unquoted: one word to the line's end, not a word (`: PSK required`)
        if len(value) >= MIN_PASSWORD_LEN and not placeholder(value, quoted=group < 3):
            yield Found(match.start(group), match.end(group), "assignment")
