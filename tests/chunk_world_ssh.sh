#!/usr/bin/env bash
# chunk_world_ssh.sh CAVEGEN - the cluster recipe of docs/scale.md, for real:
# a world of chunks rendered by GNU parallel over ssh, some jobs on an ssh
# "machine" and some here, each remote job writing its chunk to a file that
# parallel brings back (--return) and then deletes on the remote side
# (--cleanup); the chunks are stitched and compared byte for byte with one
# chunk covering the whole world and with the same chunks made here without
# ssh.
#
# The ssh "machine" is this one: a private sshd on 127.0.0.1 and a free port,
# with a throw-away host key, a throw-away user key and its own config, all in
# a temporary folder that is removed on exit, when the sshd is stopped too.
# As root it logs in as root (the privilege-separation folder /run/sshd is
# created if missing); as an ordinary user the sshd runs unprivileged and can
# only log that same user in, which is all this needs.
#
# Two worlds of 4 x 3 chunks of 40x30 (as tests/chunk_world.sh): type1 seed 42
# left of and above the origin (chunks -4..-1 x -3..-1: negative world
# coordinates), the chunk (-1,-1) of 160x90; type3 seed 7 right of and below
# it (0..3 x 0..2), the chunk (0,0) of 160x90.
#
# Exit 0 on success, 1 on a failure, 77 (skipped) without sshd, ssh, GNU
# parallel or rsync (which --return uses), or when an unprivileged sshd
# cannot log the user in.
set -euo pipefail

name=chunk_world_ssh
cavegen=${1:?usage: chunk_world_ssh.sh CAVEGEN}

skip() {
    echo "$name: $*; skipped"
    exit 77
}
fail() {
    echo "$name: FAIL: $*" >&2
    exit 1
}

