"""Secrets found by where a value stands, whatever it looks like.

A value is a secret when its place names one: the key of an assignment or mapping (code of any
language, `.env`, YAML, TOML, INI, JSON, properties), a command-line flag (`--password X`,
`-storepass X`, `-passin pass:X`, `curl -u user:X`, `docker login -p X`, `htpasswd -b f u X`),
an XML/HTML element or a key/value attribute pair, an HTTP header (`Authorization: Basic X`), a
URL query parameter (`?access_token=X`), a connection string (`Password=X;`), a webhook URL, or
prose that says so (`the password is: X`). The value may be words, hex, short or on a line of
any length; escaped text (a notebook's JSON strings) is read with its escapes undone.

    structural_findings(text) -> [(start, end, kind)] in `text`'s own offsets

Every rule is linear in the text: a name is found by the secret word inside it and grown
outward by hand, never by a regular expression that could backtrack over a long line.
What survives: code expressions (`password = get_password()`, `token = self.token`, `secret:
str`), labels (`PASSWORD_FIELD = "password"`, `prompt = "Enter your password:"`), templates and
placeholders (`${DB_PASSWORD}`, `<your token>`, `%(pw)s`, `changeme`), and, for the weak names
(`token`, `auth`, `key`), values that do not read like a credential.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

import re2

from helix.core.english import word_alternation
from helix.core.secret_gates import MAX_NAME, MAX_VALUE, MIN_VALUE, SEED_WORD_LENGTH, SEED_WORDS
from helix.core.secret_grouped import licence_keys
from helix.core.secret_held import held_literal
from helix.core.secret_lookalikes import own_word, prose_after_scheme, scheme_end
from helix.core.secret_names import FOREIGN_NAME_FORMS, META_SUFFIXES, name_strength
from helix.core.secret_re2 import spans
from helix.core.secret_values import (
    credential_like,
    is_label,
    placeholder,
    quoted_ok,
    random_token,
    seed_phrase,
    unquoted_ok,
)

__all__ = ["Found", "credential_like", "is_label", "line_bounds", "name_strength",
           "placeholder", "quoted_ok", "quoted_value", "random_token", "structural_findings",
           "unquoted_ok"]


class Found(NamedTuple):
    start: int
    end: int
    kind: str



_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False
# a secret word inside a name: RE2 (linear, and an order faster than `re` over every window)
_TRIGGER = re2.compile(r"(?i)pass|pwd|pw\b|pin\b|hmac|[_.\-]cert(?:ificate)?\b|secret|token|key|"
                       r"auth|cred|salt|bearer|"
                       r"sig|login|"
                       r"access[_.\-]?id|BUNDLE_|mnemonic|seed|phrase|psk|sess|appid|sid\b|"
                       r"[_.\-]pat\b|erlang[_.\-]?cookie|honeycomb-team|"
                       + word_alternation(tuple(n for n in FOREIGN_NAME_FORMS if n.isascii())),
                       options=_RE2_OPTIONS)
# the names outside ASCII (`пароль`, `密码`): their own pass, only over a text outside ASCII
_WIDE_FORMS = tuple(f for n in FOREIGN_NAME_FORMS if not n.isascii()
                    for f in sorted({n, n.capitalize(), n.upper()}))  # cases spelled out
_WIDE_TRIGGER = re2.compile(word_alternation(_WIDE_FORMS), options=_RE2_OPTIONS)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-$@")
_QUOTES = "\"'`"
_AFTER_NAME = frozenset("\"'`] \t[0123456789")  # between a name and its operator
_DECLARATOR = re.compile(r"\[[0-9]{0,6}\]")  # a C array's size after its name
_SEED_SHAPED = re.compile(  # a line's rest that may be a recovery phrase (`seed_phrase`'s words)
    rf"(?:[\s,]*+[^\s,]{{1,{SEED_WORD_LENGTH[1]}}}+(?![^\s,])){{0,{SEED_WORDS[-1]}}}+[\s,]*+")
_LITERAL_PREFIXES = frozenset("@rbuLN")  # before a string literal's quote (N: T-SQL's Unicode)
_OPERATOR_START = frozenset("=:{?+-.|")
# a note in parentheses between a label and its colon (`API key (sandbox):`, `Password
# (prod):`): words, no quote nor operator of its own
_QUALIFIER = re.compile(r"\([A-Za-z0-9][A-Za-z0-9 ,./\-]{0,40}\)(?=[ \t]*:(?![:=/]))")
# assignment operators of two or more characters: Make's `::=` `:::=` `?=` `+=`, Go's `:=`,
# PHP's `.=` `??=`, Ruby's `||=`, and `=>`
_OPERATORS = (":::=", "::=", "??=", "||=", ":=", "=>", "->", "?=", "+=", ".=")
_GO_TYPED = re.compile(r"[ \t]+[A-Za-z_][\w.\[\]*]{0,40}[ \t]*=(?!=)")
_ANCHOR = re.compile(r"(?:[&!][^\s,]*[ \t]+)+")  # YAML `&anchor ` and `!!tag ` before a value
_XML_ELEMENT = re.compile(r"<([A-Za-z_][\w:.\-]{0,79})(\s[^<>\n]{0,400})?>([^<\n]{1,4096})"
                          r"</\1\s*>")
# an element named by its attribute (Android's `<string name="api_key">`, `<add key="...">`)
_NAME_ATTRIBUTE = re.compile(r"\b(?:name|key)[ \t]*=[ \t]*([\"'])([^\"'<>\n]{1,80})\1")
_XML_PAIR = re.compile(r"(?i)\b(?:key|name|id)[ \t]*=[ \t]*([\"'])([^\"'<>\n]{1,80})\1"
                       r"(?:[ \t]+|[ \t]*\r?\n[ \t]*)"
                       r"(?:[\w\-]{1,20}:)?(?:value|content)[ \t]*=[ \t]*"  # (android:value)
                       r"([\"'])([^\"'\n]{1,4096})\3")
# a literal converted to bytes or a string where it is assigned (Go, Node, Python, C#, Java)
# (or decoded from hex: Python's `bytes.fromhex("...")`, `binascii.unhexlify("...")`)
_WRAPPER = re.compile(r"(?:\[\]byte|Buffer\.from|(?:bytes|bytearray)(?:\.fromhex)?|"
                      r"(?:binascii\.)?unhexlify|Encoding\.\w{1,20}\.GetBytes|"
                      r"str|String(?:::from)?|new[ \t]+String|SecretStr|Secret|"
                      r"Some|SecretString::new|SecretString::from)\(")
# a key's bytes as a list of numbers under its name (Zigbee's `network_key`, a C array)
_BYTE_LIST = re.compile(r"[ \t]*((?:(?:0[xX][0-9a-fA-F]{1,2}|[0-9]{1,3})[ \t]*,[ \t]*){15,}"
                        r"(?:0[xX][0-9a-fA-F]{1,2}|[0-9]{1,3}))[ \t]*,?[ \t]*[\]}]")
MIN_KEY_BYTES = 16
_QUERY_PAIR = re.compile(r"[A-Za-z_][\w.\-]{0,40}=")  # `&name=` after a value: a query's pair
_LOGFMT_REST = re.compile(r"[A-Za-z_][\w.\-]*(?:=|[ \t]|$)")  # `user=42 ...`, `for user alice`
# (Rust's `&str`, `&'static str`, a slice, an array, a reference inside: `&[u8]`, `[u8; 32]`)
_TYPE_ANNOTATION = re.compile(r"[ \t]*(?:&(?:'[a-z]+[ \t]+)?)?(?:[A-Za-z_]|\[(?=[\w&]))"
                              r"[\w.\[\]<>|?, &';]{0,60}?[ \t]+=(?!=)")


def _quote_at(text: str, at: int) -> bool:
    return at < len(text) and text[at] in _QUOTES


def _grow(text: str, start: int, end: int) -> tuple[int, int]:
    """The name around a secret word: identifier characters, `-` and `.`, at most MAX_NAME."""
    left, right = start, end
    while left > 0 and end - left < MAX_NAME and (
            text[left - 1] in _NAME_CHARS
            or (text[left - 1] > "\x7f" and text[left - 1].isalnum())):
        left -= 1  # (a letter or digit outside ASCII too: `пароль_бд`, `数据库密码`)
    while right < len(text) and right - start < MAX_NAME and (
            text[right] in _NAME_CHARS or (text[right] > "\x7f" and text[right].isalnum())):
        right += 1
    return left, right


def _skip_spaces(text: str, at: int, limit: int) -> int:
    while at < limit and text[at] in " \t":
        at += 1
    return at


def quoted_value(text: str, at: int, line_end: int) -> tuple[int, int] | None:
    """(start, end) of the string literal opening at `at` (escapes skipped), same line."""
    quote = text[at]
    if text.startswith(quote * 3, at):
        return None  # a docstring or block string: prose, not a value
    index = at + 1
    limit = min(line_end, at + 1 + MAX_VALUE)
    while index < limit:
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == quote:
            return at + 1, index
        index += 1
    return None


def _stripped(text: str, start: int, end: int) -> tuple[int, int]:
    """A literal's span without the spaces inside its quotes (`'tkn.v1_abc= '`)."""
    while start < end and text[start] in " \t":
        start += 1
    while end > start and text[end - 1] in " \t":
        end -= 1
    return start, end


