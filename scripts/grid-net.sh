#!/usr/bin/env bash
# The grid past one machine: an HTCondor pool of eight nodes on this
# machine -- a central manager, a submit node and six execute nodes -- each
# in its own network namespace (a veth pair into a bridge that lives in a
# namespace of its own: no address in the host's namespace, no route out)
# and its own root file system (an overlay on one trixie chroot), with its
# own daemons and configuration.  The nodes authenticate with IDTOKENS
# (encryption and integrity required) as docs/grid.md tells owners and the
# administrator to; the tokens are issued here, each with the least
# authorisation.
#
# A batch of seed-style jobs runs in seccomp-emu on the workers, every job
# validated as volunteer grids do it (grid/submit/quorum.py: two workers
# chosen apart, a third on disagreement, canaries, reputation), while this
# script injects faults: an execute node killed mid-job, a node's network
# dropped and restored, a worker's seccomp-emu swapped for a lying build, a
# worker advertising HasSeccompEmu without having it, a job suspended and
# resumed, the central manager restarted.  It prints each fault and what
# the pool did, and ends with "N passed, M failed".
#
#   sudo scripts/grid-net.sh            the full batch (over 500 work units)
#   sudo scripts/grid-net.sh --short    CI's batch: a few minutes, every fault
#
# Everything is torn down on any exit (daemons, namespaces, mounts), also on
# failure and Ctrl-C.  GRID_NET_INSPECT=1 keeps the pool up at the end until
# build/grid-net/inspect is removed; GRID_NET_SECCOMP_EMU gives the workers
# another seccomp-emu than build/'s.  Needs root (namespaces, mounts, chroot).
. "$(dirname "$0")/lib/fail-loudly.bash"
shopt -s extglob
cd "$(dirname "$0")/.."
REPO=$PWD

say() { echo "grid-net: $*"; }
fail() { echo "grid-net: FAIL: $*" >&2; exit 1; }

BATCH=full
case ${1:-} in
    --short) BATCH=short ;;
    "") ;;
    *) echo "usage: $0 [--short]" >&2; exit 2 ;;
esac

if [ "$(id -u)" -ne 0 ]; then
    echo "grid-net: needs root (network namespaces, mounts, chroot); try: sudo $0" >&2
    exit 2
fi
command -v ip >/dev/null || fail "needs ip (iproute2)"

. scripts/lib/grid-root.bash

WORK=$REPO/build/grid-net
FS=$WORK/fs                 # one tmpfs: the shared lower tree and every node's layer
LOWER=$FS/lower
DOMAIN=grid.test
NET=10.39.0                 # only inside the namespaces
NS_PREFIX=segrid-
LIBEXEC=/usr/local/libexec/seccomp-emu-grid
EXECS=(exec1 exec2 exec3 exec4 exec5 exec6)
NODES=(cm submit "${EXECS[@]}")
declare -A IP=([cm]=$NET.2 [submit]=$NET.3)
for i in "${!EXECS[@]}"; do IP[${EXECS[$i]}]=$NET.$((11 + i)); done
# The roles the faults give some workers (any honest worker may be the one
# killed or cut off: whichever runs a slow job at that moment).
LIAR=exec2     # its seccomp-emu is swapped for a build that lies
PRETENDER=exec3   # advertises HasSeccompEmu without having seccomp-emu

UTS=$WORK/uts              # each node's host name: a UTS namespace kept in a file here
ns() { echo "$NS_PREFIX$1"; }
root_of() { echo "$FS/$1/root"; }
# A command on a node: in its network and UTS namespaces, chrooted into its root.
on() { local n=$1; shift; nsenter --net="/run/netns/$(ns "$n")" --uts="$UTS/$n" chroot "$(root_of "$n")" "$@"; }
as_gridder() { local n=$1; shift; on "$n" runuser -u "$GRID_USER" -- "$@"; }

# An existing build is only brought up to date (CI has just built it).
if [ -f build/build.ninja ]; then
    quiet meson compile -C build
else
    scripts/build.sh
fi
for f in build/seccomp-emu build/examples/safe_job64 build/examples/canary_job64 \
         build/examples/raw/count_job_i386.text.bin; do
    [ -e "$f" ] || fail "$f was not built (the grid needs the x86 guests)"
done
# The seccomp-emu the workers get: this build's, or another (to try a fix).
EMU=${GRID_NET_SECCOMP_EMU:-build/seccomp-emu}
[ -x "$EMU" ] || fail "$EMU is not an executable"

# Before the trap: the tear-down must not stop another run's pool.
grep -q " $WORK" /proc/mounts && fail "$WORK is mounted (a pool still running?)"
ip netns list | grep -q "^$NS_PREFIX" && fail "network namespaces $NS_PREFIX* exist (a pool still running?)"
started=$(date +%s)
elapsed() { echo $(( $(date +%s) - started )); }

