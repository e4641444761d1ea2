"""Secret values found by the shape of the line around them, where no `name = value` says so:

- `.netrc` (`machine h login u password X`, or `password X` on its own line) and `.pgpass`
  (`host:port:db:user:X`) lines;
- connection strings: JDBC Oracle's `user/X@host`, a Go MySQL DSN `user:X@tcp(...)`, a URL
  with an empty user (`redis://:X@host`);
- `ENV NAME value` (Dockerfile), `set -x NAME value` (fish), `setenv NAME value` (csh);
- SQL's `SET PASSWORD [FOR u] = [PASSWORD(]'X'`;
- calls that take a secret: a user/password pair (`auth=("u", "X")`, `smtp.login("u", "X")`,
  `SetBasicAuth("u", "X")`, `NetworkCredential("u", "X")`), or a string naming a secret then
  its value (`define('DB_PASSWORD', 'X')`, `os.environ.setdefault("SECRET_KEY", "X")`,
  `config.set("db", "password", "X")`, `localStorage.setItem("token", "X")`,
  `req.Header.Set("X-Api-Key", "X")`);
- prose: "my password is X", "the api key: X", "use the password X" (X reads like a password:
  letters with digits or symbols, not a word).

    shape_findings(text) -> [(start, end, kind)]
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from helix.core.english import PURPOSE_PREPOSITIONS, word_alternation
from helix.core.secret_calls import call_findings
from helix.core.secret_consoles import IPSEC_TRIGGER, ipsec_secrets, printed_keys, server_keys
from helix.core.secret_defaults import default_findings
from helix.core.secret_gates import MIN_PASSWORD_LEN, MIN_VALUE, hinted, word_passphrase
from helix.core.secret_grouped import GROUPED_TRIGGER, listed_keys
from helix.core.secret_joins import join_findings
from helix.core.secret_pairs import (
    PLAIN_PAIR_TRIGGER,
    USED_PAIR_TRIGGER,
    basic_pairs,
    pin_digits,
    used_pairs,
)
from helix.core.secret_recalled import recalled_values
from helix.core.secret_rules import rules
from helix.core.secret_runs import RUN_TRIGGERS, run_findings
from helix.core.secret_structure import (
    Found,
    name_strength,
    placeholder,
    quoted_ok,
    random_token,
    unquoted_ok,
)
from helix.core.secret_tables import SEGMENT_TRIGGER, TABLE_WORDS, segment_findings, table_findings
from helix.core.secret_values import WORD_PATH

_NETRC = re.compile(r"\bmachine[ \t]+\S+[ \t]+(?:login|account)[ \t]+\S+[ \t]+password[ \t]+"
                    r"([^\s\"'`]+)|^[ \t]*(?:(?:login|account)[ \t]+\S+[ \t]+)?password[ \t]+"
                    r"([^\s\"'`]+)[ \t]*$", re.M)
_PGPASS = re.compile(r"^[ \t]*[\w.*\-\[\]]+:(?:\d{1,5}|\*):[\w.*\-]+:[\w.*\-@]+:(\S+)[ \t]*$",
                     re.M)
# a Perforce ticket file's line (`.p4tickets`: `[ssl:]host:port=user:TICKET`, 32 hex)
_P4TICKET = re.compile(r"^[ \t]*(?:ssl[46]?:|tcp[46]?:)?[\w.\-]{1,253}:\d{1,5}=[^\s:=]{1,128}:"
                       r"([0-9A-F]{32})[ \t]*\r?$", re.M)
_P4TICKET_END = re.compile(r":[0-9A-F]{32}[ \t]*\r?$", re.M)  # (a literal first: a fast scan)
P4TICKET_TRIGGER = r":[0-9]{1,5}=[\w.\-@]"  # the prefilter's trigger for it
_CONNECTION = re.compile(
    r"(?i)\bjdbc:oracle:(?:thin|oci\d*):@?[^\s/@:;\"']{1,80}/([^\s@;\"']{1,4096})@"
    r"|(?<![\w.\-])[\w.\-]{1,80}:([^\s@/:\"'`]{3,4096})@(?:tcp|unix|udp)\("
    r"|://:([^\s/@\"'`]{3,4096})@")
# a URL whose user part alone is a key (a Sentry DSN `https://<key>@o1.ingest.../1`, a git
# remote `https://<token>@host/repo`): no password, the user name is the credential
_USERINFO_KEY = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]{0,20}://([A-Za-z0-9_\-.~%]{20,256})@[\w\-]")
_USERINFO_HINT = re.compile("://")  # in every _USERINFO_KEY match, on its one line
# a (name, value) pair of literals: gRPC metadata, a header list, a tuple of settings
_PAIR_TUPLE = re.compile(r"[(\[][ \t]*([\"'])([A-Za-z_][\w.\-]{0,79})\1[ \t]*,[ \t]*([\"'])"
                         r"([^\"'\n]{1,4096})\3[ \t]*[)\]]")
_ENV_SPACED = re.compile(r"^[ \t]*(?:ENV|set[ \t]+-[a-zA-Z]+|setenv)[ \t]+([A-Za-z_][\w.]{0,79})"
                         r"[ \t]+([\"']?)([^\s\"'=][^\s\"']{0,4095})\2[ \t]*$", re.M)
_SET_PASSWORD = re.compile(r"(?i)\bset[ \t]+password[ \t]+(?:for[ \t]+[^=\n]{1,200}?)?=[ \t]*"
                           r"(?:password[ \t]*\([ \t]*)?(['\"])([^'\"\n]{1,4096})\1")
_CREDENTIAL_CALL = re.compile(
    r"(?i)(?:(?:auth|login|credentials?)(?:\w*|\.basic)|_pw_set)[ \t]*(?:=[ \t]*)?\([ \t]*"
    r"([\"'])([^\"'\n]{1,200})\1[ \t]*,[ \t]*"
    # (the password wrapped: Rust's `Some("X")`, `SecretString::new("X")`, `Optional.of("X")`)
    r"(?:[A-Za-z_][\w.:]{0,30}\([ \t]*)?([\"'])([^\"'\n]{1,4096})\3")
# a database's connect call given its address, a user and the password, all three literals
# (Perl's `DBI->connect("DBI:mysql:...", "u", "X")`, PHP's `mysqli_connect("h", "u", "X")`)
_DSN_CONNECT = re.compile(
    r"(?i)connect[ \t]*\([ \t]*([\"'])[^\"'\n]{1,400}\1[ \t]*,[ \t]*([\"'])[\w.@\-]{1,80}\2"
    r"[ \t]*,[ \t]*([\"'])([^\"'\n]{1,4096})\3")
# a call (a name right before its parenthesis: not a tuple), at most two arguments before
_NAMED_ARGUMENT = re.compile(  # the parenthesis first: a literal the search skips to
    r"\((?<=[\w\]]\()[ \t]*(?:[^(),\n]{1,100},[ \t]*){0,2}([\"'])([A-Za-z_][\w.\-]{0,79})\1"
    r"[ \t]*,[ \t]*([\"'])(?:\\[\"'])?([^\"'\n]{1,4096}?)(?:\\[\"'])?\3")
# (a value quoted again inside its literal, Gradle's `buildConfigField("String", "K", "\"X\"")`)
# a secret name compared with a literal: a hard-coded credential check
_COMPARED = re.compile(
    r"(?<![\w.$])([A-Za-z_$][\w.$]{0,79})[ \t]*[!=]==?[ \t]*([\"'])([^\"'\n]{1,4096})\2"
    r"|([\"'])([^\"'\n]{1,4096})\4[ \t]*[!=]==?[ \t]*([A-Za-z_$][\w.$]{0,79})")
_HEX_PAIRS = re.compile(r"(?:[0-9a-fA-F]{2}:){5,}[0-9a-fA-F]{2}")
_VALUE_WORDS = frozenset({"pass", "pw", "pwd"})  # short enough to be the password itself
_CREDENTIAL_WORD = re.compile(r"[^\s\"'`,;()<>\[\]{}]+")
# a name in code (`token_v2`, `Aws::Credentials.new(`: a qualified name, a call opened)
_IDENTIFIER = re.compile(r"[A-Za-z_][\w.]*(?:(?:::|->)[A-Za-z_][\w.]*)*\(?")


@cache
def _prose() -> re.Pattern[str]:
    # a name in a script without spaces between words (パスワード, 密码) may follow a word
    names = "|".join((r"\b" if n[0].isascii() else "") + re.escape(n).replace(r"\ ", "[ \t]+")
                     for n in rules().prose_names)
    return re.compile(rf"(?i)(?:{names})s?\b"
                      r"((?:[ \t]+(?:" + word_alternation(PURPOSE_PREPOSITIONS) + r")"
                      r"(?:[ \t]+[\w.\-]{1,30}){1,5}?)"
                      r"(?=[ \t]+(?:is|was)\b|[ \t]*:))?"
                      r"(?:[ \t]+(is|was)[ \t]*:?|[ \t]*([:\uff1a]))?(?:[ \t]+|(?<=\uff1a))"
                      r"(?:[\"'`]|\*\*?)?(?=[^\s\"'`])")  # (Markdown's bold `**X**`)


def password_word(word: str) -> bool:
    """One word that reads like a password, not like prose or code: letters with digits or
    symbols, long enough, no call or path."""
    if len(word) < MIN_PASSWORD_LEN or placeholder(word) or "://" in word:
        return False
    if word.startswith(("/", "./", "~", "$", "%", "#")) or word.endswith((":", "?")):
        return False
    letters = any(c.isalpha() for c in word)
    digits = any(c.isdigit() for c in word)
    symbols = any(not c.isalnum() and c not in "._-" for c in word)
    return letters and (digits or symbols) and not word.replace(".", "").isdigit()


def _group(match: re.Match[str], *groups: int) -> tuple[int, int, str] | None:
    for group in groups:
        if match.group(group) is not None:
            return match.start(group), match.end(group), match.group(group)
    return None


# a login given as `user / password` after a word naming it and a colon, in a comment or a
# note (`temp admin login for staging: admin / X`, `Zugang: admin / X`), after `log in as`/
# `sign in as` (`log in as `encadmin` / `X``) or right after the word (`kiosk login kiosk /
# X`), each maybe backticked, the user maybe a domain's (`CORP\ops`)
LOGIN_WORDS = ("login", "logon", "cred", "zugang", "anmeldung", "identifiant", "acceso",
               "acesso", "accès", " in as")  # (`log in as`, `sign in as`: one search)
_LOGIN_PAIR = re.compile(r"(?i)(?:(?:" + "|".join(LOGIN_WORDS[:-1]) + r")(?:[^\n:\uff1a]{0,60}"
                         r"[:\uff1a]|(?=[ \t]))|\b(?:log|sign)[ \t]in[ \t]as)"
                         r"[ \t]*`?[\w.@\\\-]{1,40}`?[ \t]+/[ \t]+`?([^\s\"'`]{1,200})")
# a .pgpass line's password of three or more words joined (`harbor-night-shift`): its field
# says it is one
_JOINED_WORDS = re.compile(r"[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+){2,}")
# (rule, its groups, kind, words one of which the text must hold for the rule to match)
_LINE_RULES = ((_NETRC, (1, 2), "keyword", ("password",)),
               (_PGPASS, (1,), "keyword", (":",)),
               (_CONNECTION, (1, 2, 3), "url_password", ("jdbc:", "@tcp(", "@unix(", "@udp(",
                                                        "://:")),
               (_SET_PASSWORD, (2,), "assignment", ("password",)),
               (_CREDENTIAL_CALL, (4,), "assignment", ("auth", "login", "credential", "_pw_set")),
               (_DSN_CONNECT, (4,), "assignment", ("connect",)),
               (_LOGIN_PAIR, (1,), "keyword", LOGIN_WORDS))


def _lines_and_connections(text: str, lowered: str) -> Iterator[Found]:
    min_value = MIN_VALUE
    for pattern, groups, kind, words in _LINE_RULES:
        if not any(word in lowered for word in words):
            continue
        lines = ([(0, len(text))] if pattern is _PGPASS  # ":" holds on most lines
                 else lines_with(text, lowered, words))  # each rule reads one line
        for match in (m for start, end in lines for m in pattern.finditer(text, start, end)):
            span = _group(match, *groups)
            if span is None or len(span[2]) < min_value or placeholder(span[2]):
                continue
            if pattern is _CREDENTIAL_CALL and not (
                    quoted_ok(span[2], "strong") and len(span[2]) >= MIN_PASSWORD_LEN):
                continue  # `login("user", "pass")`: a test's dummy
            if pattern in (_PGPASS, _NETRC, _LOGIN_PAIR, _DSN_CONNECT) and not password_word(
                    span[2].rstrip(".,;:")) and not (pattern is _PGPASS
                                                     and _JOINED_WORDS.fullmatch(span[2])):
                continue  # `password combination.` in prose, `01:00:5e:00:00:01`
            if pattern is _PGPASS and _HEX_PAIRS.search(match.group()):
                continue  # `MD5:99:66:0a:c9:...`: a fingerprint, a MAC address
            yield Found(span[0], span[1], kind)


def _p4tickets(text: str) -> Iterator[Found]:
    """A Perforce ticket file's lines (the ticket that ends one found first)."""
    for end in _P4TICKET_END.finditer(text):
        line_start = text.rfind("\n", 0, end.start()) + 1
        match = _P4TICKET.match(text, line_start, end.end())
        if match is not None:
            yield Found(match.start(1), match.end(1), "keyword")


