#!/bin/sh
# The include graph of src/ and the rule that its arrows point downwards.
#
#   sh tests/includes.sh graph   module -> module edges, with how many
#                                #include lines make each (make deps-graph)
#   sh tests/includes.sh dot     the same as Graphviz dot, upward edges red
#                                (make deps-graph FORMAT=dot | dot -Tsvg)
#   sh tests/includes.sh check   fail, naming file and line, for every
#                                include that the rules below do not allow
#                                (make check runs this)
#
# A module is a directory under src/ (src/noisefloor.c is "main").  A new
# module needs a line in RULES, or the check fails.
set -eu
cd "$(dirname "$0")/.."

# FROM: the modules it may include besides itself ("*" anything, "-" none).
# "except FILE TO" names one known upward include until it is fixed; the
# check fails when the include is gone, so the line goes with it.
RULES='
main      cmd core
cmd       *
report    analysis stats core
analysis  stats core
fleet     measure store core
bisect    measure store analysis stats core
measure   workload store core stats
workload  core stats
store     core
formats   core
profile   elf core
disasm    elf core
elf       core
core      stats
stats     -
'
mode=${1:-graph}
case $mode in graph|dot|check) ;; *) echo "usage: $0 graph|dot|check" >&2; exit 2 ;; esac

# One line per include of another module: FILE LINE FROM TO.
edges=$(find src -name '*.[ch]' | sort | xargs awk '
    FNR == 1 {
        n = split(FILENAME, p, "/")
        from = n == 2 ? "main" : p[2]
    }
    /^[ \t]*#[ \t]*include[ \t]*"[a-z_]+\// {
        s = $0
        sub(/^[^"]*"/, "", s)
        sub(/\/.*/, "", s)
        if (s != from)
            print FILENAME, FNR, from, s
    }')

printf '%s\n' "$RULES" | awk -v mode="$mode" -v edges="$edges" '
    /^[ \t]*(#|$)/ { next }
    $1 == "except" { except[$2 " " $3] = 1; next }
    {
        known[$1] = 1
        for (i = 2; i <= NF; i++)
            allow[$1 " " $i] = 1
        rule[$1] = $0
        sub(/^[^ \t]+[ \t]+/, "", rule[$1])
    }
    END {
        n = split(edges, line, "\n")
        bad = 0
        for (i = 1; i <= n; i++) {
            if (line[i] == "")
                continue
            split(line[i], f, " ")   # file, line, from, to
            e = f[3] " " f[4]
            count[e]++
            if (!(f[3] in known)) {
                unknown[f[3]] = f[1]
                continue
            }
            if ((f[3] " *") in allow || e in allow)
                continue
            if ((f[1] " " f[4]) in except) {
                seen[f[1] " " f[4]] = 1
                excepted[e] = 1
                continue
            }
            up[e] = 1
            msg[++bad] = sprintf("%s:%s: %s -> %s points upwards (%s may include: %s)",
                                 f[1], f[2], f[3], f[4], f[3], rule[f[3]])
        }
        if (mode == "check") {
            for (mod in unknown) {
                printf "includes: module %s (%s) has no line in the rules of tests/includes.sh\n", mod, unknown[mod]
                bad++
            }
            for (x in except)
                if (!(x in seen)) {
                    printf "includes: except %s: that include is gone; remove the line\n", x
                    bad++
                }
            for (i = 1; i in msg; i++)
                print "includes: " msg[i]
            if (bad)
                exit 1
            ne = 0
            for (e in count)
                ne++
            printf "includes: every include points downwards (%d edges", ne
            nx = 0
            for (x in except)
                nx++
            if (nx)
                printf "; %d known exception(s) listed in tests/includes.sh", nx
            print ")"
            exit 0
        }
        # graph, dot: sorted by module, then target
        k = 0
        for (e in count)
            key[++k] = e
        for (i = 2; i <= k; i++)
            for (j = i; j > 1 && key[j - 1] > key[j]; j--) {
                t = key[j]; key[j] = key[j - 1]; key[j - 1] = t
            }
        if (mode == "dot")
            print "digraph includes {\n  rankdir=TB;\n  node [shape=box];"
        for (i = 1; i <= k; i++) {
            split(key[i], pair, " ")
            tag = (key[i] in up) ? "upward" : (key[i] in excepted) ? "upward, known exception" : ""
            if (mode == "dot")
                printf "  \"%s\" -> \"%s\" [label=\"%d\"%s];\n", pair[1], pair[2], count[key[i]],
                       tag != "" ? ", color=red, fontcolor=red" : ""
            else
                printf "%-9s -> %-9s %3d include%s%s\n", pair[1], pair[2], count[key[i]],
                       count[key[i]] == 1 ? "" : "s", tag != "" ? "   (" tag ")" : ""
        }
        if (mode == "dot")
            print "}"
    }'