# ---- tear-down, on every exit ----
MOUNTS=()
processes_in() {  # pids whose root is the given directory or under it (one pass over /proc)
    # find fails on the processes that end while it reads /proc, or whose
    # root it may not read: neither is a failure here.
    { find /proc -mindepth 2 -maxdepth 2 -name root -printf '%h %l\n' 2>/dev/null || true; } \
        | awk -v d="$1" '$2 == d || index($2, d "/") == 1 { sub("/proc/", "", $1); print $1 }'
}
teardown() {
    local rc=$?
    set +e
    trap - INT TERM ERR   # the tear-down tries everything; a step that fails is not the failure reported
    if [ -n "${GRID_NET_INSPECT:-}" ]; then   # debugging: the pool stays up until this file goes
        touch "$WORK/inspect"
        echo "grid-net: pool kept for inspection; rm $WORK/inspect to tear down" >&2
        while [ -e "$WORK/inspect" ]; do sleep 2; done
    fi
    [ -n "${QUORUM_PID:-}" ] && kill "$QUORUM_PID" 2>/dev/null
    # SIGQUIT: each master's fast shutdown; its daemons stop their jobs.
    for p in $(processes_in "$FS"); do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = condor_master ] && kill -QUIT "$p" 2>/dev/null
    done
    for _ in $(seq 1 20); do
        [ -z "$(processes_in "$FS")" ] && break
        sleep 1
    done
    for p in $(processes_in "$FS"); do kill -KILL "$p" 2>/dev/null; done
    for _ in $(seq 1 10); do [ -z "$(processes_in "$FS")" ] && break; sleep 1; done
    say "tear-down: daemons stopped after $(elapsed) s"
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
        umount "${MOUNTS[$i]}" 2>/dev/null || umount -l "${MOUNTS[$i]}"
    done
    for n in $(ip netns list | sed -n "s/^\($NS_PREFIX[a-z0-9]*\).*/\1/p"); do
        ip netns delete "$n"
    done
    if grep -q " $WORK" /proc/mounts; then
        echo "grid-net: something under $WORK is still mounted; not removed" >&2
    else
        rm -rf "$WORK"
    fi
    if [ $rc -eq 0 ]; then
        say "torn down after $(elapsed) s in all"
    else
        echo "grid-net: torn down after a failure (status $rc)" >&2
    fi
    exit $rc
}
trap teardown EXIT
trap 'exit 130' INT TERM

# ---- the machines: one chroot, an overlay per node ----
rm -rf "$WORK"
mkdir -p "$FS"
# A tmpfs: the copy unpacks fast and goes away with the unmount (about
# 600 MB of RAM for the shared tree, a little more per node).
mount -t tmpfs -o size=3g,mode=755 seccomp-emu-grid-net "$FS"; MOUNTS+=("$FS")
mkdir "$LOWER"
grid_root_unpack "$LOWER"
# What every machine shares: the names of the others, and no single-machine pool.
{
    echo "127.0.0.1 localhost"
    for n in "${NODES[@]}"; do echo "${IP[$n]} $n.$DOMAIN $n"; done
} >"$LOWER/etc/hosts"
rm -f "$LOWER/etc/condor/config.d/00-minicondor"
for n in "${NODES[@]}"; do
    mkdir -p "$FS/$n/upper" "$FS/$n/work" "$FS/$n/root"
    # The root is a mount point, else the starter fails to make the job's
    # private /tmp ("Failed to unshare the mount namespace").
    mount -t overlay "seccomp-emu-grid-$n" -o "lowerdir=$LOWER,upperdir=$FS/$n/upper,workdir=$FS/$n/work" \
        "$FS/$n/root"; MOUNTS+=("$FS/$n/root")
    mount -t proc proc "$FS/$n/root/proc"; MOUNTS+=("$FS/$n/root/proc")
    mount --bind /dev "$FS/$n/root/dev"; MOUNTS+=("$FS/$n/root/dev")
done
say "${#NODES[@]} machines' roots ready in $(elapsed) s"

# Each machine's own host name, which its /etc/hosts resolves.
mkdir -p "$UTS"
mount -t tmpfs -o size=1m,mode=700 seccomp-emu-grid-net-uts "$UTS"; MOUNTS+=("$UTS")
mount --make-private "$UTS"
for n in "${NODES[@]}"; do
    touch "$UTS/$n"
    unshare --uts="$UTS/$n" hostname "$n.$DOMAIN"; MOUNTS+=("$UTS/$n")
done