def _unquoted_end(text: str, at: int, line_end: int, stops: str) -> int:
    limit = min(line_end, at + MAX_VALUE)  # the first stop before it (C scans, not a walk)
    return min((i for stop in stops if (i := text.find(stop, at, limit)) >= 0),
               default=max(at, limit))


def _after_operator(text: str, at: int, before_op: int, name_start: int, line_start: int,
                    line_end: int, strength: str) -> int | None:
    """Past the assignment operator at `at` (`=`, `:`, `:=`, `=>`, Go's typed `var`, C++'s
    `{`, a list's ` - ` before a literal), None when none stands there."""
    if text[at:at + 2] in ("==", "!=", "=~", "<=", ">="):
        return None
    operator = next((op for op in _OPERATORS if text.startswith(op, at)), None)
    typed = _GO_TYPED.match(text, at - 1) if text[at - 1:at] in " \t" else None
    if operator is not None:
        at += len(operator)
    elif typed is not None and text[line_start:name_start].strip() in ("var", "const"):
        at = typed.end()  # Go's `var name Type = value`
    elif text[at] == "{" and _quote_at(text, at + 1) and strength == "strong":
        at += 1  # C++ brace initialisation: password{"..."}
    elif (text[at] == "-" and at > before_op and text[at + 1:at + 2] in (" ", "\t")
          and _quote_at(text, _skip_spaces(text, at + 1, line_end))):
        at += 1  # `vendor token - 'value'`: a dash between spaces before a literal (a list)
    elif (text[at] == "|" and text[at + 1:at + 2] != "|"
          and text[line_start:name_start].strip() in ("", "|")):
        at += 1  # a table row, `| api_key | value |`, `apiKey |value` (a name opening it)
    elif text[at] in "=:":
        if text[at] == ":" and not _quote_at(text, at + 1):
            annotated = _TYPE_ANNOTATION.match(text, at + 1, line_end)
            if annotated is not None:  # `secret: string = '...'` (TypeScript, Python, Kotlin)
                at = annotated.end() - 1
        at += 1
    else:
        return None
    if text[at:at + 1] in ("=", ":"):  # `::`, `a:=` handled; `==` done
        return None
    return at


