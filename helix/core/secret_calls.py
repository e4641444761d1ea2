"""Secrets handed to code by position, where no name says what they are:

- a literal passed to a call that builds or opens an authenticated client (`DeepgramClient("...")`,
  `Mailgun::Client.new('...')`, `messagebird.New("...")`, `TwilioClient.Init(sid, "...")`,
  `get_factory('...')`, `ethers.Wallet("0x...")`, `conn.Bind(dn, "...")`, `new PDO(dsn, user,
  '...')`, `SecretValue.unsafePlainText("...")`): the callee's words say so (a vocabulary, as
  data), the literal must read as an issued key (`secret_values.random_token`);
- a command line logging a tool in (`snyk auth <token>`, `b2 account authorize <id> <key>`):
  the values after the verb that read as issued keys;
- the password passed with the resource it opens, all arguments literals: a keystore file's
  (`new X509Certificate2("s2s.pfx", "<password>")`, `loadSigningKey("k.p12", "alias",
  "<password>")`) or a JDBC URL's (`DriverManager.getConnection("jdbc:...", "user",
  "<password>")`): the call's last argument, whatever it reads like.

    call_findings(text) -> [(start, end, kind)]
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from helix.core.secret_gates import CONTEXT_AFTER, MIN_KEYED_VALUE, MIN_SECRET_LEN, looks_password
from helix.core.secret_names import name_strength, segments
from helix.core.secret_structure import Found, placeholder, random_token

__all__ = ["BUILD_TRIGGER", "CALL_TRIGGER", "LITERAL_TRIGGER", "RESOURCE_TRIGGER",
           "call_findings"]

# The words of a callee that opens or builds an authenticated client (one segment of its last
# name: DeepgramClient, APISession, get_factory, Wallet, Bind), or a qualified constructor
# (`Client.new`, `TwilioClient.Init`, Go's `messagebird.New`: a package's)
CALL_WORDS = frozenset({"client", "session", "wallet", "signer", "bind", "factory", "pdo",
                        "connect", "authenticate", "authorize", "plaintext", "authenticator"})
_STEPS = frozenset({"new", "init", "initialize", "create"})
_FROM_STEPS = frozenset({"from", "of", "valueof"})  # a type's factory: `ApiKey.from(`
# The last word of a callee that names an API's client or credential (`TinkoffMerchantAPI`,
# `FromApiKeyAndSecret`, `AccessToken`), and the words of a value's type a constructor builds
# from a literal that may read random (`new Guid("...")`, `new Buffer("...", "base64")`)
_API_WORDS = frozenset({"api", "sdk", "credentials", "credential", "secret", "token"})
_VALUE_TYPES = frozenset({
    "uuid", "guid", "id", "ids", "oid", "hash", "digest", "checksum", "hex", "base64", "md5",
    "sha1", "sha256", "date", "time", "datetime", "timestamp", "decimal", "integer", "int",
    "number", "big", "color", "colour", "regexp", "regex", "pattern", "url", "uri", "path",
    "file", "version", "buffer", "bytes", "array", "string", "str", "text", "error",
    "exception", "locale", "public", "pub", "publishable", "address", "random", "nonce", "tag",
    "test", "mock", "fake", "dummy", "csrf", "xsrf"})
_NEW_BEFORE = re.compile(r"\bnew[ \t]+\\?$")  # a constructor's keyword
# a call's parenthesis ending its line, its arguments on the lines below (CONTEXT_AFTER)
_OPEN_CALL = re.compile(r"[\w$\\](\()[ \t]*\r?$", re.M)
_SEPARATED = re.compile(r"[_\-.~+/=%]")
_PATH_LIKE = re.compile(r"\.[A-Za-z]{2,5}$|^[./]|/[A-Za-z]+/")  # a file's or route's
# The prefilter's trigger (RE2): a callee word right before its parenthesis, a quote after it
CALL_TRIGGER = (r"(?:[Cc]lient|[Ss]ession|[Ww]allet|[Ss]igner|[Bb]ind|[Ff]actory|PDO|"
                r"[Cc]onnect(?:ion)?|[Aa]uthenticat(?:e|or)|[Aa]uthorize|PlainText|[Nn]ew|[Ii]nit|"
                r"[Ii]nitialize|[Cc]reate)[ \t]*\([^\n]*[\"']")
# The prefilter's trigger for a client built over lines: a constructor, a callee ending in an
# API's or a client's word with the line's end after its parenthesis (`_opens_over_lines`);
# Ruby's `X.new '...'` (a call a line holds: LITERAL_TRIGGER)
BUILD_TRIGGER = (r"(?:\bnew[ \t]+\\?[A-Za-z_][\w\\.]*|[Aa]pi|API|[Ss]dk|SDK|[Cc]redentials?|"
                 r"CREDENTIALS?|[Ss]ecret|SECRET|[Tt]oken|TOKEN|"
                 + CALL_TRIGGER.removesuffix(r"[ \t]*\([^\n]*[\"']").removeprefix("(?:")
                 + r"[ \t]*\([ \t]*\r?(?m:$)|\.new[ \t]+[\"']")
# a literal as an argument (after `(` or `,`) of 20 token characters: what the prefilter wakes
# (its own trigger, counted, apart from BUILD_TRIGGER's words) and what `_calls` then takes
LITERAL_TRIGGER = r"[(,][ \t]*[\"'][A-Za-z0-9+/_=\-]{20}"
_WOKEN = re.compile(r"[A-Za-z0-9+/_=\-]{20,}")
_ARGUMENT_START = re.compile(r"[(,][ \t]*$")
_RUBY_NEW = re.compile(r"\b[A-Z]\w*(?:::[A-Z]\w*)*\.new[ \t]+([\"'])([A-Za-z0-9_\-+/=.~%]{"
                       + str(MIN_KEYED_VALUE) + r",4096})\1")
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
# A resource opened with a password given beside it, as the call's first argument: a keystore
# file (PKCS#12, Java's), a JDBC URL; and the least count of literals (with the password last)
# (or the first on its line, its call's parenthesis ending the line above: the prefilter's
# window may start at the line)
_RESOURCE = re.compile(r"(?:\(|^)[ \t\r\n]*([\"'])(?:(jdbc:)[^\"'\n]{1,300}|"
                       r"[^\"'\n]{1,300}\.(?:p12|pfx|jks|keystore|bks))\1", re.M)
_RESOURCE_LITERALS = {"jdbc:": 3, "": 2}  # (url, user, password); (file, [alias,] password)
_CALL_CLOSE = re.compile(r"[ \t\r\n]*\)")
# or a service's URL (`GIS("https://...", "user", "<password>")`, `Cluster.connect(
# "couchbases://...", "user", "<password>")`): then exactly three literals, the last reading
# as a password (`_password_like`); found from its `://` (a literal the search skips to), its
# scheme and its call's parenthesis (or its line's start) read back by hand
_URL_ARGUMENT = re.compile(r"://[^\"'\s]{1,300}([\"'])[ \t]*,")
_SCHEME = re.compile(r"[a-z][a-z0-9+.\-]{1,20}")
_URL_LITERALS = 3  # (service URL, user, password)
# The prefilter's trigger for them (RE2): the resource literal's own marks (a URL's call is
# woken by its callee's words, CALL_TRIGGER and BUILD_TRIGGER: `NewClient(`, `connect(`)
RESOURCE_TRIGGER = r"jdbc:|\.(?:p12|pfx|jks|keystore|bks)[\"']"
_RESOURCE_MARKS = ("jdbc:", ".p12", ".pfx", ".jks", ".keystore", ".bks")  # found by `in`
_LOGIN_COMMAND = re.compile(
    r"^[ \t]*(?:[-$>][ \t]+)?(?:run:[ \t]+)?[\w.\-]{1,40}(?:[ \t]+[\w.\-]{1,40})?[ \t]+"
    r"(?:auth|authorize|authenticate|login)(?:-account)?[ \t]+([^\s\"'`\-][^\s\"'`]{0,4095})"
    r"(?:[ \t]+([^\s\"'`\-][^\s\"'`]{0,4095}))?[ \t]*\r?$", re.M)


# a call that logs in (`_login_calls`): its callee's last word, its parenthesis; what its
# arguments may hold besides literals (numbers: a port); a value's host's or file's ending
# (the words CALL_TRIGGER and the prefilter's KEYWORDS wake on)
_LOGIN_CALL = re.compile(r"(?:[Cc]onnect(?:ion)?|[Ll]og[Ii]n|LOGIN)[ \t]*\(")
_ARGUMENT_REST = re.compile(r"[\s,0-9]*")
_HOST_OR_FILE = re.compile(r"\.[a-z]{2,5}$|[/\\:@]")
_NUMBERED = re.compile(r"(?:[A-Z]?[a-z]+|[A-Z]+)[_\-.]?[0-9]+")  # a name numbered: Device01
_VERSION = re.compile(r"[vV]?[0-9]+(?:\.[0-9]+)+(?:[-+.][0-9A-Za-z.]+)?")


def _opens_client(callee: str) -> bool:
    names = re.split(r"\.|::|->", callee)
    last = segments(names[-1])
    if not last:
        return False
    if "".join(last[-2:]) in CALL_WORDS or last[-1] in CALL_WORDS:
        return True
    return "".join(last) in _STEPS and len(names) > 1  # a package's or a class's constructor


def _builds_client(text: str, callee_start: int, callee: str) -> bool:
    """An SDK's client built by position: a constructor (`new SMSRU(`, `new \\DeepL\\X(`),
    a callee whose last word names an API's credential or client (`TinkoffMerchantAPI(`,
    `Credentials.FromApiKeyAndSecret(`, `AccessToken(`), a package's or class's step
    (`Backendless.initApp(`, `Logger.create_default_logger(`, `Builder.build(`), a package's
    own class (`shodan.Shodan(`), a credential's type's factory (`ApiKey.from(`,
    `Secret.of(`); never a value's type (`new Guid(`, `new Buffer(`)."""
    names = [n for n in re.split(r"\.|::|->|\\", callee) if n]
    if not names:
        return False
    last = segments(names[-1])
    if not last or _VALUE_TYPES.intersection(last):
        return False
    if last[-1] in _API_WORDS or _opens_client(callee):
        return True
    if _NEW_BEFORE.search(text, max(0, callee_start - 8), callee_start) is not None:
        return True
    if len(names) > 1 and (last[0] in _STEPS or last == ["build"]):
        return True
    if len(names) > 1 and "".join(last) in _FROM_STEPS and name_strength(names[-2]) is not None:
        return True  # a credential's type built from the literal: `ApiKey.from("...")`
    return len(names) > 1 and names[-1].lower() == names[-2].lower()