# ---- the network: a bridge in a namespace of its own, a cable per node ----
SWITCH=$(ns switch)
ip netns add "$SWITCH"
ip -n "$SWITCH" link set lo up
ip -n "$SWITCH" link add br0 type bridge
ip -n "$SWITCH" link set br0 up
for n in "${NODES[@]}"; do
    ip netns add "$(ns "$n")"
    ip -n "$(ns "$n")" link set lo up
    ip -n "$SWITCH" link add "p-$n" type veth peer name eth0 netns "$(ns "$n")"
    ip -n "$SWITCH" link set "p-$n" master br0 up
    ip -n "$(ns "$n")" addr add "${IP[$n]}/24" dev eth0
    ip -n "$(ns "$n")" link set eth0 up
done
say "network: ${#NODES[@]} namespaces on bridge br0 (in $SWITCH), $NET.0/24, no route out"

# ---- each machine's configuration, as its owner or administrator writes it ----
node_config() {  # node: the files in its /etc/condor/config.d
    local n=$1 d
    d=$(root_of "$n")/etc/condor/config.d
    install -m 644 grid/net/70-test-pool.config "$d/"
    install -d -m 700 "$(root_of "$n")/etc/condor/tokens.d" "$(root_of "$n")/etc/condor/passwords.d"
}
for n in "${NODES[@]}"; do node_config "$n"; done
install -m 644 grid/net/10-central-manager.config "$(root_of cm)/etc/condor/config.d/"
install -m 644 grid/net/10-submit.config "$(root_of submit)/etc/condor/config.d/"
for n in "${EXECS[@]}"; do
    r=$(root_of "$n")
    sed "s/^CONDOR_HOST = .*/CONDOR_HOST = cm.$DOMAIN/" grid/execute/10-join.config >"$r/etc/condor/config.d/10-join.config"
    mkdir -p "$r$LIBEXEC"
    install -m 755 grid/execute/seccomp-emu-wrapper grid/execute/seccomp-emu-probe "$r$LIBEXEC/"
    install -m 644 grid/execute/50-seccomp-emu.config grid/net/75-test-worker.config "$r/etc/condor/config.d/"
    install -m 755 "$EMU" "$r/usr/local/bin/seccomp-emu"
done

if chroot "$(root_of exec1)" ldd /usr/local/bin/seccomp-emu | grep -q "not found"; then
    chroot "$(root_of exec1)" ldd /usr/local/bin/seccomp-emu >&2
    fail "seccomp-emu misses a shared library on the workers"
fi

# ---- the central manager first: its pool signing key, then the tokens ----
start_node() {  # node: its condor_master, in its namespace and root
    on "$1" condor_master || fail "condor_master did not start on $1"
}
start_node cm
wait_for 30 "the central manager's pool signing key" test -s "$(root_of cm)/etc/condor/passwords.d/POOL"
say "central manager up; its pool signing key is $(root_of cm | sed "s|$REPO/||")/etc/condor/passwords.d/POOL"

# The tokens, each with the least authorisation its holder needs (docs/grid.md):
# a worker advertises its machine and reads the pool, the submit node
# advertises its schedd and reads the pool.  Installed readable by root only.
token_for() {  # node, identity, authorisations...: a token on the node, made on the central manager
    local n=$1 id=$2; shift 2
    local authz=()
    for a in "$@"; do authz+=(-authz "$a"); done
    (umask 077; on cm condor_token_create -identity "$id" "${authz[@]}" \
        >"$(root_of "$n")/etc/condor/tokens.d/$n.token") || fail "condor_token_create for $id"
    say "token for $n: identity $id, authorisations $*"
}
token_for submit "submit@$DOMAIN" ADVERTISE_SCHEDD ADVERTISE_MASTER READ
for n in "${EXECS[@]}"; do
    token_for "$n" "$n@workers.$DOMAIN" ADVERTISE_STARTD ADVERTISE_MASTER READ
done

