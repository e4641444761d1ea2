"""Secrets handed to code by position, where no name says what they are:

- a literal passed to a call that builds or opens an authenticated client (`DeepgramClient("...")`,
  `Mailgun::Client.new('...')`, `messagebird.New("...")`, `TwilioClient.Init(sid, "...")`,
  `get_factory('...')`, `ethers.Wallet("0x...")`, `conn.Bind(dn, "...")`, `new PDO(dsn, user,
  '...')`, `SecretValue.unsafePlainText("...")`): the callee's words say so (a vocabulary, as
  data), the literal must read as an issued key (`secret_values.random_token`);
- a command line logging a tool in (`snyk auth <token>`, `b2 account authorize <id> <key>`):
  the values after the verb that read as issued keys.

    call_findings(text) -> [(start, end, kind)]
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from helix.core.secret_gates import MIN_KEYED_VALUE
from helix.core.secret_names import name_strength, segments
from helix.core.secret_structure import Found, placeholder, random_token

__all__ = ["CALL_TRIGGER", "call_findings"]

# The words of a callee that opens or builds an authenticated client (one segment of its last
# name: DeepgramClient, APISession, get_factory, Wallet, Bind), or a qualified constructor
# (`Client.new`, `TwilioClient.Init`, Go's `messagebird.New`: a package's)
CALL_WORDS = frozenset({"client", "session", "wallet", "signer", "bind", "factory", "pdo",
                        "connect", "authenticate", "authorize", "plaintext", "authenticator"})
_STEPS = frozenset({"new", "init", "initialize", "create"})
# The prefilter's trigger (RE2): a callee word right before its parenthesis, a quote after it
CALL_TRIGGER = (r"(?:[Cc]lient|[Ss]ession|[Ww]allet|[Ss]igner|[Bb]ind|[Ff]actory|PDO|"
                r"[Cc]onnect|[Aa]uthenticat(?:e|or)|[Aa]uthorize|PlainText|[Nn]ew|[Ii]nit|"
                r"[Ii]nitialize|[Cc]reate)[ \t]*\([^\n]*[\"']")
_CALL_WORD = re.compile(CALL_TRIGGER.removesuffix(r"[^\n]*[\"']"))  # where a callee can end
_CALLEE = re.compile(r"(?<![\w$])((?:[A-Za-z_$][\w$]*(?:\.|::|->))*[A-Za-z_$][\w$]*)[ \t]*\($")
_MAX_CALLEE = 200  # characters of a callee read back from its parenthesis
# a literal as long as an issued key and of its characters (`random_token` reads it)
_TOKEN_LITERAL = re.compile(r"([\"'`])([A-Za-z0-9_\-+/=.~%]{" + str(MIN_KEYED_VALUE)
                            + r",4096})\1")
_MAX_ARGUMENTS = 400  # characters of a call's arguments read
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$@")
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$@")
_ARGUMENT = re.compile(r"[$@]?([A-Za-z_]\w*(?:(?:\.|->|::)[A-Za-z_]\w*)*)")
_LOGIN_COMMAND = re.compile(
    r"^[ \t]*(?:[-$>][ \t]+)?(?:run:[ \t]+)?[\w.\-]{1,40}(?:[ \t]+[\w.\-]{1,40})?[ \t]+"
    r"(?:auth|authorize|authenticate|login)[ \t]+([^\s\"'`\-][^\s\"'`]{0,4095})"
    r"(?:[ \t]+([^\s\"'`\-][^\s\"'`]{0,4095}))?[ \t]*\r?$", re.M)


def _opens_client(callee: str) -> bool:
    names = re.split(r"\.|::|->", callee)
    last = segments(names[-1])
    if not last:
        return False
    if "".join(last[-2:]) in CALL_WORDS or last[-1] in CALL_WORDS:
        return True
    return "".join(last) in _STEPS and len(names) > 1  # a package's or a class's constructor


def _literals(text: str, at: int) -> Iterator[tuple[int, int]]:
    """The string literals among a call's own arguments (not a nested call's), from just past
    its parenthesis to its close or the line's end."""
    depth = 1
    end = min(len(text), at + _MAX_ARGUMENTS)
    while at < end:
        char = text[at]
        if char == "\n":
            return
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return
        elif char in "\"'`":
            close = text.find(char, at + 1, end)
            if close == -1:
                return
            if depth == 1:
                yield at + 1, close
            at = close
        at += 1


def _named_argument(text: str, at: int) -> bool:
    """A variable named as a secret (`$client_secret`, `apiPassword`, `self.secret`) stands
    among the own arguments of the call whose parenthesis closes before `at`."""
    depth = 1
    end = min(len(text), at + _MAX_ARGUMENTS)
    while at < end:
        char = text[at]
        if char == "\n":
            return False
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return False
        elif char in "\"'`":
            close = text.find(char, at + 1, end)
            if close == -1:
                return False
            at = close
        elif depth == 1 and char in _NAME_START and text[at - 1] not in _NAME_CHARS:
            name = _ARGUMENT.match(text, at, end)
            if name is not None:
                if name_strength(re.split(r"\.|->|::", name.group(1))[-1]) == "strong":
                    return True
                at = name.end() - 1
        at += 1
    return False


def _calls(text: str) -> Iterator[Found]:
    """Each literal long enough to be an issued key, when a call before it on its line opens a
    client, or has an argument named as a secret beside it, and holds it among its own
    arguments (`new Vimeo($client_id, $client_secret, '<token>')`)."""
    for literal in _TOKEN_LITERAL.finditer(text):
        start, end = literal.span(2)
        value = literal.group(2)
        if not random_token(value) or placeholder(value, quoted=True):
            continue
        line_start = text.rfind("\n", 0, start) + 1
        for word in _CALL_WORD.finditer(text, line_start, start):
            callee = _CALLEE.search(text, max(line_start, word.end() - _MAX_CALLEE), word.end())
            if (callee is not None and _opens_client(callee.group(1))
                    and (start, end) in _literals(text, word.end())):
                yield Found(start, end, "assignment")
                break
        else:
            at = text.find("(", line_start, start)
            while at != -1:
                if (text[at - 1:at] in _NAME_CHARS and (start, end) in _literals(text, at + 1)
                        and _named_argument(text, at + 1)):
                    yield Found(start, end, "assignment")
                    break
                at = text.find("(", at + 1, start)


def _logins(text: str) -> Iterator[Found]:
    for match in _LOGIN_COMMAND.finditer(text):
        for group in (1, 2):
            value = match.group(group)
            if value is not None and random_token(value) and not placeholder(value):
                yield Found(match.start(group), match.end(group), "assignment")


def call_findings(text: str) -> list[Found]:
    found: list[Found] = []
    if "(" in text:
        found += _calls(text)
    lowered = text.lower()
    if "auth" in lowered or "login" in lowered:
        found += _logins(text)
    return found
