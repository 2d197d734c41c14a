#!/usr/bin/env python3
# Every test meson knows is named in docs/testing.md's table ("Which test
# covers what"), and the table names no test that does not exist (words
# in parentheses are prose).
#   docs_tests.py SRCDIR BUILDDIR
import json
import os
import re
import sys

src, build = sys.argv[1], sys.argv[2]
with open(os.path.join(build, 'meson-info', 'intro-tests.json')) as f:
    tests = {t['name'] for t in json.load(f)}
with open(os.path.join(src, 'docs', 'testing.md')) as f:
    doc = f.read()
m = re.search(r'^## Which test covers what\n(.*?)^## ', doc, re.M | re.S)
if not m:
    sys.exit('FAIL: docs/testing.md has no "Which test covers what" table')
named = set()
for line in m.group(1).splitlines():
    cells = [c.strip() for c in line.strip().strip('|').split('|')]
    if (len(cells) == 2 and line.startswith('|') and
            cells != ['feature', 'tests'] and not cells[1].startswith('-')):
        named |= {w for w in re.split(r'[,\s]+', re.sub(r'\([^)]*\)', '', cells[1]))
                  if re.fullmatch(r'[a-z0-9]+(-[a-z0-9]+)*', w)}
missing = sorted(tests - named)
unknown = sorted(named - tests)
if missing or unknown:
    sys.exit('FAIL: docs/testing.md table: not named %s; no such test %s'
             % (missing, unknown))
print('  %d tests, each named in docs/testing.md\'s table' % len(tests))