for n in submit "${EXECS[@]}"; do start_node "$n"; done
all_advertising() {  # every worker advertises HasSeccompEmu = true
    [ "$(on cm condor_status -const 'HasSeccompEmu =?= true' -af Machine 2>/dev/null | sort -u | wc -l)" \
        -eq ${#EXECS[@]} ]
}
wait_for 120 "${#EXECS[@]} workers advertising HasSeccompEmu" all_advertising
say "pool up in $(elapsed) s: $(on cm condor_status -af Machine 2>/dev/null | sort -u | tr '\n' ' ')"

# ---- the submitter's files, on the submit node ----
H=/home/$GRID_USER
SH=$(root_of submit)$H
mkdir -p "$SH/build/examples/raw" "$SH/examples" "$SH/grid/submit"
cp build/examples/safe_job32 build/examples/safe_job64 build/examples/malicious_job32 \
    build/examples/malicious_job64 build/examples/canary_job64 "$SH/build/examples/"
cp build/examples/raw/*.bin "$SH/build/examples/raw/"
cp examples/master.py "$SH/examples/"
cp grid/submit/master.py grid/submit/quorum.py grid/submit/job.sub "$SH/grid/submit/"
# The submitter's own token: it reads the pool (quorum.py asks the collector
# which workers there are), nothing more.  In its home, readable by it only.
install -d -m 700 "$SH/.condor" "$SH/.condor/tokens.d"
(umask 077; on cm condor_token_create -identity "$GRID_USER@$DOMAIN" -authz READ \
    >"$SH/.condor/tokens.d/$GRID_USER.token") || fail "condor_token_create for $GRID_USER"
say "token for $GRID_USER on submit: identity $GRID_USER@$DOMAIN, authorisation READ"
on submit chown -R "$GRID_USER:$GRID_USER" "$H"
ENDPOINT=${IP[submit]}:41000-44999
quorum() {  # work dir, options...: grid/submit/quorum.py on the submit node, as the submitter
    local dir=$1; shift
    as_gridder submit python3 "$H/grid/submit/quorum.py" --jobs "$H/build" --work "$H/$dir" \
        --endpoint "$ENDPOINT" "$@"
}
if [ -n "${GRID_NET_STOP_AFTER_UP:-}" ]; then say "stopping after bring-up"; exit 0; fi

# ---- what is checked: "N passed, M failed" at the end ----
PASSED=0 FAILED=0
FAILURES=()
check() {  # description, command...: one line either way
    local what=$1; shift
    if "$@"; then
        PASSED=$((PASSED + 1)); say "ok: $what"
    else
        FAILED=$((FAILED + 1)); FAILURES+=("$what"); say "FAILED: $what"
    fi
}

# ---- 1. authentication: what each token lets its holder do ----
ping_line() {  # node, target type, level: "METHOD ENCRYPTION INTEGRITY MAPPING" or "DENIED"/"FAILED"
    local out
    out=$(on "$1" condor_ping -type "$2" -name "$3" -verbose "$4" 2>&1)
    if grep -q "^Authorized: *TRUE" <<<"$out"; then
        awk -F': *' '/^Authenticated using/ {m=$2} /^Encryption/ {e=$2} /^Integrity/ {i=$2}
                     /^Remote Mapping/ {r=$2} END {print m, e, i, r}' <<<"$out"
    elif grep -q DENIED <<<"$out"; then echo DENIED
    else echo FAILED; fi
}
expect_ping() {  # node, type, name, level, expected line (a glob)
    local got
    got=$(ping_line "$1" "$2" "$3" "$4")
    say "1. $1 -> $2 $3, $4: $got"
    # shellcheck disable=SC2053
    [[ $got == $5 ]]
}
COLL=cm.$DOMAIN
check "a worker's token advertises its startd: IDTOKENS, AES encryption and integrity" \
    expect_ping exec1 collector "$COLL" ADVERTISE_STARTD "IDTOKENS AES AES exec1@workers.$DOMAIN"
check "a worker's token reads the pool, encrypted" \
    expect_ping exec1 collector "$COLL" READ "IDTOKENS AES AES exec1@workers.$DOMAIN"
check "a worker's token may not advertise a schedd" expect_ping exec1 collector "$COLL" ADVERTISE_SCHEDD DENIED
check "a worker's token may not write to the collector" expect_ping exec1 collector "$COLL" WRITE DENIED
check "a worker's token may not act as a daemon" expect_ping exec1 collector "$COLL" DAEMON DENIED
check "a worker's token cannot submit to the schedd" expect_ping exec1 schedd "submit.$DOMAIN" WRITE "@(DENIED|FAILED)"
check "the submit node's token advertises its schedd: IDTOKENS, AES" \
    expect_ping submit collector "$COLL" ADVERTISE_SCHEDD "IDTOKENS AES AES submit@$DOMAIN"
check "the submit node's token may not advertise a startd" expect_ping submit collector "$COLL" ADVERTISE_STARTD DENIED
no_token_advertise() {  # a machine of the network without a token cannot join
    local got
    got=$(on exec1 env _CONDOR_SEC_TOKEN_SYSTEM_DIRECTORY=/nonexistent condor_ping -type collector \
        -name "$COLL" ADVERTISE_STARTD 2>&1) && return 1
    say "1. exec1 without its token -> collector, ADVERTISE_STARTD: $(grep -m1 -E 'AUTHENTICATE|DENIED|failed' <<<"$got")"
}
check "a machine without a token cannot advertise a startd" no_token_advertise

# ---- 2. figures: the pool against plain seccomp-emu, and what validation costs ----
if [ "$BATCH" = short ]; then
    ROUNDS=${GRID_NET_ROUNDS:-5} MEASURE_ROUNDS=${GRID_NET_MEASURE_ROUNDS:-0}
else
    ROUNDS=${GRID_NET_ROUNDS:-50} MEASURE_ROUNDS=${GRID_NET_MEASURE_ROUNDS:-10}
fi
load() { cut -d' ' -f1-3 /proc/loadavg; }
summary_of() {  # batch dir: "units ran seconds cores" of its summary
    python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print(s["units"], s["ran"], round(s["elapsed"], 1), s["cores"])' \
        "$(root_of submit)$H/$1/summary.json"
}
loop_figure() {  # rounds: jobs per minute on one core, plain seccomp-emu one job at a time (on this host)
    python3 grid/submit/quorum.py --loop "$EMU" --jobs build --work "$WORK/loop" --rounds "$1" \
        | tee "$WORK/loop.txt" >&2
    sed -n 's/.* s, \([0-9.]*\) jobs\/min on one core.*/\1/p' "$WORK/loop.txt"
}
if [ "$MEASURE_ROUNDS" -gt 0 ]; then
    say "2. figures: the seed's ten jobs, $MEASURE_ROUNDS rounds, on the honest pool, without then with validation (load $(load))"
    LOOP=$(loop_figure "$MEASURE_ROUNDS")
    quorum measure-1 --rounds "$MEASURE_ROUNDS" --quorum 1 --no-canaries --check --timeout 3000 \
        >"$WORK/measure-1.txt" 2>&1 || { cat "$WORK/measure-1.txt"; fail "the unvalidated batch"; }
    tail -n 4 "$WORK/measure-1.txt"
    quorum measure-2 --rounds "$MEASURE_ROUNDS" --check --timeout 3000 \
        >"$WORK/measure-2.txt" 2>&1 || { cat "$WORK/measure-2.txt"; fail "the validated batch"; }
    tail -n 4 "$WORK/measure-2.txt"
    read -r u1 r1 t1 cores < <(summary_of measure-1)
    read -r u2 r2 t2 _ < <(summary_of measure-2)
    python3 - "$LOOP" "$u1" "$r1" "$t1" "$u2" "$r2" "$t2" "$cores" "$(load)" <<'PY'
import sys
loop, u1, r1, t1, u2, r2, t2, cores = (float(x) for x in sys.argv[1:9])
pool1 = r1 / (t1 / 60) / cores
pool2 = u2 / (t2 / 60) / cores
print(f"grid-net: 2. figures (load now {sys.argv[9]}; {cores:.0f} cores):")
print(f"grid-net:    plain seccomp-emu, one job after another: {loop:.0f} jobs/min on one core")
print(f"grid-net:    the pool, each job once (no validation): {u1:.0f} jobs in {t1:.0f} s, "
      f"{pool1:.1f} jobs/min per core ({pool1 / loop:.3f} of the loop)")
print(f"grid-net:    the pool, quorum of 2 (canaries, validation): {u2:.0f} work units, {r2:.0f} jobs "
      f"in {t2:.0f} s, {pool2:.1f} validated work units/min per core")
print(f"grid-net:    validation's overhead: {r2 / u2:.2f} jobs per work unit, "
      f"{(t2 / u2) / (t1 / u1):.2f}x the time per work unit")
PY
fi

# ---- 3. the batch, validated by quorum, with faults injected ----
SLOW=4 SLOW_DELAY=60 LEASE=60 NETDROP=30 SUSPENDED=10
B=$(root_of submit)$H/faults
STATUS=$B/status.json
SUMMARY=$B/summary.json
swap_emu() {  # node, program: installed as the node's seccomp-emu (the real one kept beside it as .honest)
    local bin
    bin=$(root_of "$1")/usr/local/bin/seccomp-emu
    [ -e "$bin.honest" ] || cp "$bin" "$bin.honest"
    install -m 755 "$2" "$bin.new"
    mv -f "$bin.new" "$bin"
}
worker_state() {  # machine: its state in the running batch
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["workers"].get(sys.argv[2], {}).get("state", ""))' \
        "$STATUS" "$1.$DOMAIN" 2>/dev/null
}
USED=" $LIAR $PRETENDER "
slow_target() {  # "job label node" of a slow copy running on an honest worker no fault used yet
    local job proc label host n
    while read -r job proc label host; do
        n=${host#*@}; n=${n%%.*}
        case $USED in *" $n "*) continue ;; esac
        echo "$job.$proc ${label%.out} $n"
        return 0
    done < <(as_gridder submit condor_q -const 'GridKind == "slow" && JobStatus == 2' \
                 -af ClusterId ProcId Out RemoteHost 2>/dev/null)
    return 1
}
wait_target() {  # description: sets TARGET_JOB TARGET_LABEL TARGET_NODE, or returns 1 after 240 s
    local line
    for _ in $(seq 1 240); do
        if line=$(slow_target); then
            read -r TARGET_JOB TARGET_LABEL TARGET_NODE <<<"$line"
            USED="$USED$TARGET_NODE "
            return 0
        fi
        sleep 1
    done
    say "no slow job running on an honest worker for $1 within 240 s"
    return 1
}
t() { echo "t+$(( $(date +%s) - batch_started ))s"; }
kill_node() {  # its cable pulled and every process of it killed: a machine that died
    ip -n "$SWITCH" link set "p-$1" down
    for p in $(processes_in "$(root_of "$1")"); do kill -KILL "$p" 2>/dev/null || true; done
}
collector_back() { [ "$(on submit condor_status -af Machine 2>/dev/null | sort -u | wc -l)" -ge 4 ]; }

