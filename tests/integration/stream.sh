#!/bin/sh
# The replay overlapped with reading the trace (issue 31): one run of an
# SWF trace replays while the reader's thread reads on (sim_stream), its
# files written as the replay goes on temporaries renamed into place at the
# end. Its report and files are the whole read's byte for byte (a --plot
# run reads the whole trace first; --series is streamed, its samples kept
# until the trace is whole), for a trace in order, gz or plain, and
# where streaming cannot be exact and the run is replayed from the start
# after the read: jobs out of submission order, a preceding job (field 17),
# header keywords that change after the jobs began, MaxProcs only after the
# jobs. A bad line, early or late, is still its file:line error, exit 1 and
# no report; a bad trace creates no output file and changes none, and
# leaves no temporary; so does a full disk or SIGTERM. A FIFO, /dev/stdout,
# /dev/full are written in place after the whole read; a new file's mode
# is 0666 under the umask, an old file's its own.
. tests/integration/lib.sh

KTH=data/KTH-SP2-1996-2.1-cln.norm.swf.gz
gzip -dc "$KTH" >"$TMP/all.swf"
# 6,000 jobs: several of the reader's batches (1,024 records each).
awk '/^;/ || n++ < 6000' "$TMP/all.swf" >"$TMP/kth.swf"
jobs() { grep -v '^;' "$TMP/kth.swf"; }
printf 'BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1\n' >"$TMP/easy.cfg"

# report TRACE ARGS...: the JSON report without its timings, into $TMP/r.
report() {
    t=$1
    shift
    "$MOKU" simulate --config "$TMP/easy.cfg" --format json "$@" "$t" 2>"$TMP/err" |
        sed 's/"wall_seconds":[0-9.]*//; s/"read_seconds":[0-9.]*//' >"$TMP/r"
    rc=$?
}
# same TRACE ARGS...: the streamed report is the whole read's (--plot
# reads the whole trace first), and not empty; so are the streamed jobs CSV
# and series.
same() {
    report "$@" --jobs-out "$TMP/whole.csv" --series "$TMP/whole.series" --plot "$TMP/plot.svg"
    cp "$TMP/r" "$TMP/whole.json"
    cp "$TMP/err" "$TMP/whole.err"
    report "$@" --jobs-out "$TMP/streamed.csv" --series "$TMP/streamed.series"
    cmp -s "$TMP/r" "$TMP/whole.json" && cmp -s "$TMP/err" "$TMP/whole.err" &&
        cmp -s "$TMP/streamed.csv" "$TMP/whole.csv" &&
        cmp -s "$TMP/streamed.series" "$TMP/whole.series" || return 1
    report "$@"
    [ -s "$TMP/r" ] && cmp -s "$TMP/r" "$TMP/whole.json" && cmp -s "$TMP/err" "$TMP/whole.err"
}

check "in order, plain text: the streamed report is the whole read's" same "$TMP/kth.swf"
gzip -c "$TMP/kth.swf" >"$TMP/kth.swf.gz"
check "in order, gzip: the same" same "$TMP/kth.swf.gz"
# Submissions rounded to the hour: the reader's batches end inside runs of
# one instant (an iteration there before the rest of its jobs were read
# would show in the report: another iteration count, other waits).
{ echo '; MaxProcs: 100'; jobs | awk '{ $2 = int($2 / 3600) * 3600; print }'; } >"$TMP/hours.swf"
check "many jobs an instant: the same" same "$TMP/hours.swf"
check "--procs, --iterate-every: the same" same "$TMP/kth.swf" --procs 64 --iterate-every 900
printf 'USERCFG[DEFAULT] MAXIJOB=2 MAXJOB=8\nFSPOLICY DEDICATEDPS\nFSWEIGHT 10\nFSUSERWEIGHT 1\nUSERCFG[DEFAULT] FSTARGET=5\n' >>"$TMP/easy.cfg"
check "throttling and fairshare: the same" same "$TMP/kth.swf"
printf 'BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1\n' >"$TMP/easy.cfg"

