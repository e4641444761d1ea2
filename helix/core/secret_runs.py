"""Credentials written as runs of values where no `name = value` says so, by their format and
place:

- recovery codes: the lines under a line naming backup or recovery codes (or an
  authenticator's seed) that hold nothing but codes, groups of letters and digits
  (`5HQ3-W8KT   Z2RM-7VPA`, `3318 0472   9946 2751`, a seed in groups of four, a seed whole),
  up to NOTES lines of prose between (`Keep these somewhere safe.`: then a digit in each group);
  a seed after a colon on its heading's own line (`MFA TOTP seed: `X``);
- an SNMPv3 user's passphrases: the value after an auth or privacy protocol's name on a line
  that creates or describes such a user (`createUser u SHA "X" AES "Y"`, `auth SHA: X priv AES:
  Y`, `auth sha X priv aes 128 Y`);
- an SNMP community string under a name that is a community's (`read_community: X`,
  `snmp_community = "X"`, `community ro: X  rw: Y`, `community_rw: X`): SNMP v1/v2c's
  password (an identifier's shape only with a digit and both cases: `rwPumpMon7`); and on a
  device's trap host line (`snmp-server host A version 2c X`);
- `user:password` lines: a line that is one login and its password, maybe a group after
  (`sensor-12:R4tq8Lw2Zp0mXc1V`, `opsadmin:Harbour&Lamp1984:Admin`), the password with
  letters and digits and a password's mix of cases or symbols;
- an app-specific password (`abcd-efgh-ijkl-mnop`, a group without a vowel) on a line naming a
  password or after a `-p` flag.

- a PIN's, a PUK's or a keypad's code after its name (`secret_codes`: `sim_pin = 6174`,
  `door code: 8153#`).

    run_findings(text) -> [(start, end, kind)]   (and `secret_linked`'s, `secret_passed`'s)

The prefilter wakes these by RUN_TRIGGERS (the codes' heading line: the codes lie within
CODES_BELOW lines of it, a note or two between; the protocol's line; the login's line).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from helix.core.english import word_alternation
from helix.core.secret_codes import CODE_TRIGGERS, code_values
from helix.core.secret_gates import hinted, looks_password
from helix.core.secret_items import ITEM_TRIGGER, item_values
from helix.core.secret_linked import linked_findings
from helix.core.secret_passed import PASSED_TRIGGER, passed_findings
from helix.core.secret_structure import Found, quoted_ok
from helix.core.secret_values import placeholder

__all__ = ["CODES_BELOW", "RUN_TRIGGERS", "run_findings", "runs_below"]

# --- recovery codes under their heading
# (no `\b` in a trigger: each one adds a word-boundary flag to the set's DFA states)
_CODE_KINDS = word_alternation(("recovery", "backup", "scratch", "emergency", "2fa", "mfa",
                                 "otp")) + r"|one[- ]time"
_SEED_OWNERS = word_alternation(("authenticator", "totp", "2fa", "mfa", "otp"))
_SEED_WORDS = word_alternation(("seed", "secret"))
_CODES_HEADING = (rf"(?i)(?:{_CODE_KINDS})[ \t]+code"
                  rf"|(?:{_SEED_OWNERS})[ \t]+(?:{_SEED_WORDS})")
_HEADING = re.compile(rf"(?i)(?:{_CODE_KINDS})[ \t]+"
                      rf"codes?\b|(?:{_SEED_OWNERS})[ \t]+(?:{_SEED_WORDS})\b")
_HEADING_HINT = re.compile(r"[Cc]ode|[Ss]eed|[Ss]ecret|CODE|SEED|SECRET")
_HEADING_WORDS = ("recovery", "backup", "scratch", "emergency", "one-time", "one time", "2fa",
                  "mfa", "otp", "authenticator")  # one in each heading (lower case)
# a code: groups of three to eight letters and digits joined by one dash or one space; codes
# on a line set apart by two blanks or more, a tab, a comma; a list's bullet before them
_CODE = r"`?[A-Za-z0-9]{3,8}(?:[- ][A-Za-z0-9]{3,8}){0,7}`?"
_CODE_LINE = re.compile(rf"[ \t]*(?:[-*+][ \t]+|[0-9]{{1,2}}[.)][ \t]+)?({_CODE}"
                        rf"(?:(?:[ \t]{{2,}}|\t|[ \t]*,[ \t]*){_CODE})*)[ \t]*,?[ \t]*\r?")
_ONE_CODE = re.compile(_CODE)
_SEED = re.compile(r"[A-Z2-7]{16,}")  # base32, an authenticator's seed (its groups joined)
# a seed alone on a line below the heading, or on the heading's line after a colon (whole or
# in groups of four: `TOTP secret (app): ABCD EFGH ...`, `- MFA TOTP seed: `X``); the colon
# within 200 characters (read from each heading, an unbounded run was quadratic on a long line)
_SEED_LINE = re.compile(r"[ \t]*(?:[-*+][ \t]+)?`?([A-Z2-7]{16,128})`?[ \t]*\r?")
_SAID_SEED = re.compile(r"[^\n:]{0,200}:[ \t]+`?"
                        r"([A-Z2-7]{16,128}|[A-Z2-7]{4}(?: [A-Z2-7]{4}){3,31})`?"
                        r"[ \t]*\r?(?:\n|$)")
MIN_CODE = 6  # characters of a code, its separators not counted
# lines read below a codes' heading: a note or two (`Keep these somewhere safe.`, `(generated
# 2024-03-02)`), a blank, then up to ten lines of codes (the prefilter's window reaches as far)
CODES_BELOW = 14
NOTES = 2  # lines that are no codes read past before the first codes


def runs_below(lowered: str) -> bool:
    """The line (in lower case) names recovery codes or a seed: the codes lie below it."""
    return (("code" in lowered or "seed" in lowered or "secret" in lowered)
            and any(word in lowered for word in _HEADING_WORDS)
            and _HEADING.search(lowered) is not None)


def _code(value: str) -> bool:
    chars = value.replace("-", "").replace(" ", "")
    if len(chars) < MIN_CODE or len(set(chars)) < 4 or placeholder(chars):
        return False
    return (any(c.isdigit() for c in chars) and (
        any(c.isalpha() for c in chars) or len(chars) >= 8 or " " in value or "-" in value
    )) or _SEED.fullmatch(chars) is not None


def _digits_each(value: str) -> bool:
    return all(any(c.isdigit() for c in group) for group in re.split(r"[- ]", value))


def _code_lines(text: str, at: int) -> Iterator[Found]:
    """The codes on the lines after `at` (the heading's end) up to the first other line; up to
    NOTES lines of prose (no code's shape: words, punctuation) before the first codes."""
    start = text.find("\n", at) + 1
    seen, notes = False, 0
    for _ in range(CODES_BELOW):
        if start == 0 or start >= len(text):
            return
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        if not text[start:end].strip():
            if seen:
                return
            start = end + 1
            continue
        line = _CODE_LINE.fullmatch(text, start, end)
        if line is None:
            seed = _SEED_LINE.fullmatch(text, start, end)
            if seed is None or not _code(seed.group(1)):
                notes += 1
                if seen or notes > NOTES:
                    return
                start = end + 1
                continue
            yield Found(seed.start(1), seed.end(1), "recovery_code")
            seen, start = True, end + 1
            continue
        codes = [m for m in _ONE_CODE.finditer(text, line.start(1), line.end(1))]
        values = [(m.start() + (text[m.start()] == "`"),
                   m.end() - (text[m.end() - 1] == "`")) for m in codes]
        if not all(_code(text[s:e]) and (not notes or _digits_each(text[s:e]))
                   for s, e in values):
            return  # (after a note, a digit in each group: `See ticket OPS 4411` is prose)
        seen = True
        yield from (Found(s, e, "recovery_code") for s, e in values)
        start = end + 1


def _recovery_codes(text: str) -> Iterator[Found]:
    for match in hinted(_HEADING, _HEADING_HINT, text):
        said = _SAID_SEED.match(text, match.end())
        if said is not None and _code(said.group(1)):
            yield Found(said.start(1), said.end(1), "recovery_code")
            continue
        yield from _code_lines(text, match.end())


# --- an SNMPv3 user's auth and privacy passphrases after their protocols' names
_USER_LINE = (r"(?i)createuser|(?:auth|priv)[ \t]+(?:"
              + word_alternation(("md5", "sha", "aes", "3des", "des")) + ")")
_USER = re.compile(_USER_LINE)
_PROTOCOL_WORDS = (" sha", " md5", " aes", " des", "\tsha", "\tmd5", "\taes", "\tdes")
_PROTOCOL_VALUE = re.compile(
    r"(?i)(?<![\w\-])(?:md5|sha(?:-?(?:1|224|256|384|512))?|aes(?:-?(?:128|192|256))?|3?des)"
    r"[ \t]*:?[ \t]+(?:(?:128|192|256)[ \t]+)?([\"']?)([^\s\"']{6,256})\1(?=[ \t]|\r?$)", re.M)
_HEX = re.compile(r"(?:0x)?[0-9a-fA-F]+")


def _protocol_passphrases(text: str) -> Iterator[Found]:
    for match in _USER.finditer(text):
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        end = len(text) if end == -1 else end
        for value in _PROTOCOL_VALUE.finditer(text, start, end):
            secret = value.group(2)
            if (_HEX.fullmatch(secret) is None and looks_password(secret)
                    and not placeholder(secret, bool(value.group(1)))):
                yield Found(value.start(2), value.end(2), "assignment")


# --- `user:password` lines (no `=` in the password: `port:x64-uwp=fail` is a build's setting)
_LOGIN_LINE = r"(?m)^[ \t]*[A-Za-z][\w.@\-]*:[^\s:/\"'`=]+(?::[\w\-]+)?[ \t]*\r?$"
_LOGIN = re.compile(r"^[ \t]*([A-Za-z][\w.@\-]{1,63}):([^\s:/\"'`=]{6,128})(?::[\w\-]{1,32})?"
                    r"[ \t]*\r?$", re.M)
_LOGIN_HINT = re.compile(r":[^\s:/\"'`=]{6}")  # (a literal first: the search skips to it)
_SYMBOLS = frozenset("!@#$%^&*+=?~")
_SCHEMES = frozenset({"http", "https", "data", "mailto", "file", "urn", "tel", "git", "ssh",
                      "md5", "sha1", "sha256", "sha512", "base64", "hex"})


def _login_password(user: str, value: str) -> bool:
    """Letters and digits, both cases or a password's symbol; not a word, hex, a number."""
    if (user.lower() in _SCHEMES or value == user or _HEX.fullmatch(value) is not None
            or not any(c.isdigit() for c in value) or not any(c.isalpha() for c in value)):
        return False
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return ((mixed or bool(_SYMBOLS.intersection(value))) and looks_password(value)
            and not placeholder(value))


def _logins(text: str) -> Iterator[Found]:
    for match in hinted(_LOGIN, _LOGIN_HINT, text):
        if _login_password(match.group(1), match.group(2)):
            yield Found(match.start(2), match.end(2), "assignment")


# --- a community string under its name, and the access levels' values after it on the line
_COMMUNITY_LINE = (r"(?i)community[\w.\-]*[\"']?[ \t]*(?:(?:ro|rw|read|write)[ \t]*)?[:=][ \t]*"
                   r"[\"']?[^\s\"'(\[=]{6,}(?:[\s\"',;]|$)")
_ACCESS = word_alternation(("ro", "rw", "read", "write"))
_NAME_WORDS = word_alternation(("string", "name", "str"))
_COMMUNITY_HINT = re.compile(r"[Cc]ommunity|COMMUNITY")
_COMMUNITY = re.compile(
    rf"(?i)(?<![\w.\-])(?:snmp[_.\-]?)?(?:(?:{_ACCESS}|read[_\-]?only|read[_\-]?write|"
    rf"trap)[_.\-]?)?community(?:[_.\-]?(?:{_NAME_WORDS}))?(?:[ \t_.\-]+(?:{_ACCESS}))?"
    r"[\"']?[ \t]*[:=][ \t]*([\"']?)([^\s\"',;]{6,128})\1(?=[\s,;]|$)")
_ACCESS_VALUE = re.compile(r"(?i)(?<![\w.\-])(?:ro|rw|read|write)[ \t]*:[ \t]*([^\s\"',;]{6,128})"
                           r"(?=[\s,;]|$)")
_DEFAULT_COMMUNITIES = frozenset({"public", "private"})
_CODE_NAME = re.compile(r"[A-Za-z_][\w.]*")  # an identifier, an attribute: code, no value


def _community_value(value: str) -> bool:
    """Not a default, a word, a reference (a path, a URL) or a stand-in; an identifier's
    shape only with a digit and both cases in it (`rwPumpMon7`, not `community_name`)."""
    return (value.lower() not in _DEFAULT_COMMUNITIES
            and (_CODE_NAME.fullmatch(value) is None or _mixed_with_digit(value))
            and not any(c in value for c in "/()[]") and not placeholder(value))


def _mixed_with_digit(value: str) -> bool:
    return ("." not in value and any(c.isdigit() for c in value) and not value.islower()
            and not value.isupper() and looks_password(value))


def _communities(text: str) -> Iterator[Found]:
    for match in hinted(_COMMUNITY, _COMMUNITY_HINT, text):
        if _community_value(match.group(2)):
            yield Found(match.start(2), match.end(2), "assignment")
        end = text.find("\n", match.end())
        for value in _ACCESS_VALUE.finditer(text, match.end(), len(text) if end == -1 else end):
            if _community_value(value.group(1)):
                yield Found(value.start(1), value.end(1), "assignment")


# a community again on a device's trap host line, v1's or v2c's (`snmp-server host A version 2c
# C`), when its community line named it too or it holds a digit
_HOST_LINE = r"snmp-server[ \t]+host[ \t]"
_HOST = re.compile(r"(?m)^[ \t]*snmp-server[ \t]+host[ \t]+\S+(?:[ \t]+(?:traps|informs))?"
                   r"(?:[ \t]+version[ \t]+(?:1|2c))?[ \t]+([^\s\"']{4,128})(?=[ \t]|\r?$)")
_HOST_WORDS = frozenset({"version", "traps", "informs", "vrf"})
# the word after `community` anywhere in the text (read once, not once per host line)
_NAMED_COMMUNITY = re.compile(r"(?i)community(?=[ \t]+(\S+))")


def _host_communities(text: str) -> Iterator[Found]:
    named: set[str] | None = None
    for match in _HOST.finditer(text):
        value = match.group(1)
        if (value.lower() in _DEFAULT_COMMUNITIES or value.lower() in _HOST_WORDS
                or placeholder(value)):
            continue
        if named is None:
            named = {m.group(1).lower() for m in _NAMED_COMMUNITY.finditer(text)}
        if value.lower() in named or (any(c.isdigit() for c in value) and looks_password(value)):
            yield Found(match.start(1), match.end(1), "assignment")


# --- an app-specific password's format (four groups of four lower-case letters, `abcd-efgh-
# ijkl-mnop`: Apple's, a mail client's) on a line naming a password or passing one with `-p`;
# a group without a vowel (a slug's words, `make-sure-your-code`, all have one)
# (a password's word wakes its line already: KEYWORDS; the trigger is the `-p` flag's)
_APP_LINE = r"-p[ \t]+[\"']?[a-z]{4}-[a-z]{4}-[a-z]{4}-[a-z]{4}"
_APP_PASSWORD = re.compile(r"(?<![\w\-])[a-z]{4}(?:-[a-z]{4}){3}(?![\w\-])")
_APP_PLACE = re.compile(r"(?i)pass|\bpw|pwd|(?:^|\s)-p[ \t]", re.M)
_VOWELS = frozenset("aeiouy")


def _app_passwords(text: str) -> Iterator[Found]:
    for match in _APP_PASSWORD.finditer(text):
        if all(_VOWELS.intersection(group) for group in match.group().split("-")):
            continue
        if _APP_PLACE.search(text, text.rfind("\n", 0, match.start()) + 1, match.start()):
            yield Found(match.start(), match.end(), "assignment")


# --- inline code after a secret's word in a sentence (`pass `kst-Dcc-P12-4421``, `the signing
# secret in prod is `X``, `new key deployed: `X` (was `Y`)`): the word within SAID_REACH
# characters before the backticks, the value a key's (20 letters and digits or more) or, after
# a password's word, a password's (digits, letters of both cases or a symbol); no path, call,
# template, name or setting (`key combination `Ctrl-Alt-F12``: a key's word, no key's run)
# (a secret's word then the backticks as one trigger, and the app password's bare format, grew
# the trigger sets' DFA: the scan's cost +10.9% by cachegrind. The backticked value with two
# digits wakes its line, KEYWORDS the lines with a password's word)
_SAID_LINE = r"`[A-Za-z0-9_\-]*[0-9][A-Za-z0-9_\-]*[0-9][A-Za-z0-9_\-]*`"
_SAID_WORDS = ("password", "passwd", "passphrase", "passcode", "pass", "pwd", "pw", "secret",
               "credential", "key", "token")  # (a key's and a token's: a key's run only)
_SAID_NAME = re.compile(r"(?i)(?<![a-z])(?:" + word_alternation(_SAID_WORDS) + r")s?(?![a-z])")
_SAID_VALUE = re.compile(r"`([^\s`]{8,128})`")
_SAID_NOT = frozenset("/.()=<>${}[]\\,;:'\"")
# (a vendor's prefix, then 20 or more: a cloud resource's id, `vol-` and 17 hex, is none)
_SAID_KEY = re.compile(r"(?:[A-Za-z]{2,8}[_\-])?([A-Za-z0-9]{20,128})")
SAID_REACH = 80


def _said_value(value: str, password: bool) -> bool:
    """A key's run (any secret's word) or, after a password's word, a password's mix."""
    if (_SAID_NOT.intersection(value) or sum(c.isdigit() for c in value) < 2
            or sum(c.isalpha() for c in value) < 2 or placeholder(value, True)
            or not looks_password(value)):
        return False
    key = _SAID_KEY.fullmatch(value)  # (a key: a long run of letters and digits, both)
    if (key is not None and sum(c.isdigit() for c in key.group(1)) >= 4
            and sum(c.isalpha() for c in key.group(1)) >= 4 and quoted_ok(value, "keyed")):
        return True  # (`quoted_ok`: no counting run, `000102..0E0F`, a test vector's)
    mixed = not value.islower() and not value.isupper()
    symbol = any(not c.isalnum() and c not in "-_" for c in value)
    return password and (symbol or mixed) and not value.isidentifier()


def _said_values(text: str) -> Iterator[Found]:
    for match in _SAID_VALUE.finditer(text):
        start = max(text.rfind("\n", 0, match.start()) + 1, match.start() - SAID_REACH)
        names = [m.group().lower() for m in _SAID_NAME.finditer(text, start, match.start())]
        password = any(not name.startswith(("key", "token")) for name in names)
        if names and _said_value(match.group(1), password):
            yield Found(match.start(1), match.end(1), "keyword")


RUN_TRIGGERS = (_CODES_HEADING, _USER_LINE, _LOGIN_LINE, _COMMUNITY_LINE, _APP_LINE, _SAID_LINE,
                _HOST_LINE, PASSED_TRIGGER, ITEM_TRIGGER, *CODE_TRIGGERS)


def run_findings(text: str, lowered: str) -> list[Found]:
    """(`lowered`: the text in lower case; each rule read only where its words are)"""
    found: list[Found] = []
    if any(word in lowered for word in _HEADING_WORDS):
        found += _recovery_codes(text)
    if "createuser" in lowered or (("auth" in lowered or "priv" in lowered)
                                   and any(word in lowered for word in _PROTOCOL_WORDS)):
        found += _protocol_passphrases(text)
    if ":" in text:
        found += _logins(text)
    if "community" in lowered:
        found += _communities(text)
    if "-p" in text or "pw" in lowered or "pass" in lowered:
        found += _app_passwords(text)
    if "`" in text:
        found += _said_values(text)
        found += item_values(text, lowered)  # (a list item's backticked password: secret_items)
    if "snmp-server" in lowered:
        found += _host_communities(text)
    found += code_values(text, lowered)  # (a PIN's, a PUK's, a keypad's digits: secret_codes)
    return found + linked_findings(text, lowered) + passed_findings(text)