# a config directive, its name then its value (redis.conf `requirepass X`, fluent-bit
# `Splunk_Token X`, nginx `auth_basic_user_file`-like lines): the whole line, nothing after
_DIRECTIVE = re.compile(r"^[ \t]*([A-Za-z_][\w.\-]{0,79})[ \t]+([^\s\"'=:#;|][^\s\"';]{0,4095})"
                        r"[ \t]*;?[ \t]*(?:#[^\n]*)?$", re.M)


# a cookie jar's line (Netscape format: domain, subdomains, path, secure, expiry, name, value):
# a cookie that reads like an issued token is a session's credential
_COOKIE_JAR = re.compile(r"^(?:#HttpOnly_)?[^\s#][^\t\n]{0,252}\t(?:TRUE|FALSE)\t[^\t\n]{1,1024}\t"
                         r"(?:TRUE|FALSE)\t\d{1,12}\t[^\t\n]{1,256}\t([^\s]{1,4096})[ \t]*$", re.M)


def _cookies(text: str) -> Iterator[Found]:
    for match in _COOKIE_JAR.finditer(text):
        if random_token(match.group(1)) and not placeholder(match.group(1)):
            yield Found(match.start(1), match.end(1), "assignment")


def _directives(text: str) -> Iterator[Found]:
    for match in _DIRECTIVE.finditer(text):
        strength = name_strength(match.group(1))
        value = match.group(2)
        if strength is not None and unquoted_ok(value, strength, False) and (
                strength != "strong" or password_word(value)):  # not `password combination.`
            yield Found(match.start(2), match.end(2), "assignment")


