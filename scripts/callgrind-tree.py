#!/usr/bin/env python3
"""Prints the callees of one function as a tree, from callgrind's calling tree.

    callgrind_annotate --inclusive=yes --tree=calling --threshold=100 --auto=no cg.out-01 \\
        | swift demangle --simplified > tree.txt
    python3 scripts/callgrind-tree.py tree.txt 'FetchedResultsController.handle(_:)' 2 0.003 20000

Arguments: the annotated file, a part of the function's (demangled) name, how many levels to
print, the smallest share of the function's inclusive count a callee must have to be printed,
and a divisor for every count (the objects of the run: figures per object). Each line is a
callee's inclusive count from that caller, divided; a callee called from several places of the
function is summed. Counts of a function called on other paths too are its own, not the
path's: profile one path (callgrind's --toggle-collect) when that matters.
"""
import re
import signal
import sys


def main() -> None:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # quiet when piped into head
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    path, root, depth, min_share, divisor = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
    line = re.compile(r'^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?([<>*])\s+(.*?)(?: \((\d+)x\))?(?: \[.*\])?$')
    callees: dict[str, list[tuple[int, str]]] = {}
    inclusive: dict[str, int] = {}
    for block in open(path).read().split('\n\n'):
        me, calls = None, []
        for text in block.split('\n'):
            match = line.match(text)
            if not match:
                continue
            count, kind, name = int(match.group(1).replace(',', '')), match.group(2), match.group(3)
            if ':' in name.split('(')[0]:
                name = name.split(':', 1)[1]   # drop the file
            if kind == '*':
                me = name
                inclusive[name] = max(inclusive.get(name, 0), count)
            elif kind == '>':
                calls.append((count, name))
        if me:
            callees.setdefault(me, []).extend(calls)
    roots = sorted((name for name in inclusive if root in name), key=lambda name: -inclusive[name])
    if not roots:
        sys.exit(f'no function named like {root!r}')
    total = inclusive[roots[0]]
    print(f'{total / divisor:10.0f} {roots[0]}')

    def walk(name: str, level: int, seen: frozenset[str]) -> None:
        if level > depth:
            return
        summed: dict[str, int] = {}
        for count, callee in callees.get(name, []):
            summed[callee] = summed.get(callee, 0) + count
        for callee, count in sorted(summed.items(), key=lambda item: -item[1]):
            if count < total * min_share:
                continue
            print('  ' * level + f'{count / divisor:10.0f} {callee[:150]}')
            if callee not in seen:
                walk(callee, level + 1, seen | {callee})

    walk(roots[0], 1, frozenset({roots[0]}))


if __name__ == '__main__':
    main()