# Out of order: every 500th job moved to the end of the file.
{
    grep '^;' "$TMP/kth.swf"
    jobs | awk 'NR % 500'
    jobs | awk 'NR % 500 == 0'
} >"$TMP/shuffled.swf"
check "jobs out of submission order: replayed from the start, the same" same "$TMP/shuffled.swf"
# Given up, the stream's set-up warnings are not said again by the whole
# read's replay.
cp "$TMP/easy.cfg" "$TMP/easy.keep"
printf 'FSPOLICY DEDICATEDPS\nSTATDIR %s/none\n' "$TMP" >>"$TMP/easy.cfg"
report "$TMP/shuffled.swf"
check "out of order, a warning of the set-up: said once" [ "$(grep -c 'no fairshare history is read' "$TMP/err")" = 1 ]
check "... the same report" same "$TMP/shuffled.swf"
cp "$TMP/easy.keep" "$TMP/easy.cfg"
report "$TMP/shuffled.swf"
cp "$TMP/r" "$TMP/shuffled.json"
report "$TMP/kth.swf"
check "... and the sorted trace's report" cmp -s "$TMP/r" "$TMP/shuffled.json"

# MaxProcs changed after the jobs began: the cluster is the whole header's.
{
    echo '; MaxProcs: 50'
    jobs | sed -n '1,3000p'
    echo '; MaxProcs: 100'
    jobs | sed '1,3000d'
} >"$TMP/header.swf"
check "MaxProcs changed after 3,000 jobs: the same" same "$TMP/header.swf"
"$MOKU" simulate --config "$TMP/easy.cfg" "$TMP/header.swf" >"$TMP/text" 2>&1
check "... on 100 processors" grep -q 'cluster  *100 nodes, 100 processors' "$TMP/text"

# MaxProcs only at the end: the replay waits for it.
{
    jobs
    echo '; MaxProcs: 100'
} >"$TMP/late.swf"
check "MaxProcs after every job: the same" same "$TMP/late.swf"

# A preceding job (field 17) late in the trace: the whole read checks it.
jobs | awk 'NR == 4000 { $17 = prev } { prev = $1; print }' >"$TMP/deps.body"
{ echo '; MaxProcs: 100'; cat "$TMP/deps.body"; } >"$TMP/deps.swf"
check "a preceding job at job 4,000: the same" same "$TMP/deps.swf"

# Late surprises (att31p): the last job out of order, or naming a
# preceding job; UnixStartTime or TimeZoneString changed mid-trace; a
# comment line of 2 MB amid the jobs (longer than the reader's blocks);
# CR LF line ends; a gzip file of two members.
{ grep '^;' "$TMP/kth.swf"; jobs | awk 'NR == 6000 { $2 = 100 } { print }'; } >"$TMP/x1.swf"
check "the last job out of order: the same" same "$TMP/x1.swf"
{ grep '^;' "$TMP/kth.swf"; jobs | awk 'NR == 6000 { $17 = prev } { prev = $1; print }'; } >"$TMP/x2.swf"
check "the last job with a preceding job: the same" same "$TMP/x2.swf"
for kw in 'UnixStartTime: 843480000' 'TimeZoneString: America/New_York'; do
    { grep '^;' "$TMP/kth.swf"; jobs | sed -n 1,3000p; echo "; $kw"; jobs | sed 1,3000d; } >"$TMP/x3.swf"
    check "'$kw' after 3,000 jobs: the same" same "$TMP/x3.swf"