# The pretender: exec3's seccomp-emu is gone, and in its place a program
# that fools the probe and runs jobs natively.  Before the batch: it joins
# the pool as a worker like any other.
swap_emu "$PRETENDER" grid/net/pretender-seccomp-emu
rm -f "$(root_of "$PRETENDER")/usr/local/bin/seccomp-emu.honest"
say "fault: $PRETENDER's seccomp-emu removed; a pretender in its place advertises HasSeccompEmu and runs jobs natively"
sleep 12   # its probe ran again (STARTD_CRON every 10 s)
check "$PRETENDER still advertises HasSeccompEmu" \
    test "$(on cm condor_status -const "Machine == \"$PRETENDER.$DOMAIN\"" -af HasSeccompEmu 2>/dev/null)" = true

say "3. the batch: $ROUNDS rounds of the seed's ten jobs and $SLOW slow socket jobs, each on two workers"
batch_started=$(date +%s)
quorum faults --rounds "$ROUNDS" --slow "$SLOW" --slow-delay "$SLOW_DELAY" --lease "$LEASE" \
    --status "$H/faults/status.json" --t0 "$batch_started" --check --timeout 10800 > >(tee "$WORK/batch.txt") 2>&1 &
QUORUM_PID=$!

# The liar: once exec2 is admitted (it answered its canary honestly), its
# seccomp-emu is swapped for one that makes up the sieves' answers.
for _ in $(seq 1 120); do [ "$(worker_state "$LIAR")" = admitted ] && break; sleep 1; done
if [ "$(worker_state "$LIAR")" = admitted ]; then
    swap_emu "$LIAR" grid/net/lying-seccomp-emu
    say "fault at $(t): $LIAR (admitted) now runs a seccomp-emu that lies about every sieve's answer"
    LIAR_SWAPPED=1