def _literals(text: str, at: int, lines: bool = False) -> Iterator[tuple[int, int]]:
    """The string literals among a call's own arguments (not a nested call's), from just past
    its parenthesis to its close or the line's end (with `lines`, over lines to its close, a
    `//` or `#` comment skipped)."""
    depth = 1
    end = min(len(text), at + _MAX_ARGUMENTS)
    below = 0
    while at < end:
        char = text[at]
        if char == "\n":
            below += 1
            if not lines or below > CONTEXT_AFTER:
                return
        if lines and (char == "#" or text.startswith("//", at)):
            at = text.find("\n", at)
            if at == -1:
                return
            continue
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
                        and (_named_argument(text, at + 1)
                             or (_issued(value) and _WOKEN.fullmatch(value) is not None
                                 and text[start - 1] in "\"'"
                                 and _ARGUMENT_START.search(text, line_start, start - 1)
                                 is not None and _built(text, line_start, at)))):
                    yield Found(start, end, "assignment")
                    break
                at = text.find("(", at + 1, start)


def _issued(value: str) -> bool:
    """A literal a client is built from that reads as an issued key: random, letters and
    digits, no word between its separators (`thread_group_DD99`, `legalEntityGroup`), no
    file's or route's shape."""
    return (random_token(value) and any(c.isdigit() for c in value)
            and any(c.isalpha() for c in value) and _PATH_LIKE.search(value) is None
            and not any(part.isalpha() and part.islower() and len(part) >= 4
                        for part in _SEPARATED.split(value)))


