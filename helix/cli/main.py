"""Entry point. Subcommands live in their own modules and are imported only when run,
so `helix --help` and light commands never pay for heavy imports."""

from __future__ import annotations

import errno
import importlib
import os
import sqlite3
import sys
from typing import Any, NoReturn

from helix.cli.early_helper import from_entry_point, start_early

# before anything heavy is imported: a configured model's helper starts importing litellm now
if from_entry_point(__name__, sys.argv[0]):
    start_early(sys.argv[1:])

import click

from helix.cli.safe_text import visible
from helix.core.errors import HelixError
from helix.core.paths import private_files
from helix.inputs import check_argv

ENTRY_POINTS = "helix.commands"  # other packages' commands (`helix eval` from evals)


def commands() -> dict[str, tuple[str, str]]:
    """Every command: the product's own table (`helix.cli.registry.COMMANDS`), then those
    installed packages declare in the `helix.commands` entry-point group (name -> the
    command's "module:attribute"; their help is the command's own)."""
    from importlib.metadata import entry_points

    from helix.cli.registry import COMMANDS

    table = dict(COMMANDS)
    for point in sorted(entry_points(group=ENTRY_POINTS), key=lambda p: p.name):
        table.setdefault(point.name, (point.value, ""))
    return table


def _command(target: str) -> click.Command:
    module_name, _, attr = target.partition(":")
    command = getattr(importlib.import_module(module_name), attr)
    assert isinstance(command, click.Command)
    return command


class LazyGroup(click.Group):
    """Commands imported only when run (or when `--help` lists an entry point's)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(commands())

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = commands().get(cmd_name)
        return _command(target[0]) if target is not None else None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_text or _command(target).get_short_help_str(limit=70))
                for name, (target, help_text) in sorted(commands().items())]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="helix", prog_name="helix")
def cli() -> None:
    """Helix: ask questions about a code and documentation repository.

    Answers cite `path:line` evidence from a local index (BM25, embeddings, tree-sitter
    symbols and a code graph). State lives under $HELIX_HOME.
    """


MAX_ERROR_CHARS = 300  # an error line names the input, never echoes 100,000 characters of it
ERROR_HEAD_CHARS = 100  # of those, the start kept (what was wrong); the rest is the end (the fix)


def error_line(message: str) -> str:
    """`helix: <message>` as exactly one terminal-safe line of bounded length: newlines
    folded, control characters made visible, the middle of a long message elided (its start
    says what was wrong; its longer end keeps the fix a message ends with, a command to run)."""
    from helix.core.secrets import redact_text  # only when there is an error to print

    # an error may quote what caused it (a provider's body, a file's line): masked first
    text = visible(" ".join(redact_text(str(message))[0].split()))
    if len(text) > MAX_ERROR_CHARS:
        head, tail = ERROR_HEAD_CHARS, MAX_ERROR_CHARS - ERROR_HEAD_CHARS
        text = f"{text[:head]} ...({len(text) - head - tail} characters)... {text[-tail:]}"
    return f"helix: {text}"


def _fail(message: str, code: int) -> NoReturn:
    click.echo(error_line(message), err=True)
    sys.exit(code)


def _home_shown() -> str:
    try:
        from helix.core.config import helix_home

        return str(helix_home())
    except HelixError:
        return "$HELIX_HOME"


def main(argv: list[str] | None = None) -> Any:
    private_files()  # $HELIX_HOME and everything in it: the user's alone (0700 / 0600)
    try:
        args = sys.argv[1:] if argv is None else list(argv)
        check_argv(args)  # bytes that are not UTF-8 are refused here, naming the argument
        return cli.main(args=args, prog_name="helix", standalone_mode=False)
    except HelixError as exc:
        _fail(str(exc), exc.exit_code)
    except click.exceptions.Abort:
        _fail("aborted", 130)
    except click.ClickException as exc:
        _fail(exc.format_message(), exc.exit_code)
    except KeyboardInterrupt:
        _fail("interrupted", 130)
    except BrokenPipeError:
        sys.exit(0)
    except sqlite3.OperationalError as exc:  # a full or read-only disk under a database
        _fail(f"cannot write a database under {_home_shown()}: {exc} (free some space, or "
              "set HELIX_HOME to a writable directory)", 1)
    except OSError as exc:  # a path the user gave cannot be read or written: not a bug
        where = f": {exc.filename}" if exc.filename else ""
        # a name too long for the file system can only be one the user gave: a user error
        _fail(f"{exc.strerror or exc}{where}", 2 if exc.errno == errno.ENAMETOOLONG else 1)
    except Exception as exc:  # a bug: still one line, the traceback only on request
        if os.environ.get("HELIX_DEBUG"):
            raise
        _fail(f"internal error: {type(exc).__name__}: {exc} "
              "(set HELIX_DEBUG=1 for the traceback)", 1)


if __name__ == "__main__":
    main()
