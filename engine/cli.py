"""The `wireschema` command.

    wireschema normalize FILE|- --target T|--model M [--strict|--no-strict] [--output] [--request] [--explain] [--report json]
    wireschema check FILE|- [--targets a,b|--model M] [--fail-on KINDS] [--ignore KEYWORD] [--format text|json|github]
    wireschema diff FILE|- --targets a,b,c [--width N]
    wireschema targets
    wireschema rules lint [PATH]
    wireschema rules new NAME --extends T [--dir DIR]
    wireschema rules explain TARGET [--options]
    wireschema probe TARGET [--model M] [--base-url URL] [--only IDS] [--record DIR | --replay DIR]

Every command takes `--rules PATH` (a user's rule file or directory, whose targets then
sit beside the shipped ones). FILE holds one JSON value (a schema, a tool, a list of
tools, an MCP `tools/list` result, a provider request body) or several one after the
other (JSON Lines); JSON Lines in gives JSON Lines out.

Standard output carries only the result (JSON for normalize); reports, warnings and
errors go to standard error. Exit status: 0 ok; 1 findings (check found losses, lint
found a broken rule file, probe found the rules sending what the server refused, or some
documents of a batch failed, each named on stderr); 2 usage or input error (for probe:
no key, no probe section), reported in one `wireschema: error: ...` line, never a
traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import wireschema
from wireschema.console import FINDINGS, PROG, USAGE_ERROR, UsageError, add_command, error, flush, named_target, say, warning
from wireschema.errors import RuleFileError, WireschemaError


class _Parser(argparse.ArgumentParser):
    # argparse's own error() prints the whole usage block and calls sys.exit; route it
    # through main() so every failure looks the same and main() returns instead of exiting.
    def error(self, message: str) -> Any:
        raise UsageError(message)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser(_command_named(sys.argv[1:] if argv is None else argv))
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help and --version have printed already
            return exc.code if isinstance(exc.code, int) else 0
        with _library_log_silenced():
            args.rules_set = wireschema.load_rules(args.rules) if getattr(args, "rules", None) else None
            for path, why in args.rules_set.skipped if args.rules_set is not None else ():
                warning(_skipped(path, why))
            code: int = args.run(args)
        flush()
        return code
    except BrokenPipeError:
        # the reader (head, less) went away: nothing left to say, and nobody to say it to
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - stops the interpreter's flush error
        return 0
    except (UsageError, WireschemaError) as exc:
        # messages are written for humans already; a traceback would only hide them
        _fail(str(exc))
        return USAGE_ERROR
    except KeyboardInterrupt:
        _fail("interrupted")
        return 130
    except Exception as exc:  # noqa: BLE001 - a defect of ours still ends in one line
        _fail(f"internal error, please report it: {type(exc).__name__}: {exc}")
        return USAGE_ERROR


def _fail(message: str) -> None:
    try:
        error(message)
    except UsageError as exc:  # the output held back could not be written either: that is the news
        error(str(exc))


@contextlib.contextmanager
def _library_log_silenced() -> Iterator[None]:
    # the command says what the library would log (fallbacks, strict failing open) on
    # stderr itself, naming the item; without a handler, Python's last-resort handler
    # would print the library's records too, unlabelled
    if "logging" not in sys.modules:
        # nothing has configured a handler that could print them, and the library's
        # logger, made on its first record, has its NullHandler: silent already
        yield
        return
    import logging

    from . import logs

    # the library's logger as the library makes it, its own NullHandler added first: made
    # here from `getLogger`, it would take this one for its own and lose it below
    log = logs.logger()
    handler = logging.NullHandler()
    propagate = log.propagate
    log.addHandler(handler)
    log.propagate = False
    try:
        yield
    finally:
        log.removeHandler(handler)
        log.propagate = propagate


def _build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser for every command, or with `only`, for that one: each subparser costs
    about a millisecond to build (argparse looks its strings up in gettext), and a
    command line that names its command never meets the others."""
    summary = (wireschema.__doc__ or PROG).splitlines()[0]
    parser = _Parser(prog=PROG, description=summary)
    parser.add_argument("--version", action="version", version=f"{PROG} {wireschema.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, setup in _COMMANDS.items():
        if only is None or name == only:
            setup(sub)
    return parser


def _command_named(argv: Sequence[str]) -> str | None:
    """The command a command line names before anything else, if it is one of ours (an
    option first, `--help` say, or a misspelt command needs them all)."""
    return argv[0] if argv and argv[0] in _COMMANDS else None


# -- targets -----------------------------------------------------------------------


def _setup_targets(sub: Any) -> None:
    p = add_command(sub, "targets", "list the targets with their descriptions and rule files")
    p.set_defaults(run=_run_targets)


def _run_targets(args: argparse.Namespace) -> int:
    # the shipped targets as their rule files describe them: listing compiles nothing
    rows = [(name, description, path) for name, description, path, _strict in wireschema._shipped_rows()]
    if args.rules_set is not None:
        rows += [(t.name, t.description, t.path) for t in (args.rules_set[n] for n in args.rules_set.names())]
    width = max((len(n) for n, _, _ in rows), default=0)
    for name, description, path in rows:
        say(f"{name:<{width}}  {description}  [{Path(path).name}]")
    return 0


# -- rules lint, new, explain ------------------------------------------------------


def _setup_rules(sub: Any) -> None:
    p = add_command(sub, "rules", "work with rule files")
    rsub = p.add_subparsers(dest="rules_command", metavar="ACTION", required=True)
    lint = rsub.add_parser("lint", help="compile rule files and report each broken one's first mistake as file:line:column")
    lint.add_argument("path", metavar="PATH", nargs="?", help="a rule file or directory (default: the shipped rules)")
    lint.set_defaults(run=_run_lint)
    new = rsub.add_parser("new", help="write a starting rule file NAME.yaml that extends a target")
    new.add_argument("name", metavar="NAME", help="the new target's name (the file is NAME.yaml)")
    new.add_argument("--extends", required=True, metavar="T", help="the target it builds on")
    new.add_argument("--dir", default=".", metavar="DIR", help="where to write it (default: the current directory)")
    new.add_argument("--rules", metavar="PATH", default=argparse.SUPPRESS, help="a rule file or directory of your own")
    new.set_defaults(run=_run_new)
    explain = rsub.add_parser("explain", help="a target's merged, ordered rules and checks, with the file and line each came from")
    explain.add_argument("target", metavar="TARGET")
    explain.add_argument("--options", action="store_true", help="also print each rule's options, as compiled")
    explain.add_argument("--rules", metavar="PATH", default=argparse.SUPPRESS, help="a rule file or directory of your own")
    explain.set_defaults(run=_run_explain)


def _skipped(path: Path, why: str) -> str:
    return f"{path}: skipped: {why}, not a regular file"


def _run_lint(args: argparse.Namespace) -> int:
    from wireschema.rulepaths import not_regular, rule_files
    from wireschema.ruletable import Registry

    if args.path is not None and not_regular(Path(args.path)) == "missing":
        raise UsageError(f"rules lint: no such rule file or directory: {args.path}")
    if args.path is None:
        shipped = wireschema._registry()
        registry = Registry(shipped.dirs, shipped.vocabulary)  # afresh: what the files say now
        problems = registry.problems()
        registry.listed()
        for name, exc in problems.items():
            # the finding itself, as compilers print theirs (file:line:column: message)
            effect = ("left out of the target list and of reading tools" if name in registry.skipped
                      else "this target fails when used; the others do not")
            say(f"{exc} [{effect}]")
        if problems:
            return FINDINGS
        say(f"ok: {len(registry.listed())} targets in shipped rules")
        return 0
    path = Path(args.path)
    files, skipped = rule_files(path) if path.is_dir() else ([path], [])
    for f, why in skipped:
        say(_skipped(f, why))
    broken: list[Any] = list(skipped)
    for f in files:
        try:
            wireschema.load_rules(f)
        except RuleFileError as exc:
            broken.append(exc)
            say(str(exc))
    if broken:
        return FINDINGS
    try:
        names = wireschema.load_rules(path).names()  # what only the whole folder says (one name twice)
    except RuleFileError as exc:
        say(str(exc))
        return FINDINGS
    say(f"ok: {len(names)} targets in {args.path}")
    return 0


def _run_new(args: argparse.Namespace) -> int:
    from wireschema.rulefields import unknown
    from wireschema.ruletable import _valid_name

    name = args.name
    if not _valid_name(name) or name.startswith("_") or name.endswith((".yaml", ".yml")):
        raise UsageError(f"rules new: a target name is letters, digits, _ . - (not starting with _), got {name!r}")
    try:
        base = named_target(args, args.extends)
    except wireschema.UnknownTargetError:
        known = [t.name for t in wireschema.targets()] + (args.rules_set.names() if args.rules_set is not None else [])
        raise UsageError(f"rules new --extends: {unknown('target', args.extends, known)}") from None
    folder = Path(args.dir)
    if not folder.is_dir():
        raise UsageError(f"rules new: no such directory: {args.dir}")
    path = folder / f"{name}.yaml"
    if path.exists():
        raise UsageError(f"rules new: {path} exists already")
    text = _starting_file(name, base)
    path.write_text(text, encoding="utf-8")
    try:
        wireschema.load_rules(path)
    except RuleFileError:
        path.unlink()  # never leave a file behind that does not compile
        raise
    say(f"wrote {path}: {name} extends {base.name} ({len(base.rules)} rules, {len(base.checks)} checks inherited)")
    return 0


def _starting_file(name: str, base: Any) -> str:
    """A rule file that compiles as it stands (it changes nothing yet) and shows, in
    comments, each way of saying what this wire does differently."""
    last = base.rules[-1].id if base.rules else None
    lines = [
        f"# {name}: {base.name} with what this wire does differently. Every rule and check of",
        f"# {base.name} applies, in order (`wireschema rules explain {base.name}` lists them); state",
        "# here only what differs, each rule with its source in `why`. Check the file with",
        f"# `wireschema rules lint {name}.yaml`; the language is in rules/README.md and CONSTRAINTS.md.",
        f"description: {json.dumps(f'{base.name}, adjusted for the {name} wire.')}",
        f"extends: {base.name}",
    ]
    relations = [(f, getattr(base, f)) for f in ("fail_open", "non_strict") if getattr(base, f)]
    if relations:
        # stated from the start: a file that changes what it extends must say where these go
        lines += [
            "# where what this wire's strict mode cannot take goes: that target's own rules run, not",
            "# this file's (name a target of yours that makes the same changes, or null for none)",
            *(f"{f}: {value}" for f, value in relations),
        ]
    derived = [f"strict_variant: {base.strict_variant}"] if base.strict_variant else []
    derived += [f"output: {{variant: {base.output['variant']}}}"] if base.output.get("variant") else []
    if derived:
        lines += [
            "# a strict tool and an output run as these targets with this file's changes laid over them;",
            "# state one to send them elsewhere (a target of yours, or null for none):",
            *(f"# {d}" for d in derived),
        ]
    lines += ["# an inherited field is changed key by key, or unset with null:"]
    if not base.strict_variant:
        lines.append("# strict_variant: null")
    lines.append("# tool: {strict: null}")
    used = {ln: rule.options[option] for rule in (*base.rules, *base.checks) for option, ln in rule.lists}
    if used:
        lines.append(f"# {base.name}'s named lists ({', '.join(sorted(used))}) are edited, not restated:")
        list_name, value = min(used.items(), key=lambda kv: (hasattr(kv[1], "keys"), kv[0]))
        if hasattr(value, "keys"):
            kind = sorted(value)[0]
            edit = f"{{remove: {{{kind}: [{sorted(value[kind])[0]}]}}}}"
        else:
            edit = f"{{remove: [{sorted(value)[0]}]}}"
        lines += ["# lists:", f"#   {list_name}: {edit}"]
    lines += [
        "rules:",
        "  # a new rule, placed among the inherited ones:",
        f"  # - id: {name}/drop-title",
        "  #   kind: drop",
        "  #   keys: [title]",
    ]
    if last is not None:
        lines += [
            f"  #   before: {last}",
            "  #   why: One line on why the wire needs this, with its error message or a source.",
            "  # an inherited rule with some options replaced (no kind), or switched off:",
            f"  # - id: {last}",
            "  #   disabled: true",
            "  #   why: Why this wire does not need it.",
        ]
    lines += ["checks:", "  # checks the output must pass, in the same form as rules", ""]
    return "\n".join(lines)


def _run_explain(args: argparse.Namespace) -> int:
    from wireschema.docgen import _flow, _plain
    from wireschema.passes import CHECKS, KINDS
    from wireschema.ruletable import list_origins

    target = named_target(args, args.target)
    vocab = target.registry.vocabulary if target.registry is not None else None
    files = [Path(f).name for f in target.files]
    say(f"{target.name}: {target.description}")
    say(f"  files: {' -> '.join(files)} (each over the ones before it)")
    related = [f"{label}: {value}" for label, value in (("strict", "true" if target.strict else None), ("fail_open", target.fail_open),
               ("non_strict", target.non_strict), ("strict_variant", target.strict_variant)) if value]
    if related:
        say(f"  {'; '.join(related)}")
    for list_name, places in list_origins(target).items():
        said = ", ".join(f"{how} in {Path(p).name}:{line}" for how, p, line in places)
        say(f"  list {list_name}: {said}")
    for title, rules, table in (("rules", target.rules, KINDS), ("checks", target.checks, CHECKS)):
        say(f"{title}:")
        width = max((len(r.id) for r in rules), default=0)
        kinds = max((len(r.kind) for r in rules), default=0)
        for i, rule in enumerate(rules, 1):
            first, *later = rule.origins
            where = f"{Path(first[0]).name}:{first[1]}"
            for fpath, line, _, fields in later:
                said = ", ".join(f for f in fields if f != "id") or "id"
                where += f"; {Path(fpath).name}:{line} ({said})"
            via = "".join(f"; {option} from list:{name}" for option, name in rule.lists)
            say(f"  {i:>3}. {rule.id:<{width}}  {rule.kind:<{kinds}}  {where}{via}")
            if args.options:
                declared = list(table[rule.kind].options) if rule.kind in table else []
                for option in sorted(rule.options, key=lambda o: declared.index(o) if o in declared else len(declared)):
                    say(f"         {option}: {_flow(_plain(rule.options[option], vocab))}")
                if rule.where is not None:
                    say(f"         where: {rule.where}")
    return 0


def _over_file(name: str) -> Callable[[Any], None]:
    """The parser of a command over FILE, from `batch`, imported only to build it: its
    attrs classes and JSON positions are nothing `targets` or `rules` needs."""

    def setup(sub: Any) -> None:
        from wireschema import batch

        getattr(batch, f"setup_{name}")(sub)

    return setup


def _setup_probe(sub: Any) -> None:
    from wireschema import probe  # the battery and urllib: nothing another command needs

    probe.setup(sub)


_COMMANDS: dict[str, Callable[[Any], None]] = {
    "normalize": _over_file("normalize"),
    "check": _over_file("check"),
    "diff": _over_file("diff"),
    "targets": _setup_targets,
    "rules": _setup_rules,
    "probe": _setup_probe,
}

