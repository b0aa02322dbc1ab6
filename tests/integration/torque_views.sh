#!/bin/sh
# What Torque's views show an ordinary user, and the job names they see
# (issue 28). pbsnodes and qstat -n/-x showed ordinary users what checknode
# refuses them: nodes' notes and where other users' jobs run, and other
# users' ended jobs, which showq never lists. Job names with bidi or
# line-separator characters reached other users' screens as they were:
# refused at submission and qalter now, and escaped on output for what the
# store held before. Real users (useradd) against the real daemon; needs
# root, skipped otherwise (as permissions.sh).
. tests/integration/lib.sh

if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null 2>&1 || ! command -v runuser >/dev/null 2>&1; then
    skip "the views of an ordinary user need root, useradd and runuser"
    done_checks
    exit 0
fi
for u in mokutva mokutvb; do
    add_user "$u"
done
MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
H=$TMP/home
mkdir -p "$H" "$TMP/work"
chmod 755 "$TMP" "$H"
chmod 777 "$TMP/work"
cp "$MOKU" "$TMP/moku" && chmod 755 "$TMP/moku"
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\nNODECFG[n2] PROCS=2\nNODECFG[n3] PROCS=2\n' >"$H/maui.cfg"
export MOKU_HOME="$H"
pid=
start_daemon() {
    "$MOKU" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
    pid=$!
    i=0
    while [ $i -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
}
# The end: the jobs cancelled (their supervisors outlive the daemon), the
# daemon stopped; lib_cleanup deletes the users this test made.
cleanup() {
    for j in $(timeout 5 "$MOKU" qstat 2>/dev/null | sed -n 's/^\([0-9][0-9]*\)\..*/\1/p'); do
        timeout 5 "$MOKU" canceljob "$j" >/dev/null 2>&1
    done
    i=0
    while [ $i -lt 50 ] && timeout 5 "$MOKU" qstat 2>/dev/null | grep -q ' R DEFAULT$'; do sleep 0.1; i=$((i + 1)); done
    stop_daemon
    lib_cleanup
}
trap cleanup EXIT
# as USER COMMAND...: the client as that user; out, err, rc.
as() {
    u=$1
    shift
    (cd "$TMP/work" && runuser -u "$u" -- env MOKU_HOME="$H" timeout 10 "$TMP/moku" "$@") >"$TMP/out" 2>"$TMP/err"
    rc=$?
}
start_daemon

printf 'sleep 300\n' >"$TMP/work/job.sh"
as mokutva submit -N mine -l nodes=1:ppn=2,walltime=1:00:00 "$TMP/work/job.sh"
ja=$(cat "$TMP/out")
as mokutvb submit -N theirs -l nodes=1:ppn=2,walltime=1:00:00 "$TMP/work/job.sh"
jb=$(cat "$TMP/out")
as mokutvb submit -h "$TMP/work/job.sh"
jc=$(cat "$TMP/out")
as mokutvb canceljob "$jc"
timeout 5 "$MOKU" pbsnodes -o -N "dimm errors: ask root" n3 >/dev/null
i=0
while [ $i -lt 50 ] && [ "$(timeout 5 "$MOKU" qstat | grep -c ' R DEFAULT$')" -lt 2 ]; do sleep 0.2; i=$((i + 1)); done
check "setup: two users' jobs running ($ja, $jb), one ended ($jc)" \
    sh -c "[ -n '$ja' ] && [ -n '$jb' ] && [ -n '$jc' ] && [ $i -lt 50 ]"

# pbsnodes: no notes, no other user's jobs on nodes.
as mokutva pbsnodes -a
check "pbsnodes -a as an ordinary user: no node's note" sh -c "[ $rc = 0 ] && ! grep -q 'note = ' '$TMP/out'"
check "... their own job on its node" grep -q "^     jobs = .*/$ja\\." "$TMP/out"
check "... and no other user's" sh -c "! grep -q '/$jb\\.' '$TMP/out'"
as mokutva pbsnodes --format=json n3
check "pbsnodes --format=json: the note is null" sh -c "python3 -c 'import json; o = json.load(open(\"$TMP/out\")); assert o[\"nodes\"][0][\"note\"] is None'"
timeout 5 "$MOKU" pbsnodes -a >"$TMP/out"
check "root sees the note and both jobs" sh -c "grep -q 'note = dimm errors: ask root' '$TMP/out' && grep -q '/$ja\\.' '$TMP/out' && grep -q '/$jb\\.' '$TMP/out'"

# qstat -n: where another user's job runs is not shown; the job itself is.
as mokutva qstat -n
check "qstat -n as an ordinary user: the other user's job listed (showq's rule)" grep -q "^$jb\\." "$TMP/out"
check "... without its nodes" sh -c "grep -A1 '^$jb\\.' '$TMP/out' | tail -1 | grep -q '^    --\$'"
check "... their own with its nodes" sh -c "grep -A1 '^$ja\\.' '$TMP/out' | tail -1 | grep -q '^   n[123]/0-1\$'"
as mokutva qstat --format=json
check "qstat --format=json: exec_host null for the other user's job" \
    sh -c "python3 -c 'import json; o = {j[\"id\"].split(\".\")[0]: j for j in json.load(open(\"$TMP/out\"))[\"jobs\"]}; assert o[\"$jb\"][\"exec_host\"] is None and o[\"$ja\"][\"exec_host\"]'"
timeout 5 "$MOKU" qstat -n >"$TMP/out"
check "root sees the other user's nodes" sh -c "grep -A1 '^$jb\\.' '$TMP/out' | tail -1 | grep -q '^   n[123]/0-1\$'"

# qstat -c: another user's ended job is not listed, nor shown by name.
as mokutva qstat -c
check "qstat -c as an ordinary user: no other user's ended job" sh -c "[ $rc = 0 ] && ! grep -q '^$jc\\.' '$TMP/out'"
as mokutva qstat -c "$jc"
check "qstat -c JOB of another user's ended job: refused" sh -c "[ $rc != 0 ] && grep -q 'Unauthorized' '$TMP/err'"
as mokutvb qstat -c
check "... its owner sees it (C)" grep -q "^$jc\\..* C DEFAULT\$" "$TMP/out"
timeout 5 "$MOKU" qstat -c >"$TMP/out"
check "... and root" grep -q "^$jc\\..* C DEFAULT\$" "$TMP/out"

# Names that turn lines around: refused at submission and by qalter.
rlo=$(printf 'ab\342\200\256cd')
as mokutva submit -N "$rlo" "$TMP/work/job.sh"
check "submit -N with U+202E (right-to-left override): refused" sh -c "[ $rc != 0 ] && grep -q 'format character' '$TMP/err'"
printf '#PBS -N x\342\200\250y\nsleep 1\n' >"$TMP/work/ls.sh"
as mokutva submit "$TMP/work/ls.sh"
check "a #PBS -N with U+2028 (line separator) in the script: refused" sh -c "[ $rc != 0 ] && grep -q 'format character' '$TMP/err'"
as mokutva qalter -N "$(printf 'a\342\201\246b')" "$ja"
check "qalter -N with U+2066 (left-to-right isolate): refused" sh -c "[ $rc != 0 ] && grep -q 'format character' '$TMP/err'"
as mokutva qalter -N "$(printf 'a\342\200\213b')" "$ja"
check "qalter -N with U+200B (zero-width space): refused" sh -c "[ $rc != 0 ] && grep -q 'format character' '$TMP/err'"
as mokutva submit -N "caf$(printf '\303\251')" "$TMP/work/job.sh"
check "a name in plain UTF-8 (an accent) is still taken" [ "$rc" = 0 ]
canceljob_id=$(cat "$TMP/out")
timeout 5 "$MOKU" canceljob "$canceljob_id" >/dev/null 2>&1

# A name stored before the rule: escaped on every user's screen.
stop_daemon
sqlite3 "$H/moku.db" "UPDATE jobs SET name = 'x' || char(8238) || 'evil' || char(8233) WHERE id = $ja;"
start_daemon
shown='x\u{202E}evil\u{2029}'
raw=$(printf '\342\200\256')
as mokutvb qstat
check "a stored name with U+202E and U+2029 is shown escaped to others (the column cut at 16)" \
    sh -c "grep -qF 'x\u{202E}evil\u{' '$TMP/out' && ! grep -qF '$raw' '$TMP/out'"
as mokutvb qstat --format=json "$ja"
check "... and in JSON" sh -c "python3 -c 'import json,sys; assert json.load(open(\"$TMP/out\"))[\"jobs\"][0][\"name\"] == sys.argv[1]' '$shown'"
as mokutva qstat -f "$ja"
check "... and in the owner's qstat -f" sh -c "grep -qF '    Job_Name = $shown' '$TMP/out'"

# qsub -W group_list: a group the user is in, else refused (issue 30).
as mokutva submit -W group_list=daemon "$TMP/work/job.sh"
check "-W group_list of a group the user is not in: refused" \
    sh -c "[ $rc = 1 ] && grep -q 'group_list=daemon: user mokutva is not a member of group daemon' '$TMP/err'"
g=$(id -gn mokutva)
as mokutva submit -h -W "group_list=$g" "$TMP/work/job.sh"
jg=$(cat "$TMP/out")
as mokutva qstat -f "$jg"
check "-W group_list of the user's own group: taken, egroup $g" grep -qx "    egroup = $g" "$TMP/out"
done_checks
