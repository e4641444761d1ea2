"""Values found under a secret's name that only point at a secret kept elsewhere.

- a section's name: an INI-style file whose `auth=` (or any secret-named key) names one of
  its own `[sections]` (Asterisk's pjsip `auth=6001-auth` and the `[6001-auth]` section that
  holds the user and password): the value is that section's title, the password is inside it;
- a path: a file holding the credentials (`credentials=/root/.smb-labels` in an fstab line,
  `password_file ~/.pgpass`), a secret store's path with its field (`kv/billing/stripe#sk`):
  lower case words joined by `/`, a leading `/`, `~/` or `./` or three parts or more.

`referenced` drops such findings (of the kinds read from a name: `assignment`, `keyword`)
before their recurrences are looked for, so a section's title is not masked either.
"""

from __future__ import annotations

import re

from helix.core.secret_gates import Finding

_NAMED_KINDS = frozenset({"assignment", "keyword"})
# a section's title alone on its line (`[6001-auth]`, `[clinic07-rx1-auth]`)
_SECTION = re.compile(r"^[ \t]*\[([^\[\]\n]{1,200})\][ \t]*\r?$", re.M)
# a path's parts: lower case words (a dot first for a hidden file), digits inside
_PART = r"\.?[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*"
_ROOTED_PATH = re.compile(r"(?:~|\.)?/" + _PART + r"(?:/" + _PART + r")*")
_STORE_PATH = re.compile(_PART + r"(?:/" + _PART + r"){2,}(?:#" + _PART + r")?")


def reference_path(value: str) -> bool:
    """A path to where a secret is kept: `/root/.smb-labels`, `kv/ldap/svc-hmi#bindpw`."""
    return (_ROOTED_PATH.fullmatch(value) is not None
            or _STORE_PATH.fullmatch(value) is not None)


def referenced(text: str, found: list[Finding]) -> list[Finding]:
    """`found` without the values that name a section of the same text or a path."""
    if not any(f.kind in _NAMED_KINDS for f in found):
        return found
    sections = ({m.group(1).strip() for m in _SECTION.finditer(text)} if "\n[" in text
                or text.startswith("[") else set())
    return [f for f in found if f.kind not in _NAMED_KINDS or not (
        text[f.start:f.end] in sections or reference_path(text[f.start:f.end]))]