def _keys_as_users(text: str) -> Iterator[Found]:
    for match in hinted(_USERINFO_KEY, _USERINFO_HINT, text):
        value = match.group(1)
        if random_token(value) and not placeholder(value):
            yield Found(match.start(1), match.end(1), "url_password")


def _pairs(text: str) -> Iterator[Found]:
    for match in _PAIR_TUPLE.finditer(text):
        strength = name_strength(match.group(2))
        value = match.group(4)
        if strength is not None and quoted_ok(value, strength) and random_token(value):
            yield Found(match.start(4), match.end(4), "assignment")  # an issued key, not
            # ("detect-secrets", "google-re2")


def _named(text: str) -> Iterator[Found]:
    yield from _directives(text)
    if "://" in text:
        yield from _keys_as_users(text)
    if "," in text:
        yield from _pairs(text)
    if "\tTRUE\t" in text or "\tFALSE\t" in text:
        yield from _cookies(text)
    for match in _ENV_SPACED.finditer(text):
        strength = name_strength(match.group(1))
        value = match.group(3)
        if strength is not None and quoted_ok(value, strength):
            yield Found(match.start(3), match.end(3), "assignment")
    for match in _NAMED_ARGUMENT.finditer(text):
        if match.group(2).lower() in _VALUE_WORDS:
            continue  # ('user', 'pass', 'localhost'): a password among arguments, not a name
        strength = name_strength(match.group(2))
        if strength is not None and quoted_ok(match.group(4), strength):
            yield Found(match.start(4), match.end(4), "assignment")