def _quoted_found(text: str, at: int, line_end: int, strength: str,
                  parenthesized: bool) -> Found | None:
    span = quoted_value(text, at, line_end)
    if span is None:
        return None
    start, end = _stripped(text, *span)
    if not quoted_ok(text[start:end], strength):
        return None
    after = text[span[1] + 1:line_end].lstrip(" \t")
    if parenthesized and after[:1] not in ("", ")"):
        return None
    return Found(start, end, "assignment")


def _expression_follows(rest: str, opened: str, strength: str, value: str) -> bool:
    """What follows an unquoted value makes it part of an expression (`password = a + b`,
    `secret: str = None`), unless it closes a literal the line stands in (`"X-Api-Key: abc"`,
    `secret: abc"`) or is a comment or separator."""
    if opened and opened in _QUOTES and rest.startswith(opened):
        after = rest[1:].strip()
        if not after or after.startswith(("#", "//", ";", ",", "&", "\\")):
            return False
        # the literal the name opened closes, more follows: `-H "X-Auth-Key: abc" https://...`
        # (under a weak name an issued token's value, not `'AUTH=CRAM-MD5' in capabilities`)
        return not (strength == "strong" or random_token(value))
    if (rest and rest[0] in _QUOTES and (strength == "strong" or random_token(value))
            and not rest.rstrip(";,)]}").lstrip(rest[0]).strip()):
        rest = ""  # the line is inside a literal opened before it
    return bool(rest) and not rest.startswith(("#", "//", ";", ",", "&", "\\"))