else
    say "fault: $LIAR was never admitted; not swapped"
fi

# A worker running a slow job dies: cable pulled, every process killed.
if wait_target "the kill"; then
    KILL_NODE=$TARGET_NODE KILL_LABEL=$TARGET_LABEL
    kill_node "$KILL_NODE"
    KILLED_AT=$(date +%s)
    say "fault at $(t): $KILL_NODE killed (cable pulled, all its processes SIGKILLed) while running $KILL_LABEL"
fi
# Another loses its network for a while.
if wait_target "the network drop"; then
    DROP_NODE=$TARGET_NODE DROP_LABEL=$TARGET_LABEL
    ip -n "$SWITCH" link set "p-$DROP_NODE" down
    DROPPED_AT=$(date +%s)
    say "fault at $(t): $DROP_NODE's network down for $NETDROP s while it runs $DROP_LABEL"
fi
# A third job is suspended through HTCondor, then resumed.
if wait_target "the suspension"; then
    SUSP_JOB=$TARGET_JOB SUSP_LABEL=$TARGET_LABEL SUSP_NODE=$TARGET_NODE
    as_gridder submit condor_suspend "$SUSP_JOB" >/dev/null 2>&1 || say "condor_suspend $SUSP_JOB failed"
    say "fault at $(t): condor_suspend $SUSP_LABEL (job $SUSP_JOB, on $SUSP_NODE)"
    suspended() { [ "$(as_gridder submit condor_q "$SUSP_JOB" -af JobStatus 2>/dev/null)" = 7 ]; }
    SUSP_SEEN=0
    for _ in $(seq 1 30); do suspended && { SUSP_SEEN=1; break; }; sleep 1; done
    say "fault: $SUSP_LABEL's JobStatus: $(as_gridder submit condor_q "$SUSP_JOB" -af JobStatus 2>/dev/null) (7 is suspended)"
    sleep "$SUSPENDED"
    as_gridder submit condor_continue "$SUSP_JOB" >/dev/null 2>&1 || say "condor_continue $SUSP_JOB failed"
    say "fault at $(t): condor_continue $SUSP_LABEL"
