"""Checks on what a user types or pipes in, shared by the CLI and the stores (pure).

Helix keeps text as UTF-8 everywhere (the run log, JSON output, the prompt), so text that is
not UTF-8 is refused where it comes in, naming it, instead of failing deep inside:

    check_argv(argv)         every command-line argument must be UTF-8 (Python hands over
                             undecodable bytes as lone surrogates, which nothing can store)
                             and hold no NUL
    decode_text(raw, what)   bytes from a file or stdin: strict UTF-8, no NUL byte
    check_question(text, what)  the question: not empty, at most MAX_QUESTION_CHARS
    check_field(value, what)  any other text a client sends a server (a path, a repository,
                             a scope, a symbol): UTF-8, no NUL
    shown(value)             a user value fit for a one-line message: clipped, escaped

MAX_QUESTION_CHARS: a question is a sentence, a paragraph, or a whole pasted bug report with its
logs and tracebacks. 200,000 characters holds the longest real reports with room to spare; a
report longer than the controller's retrieval text (`controller.report_cut.RETRIEVAL_CHARS`)
is searched with its title, traceback frames, first paragraphs, code blocks and identifiers,
and the envelope says what was cut (`question_cut`). A megabyte is refused. The same limit
holds for `helix ask QUESTION`, `--question-file F`, `-` (stdin) and each `helix chat` line.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from pathlib import Path

from helix.core.errors import BadPathError, UserError

MAX_QUESTION_CHARS = 200_000
# the most bytes MAX_QUESTION_CHARS characters can take in UTF-8, plus one to see "more"
MAX_QUESTION_BYTES = 4 * MAX_QUESTION_CHARS
MAX_COUNT = 1_000_000  # the largest --limit / -k / --reply-to accepted
SHOWN_CHARS = 60


def shown(value: str, width: int = SHOWN_CHARS) -> str:
    """`value` quoted for a one-line message: undecodable bytes as \\xNN, control characters
    escaped, clipped to `width` characters with the full length said."""
    try:
        text = value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        text = value.encode("utf-8", "backslashreplace").decode("utf-8")
    text = "".join(ch if unicodedata.category(ch) != "Cc" else repr(ch)[1:-1] for ch in text)
    if len(text) > width:
        return f"'{text[:width]}'... ({len(value):,} characters)"
    return f"'{text}'"


def first_surrogate(value: str) -> int | None:
    """Index of the first character that stands for an undecodable byte, else None."""
    for index, ch in enumerate(value):
        if "\ud800" <= ch <= "\udfff":
            return index
    return None


def check_argv(argv: Sequence[str]) -> None:
    """Refuse an argument holding bytes that are not UTF-8 (exit 2), naming it."""
    for number, arg in enumerate(argv, start=1):
        at = first_surrogate(arg)
        if at is not None:
            raise UserError(f"argument {number} {shown(arg)} is not valid UTF-8 (at character "
                            f"{at}); Helix takes UTF-8 text and paths")
        if "\0" in arg:  # only an in-process caller can pass one: a C argv cannot hold it
            raise UserError(f"argument {number} {shown(arg)} holds a NUL character")


def decode_text(raw: bytes, what: str) -> str:
    """Strict UTF-8 text from a file or stdin; binary input is refused naming `what`."""
    nul = raw.find(b"\0")
    if nul >= 0:
        raise UserError(f"{what} holds a NUL byte at offset {nul}: binary input, not text")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start:exc.start + 1].hex()
        raise UserError(f"{what} is not valid UTF-8 (byte 0x{bad} at offset {exc.start})"
                        ) from None


def check_question(text: str, what: str = "the question") -> str:
    """The question stripped; refused when empty, not UTF-8 or longer than the limit."""
    at = first_surrogate(text)
    if at is not None:
        raise UserError(f"{what} is not valid UTF-8 (at character {at})")
    if "\0" in text:
        raise UserError(f"{what} holds a NUL character: binary input, not text")
    text = text.strip()
    if not text:
        raise UserError("no question given (pass it as an argument, --question-file F, or -)")
    if len(text) > MAX_QUESTION_CHARS:
        raise UserError(f"{what} is {len(text):,} characters long; the limit is "
                        f"{MAX_QUESTION_CHARS:,}")
    return text


def check_field(value: str, what: str) -> str:
    """`value` when it is UTF-8 text without a NUL; else a one-line UserError naming `what`
    (a NUL cannot be in a path, and undecodable text cannot be stored or shown)."""
    at = first_surrogate(value)
    if at is not None:
        raise UserError(f"{what} {shown(value)} is not valid UTF-8 (at character {at})")
    if "\0" in value:
        raise UserError(f"{what} {shown(value)} holds a NUL character")
    return value


def check_path_text(path: Path, what: str) -> Path:
    """`path` when its name is UTF-8 text; else a one-line BadPathError naming it (Helix
    stores repository paths as text in the index, the run log and JSON output)."""
    if first_surrogate(str(path)) is not None:
        raise BadPathError(f"{what} {shown(str(path))} is not valid UTF-8; Helix needs a "
                           "UTF-8 path (rename the directory)")
    return path
