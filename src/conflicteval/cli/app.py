"""The ``conflicteval`` parser and entry point: each area adds its own sub-commands from its
module in this package, in the order and with the command groups of
:data:`conflicteval.cli.commands.AREAS`.
"""

from __future__ import annotations

import argparse
import difflib
import errno
import importlib.util
import json
import logging
import os
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from conflicteval._version import __version__
from conflicteval.cli.commands import AREAS, add_area, add_command_group
from conflicteval.cli.options import add_cache_dir, add_json, add_model_filter, check_required
from conflicteval.errors import ConflictEvalError
from conflicteval.suggest import did_you_mean


def _cache_info(args: argparse.Namespace) -> int:
    from conflicteval.cache import ResponseCache

    info = ResponseCache(args.cache_dir).info()
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        print(
            f"cache: {info['path']}"
            + (f" ({info['mode']})" if info["mode"] != "read-write" else "")
        )
        print(f"entries: {info['entries']}")
        print(f"size on disk: {info['size_bytes'] / 1024:.1f} KiB")
        for model, n in sorted(info["per_model"].items()):
            print(f"  {model}: {n}")
    return 0


def _cache_clear(args: argparse.Namespace) -> int:
    from conflicteval.cache import ResponseCache

    cache = ResponseCache(args.cache_dir)
    n = cache.clear(args.model)
    print(f"deleted {n} cached responses from {cache.path}")
    return 0


class CommandParser(argparse.ArgumentParser):
    """An argument parser whose errors suggest the nearest valid word ("did you mean ...?").

    Sub-command parsers are of this class too (``add_subparsers`` makes them of the parent's
    class), so a mistyped choice names the closest choice with the sub-command's usage.
    """

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """argparse's parsing, then the required options an old spelling may stand for."""
        parsed, extras = super().parse_known_args(args, namespace)
        check_required(self, parsed)
        return parsed, extras

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}{_choice_hint(message)}\n")


def _choice_hint(message: str) -> str:
    """ "; did you mean 'x'?" for argparse's "invalid choice: 'y' (choose from ...)" message."""
    found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
    if not found:
        return ""
    choices = re.findall(r"'([^']*)'", found.group(2)) or found.group(2).split(", ")
    return did_you_mean(found.group(1), choices)


def _selected_parser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Any:
    """The deepest sub-command parser ``args`` went through (for its usage in an error)."""
    current = parser
    while True:
        subs = [a for a in current._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            return current
        chosen = getattr(args, subs[0].dest, None)
        if chosen is None or chosen not in subs[0].choices:
            return current
        current = subs[0].choices[chosen]


def _unrecognized(parser: argparse.ArgumentParser, extras: list[str]) -> str:
    """argparse's "unrecognized arguments" message, with the nearest option for each."""
    options = [o for a in parser._actions for o in a.option_strings]
    hints: list[tuple[str, str]] = []
    for extra in extras:
        if extra.startswith("-"):
            typed = extra.split("=", 1)[0]
            close = difflib.get_close_matches(typed, options, n=1, cutoff=0.6)
            if close:
                hints.append((close[0], typed))
    if len(hints) == 1:
        hints = [(hints[0][0], "")]
    named = [f"{option} for {typed}" if typed else option for option, typed in hints]
    text = f"unrecognized arguments: {' '.join(extras)}"
    return text + (f" (did you mean {', '.join(named)}?)" if named else "")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every area's sub-commands."""
    parser = CommandParser(
        prog="conflicteval",
        description=(
            "Conflict-aware evaluation of LLMs: does a model notice, and say, that its sources "
            "disagree? Start with 'conflicteval demo'."
        ),
    )
    parser.add_argument("--version", action="version", version=f"conflicteval {__version__}")
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    cache_sub = add_command_group(sub, "cache", "inspect or clear the response cache")
    info = cache_sub.add_parser("info", help="where the cache is, its entries and size")
    add_cache_dir(info, old=("--dir",))
    add_json(info)
    info.set_defaults(func=_cache_info)
    clear = cache_sub.add_parser("clear", help="delete cached responses")
    add_cache_dir(clear, old=("--dir",))
    add_model_filter(clear)
    clear.set_defaults(func=_cache_clear)

    for area in AREAS:
        if importlib.util.find_spec(area.module) is None:
            continue
        add_area(sub, area)
    _describe_subcommands(parser)
    return parser


def _describe_subcommands(parser: argparse.ArgumentParser) -> None:
    """Give every sub-command without a description its one-line help as one, so that
    ``conflicteval X Y --help`` says what Y does, as the listing of ``X --help`` does."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {a.dest: a.help for a in action._choices_actions}
        for name, sub in action.choices.items():
            text = helps.get(name)
            if sub.description is None and isinstance(text, str) and text:
                sub.description = text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")
            _describe_subcommands(sub)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``conflicteval`` command."""
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    if extras:  # the sub-command's usage, not the top-level one, and the nearest option
        sub = _selected_parser(parser, args)
        sub.error(_unrecognized(sub, extras))
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    from conflicteval.models.decoding import forget_said
    from conflicteval.pricing import forget_notes

    forget_said()  # each command is a run: it says its decoding deviations and
    forget_notes()  # each missing price once
    try:
        status = _run_timed(args)
        sys.stdout.flush()  # a reader that went away shows here, not at interpreter exit
        return status
    except BrokenPipeError:
        # the reader went away (`... | head`): it asked for no more, which is not a failure;
        # no error line, and a quiet final flush
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 0
    except (ConflictEvalError, ValueError, OSError) as exc:
        # a user mistake (bad option, input file or configuration): one line, no traceback
        # (-vv logs the traceback at debug level)
        logging.getLogger("conflicteval.cli").debug("traceback", exc_info=True)
        if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
            print(
                f"error: could not write {exc.filename or 'a file'}: no space left on the "
                "device; finished items are safe in the checkpoint: free space and run the "
                "same command again to resume",
                file=sys.stderr,
            )
            return 2
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; finished items are kept in the checkpoint", file=sys.stderr)
        return 130


def _run_timed(args: argparse.Namespace) -> int:
    """Run the command (repeated warnings said once, its elapsed time printed at the end),
    recording when it started and how long each model call took (the
    run's summary reports them: see :func:`conflicteval.results.build.timing_of`)."""
    import time

    from conflicteval._calltimes import time_calls
    from conflicteval.cli.terminal import collapse_repeats, timed

    args.started_at = time.time()
    with timed(), collapse_repeats(every=args.verbose > 0), time_calls() as seconds:
        args.call_seconds = seconds
        status = int(args.func(args) or 0)
    return status


def _one_line(exc: BaseException) -> str:
    # an error may carry its command-line wording ("--variant nq", not "variant='nq'")
    text = " ".join(str(getattr(exc, "cli_message", None) or exc).split()) or type(exc).__name__
    if isinstance(exc, OSError) and exc.filename is not None and str(exc.filename) not in text:
        text = f"{exc.filename}: {text}"
    return text


if __name__ == "__main__":
    sys.exit(main())