fi
if [ -n "${DROPPED_AT:-}" ]; then
    sleep $(( NETDROP - ($(date +%s) - DROPPED_AT) > 0 ? NETDROP - ($(date +%s) - DROPPED_AT) : 0 ))
    heard=$(on cm condor_status -const "Machine == \"$DROP_NODE.$DOMAIN\"" -af LastHeardFrom 2>/dev/null | head -1)
    say "fault: the collector last heard from $DROP_NODE $(( $(date +%s) - ${heard:-0} )) s ago"
    ip -n "$SWITCH" link set "p-$DROP_NODE" up
    say "fault at $(t): $DROP_NODE's network back after $(( $(date +%s) - DROPPED_AT )) s"
fi
# The central manager restarted: killed outright, started again.
kill_node cm
say "fault at $(t): the central manager killed (collector and negotiator gone)"
sleep 5
ip -n "$SWITCH" link set p-cm up
start_node cm
CM_RESTARTED_AT=$(date +%s)
say "fault at $(t): the central manager started again"
wait_for 120 "the workers back in the restarted collector" collector_back
say "fault: $(t): the restarted collector knows $(on submit condor_status -af Machine 2>/dev/null | sort -u | wc -l) machines"
# The dead worker comes back once its job had time to move elsewhere.
if [ -n "${KILLED_AT:-}" ]; then
    sleep $(( LEASE + 10 - ($(date +%s) - KILLED_AT) > 0 ? LEASE + 10 - ($(date +%s) - KILLED_AT) : 0 ))
    ip -n "$SWITCH" link set "p-$KILL_NODE" up
    start_node "$KILL_NODE"
    say "fault at $(t): $KILL_NODE booted again and rejoins"
fi
wait "$QUORUM_PID" && BATCH_RC=0 || BATCH_RC=$?
QUORUM_PID=
say "3. the batch ended after $(t) (status $BATCH_RC)"

# ---- 4. what the pool did about each fault ----
[ -f "$SUMMARY" ] || fail "the batch wrote no summary"
CM_STARTS=$(as_gridder submit condor_history -const "GridBatch =!= undefined && JobCurrentStartDate > ${CM_RESTARTED_AT:-0}" \
    -af ProcId 2>/dev/null | wc -l)
# One reading of the batch's summary: "say TEXT" and "check 0|1 WHAT" lines.
while read -r kind rest; do
    case $kind in
        say) say "4. $rest" ;;
        check) check "${rest#* }" test "${rest%% *}" = 1 ;;
    esac
