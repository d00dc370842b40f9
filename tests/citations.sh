#!/bin/sh
# Comments and docs cite what a reader of this repository can open (doc/,
# the man page), never the design notes or mails the project was started
# from ("DESIGN.md", "seed 004").  Fails naming each line that does.
cd "$(dirname "$0")/.." || exit 1
hits=$(grep -rnE '\bDESIGN\b|seed[- ]?0[0-9]{2}\b' src tests doc bench README.md Makefile .ci \
    2>/dev/null | grep -v '^tests/citations\.sh:')
if [ -n "$hits" ]; then
    printf '%s\n' "$hits" | sed 's/^/citations: /'
    echo "citations: cite doc/ (doc/cases.md for the three cases, the man page for the JSON)"
    exit 1
fi
echo "citations: nothing cites DESIGN or a seed"