# a user name given beside a password (`username="..." password="..."` in a JAAS config,
# `sasl.username=` over `sasl.password=`): when it reads as an issued key (upper case letters
# and digits, random), the pair is an API key and its secret (a cloud's SASL/PLAIN login)
_PAIRED_USER = re.compile(r"(?i)(?<![\w.\-])(?:sasl[._])?user(?:name)?[\"']?[ \t]*[:=][ \t]*"
                          r"([\"']?)([A-Za-z0-9+/=_\-]{16,128})\1(?![\w+/=\-])")
_PASSWORD_WORDS = ("password", "secret")


def _paired_users(text: str) -> Iterator[Found]:
    for match in _PAIRED_USER.finditer(text):
        value = match.group(2)
        if not (random_token(value) and value.upper() == value
                and sum(c.isdigit() for c in value) >= 2):
            continue
        start = _back_lines(text, match.start(), 1)
        end = _ahead_lines(text, match.end(), 1)
        if any(word in text[start:end].lower() for word in _PASSWORD_WORDS):
            yield Found(match.start(2), match.end(2), "assignment")


def _back_lines(text: str, at: int, count: int) -> int:
    start = text.rfind("\n", 0, at) + 1
    for _ in range(count):
        if start == 0:
            break
        start = text.rfind("\n", 0, start - 1) + 1
    return start