done < <(DOMAIN=$DOMAIN LIAR=$LIAR PRETENDER=$PRETENDER EXECS="${EXECS[*]}" \
         KILL_NODE=${KILL_NODE:-} KILL_LABEL=${KILL_LABEL:-} DROP_NODE=${DROP_NODE:-} \
         DROP_LABEL=${DROP_LABEL:-} SUSP_NODE=${SUSP_NODE:-} SUSP_LABEL=${SUSP_LABEL:-} \
         SUSP_SEEN=${SUSP_SEEN:-0} CM_STARTS=$CM_STARTS python3 - "$SUMMARY" <<'PY'
import json, os, sys
s = json.load(open(sys.argv[1]))
E = os.environ
dom = E["DOMAIN"]
def say(text): print("say", text)
def check(ok, what): print("check", 1 if ok else 0, what)
def worker(n): return s["workers"].get(f"{n}.{dom}", {})
def copy(label): return s["events"].get(label, {})
def once_valid(c): return c.get("terminations") == 1 and c.get("verdict") == "valid"
def ran(c): return (f"ran on {', '.join(m.split('.')[0] for m in c.get('machines', [])) or 'nothing'}, "
                    f"events {c.get('events') or 'none'}, {c.get('terminations', 0)} termination(s), "
                    f"verdict {c.get('verdict')}")

w = worker(E["PRETENDER"])
say(f"{E['PRETENDER']} (pretender): {w.get('state')}, canaries {w.get('canaries_passed')}/"
    f"{w.get('canaries_passed', 0) + w.get('canaries_failed', 0)}, results counted "
    f"{w.get('valid', 0) + w.get('invalid', 0)}: {w.get('why')}")
check(w.get("state") == "excluded" and "canary" in w.get("why", "") and w.get("valid", 0) + w.get("invalid", 0) == 0,
      f"the pretender ({E['PRETENDER']}) was excluded by its canary before any of its results counted")
w = worker(E["LIAR"])
say(f"{E['LIAR']} (liar): {w.get('state')}, canaries {w.get('canaries_passed')}/"
    f"{w.get('canaries_passed', 0) + w.get('canaries_failed', 0)}, {w.get('valid')} valid, "
    f"{w.get('invalid')} invalid: {w.get('why')}")
check(w.get("state") == "excluded" and w.get("canaries_failed", 1) == 0 and w.get("invalid", 0) >= 2,
      f"the liar ({E['LIAR']}) passed its canaries, lost validations and was excluded")
for n in E["EXECS"].split():
    if n in (E["LIAR"], E["PRETENDER"]):
        continue
    w = worker(n)
    check(w.get("state") == "admitted" and w.get("invalid", 1) == 0,
          f"honest worker {n} kept: {w.get('state')}, {w.get('valid')} valid, {w.get('invalid')} invalid")
if E["KILL_LABEL"]:
    c = copy(E["KILL_LABEL"])
    say(f"{E['KILL_LABEL']} (on {E['KILL_NODE']} when it was killed): {ran(c)}")
    ms = c.get("machines", [])
    moved = len(ms) >= 2 and ms[0].startswith(E["KILL_NODE"] + ".") and not ms[-1].startswith(E["KILL_NODE"] + ".")
    # HTCondor may move the copy onto the liar, which the batch then excludes: the copy is
    # cancelled unfinished there and its work unit is given a new copy, which must be valid.
    unit = E["KILL_LABEL"].rsplit("-i", 1)[0]
    excluded = worker(ms[-1].split(".")[0]).get("state") == "excluded" if ms else False
    others = [l for l in s["events"] if l.startswith(unit + "-i") and l != E["KILL_LABEL"]]
    if moved and excluded and c.get("verdict") == "cancelled" and c.get("terminations", 0) == 0:
        say(f"{E['KILL_LABEL']} moved to {ms[-1].split('.')[0]}, excluded before it finished; "
            f"the other copies of {unit}: " + "; ".join(f"{l}: {ran(copy(l))}" for l in others))
        check(sum(once_valid(copy(l)) for l in others) >= 2,
              f"the job on the killed worker was rescheduled, cancelled unfinished on the excluded worker it "
              f"moved to, and {unit} was validated from other copies")
    else:
        # The kill can come before the shadow logs the copy's start, and HTCondor may match
        # the requeued copy to the killed worker once it has booted again: what must hold is
        # that the copy left the dead worker through the queue and then completed once.
        requeued = moved or any(e in c.get("events", []) for e in
                                ("evicted", "reconnection failed: it goes back to the queue"))
        where = ms[-1].split(".")[0] if ms else "nothing"
        check(requeued and once_valid(c),
              f"the job on the killed worker went back to the queue, completed once (last on {where}), "
              "and was validated")
else:
    check(False, "a worker was killed mid-job")
if E["DROP_LABEL"]:
    c = copy(E["DROP_LABEL"])
    say(f"{E['DROP_LABEL']} (on {E['DROP_NODE']} when its network dropped): {ran(c)}")
    check(once_valid(c),
          "the job on the worker that lost its network completed once and was validated")
else:
    check(False, "a worker lost its network mid-job")
if E["SUSP_LABEL"]:
    c = copy(E["SUSP_LABEL"])
    say(f"{E['SUSP_LABEL']} (suspended and resumed on {E['SUSP_NODE']}): {ran(c)}")
    check(E["SUSP_SEEN"] == "1", "the suspended job was seen suspended (JobStatus 7)")
    check(once_valid(c),
          "the suspended job, resumed, completed once and was validated")
else:
    check(False, "a job was suspended and resumed")
check(int(E["CM_STARTS"]) > 0, f"{E['CM_STARTS']} jobs started after the central manager's restart")
check(s["resolved"] == s["units"] and not s["timed_out"],
      f"every work unit reached a quorum: {s['resolved']} of {s['units']}")
check(not s["lost"] and s["doubled"] == 0, f"no result lost ({len(s['lost'])}) or doubled ({s['doubled']})")
check(s["check_failed"] == 0 and s["checked"] == s["units"],
      f"every canonical result is the expected one ({s['checked'] - s['check_failed']} of {s['checked']})")
PY
)

LOOP=$(loop_figure "$ROUNDS" 2>/dev/null)
read -r u r t cores < <(summary_of faults)
say "figures: the batch with its faults: $u work units, $r jobs in $t s ($(awk -v u="$u" -v t="$t" -v c="$cores" \
    'BEGIN { printf "%.1f", u / (t / 60) / c }') validated work units/min per core); plain seccomp-emu on the same jobs: $LOOP jobs/min on one core; load now $(load)"
say "$PASSED passed, $FAILED failed"
for f in "${FAILURES[@]}"; do say "failed: $f"; done
if [ "$FAILED" -ne 0 ]; then exit 1; fi   # the failures are named above