def _assignment(text: str, name_start: int, name_end: int, line_start: int,
                line_end: int, strength: str) -> Found | None:
    """The value assigned to the name at [name_start, name_end), when its place is one."""
    at = name_end
    if at < line_end and text[at] in _QUOTES:  # "name": value
        at += 1
    if at < line_end and text[at] == "]":  # ['password'] = value
        at += 1
    declarator = _DECLARATOR.match(text, at, line_end)
    if declarator is not None:  # char secret[25] = "...", secret[] = "..."
        at = declarator.end()
    before_op = at
    at = _skip_spaces(text, at, line_end)
    if at >= line_end:
        return None
    after_op = _after_operator(text, at, before_op, name_start, line_start, line_end, strength)
    if after_op is None:
        return None
    spaced = after_op - before_op > 1
    at = _skip_spaces(text, after_op, line_end)
    anchor = _ANCHOR.match(text, at, line_end)
    if anchor is not None:
        at = anchor.end()
    if at >= line_end:
        return None
    if text[at] in "[{":
        listed = _BYTE_LIST.match(text, at + 1, line_end)
        if listed is not None and _key_bytes(listed.group(1)):
            return Found(listed.start(1), listed.end(1), "assignment")
    wrapper = _WRAPPER.match(text, at, line_end)
    if wrapper is not None and _quote_at(text, wrapper.end()):
        at = wrapper.end() - 1  # []byte("..."), Buffer.from("..."): the literal converted
    parenthesized = text[at] == "(" and _quote_at(text, at + 1)
    if parenthesized:
        at += 1  # a parenthesized literal: ("abc"), not a tuple ("a", "b")
    if text[at] in _LITERAL_PREFIXES and text[at + 1:at + 2] in _LITERAL_PREFIXES:
        at += _quote_at(text, at + 2)  # br"..." rb"..." (Rust's and Python's raw bytes)
    if text[at] in _LITERAL_PREFIXES and _quote_at(text, at + 1):
        at += 1  # @"..." (Objective-C, C#), r"..." b"..." u"..." L"..." N'...'
    if text[at] in _QUOTES:
        return _quoted_found(text, at, line_end, strength, parenthesized)
    scheme = scheme_end(text, at, line_end)  # Authorization: Basic <value>, `KEY=App <value>`
    if scheme is not None:
        at = _skip_spaces(text, scheme, line_end)
        end = _unquoted_end(text, at, line_end, " \t\"',;")
        value = text[at:end]
        if len(value) >= MIN_VALUE and not placeholder(value) and not prose_after_scheme(
                value, text[end:line_end]):  # (`auth: token refreshed for ...`: a log's)
            return Found(at, end, "assignment")
        return None
    if strength in ("phrase", "strong") and _SEED_SHAPED.fullmatch(text, at, line_end):
        phrase_end = len(text[at:line_end].rstrip(" \t\r"))  # `mnemonic: word word ...` to the
        if seed_phrase(text[at:at + phrase_end]):  # line's end (`_SEED_SHAPED`: read once a name)
            return Found(at, at + phrase_end, "assignment")
    head = text[line_start:name_start].strip()
    name = text[name_start:name_end]
    glued = not spaced and text[name_end:name_end + 1] == "="
    # `NAME=value` at a line's start (.env, shell, compose) or, for a strong name, anywhere
    # (a question: "the GITHUB_TOKEN=... fails")
    env_style = glued and (name.isupper() or "." in name or "-" in name) and (
        head in ("", "export", "set", "ENV", "-", "- ")
        or (name.isupper() and strength == "strong"))
    table = text[after_op - 1] == "|"
    # `#` after a space: a comment; a table's cell ends at its bar
    # in a `.env` file or a Dockerfile's ENV, `;`, `,` and `&` are the value's own characters
    stops = " \t|" if table else " \t\"'`" if env_style and head in ("", "ENV") else " \t;,&\"'`"
    end = _unquoted_end(text, at, line_end, stops)
    while (end < line_end and text[end] == "&" and not head and strength == "strong"
           and _QUERY_PAIR.match(text, end + 1, line_end) is None):
        end = _unquoted_end(text, end + 1, line_end, stops)  # `pass=Tr0u&b4d`: no `&name=`
    value = text[at:end]
    opened = text[name_start - 1] if name_start > line_start else ""
    rest = text[end:line_end].strip()
    if table and rest.startswith("|"):
        rest = ""  # the cell's end
    # a log line's `name=value` pairs (logfmt): words follow, no operator
    # (a strong name's value before more `name=value` pairs: a libpq connection string's
    # `password=X sslmode=require`)
    logfmt = glued and _LOGFMT_REST.match(rest) is not None and (
        random_token(value) or (strength == "strong" and _QUERY_PAIR.match(rest) is not None))
    if not env_style and not logfmt and _expression_follows(rest, opened, strength, value):
        return None
    if not unquoted_ok(value, strength, env_style) and not _listed(value, strength, env_style):
        return None
    return Found(at, end, "assignment")