def _ahead_lines(text: str, at: int, count: int) -> int:
    end = text.find("\n", at)
    for _ in range(count):
        if end == -1:
            break
        end = text.find("\n", end + 1)
    return len(text) if end == -1 else end


# a setter given a name and a value as flags (`Set-Variable -Name AdminPassword -Value 'X'`,
# `secret set --name db-password --value X`): the name says what the value is
_NAME_VALUE_FLAGS = re.compile(
    r"(?i)(?<![\w\-])--?name(?:[ \t]+|=)([\"']?)([\w.\-/]{1,80})\1[ \t]+"
    r"(?:[^\n]{0,200}?[ \t])?--?value(?:[ \t]+|=)([\"']?)([^\s\"']{1,4096})\3")


def _name_value_flags(text: str) -> Iterator[Found]:
    for match in _NAME_VALUE_FLAGS.finditer(text):
        strength = name_strength(match.group(2).rsplit("/", 1)[-1])
        value = match.group(4)
        if strength is not None and (quoted_ok(value, strength) if match.group(3)
                                     else unquoted_ok(value, strength, False)):
            yield Found(match.start(4), match.end(4), "assignment")


def _comparisons(text: str) -> Iterator[Found]:
    for line_start, line_end in lines_with(text, text, ("==", "!=")):
        yield from _compared(_COMPARED.finditer(text, line_start, line_end))


def _compared(matches: Iterator[re.Match[str]]) -> Iterator[Found]:
    for match in matches:
        name, group = (match.group(1), 3) if match.group(1) is not None else (match.group(6), 5)
        if name_strength(name) == "strong" and quoted_ok(match.group(group), "strong"):
            yield Found(match.start(group), match.end(group), "assignment")


def lines_with(text: str, lowered: str, words: tuple[str, ...]) -> list[tuple[int, int]]:
    """The (start, end) of the lines holding one of `words` (in `lowered`, the text in lower
    case of the same length), sorted, each once: where a one-line rule can match."""
    if len(lowered) != len(text):  # a character whose lower case is longer: read it all
        return [(0, len(text))]
    starts: set[int] = set()
    for word in words:
        at = lowered.find(word)
        while at != -1:
            start = text.rfind("\n", 0, at) + 1
            starts.add(start)
            end = text.find("\n", at)
            at = -1 if end == -1 else lowered.find(word, end)
    out = []
    for start in sorted(starts):
        end = text.find("\n", start)
        out.append((start, len(text) if end == -1 else end))
    return out


