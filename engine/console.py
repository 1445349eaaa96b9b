"""What every command shares: its output, failing in one line, a command's parser and
the target a command line names.

Imported by every command (`targets` included), so it imports nothing more: no attrs,
no rule machinery.
"""

from __future__ import annotations

import argparse
import codecs
import sys
from typing import Any

import wireschema

PROG = "wireschema"
FINDINGS = 1
USAGE_ERROR = 2


class UsageError(Exception):
    """A bad command line or unreadable input: reported in one line, exit status 2."""


def named_target(args: argparse.Namespace, name: str) -> Any:
    if args.rules_set is not None and name in args.rules_set:
        return args.rules_set[name]
    return wireschema._target(name)


def chosen_target(args: argparse.Namespace, target: str | None, flag: str = "--target") -> Any:
    """The target `target` (given as `flag`) names, or the one `--model` goes to (through
    the catalog of the `--rules` folder where it has one): exactly one of the two."""
    if (target is None) == (args.model is None):
        raise UsageError(f"give {flag} or --model, not both" if args.model else f"give {flag} or --model")
    if args.model is None:
        return named_target(args, target)
    return (args.rules_set or wireschema).target_for(args.model)


def add_model(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", "-m", help="a model id in place of the target (bedrock/us.anthropic.claude-..., gpt-5: see CONSTRAINTS.md's model catalog)")


def add_command(sub: Any, name: str, help_text: str) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(name, help=help_text, description=help_text)
    p.add_argument("--rules", metavar="PATH", help="a rule file or directory of your own")
    return p


# -- writing -------------------------------------------------------------------------


def _surrogate_escape(exc: UnicodeError) -> tuple[str, int]:
    # JSON read "\ud800" into a lone surrogate, which UTF-8 cannot encode; inside a JSON
    # string (the only place one can be) the escape is the same text the input had
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    return "".join(f"\\u{ord(c):04x}" for c in exc.object[exc.start : exc.end]), exc.end


codecs.register_error("wireschema.json-escape", _surrogate_escape)


def write(stream: Any, text: str) -> None:
    if stream is None:
        return  # standard error closed (`2>&-`): nowhere to say it
    # JSON is UTF-8 whatever the locale says (RFC 8259); the same for the reports beside it
    data = text.encode("utf-8", "wireschema.json-escape")
    buffer = getattr(stream, "buffer", None)
    try:
        if buffer is None:
            stream.write(data.decode("utf-8"))
        else:
            stream.flush()
            buffer.write(data)
    except BrokenPipeError:
        raise
    except OSError as exc:
        _failed(stream, exc)
    if stream is sys.stderr:
        flush()


def flush() -> None:
    """Flush both streams. Standard output that fails (a full disk) raises UsageError
    once and is dropped; standard error that fails is dropped, as nothing could say so."""
    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue
        try:
            stream.flush()
            buffer = getattr(stream, "buffer", None)
            if buffer is not None:
                buffer.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            _failed(stream, exc)


def _failed(stream: Any, exc: OSError) -> None:
    """Drop a stream that cannot be written (later writes and the exit's flush go to
    os.devnull); for standard output, raise the UsageError saying why."""
    import os

    devnull = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - stands for the stream until exit
    if stream is sys.stderr:
        sys.stderr = devnull
        return
    sys.stdout = devnull
    raise UsageError(f"cannot write the output: {exc.strerror or exc}")


def say(text: str) -> None:
    if sys.stdout is None:
        raise UsageError("cannot write the output: standard output is closed")
    write(sys.stdout, text + "\n")


def error(message: str) -> None:
    # exactly one line, so scripts can show it as is; rule-file errors may span lines
    flush()
    write(sys.stderr, f"{PROG}: error: {' '.join(message.split())}\n")


def warning(message: str) -> None:
    flush()
    write(sys.stderr, f"{PROG}: warning: {' '.join(message.split())}\n")