def _key_bytes(listed: str) -> bool:
    """At least MIN_KEY_BYTES bytes written as numbers (`[155, 25, ...]`, `{0x76, 0x6b, ...}`),
    not one repeated nor counting up: a key's bytes."""
    values = [int(n, 0) for n in listed.replace(" ", "").replace("\t", "").split(",") if n]
    return (len(values) >= MIN_KEY_BYTES and max(values) <= 255 and len(set(values)) > 2
            and values != list(range(values[0], values[0] + len(values))))


def _listed(value: str, strength: str, env_style: bool) -> bool:
    """A list of keys in one value (`APP_KEYS=k1,k2`: the old and the new while rotating),
    each one a secret by itself."""
    parts = value.split(",")
    return len(parts) > 1 and all(unquoted_ok(part, strength, env_style) for part in parts)


def _flag(text: str, name_start: int, name_end: int, line_end: int) -> Found | None:
    """`--password X`, `--password=X`, `-storepass X`, `-passin pass:X`, `--passphrase X`."""
    flag = text[name_start:name_end].lstrip("-").lower()
    parts = flag.replace("_", "-").split("-")
    secret_flag = (any(p.startswith(("pass", "secret")) or p.endswith(("pass", "password",
                                                                      "secret", "token"))
                       for p in parts) or flag in ("api-key", "apikey", "access-key", "auth")
                   or (len(parts) > 1 and parts[-1] in ("key", "token")
                       and parts[-2] in ("api", "access", "secret", "private", "auth", "client",
                                         "master", "signing")))
    if not secret_flag or flag.endswith(("file", "path", "fd", "env", "stdin", "cmd",
                                         "command", "-len", "-length")):
        return None
    if len(parts) > 1 and parts[-1] in META_SUFFIXES:
        return None  # `--secret-id prod/db`, `--token-ttl 3600`: what names or bounds it
    at = name_end
    if at < line_end and text[at] == "=":
        at += 1
    elif at < line_end and text[at] in " \t":
        at = _skip_spaces(text, at, line_end)
    else:
        return None
    if at >= line_end or text[at] == "-":
        return None
    if text[at] == "(":
        if not _quote_at(text, at + 1):
            return None  # `-Password (ConvertTo-SecureString $pw ...)`: an expression
        at += 1  # a parenthesized literal: ("abc")
    if text[at] in _QUOTES:
        span = quoted_value(text, at, line_end)
        if span is None:
            return None
        start, end = span
    else:
        start, end = at, _unquoted_end(text, at, line_end, " \t\"'`;|&)")
    if text.startswith("pass:", start):
        start += 5
    elif text.startswith(("env:", "file:", "fd:", "stdin"), start):
        return None
    value = text[start:end].rstrip(".,")
    if len(value) < MIN_VALUE or placeholder(value) or is_label(value):
        return None
    return Found(start, start + len(value), "command_password")