def _prose_values(text: str, lowered: str) -> Iterator[Found]:
    pattern = _prose()
    for line_start, line_end in lines_with(text, lowered, _prose_line_words()):
        yield from _prose_line(text, pattern.finditer(text, line_start, line_end))


def _mixed(value: str) -> bool:
    """One run of capitals, lower case letters and digits, all three (`zWiP6ETtHz1O`): a
    generated password, not a name in code (`token_v2`, `apiKey`, `self.token`)."""
    return (value.isalnum() and any(c.isupper() for c in value)
            and any(c.islower() for c in value) and any(c.isdigit() for c in value))


# a login's user named before its password on the line (`user is admin, pw <passphrase>`)
_USER_BEFORE = re.compile(r"(?i)\b(?:user(?:name)?|login|account)\b")


def _prose_line(text: str, matches: Iterator[re.Match[str]]) -> Iterator[Found]:
    for match in matches:
        word = _CREDENTIAL_WORD.match(text, match.end())
        if word is None:
            continue
        value = word.group().rstrip(".,;:?")  # a final `!` may be the password's own
        if text[match.end() - 1] == "*":
            value = value.rstrip("*")  # `**X**`: the bold's stars around it
        qualified, said, colon = match.group(1), match.group(2), match.group(3)
        if pin_digits(text, match, value, bool(said or colon)):
            yield Found(word.start(), word.start() + len(value), "keyword")
            continue
        if qualified and not (said or colon):
            continue  # `the password for the guest network`: no value said
        if colon and _IDENTIFIER.fullmatch(value) and not _mixed(value):
            continue  # `token: token_v2`: a name in code, not a password in prose
        passphrase = word_passphrase(value) and (said or colon or _USER_BEFORE.search(
            text, text.rfind("\n", 0, match.start()) + 1, match.start()) is not None)
        if not said and not colon and not passphrase and not any(c.isdigit() for c in value):
            continue  # `password and/or ...`: right after the word, only what has digits
        if WORD_PATH.fullmatch(value):
            continue  # `{{ with secret "secret/data/lab/nmr-600" }}`: where it is kept
        if passphrase or password_word(value):
            yield Found(word.start(), word.start() + len(value), "keyword")


_ENGLISH_PARTS = ("pass", "secret", "token", "key", "pin", "credential")


def _foreign(name: str) -> bool:
    return not any(word in name for word in _ENGLISH_PARTS)


@cache
def _prose_words() -> tuple[str, ...]:
    """What a text must hold for a prose rule to match: the English words' common parts and
    every other language's name whole (`mot de passe`: `mot` is in `remote`)."""
    return _ENGLISH_PARTS + tuple(n for n in rules().prose_names if _foreign(n))


@cache
def _prose_line_words() -> tuple[str, ...]:
    """What a line must hold for the prose rule: a name's first word, or a name in another
    language whole."""
    return tuple(n if _foreign(n) else n.split()[0] for n in rules().prose_names)


# A chain's network config lists the private keys it deploys with (Hardhat's and Truffle's
# `accounts: ["0x<64 hex>"]`): a key there is an account's, 32 bytes (an address is 20)
ACCOUNTS_TRIGGER = r"accounts[\"']?[ \t]*[:=][ \t]*\["
_ACCOUNTS = re.compile(r"accounts[\"']?[ \t]*[:=][ \t]*\[((?:\s*[\"'`]0x[0-9a-fA-F]{64}[\"'`]"
                       r"\s*,?){1,20})")
_ACCOUNT_KEY = re.compile(r"0x[0-9a-fA-F]{64}")


# A network device's saved config and net-snmp's snmpd.conf: `enable secret 5 <hash>`,
# `username u privilege 15 password 7 <hex>`, `snmp-server community <string> RW`,
# `rocommunity <string> 10.0.0.0/8` (a community string is SNMP's password)
COMMUNITY_TRIGGER = (r"snmp-server[ \t]+community|r[ow]community6?[ \t]|"
                     r"(?:radius|tacacs)(?:-server[ \t]+(?:host|key)|[ \t]+server)[ \t]")
