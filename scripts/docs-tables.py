#!/usr/bin/env python3
"""Renders the Sandbox tables of docs/*.md from stored runs (docs/runs/*.json, written by
`Sandbox ... --json-out FILE`), so that no figure in those tables is typed by hand.

    scripts/docs-tables.py           rewrite the generated blocks in docs/*.md
    scripts/docs-tables.py --check   change nothing; fail if a block is not what its stored
                                     run gives (CI runs this through scripts/docs.sh)

A block is an HTML comment saying what to render, the rendered text, and an end marker:

    <!-- sandbox-table
    columns: stack = stack | wall s = wallSeconds:3 | max stall = stallMaxMs:ms1
    rows: runs/default.json | import
    -->
    (generated: replaced on every run)
    <!-- /sandbox-table -->

Lines of the comment (FILE is relative to docs/; a KEY is `scenario[/variant] on stack`, as
`--compare` names runs):

    text: FILE [| SCENARIO,...]      the Sandbox's own table (and its notes) in a code block,
                                     every run or those of the scenarios given
    columns: HEADING = FIELD[:FORMAT] | ...
    rows: FILE | SCENARIO            a table row per run of SCENARIO (or of SCENARIO/VARIANT)
    row: LABEL | FILE | KEY          one row; the field `label` is LABEL
    target: NAME | AIM | FILE | KEY | FIELD[:FORMAT] OP VALUE [| WHY]
                                     a row of a target table: the measured median (and the
                                     range over the repeats), and a status computed from every
                                     repeat: met, **not met**, or **not met** in k of n
                                     repeats; WHY follows a status that is not met

FIELD is a key of a run's result (`--json`), `counters.NAME`, `run` (scenario[/variant]) or
`label`. FORMAT: a number of decimals, `int` (thousands separated), `%N` (a share as a
percentage), `msN`, `µsN`, `sN` (milli-, microseconds, seconds), `MB` (bytes as MiB), `x` (a ratio, three
decimals followed by ×). Every block starts with a line citing its stored runs and the
commands that made them. Standard library only.
"""
import json
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DOCS = os.path.join(ROOT, "docs")
BLOCK = re.compile(r"<!-- sandbox-table\n(.*?)-->\n(.*?)<!-- /sandbox-table -->", re.S)
OPERATORS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
             ">=": lambda a, b: a >= b, "==": lambda a, b: a == b}


class DocError(Exception):
    pass


_runs = {}


def stored(name):
    """The stored run docs/NAME, read once."""
    if name not in _runs:
        path = os.path.join(DOCS, name)
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as error:
            raise DocError(f"cannot read {name}: {error}")
        if data.get("format") != "strata-sandbox-run" or data.get("version") != 1:
            raise DocError(f"{name} is not a stored Sandbox run of version 1 (write one with --json-out)")
        _runs[name] = data
    return _runs[name]


def run_name(result):
    return f"{result['scenario']}/{result['variant']}" if result.get("variant") else result["scenario"]


def key(result):
    return f"{run_name(result)} on {result['stack']}"


def find(name, wanted):
    for run in stored(name)["runs"]:
        if key(run["result"]) == wanted:
            return run
    raise DocError(f"{name} has no run {wanted!r} (it has: {', '.join(key(r['result']) for r in stored(name)['runs'])})")


def value(result, field, label=""):
    if field == "label":
        return label
    if field == "run":
        return run_name(result)
    if field.startswith("counters."):
        counters = result.get("counters", {})
        if field[9:] not in counters:
            raise DocError(f"no counter {field[9:]!r} in {key(result)}")
        return counters[field[9:]]
    if field not in result:
        raise DocError(f"no field {field!r} in {key(result)}")
    return result[field]


def grouped(number, decimals):
    return f"{number:,.{decimals}f}".replace(",", " ")