def line_bounds(text: str, at: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return start, len(text) if end == -1 else end


def _named_values(text: str) -> Iterator[Found]:
    seen_names: set[tuple[int, int]] = set()
    size = len(text)
    # ASCII text as bytes: RE2 reads UTF-8, and its byte offsets are then character offsets
    wide = not text.isascii()
    subject: str | bytes = text if wide else text.encode("ascii")
    matches: Iterable[tuple[int, int]] = (
        spans(_TRIGGER, subject) if not wide  # type: ignore[arg-type]
        else (match.span() for match in heapq.merge(
            _TRIGGER.finditer(subject), _WIDE_TRIGGER.finditer(subject),
            key=lambda match: match.start()))
        if any(form in text for form in _WIDE_FORMS)  # (`in`: a fast scan)
        else (match.span() for match in _TRIGGER.finditer(subject)))
    for match_start, match_end in matches:
        name_start, name_end = _grow(text, match_start, match_end)
        if (name_start, name_end) in seen_names:
            continue
        seen_names.add((name_start, name_end))
        after = name_end
        while after < size and text[after] in _AFTER_NAME:
            after += 1
        op_from = name_end  # where the operator is read from
        qualified = (_QUALIFIER.match(text, after)  # (a space before it: not a call's `(`)
                     if text[after:after + 1] == "(" and text[after - 1] in " \t" else None)
        if qualified is not None:  # `Pre-shared key (IPsec fallback): ...`: a label's note
            op_from = qualified.end()
            after = _skip_spaces(text, op_from, size)
        if ((after >= size or text[after] not in _OPERATOR_START) and text[name_start] != "-"
                and _GO_TYPED.match(text, name_end) is None):
            if text[name_end:name_end + 1] in ("(", " ", "\t"):
                yield from _held(text, name_start, name_end)
            continue  # `pass`, `tokens.append(...)`: no operator follows the name
        line_start, line_end = line_bounds(text, name_start)
        name = text[name_start:name_end]
        if name.startswith("-") and (name_start == line_start or text[name_start - 1] in " \t"):
            found = _flag(text, name_start, name_end, line_end)
            if found is not None:
                yield found
            continue
        if name_start > 0 and text[name_start - 1] in "/\\":
            continue  # a path: /etc/passwd
        if text[name_start - 1:name_start] == ":" and _in_resource_name(text, name_start):
            continue  # arn:aws:secretsmanager:...:secret:prod/db, ://USER:PASSWORD@: a part
        core_start = name_start
        while core_start < name_end and text[core_start] in "$@.-":
            core_start += 1
        strength = name_strength(name)
        if strength is None:
            continue
        found = _assignment(text, core_start, op_from, line_start, line_end, strength)
        if found is not None and not own_word(text[found.start:found.end], name):
            yield found  # not `POSTGRES_PASSWORD=postgres`: a default, the name's own word


_RESOURCE_SCHEMES = ("arn:", "urn:")
_NAME_STOPS = " \t\n\"'`=(,[{<"


def _in_resource_name(text: str, at: int) -> bool:
    """`at` stands inside an ARN or URN (its parts are separated by `:`) or a URL."""
    low = max(0, at - MAX_VALUE)  # back to the nearest separator (a C scan, not a walk)
    start = max(low, *(text.rfind(stop, low, at) + 1 for stop in _NAME_STOPS))
    return text.startswith(_RESOURCE_SCHEMES, start) or "://" in text[start:at]  # a URL's


def _held(text: str, name_start: int, name_end: int) -> Iterator[Found]:
    """A literal the name holds with no operator (`secret_held`): a directive's or an
    initialisation's only under a name that says secret; a licence's key after `licence key`."""
    if name_end - name_start == len("key"):
        yield from map(Found._make, licence_keys(text, name_start, name_end))
    held = held_literal(text, name_start, name_end)
    if held is None:
        return
    strength = name_strength(held.name)
    if strength is None or (held.form in ("directive", "init") and strength != "strong"):
        return
    value = text[held.start:held.end]
    if quoted_ok(value, strength) and (held.form != "call" or strength != "strong"
                                       or credential_like(value) or _symbols(value)):
        yield Found(held.start, held.end, "assignment")  # not `zip.setpassword("unicode")`


def _symbols(value: str) -> bool:
    return any(not c.isalnum() and c not in "._-" for c in value)


def _xml(text: str) -> Iterator[Found]:
    for match in _XML_ELEMENT.finditer(text):
        strength = name_strength(match.group(1).split(":")[-1])
        attribute = _NAME_ATTRIBUTE.search(match.group(2) or "")
        if strength is None and attribute is not None:  # <string name="app_secret">X</string>
            strength = name_strength(attribute.group(2))
        value = match.group(3).strip()
        if strength is None or not quoted_ok(value, strength):
            continue
        start = match.start(3) + match.group(3).index(value)
        yield Found(start, start + len(value), "xml_secret")
    for match in _XML_PAIR.finditer(text):
        strength = name_strength(match.group(2))
        if strength is not None and quoted_ok(match.group(4), strength):
            yield Found(match.start(4), match.end(4), "xml_secret")


def _direct(text: str) -> Iterator[Found]:
    yield from _named_values(text)
    lowered = text.lower()  # which rules can match at all: a literal each must contain
    if "</" in text or "value=" in lowered or "content=" in lowered:
        yield from _xml(text)


def structural_findings(text: str) -> list[Found]:
    """Every value whose place names a secret, in `text`'s offsets (the caller reads the
    escaped and joined views too: `secrets._views`)."""
    return list(_direct(text))