_DEVICE_WORDS = ("secret", "password")
_DEVICE_SECRET = re.compile(
    r"(?m)^[ \t]*(?:enable[ \t]+(?:" + word_alternation(_DEVICE_WORDS) + r")|username[ \t]+\S+"
    r"(?:[ \t]+privilege[ \t]+[0-9]+)?[ \t]+(?:" + word_alternation(_DEVICE_WORDS) + r"))"
    r"[ \t]+(?:[0-9][ \t]+)?(\S+)[ \t]*\r?$|"
    r"^[ \t]*(?:snmp-server[ \t]+community|r[ow]community6?)[ \t]+(\S+)")
_DEFAULT_COMMUNITIES = frozenset({"public", "private"})
_CRYPT = re.compile(r"\$[0-9a-z]{1,2}\$[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{8,}$")  # `$1$salt$hash`


def _device_secrets(text: str) -> Iterator[Found]:
    for match in _DEVICE_SECRET.finditer(text):
        group = 1 if match.group(1) is not None else 2
        value = match.group(group)
        if (len(value) >= MIN_PASSWORD_LEN and value.lower() not in _DEFAULT_COMMUNITIES
                and (not placeholder(value) or _CRYPT.match(value) is not None)):
            yield Found(match.start(group), match.end(group), "assignment")


# the prefilter's triggers for the rules here that no secret word wakes: a chain's accounts
# (their private keys), a device's SNMP community and RADIUS/TACACS+ key, a Perforce ticket
# file's line
SHAPE_TRIGGERS = (ACCOUNTS_TRIGGER, COMMUNITY_TRIGGER, P4TICKET_TRIGGER, USED_PAIR_TRIGGER,
                  PLAIN_PAIR_TRIGGER, IPSEC_TRIGGER, SEGMENT_TRIGGER, GROUPED_TRIGGER,
                  *RUN_TRIGGERS)


def _accounts(text: str) -> Iterator[Found]:
    for match in _ACCOUNTS.finditer(text):
        for key in _ACCOUNT_KEY.finditer(text, match.start(1), match.end(1)):
            if not placeholder(key.group()):
                yield Found(key.start(), key.end(), "private_key")


def shape_findings(text: str) -> list[Found]:
    lowered = text.lower()
    found = [*_lines_and_connections(text, lowered), *_named(text), *call_findings(text),
             *default_findings(text)]
    if "==" in text or "!=" in text:
        found += _comparisons(text)
    if "accounts" in text:
        found += _accounts(text)
    if "=" in text:
        found += _p4tickets(text)
    if "community" in lowered or (("enable " in lowered or "username " in lowered)
                                  and ("secret " in lowered or "password " in lowered)):
        found += _device_secrets(text)
    if "cat " in text:
        found += printed_keys(text)
    if "radius" in lowered or "tacacs" in lowered:
        found += server_keys(text)
    if ": " in text or ":\t" in text:
        found += ipsec_secrets(text)
    if "basic" in lowered:
        found += basic_pairs(text, lowered)
    if "-value" in lowered:
        found += _name_value_flags(text)
    if "user" in lowered and ("password" in lowered or "secret" in lowered):
        found += _paired_users(text)
    if any(name in lowered for name in _prose_words()):
        found += _prose_values(text, lowered)
        found += recalled_values(text, lowered)  # (a password said later than its name's slot)
    if " / " in text:
        found += used_pairs(text)
    if "," in text or "\t" in text or ";" in text or "|" in text:  # a table's secret column
        found += table_findings(text, lines_with(text, lowered, TABLE_WORDS))
    if "ISA" in text or "UNB+" in text or "MSH|" in text:  # an interchange's segments
        found += segment_findings(text)
    if ".join(" in text or "+" in text:
        found += join_findings(text)
    if "-" in text:  # a list's or a table's grouped keys (a licence's)
        found += map(Found._make, listed_keys(text))
    return found + run_findings(text, lowered)