# The remote side runs the same binary, by absolute path (same machine).
case $cavegen in
/*) ;;
*) cavegen=$PWD/$cavegen ;;
esac
[ -x "$cavegen" ] || fail "$cavegen is not an executable"

# sshd re-executes itself, so it must be given by its absolute path.
sshd_bin=/usr/sbin/sshd
missing=()
[ -x "$sshd_bin" ] || missing+=(openssh-server)
if ! command -v ssh > /dev/null || ! command -v ssh-keygen > /dev/null; then
    missing+=(openssh-client)
fi
command -v parallel > /dev/null || missing+=(parallel)
command -v rsync > /dev/null || missing+=(rsync)
if [ ${#missing[@]} -gt 0 ]; then
    skip "needs ${missing[*]} (Debian: apt-get install -y ${missing[*]})"
fi

user=$(id -un)
uid=$(id -u)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cavegen-world-ssh-XXXXXX")
sshd_pid=
stop_sshd() {
    [ -n "$sshd_pid" ] || return 0
    local pid=$sshd_pid daemon i
    sshd_pid=
    # $pid is 'timeout', its child the listening sshd, whose children serve
    # the connections: let those of the last jobs finish first (up to 5 s).
    daemon=$(pgrep -P "$pid" || true)
    if [ -n "$daemon" ]; then
        for i in $(seq 50); do
            pgrep -P "$daemon" > /dev/null || break
            sleep 0.1
        done
    fi
    kill "$pid" 2> /dev/null || true
    for i in $(seq 50); do
        kill -0 "$pid" 2> /dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2> /dev/null || true
    wait "$pid" 2> /dev/null || true
}
# The long commands (parallel) run in the background while the script waits
# for them, so that a signal stops the script at once, and stops them too.
job_pid=
wait_job() {
    local rc=0
    wait "$job_pid" || rc=$?
    job_pid=
    return $rc
}
stop_job() {
    [ -n "$job_pid" ] || return 0
    local pid=$job_pid i
    job_pid=
    # parallel stops its jobs on SIGTERM, which it ignores until its first
    # job starts: send it again every second.
    for i in $(seq 50); do
        kill -0 "$pid" 2> /dev/null || break
        if [ $((i % 10)) -eq 1 ]; then
            kill "$pid" 2> /dev/null || true
        fi
        sleep 0.1
    done
    kill -KILL "$pid" 2> /dev/null || true
    wait "$pid" 2> /dev/null || true
}
cleanup() {
    trap '' HUP INT TERM
    stop_job
    stop_sshd
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# GNU parallel asks once for a citation; a test has no one to ask.
export PARALLEL_HOME="$tmp/.parallel"
mkdir -p "$PARALLEL_HOME"
touch "$PARALLEL_HOME/will-cite"

# --- The ssh "machine" -------------------------------------------------------

ssh-keygen -q -t ed25519 -N '' -C "$name host key" -f "$tmp/host_ed25519"
ssh-keygen -q -t ed25519 -N '' -C "$name user key" -f "$tmp/id_ed25519"
cp "$tmp/id_ed25519.pub" "$tmp/authorized_keys"
chmod 600 "$tmp/authorized_keys"

if [ "$uid" -eq 0 ] && [ ! -d /run/sshd ]; then
    # The privilege-separation folder, made by the openssh-server service
    # on a booted system but missing in a container or before the first start.
    mkdir -m 0755 /run/sshd 2> /dev/null || [ -d /run/sshd ] ||
        fail "cannot create /run/sshd, the privilege-separation folder of sshd"
fi

# Without PAM, sshd refuses an account whose password is locked ('!' in
# /etc/shadow), keys or not; only root can read that field, and only a root
# sshd checks it. PAM (Debian's /etc/pam.d/sshd) lets such a root in by key.
use_pam=no
if [ "$uid" -eq 0 ] && [ "$(getent shadow "$user" | cut -d: -f2 | cut -c1)" = '!' ]; then
    use_pam=yes
fi

# A port the OS says is free (else a random one nobody listens on); another
# program may take it before sshd does, so sshd is retried on a new port.
pick_port() {
    if command -v python3 > /dev/null; then
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()' && return 0
    fi
    local p i
    for i in $(seq 50); do
        p=$((20000 + RANDOM % 40000))
        if ! (exec 3<> "/dev/tcp/127.0.0.1/$p") 2> /dev/null; then
            echo "$p"
            return 0
        fi
    done
    return 1
}

write_config() {
    cat > "$tmp/sshd_config" << EOF
# $name: a private sshd for one test, nothing from /etc/ssh.
ListenAddress 127.0.0.1
Port $port
HostKey $tmp/host_ed25519
PidFile $tmp/sshd.pid
AuthorizedKeysFile $tmp/authorized_keys
AllowUsers $user
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM $use_pam
# $tmp lies under the world-writable ${TMPDIR:-/tmp}.
StrictModes no
PrintMotd no
PrintLastLog no
# bash sources ~/.bashrc for a command run by sshd unless it is a nested
# shell: with SHLVL set it is, so the user's start-up files (a version
# manager can take half a second) do not run before every remote command.
SetEnv SHLVL=1
MaxStartups 100
LogLevel INFO
EOF
}

# start_sshd: 0 when it listens on $port, 1 when it exited (port taken?),
# 2 when it did not listen within 10 s.
start_sshd() {
    local i
    # The log exists before the background shell opens it for sshd.
    : > "$tmp/sshd.log"
    # 'timeout' bounds its life even if this script is killed by SIGKILL.
    timeout 300 "$sshd_bin" -D -e -f "$tmp/sshd_config" < /dev/null > "$tmp/sshd.log" 2>&1 &
    sshd_pid=$!
    for i in $(seq 100); do
        if ! kill -0 "$sshd_pid" 2> /dev/null; then
            wait "$sshd_pid" 2> /dev/null || true
            sshd_pid=
            return 1
        fi
        if grep -q "Server listening on 127.0.0.1 port $port" "$tmp/sshd.log" &&
            (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null; then
            return 0
        fi
        sleep 0.1
    done
    return 2
}

started=no
for _ in 1 2 3 4 5; do
    port=$(pick_port) || fail "no free port found on 127.0.0.1"
    write_config
    "$sshd_bin" -t -f "$tmp/sshd_config" 2> "$tmp/sshd-t.log" ||
        fail "sshd rejects its config ($tmp/sshd_config): $(cat "$tmp/sshd-t.log")"
    rc=0
    start_sshd || rc=$?
    if [ $rc -eq 0 ]; then
        started=yes
        break
    fi
    if [ $rc -eq 2 ]; then
        fail "sshd did not accept connections on 127.0.0.1:$port within 10 s; its log:
$(cat "$tmp/sshd.log")"
    fi
    grep -qi 'address already in use' "$tmp/sshd.log" ||
        fail "sshd exited at start on port $port; its log:
$(cat "$tmp/sshd.log")"
    echo "$name: port $port was taken meanwhile, trying another"
done
[ $started = yes ] || fail "sshd could not listen on any of 5 ports; its last log:
$(cat "$tmp/sshd.log")"

# The ssh command: our port and key, no config file, no questions, and no
# host key kept (it is thrown away with the sshd). parallel takes it as one
# string (--ssh), quoted for its shell.
ssh_args=(ssh -F /dev/null -p "$port" -i "$tmp/id_ed25519" -o IdentitiesOnly=yes
    -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
    -o BatchMode=yes -o ConnectTimeout=10 -o LogLevel=ERROR)
ssh_cmd=$(printf '%q ' "${ssh_args[@]}")
remote=$user@127.0.0.1

# One real login before parallel, for a clear message when it fails.
# shellcheck disable=SC2016 # expanded on the remote side
if ! out=$("${ssh_args[@]}" "$remote" 'echo "$SSH_CONNECTION"' 2>&1); then
    msg="ssh $remote -p $port (key login to the private sshd) failed: $out
sshd log:
$(cat "$tmp/sshd.log")"
    if [ "$uid" -ne 0 ]; then
        skip "an unprivileged sshd could not log $user in (run as root for the full test); $msg"
    fi
    fail "$msg"
fi
case $out in
*" 127.0.0.1 $port") ;;
*) fail "the ssh login did not reach the private sshd on port $port (SSH_CONNECTION '$out')" ;;
esac
echo "$name: sshd on 127.0.0.1:$port (as $user, UsePAM $use_pam), key login works"

# --- The worlds --------------------------------------------------------------

# world PRESET SEED "CX..." "CY..." BIG_CX,BIG_CY
world() {
    local preset=$1 seed=$2 xs=$3 ys=$4 big=$5
    local dir="$tmp/$preset-$seed"
    local here="$dir/here" there="$dir/there" plain="$dir/plain"
    mkdir -p "$here" "$there" "$plain"
    # --cleanup also removes the remote workdir and its parents when they
    # are empty; the remote machine being this one, a file keeps $there for
    # the jobs here, which cd into it without creating it.
    touch "$there/.keep"

    # The cluster recipe: two job slots on the ssh machine, one here (':').
    # Every job runs in the --workdir $there and writes its chunk there. For
    # a job over ssh, $there is on the remote machine: parallel copies the
    # chunk back into its current folder, $here, with rsync (--return), then
    # deletes it on the remote side (--cleanup). A job here simply leaves its
    # chunk in $there. Each job also prints its coordinates and the ssh
    # connection it ran under (none here).
    # shellcheck disable=SC2016,SC2086
    (cd "$here" && exec parallel --sshlogin "2/$remote,1/:" --ssh "$ssh_cmd" \
        --workdir "$there" --return 'c_{1}_{2}.txt' --cleanup \
        --joblog "$dir/joblog" --halt now,fail=1 \
        "$cavegen" -p "$preset" -s "$seed" --size 40x30 --chunk '{1},{2}' -o 'c_{1}_{2}.txt' \
        '&&' echo '{1},{2}' '"${SSH_CONNECTION:-}"' \
        ::: $xs ::: $ys > "$dir/where") &
    job_pid=$!
    wait_job ||
        fail "$preset: parallel over ssh failed; joblog:
$(cat "$dir/joblog" 2> /dev/null)
sshd log:
$(cat "$tmp/sshd.log")"

    # Every job reported; some really ran over ssh, on our sshd, by their
    # own account and by parallel's joblog (column 2: the sshlogin). A chunk
    # made over ssh came back to $here and is gone from $there; a chunk made
    # here is in $there only.
    local n_jobs n_ssh=0 n_log xy conn cx cy
    declare -A chunk=()
    n_jobs=$(($(wc -w <<< "$xs") * $(wc -w <<< "$ys")))
    [ "$(wc -l < "$dir/where")" -eq "$n_jobs" ] ||
        fail "$preset: $n_jobs jobs expected, $(wc -l < "$dir/where") reported:
$(cat "$dir/where")"
    while read -r xy conn; do
        cx=${xy%,*} cy=${xy#*,}
        if [[ $conn == *" 127.0.0.1 $port" ]]; then
            n_ssh=$((n_ssh + 1))
            [ -s "$here/c_${cx}_${cy}.txt" ] ||
                fail "$preset: chunk $xy, made over ssh, did not come back (--return)"
            [ ! -e "$there/c_${cx}_${cy}.txt" ] ||
                fail "$preset: chunk $xy, made over ssh, is still on the remote side (--cleanup)"
            chunk[$xy]=$here/c_${cx}_${cy}.txt
        else
            if [ ! -s "$there/c_${cx}_${cy}.txt" ] || [ -e "$here/c_${cx}_${cy}.txt" ]; then
                fail "$preset: chunk $xy, made here, is not where it was written"
            fi
            chunk[$xy]=$there/c_${cx}_${cy}.txt
        fi
    done < "$dir/where"
    n_log=$(awk -F '\t' -v r="$remote" 'NR > 1 && $2 == r && $7 == 0' "$dir/joblog" | wc -l)
    [ "$n_ssh" -ge 1 ] || fail "$preset: no job ran over ssh:
$(cat "$dir/where")"
    [ "$n_log" -eq "$n_ssh" ] ||
        fail "$preset: the joblog has $n_log jobs on $remote, the jobs say $n_ssh:
$(cat "$dir/joblog")
$(cat "$dir/where")"

    # The same chunks without ssh.
    # shellcheck disable=SC2086
    parallel -j 2 --halt now,fail=1 \
        "$cavegen" -p "$preset" -s "$seed" --size 40x30 --chunk '{1},{2}' -o "$plain/c_{1}_{2}.txt" \
        ::: $xs ::: $ys &
    job_pid=$!
    wait_job || fail "$preset: parallel without ssh failed"

    # Stitch: the chunks of a row side by side, the rows one below another.
    : > "$dir/stitched"
    local y x files
    for y in $ys; do
        files=()
        for x in $xs; do
            [ -n "${chunk[$x,$y]:-}" ] || fail "$preset: no job made chunk $x,$y"
            cmp -s "${chunk[$x,$y]}" "$plain/c_${x}_${y}.txt" ||
                fail "$preset: chunk $x,$y from the ssh run differs from the one made without ssh"
            files+=("${chunk[$x,$y]}")
        done
        paste -d '' "${files[@]}" >> "$dir/stitched"
    done
    "$cavegen" -p "$preset" -s "$seed" --size 160x90 --chunk "$big" -o "$dir/whole.txt"
    [ "$(wc -l < "$dir/whole.txt")" -eq 90 ] || fail "$preset: the world is not 90 rows"
    cmp -s "$dir/stitched" "$dir/whole.txt" ||
        fail "$preset seed $seed: the stitched chunks differ from the chunk $big of 160x90"
    echo "$name: $preset seed $seed, chunks {$xs} x {$ys}: $n_ssh of $n_jobs over ssh," \
        "stitched = chunk $big of 160x90 = the same chunks without ssh"
}

world type1 42 "-4 -3 -2 -1" "-3 -2 -1" "-1,-1"
# A second world (positive chunks, another preset) at full depth only: each
# costs seconds of GNU parallel and ssh (docs/testing.md, "Two depths").
if [ "${CAVEGEN_TEST_THOROUGH:-0}" != 0 ]; then
    world type3 7 "0 1 2 3" "0 1 2" "0,0"
fi