done
{
    grep '^;' "$TMP/kth.swf"
    jobs | sed -n 1,3000p
    printf '; %s\n' "$(head -c 2000000 /dev/zero | tr '\0' a)"
    jobs | sed 1,3000d
} >"$TMP/x4.swf"
check "a comment line of 2 MB amid the jobs: the same" same "$TMP/x4.swf"
sed 's/$/\r/' "$TMP/kth.swf" >"$TMP/x5.swf"
check "CR LF line ends: the same" same "$TMP/x5.swf"
{ grep '^;' "$TMP/kth.swf"; jobs | sed -n 1,3000p; } | gzip -c >"$TMP/x6.swf.gz"
jobs | sed 1,3000d | gzip -c >>"$TMP/x6.swf.gz"
check "gzip of two members: the same" same "$TMP/x6.swf.gz"
gzip -c "$TMP/kth.swf" >"$TMP/x7.gz"
head -c $(($(wc -c <"$TMP/x7.gz") / 2)) "$TMP/x7.gz" >"$TMP/x7.swf.gz"
rm -f "$TMP/x7.csv"
report "$TMP/x7.swf.gz" --jobs-out "$TMP/x7.csv"
check "gzip cut amid its member: the read error with its line, exit 1, no file, no temporary" \
    sh -c "[ ! -s '$TMP/r' ] && grep -q 'x7.swf.gz:[0-9]*: read error: unexpected end of file' '$TMP/err' &&
           [ ! -e '$TMP/x7.csv' ] && ! ls '$TMP' | grep -q moku-"

# Bad lines, early and late: the error, exit 1, no report.
for at in 30 5990; do
    { echo '; MaxProcs: 100'; jobs | awk -v at=$at 'NR == at { $5 = "x" } { print }'; } >"$TMP/bad.swf"
    line=$((at + 1))
    report "$TMP/bad.swf"
    check "a bad line at job $at: its file:line, exit 1, no report" \
        sh -c "[ ! -s '$TMP/r' ] && grep -q 'bad.swf:$line: ' '$TMP/err' && [ \$(wc -l <'$TMP/err') = 1 ]"
    "$MOKU" simulate --config "$TMP/easy.cfg" --format json "$TMP/bad.swf" >/dev/null 2>&1
    check "... exit 1" [ $? = 1 ]
    echo keep >"$TMP/kept.csv"
    chmod 640 "$TMP/kept.csv"
    cp -p "$TMP/kept.csv" "$TMP/kept.ref"
    rm -f "$TMP/new.csv" "$TMP/new.swf" "$TMP/new.series"
    "$MOKU" simulate --config "$TMP/easy.cfg" --jobs-out "$TMP/new.csv" --batsim-out "$TMP/kept.csv" \
        --swf-out "$TMP/new.swf" --resv-out "$TMP/resv.log" --series "$TMP/new.series" \
        "$TMP/bad.swf" >/dev/null 2>"$TMP/err"
    rc=$?
    check "... with outputs: the file:line error, exit 1" \
        sh -c "[ $rc = 1 ] && grep -q 'bad.swf:$line: ' '$TMP/err' && [ \$(wc -l <'$TMP/err') = 1 ]"
    check "... no output file created, none changed, no temporary left" \
        sh -c "[ ! -e '$TMP/new.csv' ] && [ ! -e '$TMP/new.swf' ] && [ ! -e '$TMP/resv.log' ] &&
               [ ! -e '$TMP/new.series' ] &&
               cmp -s '$TMP/kept.csv' '$TMP/kept.ref' &&
               [ \$(stat -c %a '$TMP/kept.csv') = 640 ] && ! ls '$TMP' | grep -q moku-"
done

# Outputs written as the replay goes: the same files as the whole read's,
# new or over an old one, renamed into place (no temporary left).
report "$TMP/kth.swf" --jobs-out "$TMP/w.csv" --batsim-out "$TMP/w.bat" --swf-out "$TMP/w.swf" \
    --resv-out "$TMP/w.resv" --series "$TMP/w.series" --plot "$TMP/plot.svg"
cp "$TMP/r" "$TMP/whole.json"
echo old >"$TMP/s.csv"
echo old >"$TMP/s.series"
rm -f "$TMP/s.bat" "$TMP/s.swf" "$TMP/s.resv"
report "$TMP/kth.swf" --jobs-out "$TMP/s.csv" --batsim-out "$TMP/s.bat" --swf-out "$TMP/s.swf" \
    --resv-out "$TMP/s.resv" --series "$TMP/s.series"
