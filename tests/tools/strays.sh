#!/bin/sh
# strays — the processes a test left behind, found from what the kernel
# says rather than from what the test remembers (a daemon that detached, a
# job's supervisor in its own session, a slurmd, a job's `sleep 600`):
#
#   strays.sh [-k] DIR [ENTRY]
#
# prints "pid user command" for every process whose command line names a
# path under DIR, whose working directory is under DIR, or whose
# environment has the entry ENTRY (a substring of one NAME=VALUE entry,
# e.g. "MOKU_TEST_RUN=/tmp/moku-run.x/daemon.sh"), and for every
# descendant of one (a job under its supervisor, the sleep under a job
# script). Never itself, its children, its ancestors (the test that asks
# may sit in DIR) or a zombie. With -k they are killed (SIGKILL) after
# being printed. Exit 0 when there were none, 1 when there were some.
# Root sees every process; another user sees only its own.
kill=""
if [ "$1" = -k ]; then
    kill=1
    shift
fi
dir=${1:?usage: strays.sh [-k] DIR [ENTRY]}
entry=$2
me=$$
seeds=$(
    {
        grep -lzF -- "$dir/" /proc/[0-9]*/cmdline 2>/dev/null
        [ -n "$entry" ] && grep -lzF -- "$entry" /proc/[0-9]*/environ 2>/dev/null
        find /proc/[0-9]*/cwd -maxdepth 0 \( -lname "$dir" -o -lname "$dir/*" \) -print 2>/dev/null
    } | sed -n 's|^/proc/\([0-9]*\)/.*|\1|p' | sort -u | tr '\n' ' '
)
found=$(ps -e -o pid=,ppid=,stat=,user=,args= | awk -v me="$me" -v seeds="$seeds" '
    {
        pid = $1; ppid[pid] = $2; stat[pid] = $3
        line[pid] = $0
        sub(/^ *[0-9]+ +[0-9]+ +[^ ]+ +/, "", line[pid])
        order[++n] = pid
    }
    END {
        # Never this script, what it runs, or what runs it.
        skip[me] = 1
        for (p = ppid[me]; p != "" && p > 0 && !(p in skip); p = ppid[p])
            skip[p] = 1
        for (i = 1; i <= n; i++)
            if (ppid[order[i]] == me)
                skip[order[i]] = 1
        k = split(seeds, s, " ")
        for (i = 1; i <= k; i++)
            if ((s[i] in ppid) && !(s[i] in skip))
                hit[s[i]] = 1
        # Descendants, to a fixed point (a parent may come after its child).
        do {
            more = 0
            for (i = 1; i <= n; i++) {
                p = order[i]
                if (!(p in hit) && !(p in skip) && (ppid[p] in hit)) {
                    hit[p] = 1
                    more = 1
                }
            }
        } while (more)
        for (i = 1; i <= n; i++) {
            p = order[i]
            if ((p in hit) && stat[p] !~ /^Z/)
                print p " " line[p]
        }
    }')
[ -n "$found" ] || exit 0
echo "$found"
if [ -n "$kill" ]; then
    # shellcheck disable=SC2046
    kill -9 $(echo "$found" | cut -d' ' -f1) 2>/dev/null
fi
exit 1