def _opens_over_lines(text: str, callee_start: int, callee: str) -> bool:
    """A callee whose arguments the prefilter reads on the lines below (BUILD_TRIGGER's):
    a constructor, a client's or an API's word last (`new X(`, `Client(`, `MerchantAPI(`)."""
    last = segments(re.split(r"\.|::|->", callee)[-1])
    return bool(last) and not _VALUE_TYPES.intersection(last) and (
        last[-1] in _API_WORDS or _opens_client(callee)
        or _NEW_BEFORE.search(text, max(0, callee_start - 8), callee_start) is not None)


def _built(text: str, line_start: int, at: int) -> bool:
    """The call whose parenthesis is at `at` builds an SDK's client (`_builds_client`)."""
    callee = _CALLEE.search(text, max(line_start, at - _MAX_CALLEE), at + 1)
    return callee is not None and _builds_client(text, callee.start(1), callee.group(1))


def _open_calls(text: str) -> Iterator[Found]:
    """A client built over lines (`new Client(` ending its line, the keys on the lines
    below): each literal among its own arguments that reads as an issued key."""
    at = text.find("(\n")
    while at != -1:
        found = at
        at = text.find("(\n", at + 2)
        if found == 0 or text[found - 1] not in _NAME_CHARS:
            continue
        line_start = text.rfind("\n", 0, found) + 1
        match = _OPEN_CALL.match(text, found - 1)
        if match is None:
            continue
        at_paren = found
        callee = _CALLEE.search(text, max(line_start, at_paren - _MAX_CALLEE), at_paren + 1)
        if callee is None or not _opens_over_lines(text, callee.start(1), callee.group(1)):
            continue
        for start, end in _literals(text, match.end(), lines=True):
            value = text[start:end]
            if (_TOKEN_LITERAL.fullmatch(text, start - 1, end + 1) is not None
                    and _issued(value) and not placeholder(value, quoted=True)):
                yield Found(start, end, "assignment")