same_files() {
    for f in csv bat swf resv series; do cmp -s "$TMP/w.$f" "$TMP/s.$f" || return 1; done
    cmp -s "$TMP/r" "$TMP/whole.json" && ! ls "$TMP" | grep -q moku-
}
check "streamed --jobs-out, --batsim-out, --swf-out, --resv-out, --series: the whole read's files" same_files
# Not a regular file: /dev/stdout, a FIFO (written in place after the
# whole read).
"$MOKU" simulate --config "$TMP/easy.cfg" --format json --jobs-out /dev/stdout "$TMP/kth.swf" \
    2>/dev/null | grep -v '^{' >"$TMP/stdout.csv"
check "--jobs-out /dev/stdout: the same rows" cmp -s "$TMP/stdout.csv" "$TMP/w.csv"
mkfifo "$TMP/fifo"
cat "$TMP/fifo" >"$TMP/fifo.csv" &
"$MOKU" simulate --config "$TMP/easy.cfg" --jobs-out "$TMP/fifo" "$TMP/kth.swf" >/dev/null 2>&1
wait
check "--jobs-out to a FIFO: the same rows" cmp -s "$TMP/fifo.csv" "$TMP/w.csv"
"$MOKU" simulate --config "$TMP/easy.cfg" --jobs-out /dev/full "$TMP/kth.swf" \
    >/dev/null 2>"$TMP/err"
rc=$?
check "--jobs-out /dev/full: the write error, exit 1" \
    sh -c "[ $rc = 1 ] && grep -q '/dev/full: write failed' '$TMP/err'"
# The mode of a new file: 0666 under the umask, as open(2) gives; an old
# file's own.
modes() {
    rm -f "$TMP/m1.csv" "$TMP/m2.csv"
    (umask 022 && "$MOKU" simulate --config "$TMP/easy.cfg" --jobs-out "$TMP/m1.csv" "$TMP/kth.swf")
    (umask 077 && "$MOKU" simulate --config "$TMP/easy.cfg" --jobs-out "$TMP/m2.csv" "$TMP/kth.swf")
    chmod 604 "$TMP/m2.csv"
    (umask 077 && "$MOKU" simulate --config "$TMP/easy.cfg" --jobs-out "$TMP/m2.csv" "$TMP/kth.swf")
    [ "$(stat -c %a "$TMP/m1.csv")" = 644 ] && [ "$(stat -c %a "$TMP/m2.csv")" = 604 ]
} >/dev/null 2>&1
check "a new file: 0644 under umask 022; an old file keeps its mode (0604 under umask 077)" modes
(umask 077 && rm -f "$TMP/m3.csv" && "$MOKU" simulate --config "$TMP/easy.cfg" \
    --jobs-out "$TMP/m3.csv" "$TMP/kth.swf" >/dev/null 2>&1)
check "a new file: 0600 under umask 077" [ "$(stat -c %a "$TMP/m3.csv")" = 600 ]

# Interrupted amid the replay (SIGTERM; SIGINT, SIGHUP alike): the old file
# kept, no temporary.
zcat data/HPC2N-2002-2.1-cln.norm.swf.gz >"$TMP/big.swf"
echo old >"$TMP/i.csv"
# The binary itself (under tests/run.sh, MOKU is a wrapper, tests/tools/vsim).
"${MOKU_REAL:-$MOKU}" simulate --config "$TMP/easy.cfg" --jobs-out "$TMP/i.csv" "$TMP/big.swf" \
    >/dev/null 2>&1 &
p=$!
has_tmp() { ls "$TMP" | grep -q 'i.csv.moku-'; }
wait_for 10 has_tmp
kill -TERM $p
wait $p
rc=$?
check "SIGTERM amid the replay: killed by it, the old file kept, no temporary" \
    sh -c "[ $rc = 143 ] && [ \"\$(cat '$TMP/i.csv')\" = old ] && ! ls '$TMP' | grep -q moku-"