def formatted(number, fmt):
    if isinstance(number, str) or fmt is None:
        return str(number)
    if fmt == "int":
        return grouped(number, 0)
    if fmt == "x":
        return f"{number:.3f}×"
    if fmt == "MB":
        return f"{number / 1048576:.1f} MB"
    match = re.fullmatch(r"(%|ms|µs|s)?(\d+)", fmt)
    if not match:
        raise DocError(f"unknown format {fmt!r}")
    unit, decimals = match.group(1), int(match.group(2))
    if unit == "%":
        return f"{number * 100:.{decimals}f} %"
    if unit in ("ms", "µs", "s"):
        return f"{grouped(number, decimals)} {unit}"
    return f"{number:.{decimals}f}"


def field_spec(text):
    field, _, fmt = text.strip().partition(":")
    return field.strip(), (fmt.strip() or None)


def text_table(name, scenarios):
    """What the Sandbox prints (ComparisonTable.render and its notes) for the stored runs."""
    headings = ["scenario", "stack", "objects", "wall s", "objects/s", "x raw", "main busy s", "busy %",
                "p50 ms", "p99 ms", "max ms", ">=16.7", ">=100", ">=250", "peak RSS MB", "RSS at start", "in main", "merges", "check"]
    results = [run["result"] for run in stored(name)["runs"]
               if not scenarios or run["result"]["scenario"] in scenarios or run_name(run["result"]) in scenarios]
    if not results:
        raise DocError(f"{name} has no run of {', '.join(scenarios)}")
    rows = [[run_name(r), r["stack"], str(r["objects"]), f"{r['wallSeconds']:.3f}", f"{r['objectsPerSecond']:.0f}",
             f"{r['ratioToRaw']:.3f}", f"{r['mainBusySeconds']:.3f}", f"{r['mainBusyShare'] * 100:.2f}",
             f"{r['stallP50Ms']:.2f}", f"{r['stallP99Ms']:.2f}", f"{r['stallMaxMs']:.1f}",
             str(r["stallsOver16Ms"]), str(r["stallsOver100Ms"]), str(r["stallsOver250Ms"]),
             f"{r['peakRSSBytes'] / 1048576:.1f}", f"{r['rssAtStartBytes'] / 1048576:.1f}",
             str(r["registeredInMain"]), str(r["mergesIntoMain"]), "ok" if r["check"] == "ok" else "FAIL"] for r in results]
    table = [headings] + rows
    widths = [max(len(row[c]) for row in table) for c in range(len(headings))]
    left = {0, 1, len(headings) - 1}
    lines = ["  ".join(cell.ljust(widths[c]) if c in left else cell.rjust(widths[c])
                       for c, cell in enumerate(row)).strip() for row in table]
    for r in results:
        if r["check"] != "ok":
            lines.append(f"  check failed: {r['scenario']} on {r['stack']}: {r['check']}")
    for r in results:
        if r.get("detail"):
            lines.append(f"  {r['scenario']} on {r['stack']}: {r['detail']}")
    if any(r.get("peakRSSScope") == "process" for r in results):
        lines.append("  peak RSS is the whole process's (the kernel refused a per-run reset)")
    return "```\n" + "\n".join(lines) + "\n```\n"


