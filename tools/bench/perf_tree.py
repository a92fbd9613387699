#!/usr/bin/python3
"""Where a function's time goes, from bench-profile's call chains.

    tools/bench/perf_tree.py out/DIR/A/perf.script.read_bw.gz FUNC [DEPTH]

Reads `perf script -F comm,cpu,ip,sym` output (bench-profile.sh saves it
with PROFILE_SCRIPT=1) and prints the share of all samples that have FUNC
on their stack, split by the next DEPTH (1) functions it called on the
way to the sampled one; "(self)" is FUNC itself.  perf report's own
--children view needs the guest's symbols, which die with the VM; this
needs only the saved text.
"""
import collections
import gzip
import re
import sys

FRAME = re.compile(r'^\s+[0-9a-f]+ (.+)$')


def samples(path):
    """Each sample's stack, leaf first."""
    stack = []
    with gzip.open(path, 'rt') as f:
        for line in f:
            m = FRAME.match(line)
            if m:
                stack.append(m.group(1).strip())
            elif stack:
                yield stack
                stack = []
    if stack:
        yield stack


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    path, func = sys.argv[1], sys.argv[2]
    depth = int(sys.argv[3]) if len(sys.argv) == 4 else 1
    total, under, paths = 0, 0, collections.Counter()
    for stack in samples(path):
        total += 1
        if func not in stack:
            continue
        under += 1
        i = stack.index(func)
        paths[tuple(reversed(stack[max(0, i - depth):i])) or ('(self)',)] += 1
    if not total:
        sys.exit(f'{path}: no samples')
    print(f'{func}: {100 * under / total:.1f} % of {total} samples')
    for path_, n in paths.most_common(25):
        print(f'  {100 * n / total:5.1f} %  {" > ".join(path_)}')


if __name__ == '__main__':
    main()