# Past the file size limit (ulimit -f): killed by SIGXFSZ as the in-place
# write was, the old file kept, no temporary (one was left, 200 KB).
echo old >"$TMP/i.csv"
(ulimit -f 200 && exec "${MOKU_REAL:-$MOKU}" simulate --config "$TMP/easy.cfg" \
    --jobs-out "$TMP/i.csv" "$TMP/kth.swf" >/dev/null 2>&1)
rc=$?
check "past the file size limit: killed by SIGXFSZ, the old file kept, no temporary" \
    sh -c "[ $rc = 153 ] && [ \"\$(cat '$TMP/i.csv')\" = old ] && ! ls '$TMP' | grep -q moku-"

# The signal windows and the renames, made to happen where they matter
# (strace's fault injection, on the binary itself): a signal right after a
# temporary is created (at its fchmod) leaves none; a signal between two
# renames leaves both targets new (the signals wait for the renames); a
# rename that fails puts back the targets replaced before it (their old
# files, or none), also where a hard link cannot keep the old file (moved
# aside instead); an old file's replacement is on the disk before the
# rename (fsync), a new file's is not synced.
if strace -f -o /dev/null -e trace=fchmod -e inject=fchmod:error=EPERM true 2>/dev/null; then
    REAL=${MOKU_REAL:-$MOKU}
    # inj SPEC... -- ARGS...: the run under strace, its exit status in rc.
    inj() {
        sp=
        while [ "$1" != -- ]; do
            sp="$sp -e $1"
            shift
        done
        shift
        strace -f -o /dev/null $sp "$REAL" simulate --config "$TMP/easy.cfg" "$@" "$TMP/kth.swf" \
            >/dev/null 2>"$TMP/err"
        rc=$?
    }
    RN=rename,renameat,renameat2
    mkdir "$TMP/ren"
    # in_r "FILE CONTENT..." : the directory holds exactly these (no
    # temporary, no old file kept), with these contents.
    in_r() {
        [ "$(ls "$TMP/ren" | wc -l)" = $# ] || return 1
        for fc; do [ "$(cat "$TMP/ren/${fc%% *}")" = "${fc#* }" ] || return 1; done
    }
    both_new() { cmp -s "$TMP/ren/a.csv" "$TMP/w.csv" && cmp -s "$TMP/ren/b.bat" "$TMP/w.bat"; }
    olds() { rm -f "$TMP/ren/"* && echo olda >"$TMP/ren/a.csv" && echo oldb >"$TMP/ren/b.bat"; }
    rm -f "$TMP/ren/"*
    inj trace=fchmod inject=fchmod:signal=SIGTERM:when=1 -- --jobs-out "$TMP/ren/a.csv"
    check "SIGTERM just after a temporary is made: killed, no file, no temporary" \
        sh -c "[ $rc = 143 ] && [ -z \"\$(ls '$TMP/ren')\" ]"
    olds
    inj trace=$RN inject=$RN:signal=SIGTERM:when=1 -- --jobs-out "$TMP/ren/a.csv" \
        --batsim-out "$TMP/ren/b.bat"
    check "SIGTERM at the first of two renames: killed after both (143)" [ $rc = 143 ]
    check "... both files new, no temporary" sh -c "[ \$(ls '$TMP/ren' | wc -l) = 2 ]"
    check "... the whole read's" both_new
    olds
    inj trace=$RN inject=$RN:error=EACCES:when=2 -- --jobs-out "$TMP/ren/a.csv" \
        --batsim-out "$TMP/ren/b.bat"
    check "the second of two renames fails: exit 1, its error" \
        sh -c "[ $rc = 1 ] && grep -q 'b.bat: cannot write: Permission denied' '$TMP/err'"
    check "... both old files back, no temporary, no old file kept" in_r "a.csv olda" "b.bat oldb"
    rm -f "$TMP/ren/"*
    inj trace=$RN inject=$RN:error=EACCES:when=3 -- --jobs-out "$TMP/ren/a.csv" \
        --batsim-out "$TMP/ren/b.bat" --swf-out "$TMP/ren/c.swf"
    check "the third of three new files fails: exit 1, none created, no temporary" \
        sh -c "[ $rc = 1 ] && [ -z \"\$(ls '$TMP/ren')\" ]"
    rm -f "$TMP/ren/"*
    echo olda >"$TMP/ren/a.csv"
    echo oldc >"$TMP/ren/c.swf"
    inj trace=$RN,link,linkat inject=link,linkat:error=EPERM inject=$RN:error=EACCES:when=4 -- \
        --jobs-out "$TMP/ren/a.csv" --batsim-out "$TMP/ren/b.bat" --swf-out "$TMP/ren/c.swf"
    check "no hard links, the last rename fails: exit 1" [ $rc = 1 ]
    check "... the old files back (moved aside, back), the new one gone" in_r "a.csv olda" "c.swf oldc"
    olds
    rm "$TMP/ren/b.bat"
    strace -f -e trace=fsync,$RN -o "$TMP/trace" "$REAL" simulate --config "$TMP/easy.cfg" \
        --jobs-out "$TMP/ren/a.csv" --batsim-out "$TMP/ren/b.bat" "$TMP/kth.swf" >/dev/null 2>&1
    synced() {
        [ "$(grep -v resumed "$TMP/trace" | sed 's/^[0-9]* *//' | grep -E '^(fsync|rename)' |
            sed 's/(.*//' | tr '\n' ' ')" = 'fsync rename rename ' ]
    }
    check "an old file replaced: synced before its rename; a new one not" synced
    check "... both the whole read's" both_new
else
    skip "the signal windows and renames: no strace with fault injection here"
fi

# The longest name a temporary allows (243 bytes and .moku-XXXXXX: 255):
# the old file is kept under a name no longer while the other is renamed.
long=$(printf 'a%.0s' $(seq 243))
echo old >"$TMP/$long"
"$MOKU" simulate --config "$TMP/easy.cfg" --jobs-out "$TMP/$long" --batsim-out "$TMP/l.bat" \
    "$TMP/kth.swf" >/dev/null 2>&1
rc=$?
check "a target of 243 bytes with another output: both written" \
    sh -c "[ $rc = 0 ] && cmp -s '$TMP/$long' '$TMP/w.csv' && cmp -s '$TMP/l.bat' '$TMP/w.bat'"

# A full disk (root: a small tmpfs): the write error, exit 1, the old file kept.
if [ "$(id -u)" = 0 ] && mkdir "$TMP/small" && mount -t tmpfs -o size=200k tmpfs "$TMP/small"; then
    echo old >"$TMP/small/f.csv"
    "$MOKU" simulate --config "$TMP/easy.cfg" --jobs-out "$TMP/small/f.csv" "$TMP/kth.swf" \
        >/dev/null 2>"$TMP/err"
    rc=$?
    check "a full disk: the write error, exit 1, the old file kept, no temporary" \
        sh -c "[ $rc = 1 ] && grep -q 'f.csv: write failed: No space' '$TMP/err' &&
               [ \"\$(cat '$TMP/small/f.csv')\" = old ] && [ \$(ls '$TMP/small' | wc -l) = 1 ]"
    umount "$TMP/small"
else
    skip "a full disk: no tmpfs mount here"
fi

# --strict: a record that cannot be replayed, late, is the error.
{ echo '; MaxProcs: 100'; jobs | awk 'NR == 5000 { $4 = -1 } { print }'; } >"$TMP/strict.swf"
report "$TMP/strict.swf" --strict
check "--strict, an unusable record late: the error, no report" \
    sh -c "[ ! -s '$TMP/r' ] && grep -q 'strict.swf:5001: job .* cannot be replayed' '$TMP/err'"
check "without --strict: the same as the whole read" same "$TMP/strict.swf"
done_checks