def _logins(text: str) -> Iterator[Found]:
    for match in _LOGIN_COMMAND.finditer(text):
        for group in (1, 2):
            value = match.group(group)
            if value is not None and random_token(value) and not placeholder(value):
                yield Found(match.start(group), match.end(group), "assignment")


def _resource_passwords(text: str) -> Iterator[Found]:
    """The last literal of a call whose first argument is a keystore file or a JDBC URL and
    whose arguments are all literals, the password closing the call."""
    for match in _RESOURCE.finditer(text):
        opened = match.start() + (text[match.start()] == "(")
        literals = list(_literals(text, opened, lines=True))
        if len(literals) < _RESOURCE_LITERALS[match.group(2) or ""]:
            continue
        yield from _closing_password(text, literals[-1], url=False)


def _url_passwords(text: str) -> Iterator[Found]:
    """The password closing a call whose arguments are a service's URL, a user and it."""
    for match in _URL_ARGUMENT.finditer(text):
        quote = text.rfind(match.group(1), max(0, match.start() - 24), match.start())
        if quote == -1 or _SCHEME.fullmatch(text, quote + 1, match.start()) is None:
            continue
        at = quote - 1
        while at >= 0 and text[at] in " \t":
            at -= 1
        if at >= 0 and text[at] not in "(\n":
            continue
        literals = list(_literals(text, at + 1, lines=True))
        if len(literals) == _URL_LITERALS:
            yield from _closing_password(text, literals[-1], url=True)


def _closing_password(text: str, literal: tuple[int, int], url: bool) -> Iterator[Found]:
    start, end = literal
    value = text[start:end]
    if (_CALL_CLOSE.match(text, end + 1) is not None
            and len(value) >= MIN_SECRET_LEN and not placeholder(value, quoted=True)
            and (not url or _password_like(value))):
        yield Found(start, end, "assignment")


def _login_calls(text: str) -> Iterator[Found]:
    """The last literal of a call that logs in (`iris.connect("host", 1972, "NS", "user",
    "<password>")`, `cf.createConnection("user", "<password>")`) whose arguments are all
    literals, at least a user's beside the password closing the call, when it reads as a
    password: digits, letters of both cases or a symbol (no name, host, file, path, version)."""
    for match in _LOGIN_CALL.finditer(text):
        literals = list(_literals(text, match.end()))
        if len(literals) < 2:
            continue
        start, end = literals[-1]
        close = _CALL_CLOSE.match(text, end + 1)
        if close is None or _ARGUMENT_REST.fullmatch(_without(text, match.end(), end + 1,
                                                              literals)) is None:
            continue
        if _password_like(text[start:end]):
            yield Found(start, end, "assignment")


def _password_like(value: str) -> bool:
    """A literal reading as a password: digits, letters of both cases or a symbol (no name,
    host, file, path, version)."""
    return (looks_password(value) and _HOST_OR_FILE.search(value) is None
            and any(c.isdigit() for c in value) and sum(c.isalpha() for c in value) >= 3
            and (not value.islower() or any(c not in _NAME_CHARS for c in value))
            and _VERSION.fullmatch(value) is None and _NUMBERED.fullmatch(value) is None
            and not placeholder(value, quoted=True))


def _without(text: str, start: int, end: int, literals: list[tuple[int, int]]) -> str:
    """`text[start:end]` without the literals (their quotes too)."""
    parts, at = [], start
    for literal_start, literal_end in literals:
        parts.append(text[at:literal_start - 1])
        at = literal_end + 1
    parts.append(text[at:end])
    return "".join(parts)


def call_findings(text: str) -> list[Found]:
    found: list[Found] = []
    if "(" in text:
        found += _calls(text)
        found += _open_calls(text)
    if ")" in text and any(mark in text for mark in _RESOURCE_MARKS):
        found += _resource_passwords(text)
    if "://" in text and ")" in text:
        found += _url_passwords(text)
    if ".new " in text:
        found += (Found(m.start(2), m.end(2), "assignment") for m in _RUBY_NEW.finditer(text)
                  if _issued(m.group(2)) and not placeholder(m.group(2), quoted=True))
    lowered = text.lower()
    if "auth" in lowered or "login" in lowered:
        found += _logins(text)
    if "(" in text and ("connect" in lowered or "login" in lowered):
        found += _login_calls(text)
    return found