def markdown(headings, rows, right):
    lines = ["| " + " | ".join(headings) + " |",
             "|" + "|".join("---:" if r else "---" for r in right) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def target_row(parts):
    if len(parts) not in (5, 6):
        raise DocError(f"a target needs NAME | AIM | FILE | KEY | CONDITION [| WHY]: {' | '.join(parts)}")
    name, aim, file, wanted, condition = parts[:5]
    why = parts[5] if len(parts) == 6 else ""
    match = re.fullmatch(r"(\S+)\s*(<=|>=|==|<|>)\s*(\S+)", condition)
    if not match:
        raise DocError(f"a target's condition is FIELD[:FORMAT] OP NUMBER: {condition!r}")
    (field, fmt), op, limit = field_spec(match.group(1)), match.group(2), float(match.group(3))
    run = find(file, wanted)
    repeats = run.get("repeats") or [run["result"]]
    values = [value(r, field) for r in repeats]
    median = value(run["result"], field)
    measured = formatted(median, fmt)
    if len(values) > 1 and min(values) == max(values):
        measured += f" (every one of {len(values)} repeats)"
    elif len(values) > 1:
        low, high = formatted(min(values), fmt), formatted(max(values), fmt)
        unit = re.search(r" \S+$", high)
        if unit and low.endswith(unit.group(0)):
            low = low[:-len(unit.group(0))]
        measured += f" ({low}–{high} over {len(values)} repeats)"
    met = sum(1 for v in values if OPERATORS[op](v, limit))
    if met == len(values):
        status = "met"
    else:
        status = "**not met**" if met == 0 else f"**not met** in {len(values) - met} of {len(values)} repeats"
        if why:
            status += f": {why}"
    return [name, aim, measured, status], file


def citation(files):
    parts = []
    for name in files:
        run = stored(name)
        repeats = run["repeats"]
        parts.append(f"[`docs/{name}`]({name}): `{run['command']}`, recorded {run['recorded']}, "
                     f"{repeats} repeat{'s' if repeats != 1 else ''}" + (" (medians)" if repeats > 1 else ""))
    return "Stored run" + ("s" if len(parts) > 1 else "") + " " + "; ".join(parts) + ".\n\n"


def render(spec):
    """The generated text of one block."""
    files, rows, targets, columns, text = [], [], [], None, None
    for line in spec.splitlines():
        if not line.strip():
            continue
        kind, _, rest = line.partition(":")
        parts = [p.strip() for p in rest.split("|")]
        kind = kind.strip()
        if kind == "text":
            text = (parts[0], set(s.strip() for s in parts[1].split(",")) if len(parts) > 1 else set())
            files.append(parts[0])
        elif kind == "columns":
            columns = []
            for part in parts:
                heading, _, spec_text = part.partition("=")
                columns.append((heading.strip(), *field_spec(spec_text)))
        elif kind == "rows":
            file, scenario = parts
            matched = [r for r in stored(file)["runs"]
                       if r["result"]["scenario"] == scenario or run_name(r["result"]) == scenario]
            if not matched:
                raise DocError(f"{file} has no run of {scenario!r}")
            rows += [(run_name(r["result"]), r["result"]) for r in matched]
            files.append(file)
        elif kind == "row":
            label, file, wanted = parts
            rows.append((label, find(file, wanted)["result"]))
            files.append(file)
        elif kind == "target":
            row, file = target_row(parts)
            targets.append(row)
            files.append(file)
        else:
            raise DocError(f"unknown line in a sandbox-table block: {line!r}")
    files = list(dict.fromkeys(files))
    if not files:
        raise DocError("a sandbox-table block names no stored run")
    if text:
        return citation(files) + text_table(*text)
    if targets:
        return citation(files) + markdown(["target", "aim", "measured", "status"], targets, [False] * 4)
    if not columns or not rows:
        raise DocError("a sandbox-table block needs text:, target: lines, or columns: with rows")
    cells = [[formatted(value(result, field, label), fmt) for _, field, fmt in columns] for label, result in rows]
    right = [fmt is not None for _, _, fmt in columns]
    return citation(files) + markdown([h for h, _, _ in columns], cells, right)


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        print("usage: scripts/docs-tables.py [--check]", file=sys.stderr)
        return 2
    stale, failed = [], False
    for page in sorted(os.listdir(DOCS)):
        if not page.endswith(".md"):
            continue
        path = os.path.join(DOCS, page)
        with open(path, encoding="utf-8") as f:
            old = f.read()
        try:
            new = BLOCK.sub(lambda m: f"<!-- sandbox-table\n{m.group(1)}-->\n{render(m.group(1))}<!-- /sandbox-table -->", old)
        except DocError as error:
            print(f"docs-tables: docs/{page}: {error}", file=sys.stderr)
            failed = True
            continue
        if old.count("<!-- sandbox-table") != len(BLOCK.findall(old)):
            print(f"docs-tables: docs/{page}: a sandbox-table block has no end marker", file=sys.stderr)
            failed = True
        if new != old:
            stale.append(page)
            if not check:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
    if failed:
        return 1
    if check and stale:
        print(f"docs-tables: {', '.join('docs/' + p for p in stale)} not what the stored runs give; "
              "run scripts/docs-tables.py and commit", file=sys.stderr)
        return 1
    for page in stale:
        print(f"docs-tables: rewrote docs/{page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
