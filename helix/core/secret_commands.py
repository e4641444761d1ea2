"""Passwords on command lines, read from a table of programs (`secret_rules.toml`
[[commands]]): `curl -uU:PW`, `sqlcmd -P PW`, `ldapsearch -w PW`, `smbclient -U u%PW`,
`7z -pPW`, `zip -P PW`, `ssh-keygen -N PW`, `openssl enc -k PW`, `net use \\\\s /user:u PW` ...

    command_findings(text) -> (start, end, "command_password") spans

A program counts where it stands as a command word (at the start of a line or after a space,
a path, a pipe, a quote, `(` or a backtick, and followed by a space); its command runs to the
end of the line or an unquoted `|`, `;`, `&`, `)` or backtick. The words are split as a shell
would (quotes kept together), and each flag of the program's row is looked for in them:
`-P PW` (spaced), `-pPW` (attached), `--password=PW` (eq), and positional arguments. Lines
continued with `\\` are joined by the caller's view (`secret_views.joined_view`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from helix.core.secret_gates import (
    MAX_VALUE,
    MIN_PASSWORD_LEN,
    MIN_VALUE,
)
from helix.core.secret_rules import Command, Flag, rules
from helix.core.secret_structure import placeholder

KIND = "command_password"
_STOPS = frozenset("|;&)`\n")
_WINDOWS_DRIVE = re.compile(r"[A-Za-z]:|\*")


@cache
def _programs() -> re.Pattern[str]:
    names = sorted({p for c in rules().commands for p in c.programs}, key=lambda p: (-len(p), p))
    return re.compile(r"(?:^|(?<=[\s/(`'\"|;&]))(" + "|".join(re.escape(n) for n in names)
                      + r")(?:\.exe)?(?=[ \t])", re.M)


def programs() -> tuple[str, ...]:
    """Every program of the table (the prefilter's trigger words)."""
    return tuple(sorted({p for c in rules().commands for p in c.programs}))


def words(text: str, at: int) -> list[tuple[int, int]]:
    """The (start, end) of each word of the command from `at`, quotes kept inside a word."""
    out: list[tuple[int, int]] = []
    size = len(text)
    limit = min(size, at + MAX_VALUE)
    while at < limit:
        while at < limit and text[at] in " \t":
            at += 1
        if at >= limit or text[at] in _STOPS:
            break
        start = at
        quote = ""
        while at < limit and (quote or (text[at] not in " \t" and text[at] not in _STOPS)):
            char = text[at]
            if quote and char == quote:
                quote = ""
            elif not quote and char in "\"'":
                quote = char
            elif char == "\n":
                break
            at += 1
        out.append((start, at))
    return out


def _unquoted(text: str, start: int, end: int) -> tuple[int, int]:
    if end - start >= 2 and text[start] in "\"'" and text[end - 1] == text[start]:
        return start + 1, end - 1
    return start, end


def _by_form(text: str, start: int, end: int, form: str) -> tuple[int, int] | None:
    """The password's span inside a value of the given form."""
    start, end = _unquoted(text, start, end)
    value = text[start:end]
    if form == "password":
        return start, end
    if form == "pass:password":
        return (start + 5, end) if value.startswith("pass:") else None
    if form == "user/password@":  # the credential, not the database after `@`
        slash = value.find("/")
        if slash == -1:
            return None
        at = value.find("@", slash)
        return start, start + (at if at != -1 else len(value))
    separator = form[4]  # user:password, user%password, user,password: the whole credential
    cut = value.find(separator)
    return (start, end) if cut != -1 and cut + 1 < len(value) else None


def _flag_value(text: str, spans: list[tuple[int, int]], index: int, flag: Flag
                ) -> tuple[int, int] | None:
    start, end = spans[index]
    word = text[start:end]
    if word == flag.flag and flag.spaced and index + 1 < len(spans):
        following = spans[index + 1]
        if text[following[0]] == "-":
            return None  # another flag: the password is prompted for
        return _by_form(text, *following, flag.form)
    if flag.eq and word.startswith(flag.flag + "="):
        return _by_form(text, start + len(flag.flag) + 1, end, flag.form)
    if flag.attached and word.startswith(flag.flag) and len(word) > len(flag.flag):
        return _by_form(text, start + len(flag.flag), end, flag.form)
    return None


def _positional(text: str, spans: list[tuple[int, int]], command: Command
                ) -> tuple[int, int] | None:
    """The command's positional argument (flags `-x`, `/x` and SteamCMD's `+command` are none)."""
    args = [s for s in spans if text[s[0]] not in "-/+" and not _WINDOWS_DRIVE.fullmatch(
        text[s[0]:s[1]])]
    if command.subcommands and (not args or text[args[0][0]:args[0][1]] not in
                                command.subcommands):
        return None
    if len(args) < command.positional:
        return None
    span = _by_form(text, *args[command.positional - 1], command.form)
    if span is None or text[span[0]:span[1]].startswith("\\\\"):
        return None  # a share, not a password
    if span[1] - span[0] < MIN_PASSWORD_LEN and command.form == "password":
        return None
    return span


def _acceptable(value: str) -> bool:
    return len(value) >= MIN_VALUE and not placeholder(value) and not (
        value.startswith("%") and value.endswith("%"))


def command_findings(text: str) -> Iterator[tuple[int, int, str]]:
    table = rules()
    for match in _programs().finditer(text):
        spans = words(text, match.end())
        for command in table.commands_of(match.group(1)):
            found = [_flag_value(text, spans, i, flag) for i in range(len(spans))
                     for flag in command.flags]
            if command.positional:
                found.append(_positional(text, spans, command))
            for span in found:
                if span is not None and _acceptable(text[span[0]:span[1]]):
                    yield span[0], span[1], KIND
