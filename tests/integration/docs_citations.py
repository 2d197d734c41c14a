#!/usr/bin/env python3
"""Every document and section the tree cites exists.

Finds citations of the form  README.md "Section",  README "Section"  and
docs/<file>.md "Section"  (also inside C strings, as \\"Section\\") in the
sources, scripts, configuration, tests and documentation, and checks that
the file exists and has a Markdown heading whose text is Section, or
starts with Section followed by " (" (as in "Trading rules (exact; ...)").
A bare docs/<file>.md must exist too.
    docs_citations.py [SOURCE_ROOT]
Exit status 0 when every citation resolves, 1 otherwise (one line each).
"""
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), '..', '..'))
SCAN_DIRS = ['app', 'lib', 'tests', 'scripts', 'conf', 'docs', '.ci']
SCAN_FILES = ['README.md', 'meson.build', 'meson_options.txt']
EXTS = ('.c', '.h', '.py', '.sh', '.md', '.ini', '.build', '.txt', '')
SKIP = {os.path.join('tests', 'integration', 'docs_citations.py')}

# A document, then optional ( , : and spaces, then a quoted section.
DOC = r'(?<![\w/.-])(README(?:\.md)?|docs/[A-Za-z0-9_-]+\.md)'
CITE = re.compile(DOC + r'[ \t]*[(,:]?[ \t]*\\?"([^"\\\n]+)\\?"')
BARE = re.compile(r'(?<![\w/.-])(docs/[A-Za-z0-9_-]+\.md)')
HEAD = re.compile(r'^#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$')


def headings(path):
    out, code = set(), False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.startswith('```'):
                code = not code
                continue
            m = None if code else HEAD.match(line.rstrip('\n'))
            if m:
                out.add(m.group(1))
    return out


def has_heading(heads, section):
    return any(h == section or h.startswith(section + ' (') for h in heads)


def files():
    for name in SCAN_FILES:
        if os.path.isfile(os.path.join(root, name)):
            yield name
    for d in SCAN_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, d)):
            dirnames[:] = [n for n in dirnames if n not in ('results', 'regressions')]
            for n in sorted(filenames):
                rel = os.path.relpath(os.path.join(dirpath, n), root)
                if rel in SKIP or not n.endswith(EXTS) or (
                        '.' not in n and not n.startswith('run')):
                    continue
                yield rel


cache = {}
bad = checked = 0
for rel in files():
    try:
        text = open(os.path.join(root, rel), encoding='utf-8').read()
    except (UnicodeDecodeError, OSError):
        continue
    for lineno, line in enumerate(text.split('\n'), 1):
        cited = [(m.group(1), m.group(2)) for m in CITE.finditer(line)]
        named = {doc for doc, _ in cited}
        cited += [(m.group(1), None) for m in BARE.finditer(line)
                  if m.group(1) not in named]
        for doc, section in cited:
            doc = 'README.md' if doc == 'README' else doc
            path = os.path.join(root, doc)
            checked += 1
            if not os.path.isfile(path):
                print(f'{rel}:{lineno}: cites {doc}, which does not exist')
                bad += 1
                continue
            if section is None:
                continue
            if doc not in cache:
                cache[doc] = headings(path)
            if not has_heading(cache[doc], section):
                print(f'{rel}:{lineno}: cites {doc} "{section}": no such heading')
                bad += 1
print(f'docs-citations: {checked} citations, {bad} broken')
sys.exit(1 if bad else 0)
