"""The secret detector's data (`secret_rules.toml`), read once and typed.

    rules() -> Rules(tokens, commands, prose_names, examples)

The file ships with the package (package data) and is part of the index code digest
(`indexers/version.py`): what is masked is decided by it as much as by the code.
"""

from __future__ import annotations

import string
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

# Token body characters by the name the data file uses.
_ALNUM = string.ascii_letters + string.digits
BODY_CHARS = {
    "alnum": _ALNUM, "word": _ALNUM + "_", "b64url": _ALNUM + "_-", "b64": _ALNUM + "+/=",
    "any": _ALNUM + "+/=_.-", "hex": string.hexdigits,
    "upper": string.ascii_uppercase + string.digits,
    "lower": string.ascii_lowercase + string.digits,
    "dashed_upper": string.ascii_uppercase + string.digits + "-",
    "dashed_hex": string.hexdigits + "-",
    "azure": _ALNUM + "_~.-",
}
FORMS = ("password", "user:password", "user%password", "user,password", "user/password@",
         "pass:password")


@dataclass(frozen=True)
class Token:
    prefix: str
    body: frozenset[str]
    min: int
    infix: bool  # the marker stands inside the token (`<id>.atlasv1.<secret>`)
    suffix: bool = False  # the marker ends the token, its body before it (`<body>-NRMA`)


@dataclass(frozen=True)
class Flag:
    flag: str
    form: str
    attached: bool  # -pSECRET
    spaced: bool  # -p SECRET
    eq: bool  # --password=VALUE


@dataclass(frozen=True)
class Command:
    programs: tuple[str, ...]
    flags: tuple[Flag, ...]
    subcommands: tuple[str, ...]
    positional: int  # 0: none
    form: str


@dataclass(frozen=True)
class Rules:
    tokens: tuple[Token, ...]
    commands: tuple[Command, ...]
    prose_names: tuple[str, ...]
    examples: frozenset[str] = frozenset()  # documented example values, no credentials

    def commands_of(self, program: str) -> tuple[Command, ...]:
        return tuple(c for c in self.commands if program in c.programs)


def _flag(raw: dict[str, Any]) -> Flag:
    form = str(raw.get("form", "password"))
    if form not in FORMS:
        raise ValueError(f"secret_rules.toml: unknown form {form!r}")
    return Flag(flag=str(raw["flag"]), form=form, attached=bool(raw.get("attached", False)),
                spaced=bool(raw.get("spaced", True)),
                eq=bool(raw.get("eq", str(raw["flag"]).startswith("--"))))


def parse(data: dict[str, Any]) -> Rules:
    tokens = tuple(Token(prefix=str(t["prefix"]), body=frozenset(BODY_CHARS[t["body"]]),
                         min=int(t["min"]), infix=bool(t.get("infix", False)),
                         suffix=bool(t.get("suffix", False)))
                   for t in data["tokens"])
    commands = tuple(Command(programs=tuple(c["programs"]),
                             flags=tuple(_flag(f) for f in c.get("flags", ())),
                             subcommands=tuple(c.get("subcommands", ())),
                             positional=int(c.get("positional", 0)),
                             form=str(c.get("form", "password")))
                     for c in data["commands"])
    return Rules(tokens=tokens, commands=commands,
                 prose_names=tuple(data["prose"]["names"]),
                 examples=frozenset(data.get("examples", {}).get("values", ())))


@cache
def rules() -> Rules:
    text = resources.files("helix.core").joinpath("secret_rules.toml").read_text("utf-8")
    return parse(tomllib.loads(text))
