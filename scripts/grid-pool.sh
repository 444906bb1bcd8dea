#!/usr/bin/env bash
# The grid on HTCondor, on this machine: a personal pool (four slots) in a
# Debian trixie chroot, every job run by seccomp-emu through the execute
# node configuration in grid/execute.  Runs the seed's jobs (more than 50),
# checks every result, shows that a worker without seccomp-emu matches no
# job and that jobs trying to bypass the wrapper run nothing, then tears
# everything down (also on failure).  Needs root (mount, chroot).
#
# The host's packages are left alone: HTCondor lives in the chroot
# (scripts/lib/grid-root.bash builds it once and caches it).
. "$(dirname "$0")/lib/fail-loudly.bash"
cd "$(dirname "$0")/.."
REPO=$PWD

WORK=$REPO/build/grid
ROOT=$WORK/root
. scripts/lib/grid-root.bash
USER_NAME=$GRID_USER
HOME_IN=/home/$USER_NAME
LIBEXEC=/usr/local/libexec/seccomp-emu-grid

say() { echo "grid-pool: $*"; }
fail() { echo "grid-pool: FAIL: $*" >&2; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
    echo "grid-pool: needs root (it mounts and chroots); try: sudo $0" >&2
    exit 2
fi

# An existing build is only brought up to date (CI has just built it).
if [ -f build/build.ninja ]; then
    quiet meson compile -C build
else
    scripts/build.sh
fi
for f in build/seccomp-emu build/examples/safe_job64 build/examples/raw/count_job_i386.text.bin; do
    [ -e "$f" ] || fail "$f was not built (the grid needs the x86 guests)"
done

# Before the trap: the tear-down must not stop another run's pool.
grep -q " $ROOT " /proc/mounts && fail "$ROOT is mounted (a pool still running?)"
started=$(date +%s)
# ---- tear-down, on every exit ----
MOUNTS=()
teardown() {
    local rc=$?
    set +e
    trap - ERR   # the tear-down tries everything; a step that fails is not the failure reported
    if [ -n "${GRID_POOL_INSPECT:-}" ]; then   # debugging: the pool stays up until this file goes
        touch "$WORK/inspect"
        echo "grid-pool: pool kept for inspection (chroot $ROOT); rm $WORK/inspect to tear down" >&2
        while [ -e "$WORK/inspect" ]; do sleep 2; done
    fi
    if [ -e "$ROOT/usr/sbin/condor_master" ] && [ -f "$WORK/master.pid" ]; then
        local pid
        pid=$(cat "$WORK/master.pid")
        # SIGQUIT: the master's fast shutdown; its daemons stop their jobs.
        kill -QUIT "$pid" 2>/dev/null
        for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
        kill -KILL "$pid" 2>/dev/null
    fi
    # Anything still running with its root in the chroot (a stray daemon).
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ] && kill -KILL "${p#/proc/}" 2>/dev/null
    done
    say "tear-down: daemons stopped after $(( $(date +%s) - started )) s"
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
        umount "${MOUNTS[$i]}" 2>/dev/null || umount -l "${MOUNTS[$i]}"
    done
    if ! grep -q " $ROOT" /proc/mounts; then
        rmdir "$ROOT"
    else
        echo "grid-pool: $ROOT is still mounted; not removed" >&2
    fi
    [ $rc -eq 0 ] && say "torn down after $(( $(date +%s) - started )) s in all" || echo "grid-pool: torn down after a failure (status $rc)" >&2
    exit $rc
}
trap teardown EXIT
trap 'exit 130' INT TERM

rm -rf "$ROOT"
mkdir -p "$ROOT"
# The root is a mount point, else the starter fails to make the job's
# private /tmp ("Failed to unshare the mount namespace").  A tmpfs: the
# copy unpacks faster and goes away with the unmount (about 600 MB of RAM
# while the pool runs).
mount -t tmpfs -o size=2g,mode=755 seccomp-emu-grid "$ROOT"; MOUNTS+=("$ROOT")
grid_root_unpack "$ROOT"
mount -t proc proc "$ROOT/proc"; MOUNTS+=("$ROOT/proc")
mount --bind /dev "$ROOT/dev"; MOUNTS+=("$ROOT/dev")
say "chroot ready in $(( $(date +%s) - started )) s"

in_root() { chroot "$ROOT" "$@"; }
as_user() { chroot "$ROOT" runuser -u "$USER_NAME" -- "$@"; }

# ---- the execute node configuration, as an owner installs it ----
mkdir -p "$ROOT$LIBEXEC"
install -m 755 grid/execute/seccomp-emu-wrapper grid/execute/seccomp-emu-probe "$ROOT$LIBEXEC/"
install -m 644 grid/pool/10-personal-pool.config grid/execute/50-seccomp-emu.config \
    grid/pool/70-test-pool.config "$ROOT/etc/condor/config.d/"

# ---- the submitter's files ----
J=$ROOT$HOME_IN/build/examples
mkdir -p "$J/raw" "$ROOT$HOME_IN/grid/submit" "$ROOT$HOME_IN/examples" "$ROOT$HOME_IN/markers"
cp build/examples/safe_job32 build/examples/safe_job64 build/examples/malicious_job32 \
    build/examples/malicious_job64 "$J/"
cp build/examples/raw/*.bin "$J/raw/"
cp examples/master.py "$ROOT$HOME_IN/examples/"
cp grid/submit/master.py grid/submit/job.sub "$ROOT$HOME_IN/grid/submit/"
mkdir -p "$ROOT$HOME_IN/bypass" "$ROOT$HOME_IN/bare" "$ROOT$HOME_IN/limits"
cp build/examples/safe_job64 grid/pool/limits/output.sub "$ROOT$HOME_IN/limits/"
cp grid/pool/bypass/*.sub grid/pool/bypass/marker.sh "$ROOT$HOME_IN/bypass/"
gcc -O2 -o "$ROOT$HOME_IN/bypass/marker_dynamic" grid/pool/bypass/marker_dynamic.c
cp build/examples/safe_job64 grid/submit/job.sub "$ROOT$HOME_IN/bare/"
: >"$ROOT$HOME_IN/bare/empty.in"
in_root chown -R "$USER_NAME:$USER_NAME" "$HOME_IN"

# ---- the pool, at first without seccomp-emu on the worker ----
rm -f "$WORK/master.pid"
in_root condor_master || fail "condor_master did not start"
master_pid() {  # the condor_master whose root is the chroot
    for p in /proc/[0-9]*; do
        if [ "$(cat "$p/comm" 2>/dev/null)" = condor_master ] \
           && [ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ]; then
            echo "${p#/proc/}" >"$WORK/master.pid"
            return 0
        fi
    done
    return 1
}
slots_with() { [ "$(in_root condor_status -af "$1" 2>/dev/null | grep -c "^$2$")" -eq 4 ]; }
wait_for 10 "condor_master running" master_pid
wait_for 60 "4 slots reporting HasSeccompEmu false" slots_with HasSeccompEmu false
say "pool up: 4 slots, none with seccomp-emu ($(( $(date +%s) - started )) s)"

# ---- 1. a worker without seccomp-emu matches no job ----
submit() {  # dir, submit file: prints the cluster id
    as_user sh -c "cd $HOME_IN/$1 && condor_submit -terse $2" | sed -n 's/^\([0-9]*\)\.0 - .*/\1/p'
}
# (the job id goes before -af, which takes every later word as an attribute)
job_status() { as_user condor_q "$1" -af JobStatus 2>/dev/null; }
job_info() { as_user condor_q "$1" -af:j JobStatus HoldReason 2>/dev/null; }
in_history() { as_user condor_history "$1" -limit 1 -af ExitCode 2>/dev/null | grep -q .; }
exit_of() { as_user condor_history "$1" -limit 1 -af ExitCode ExitBySignal; }
bare=$(submit bare job.sub)
[ -n "$bare" ] || fail "condor_submit of the template job failed"
sleep 12   # six negotiation cycles
[ "$(job_status "$bare")" = 1 ] || fail "job $bare is not idle on a pool without seccomp-emu: $(job_info "$bare")"
say "1. no slot has seccomp-emu: job $bare stays idle after 12 s; condor_q -better-analyze:"
as_user condor_q "$bare" -better-analyze 2>/dev/null | sed -n '/machines,$/,/able to run/p' | sed 's/^ */    /'

# Now install seccomp-emu, as an owner does; the probe finds it.
install -m 755 build/seccomp-emu "$ROOT/usr/local/bin/seccomp-emu"
if in_root ldd /usr/local/bin/seccomp-emu | grep -q "not found"; then
    in_root ldd /usr/local/bin/seccomp-emu >&2
    fail "seccomp-emu misses a shared library in the chroot"
fi
wait_for 30 "4 slots reporting HasSeccompEmu true" slots_with HasSeccompEmu true
in_root condor_status -af Name SeccompEmuVersion SeccompEmuEngine SeccompEmuABIs SeccompEmuModes | sed 's/^/    /'
wait_for 60 "the idle job $bare to run once seccomp-emu is there" in_history "$bare"
read -r code by_signal < <(exit_of "$bare")
grep -q "^safe job: primes below 200000: 17984, checksum" "$ROOT$HOME_IN/bare/safe_job64.out" \
    || fail "job $bare's output: $(cat "$ROOT$HOME_IN/bare/safe_job64.out")"
[ "$code $by_signal" = "0 false" ] || fail "job $bare ended with ExitCode $code ExitBySignal $by_signal"
say "1. with seccomp-emu installed the same job ran: exit_code $code, $(cat "$ROOT$HOME_IN/bare/safe_job64.out")"

# ---- 2. the batch: the seed's jobs, 7 rounds, plus sockets ----
say "2. the seed's jobs, 7 rounds of 8, and 2 jobs over TCP to the master, 1 refused endpoint"
as_user python3 "$HOME_IN/grid/submit/master.py" --jobs "$HOME_IN/build" --work "$HOME_IN/batch" \
    --rounds 7 --socket-jobs 127.0.0.1:40100 --refused-endpoint 127.0.0.1:40150 \
    | tee "$WORK/batch.txt" || fail "the batch (above)"
grep -q "^master: 59 of 59 jobs as expected$" "$WORK/batch.txt" || fail "the batch did not run 59 jobs"

# ---- 3. every job on two workers, outputs compared ----
say "3. the seed's jobs on two workers each"
as_user python3 "$HOME_IN/grid/submit/master.py" --jobs "$HOME_IN/build" --work "$HOME_IN/replicas" \
    --replicas 2 | tee "$WORK/replicas.txt" || fail "the replicated batch (above)"
grep -q "^master: 16 of 16 jobs as expected; 8 of 8 pairs agree$" "$WORK/replicas.txt" || fail "8 pairs did not agree"

# ---- 4. jobs that try to bypass the wrapper run nothing ----
M=$ROOT$HOME_IN/markers
# First: each bypass program, run directly, does leave its marker (the
# checks below could fail).
as_user "$HOME_IN/bypass/marker.sh" native-script
as_user "$HOME_IN/bypass/marker_dynamic" native-dynamic
[ -e "$M/native-script" ] && [ -e "$M/native-dynamic" ] || fail "the bypass programs left no marker when run directly"
rm -f "$M"/*
# The wrapper alone refuses a job that does not ask for seccomp-emu.
W=$ROOT$HOME_IN/wrapper-alone
mkdir -p "$W"; echo 'SeccompEmu = false' >"$W/.job.ad"; cp grid/pool/bypass/marker.sh "$W/"
in_root chown -R "$USER_NAME:$USER_NAME" "$HOME_IN/wrapper-alone"
if as_user env -C "$HOME_IN/wrapper-alone" _CONDOR_JOB_AD="$HOME_IN/wrapper-alone/.job.ad" \
        _CONDOR_WRAPPER_ERROR_FILE="$HOME_IN/wrapper-alone/error" "$LIBEXEC/seccomp-emu-wrapper" \
        ./marker.sh wrapper-alone 2>/dev/null; then
    fail "the wrapper ran a job without +SeccompEmu"
fi
say "4. wrapper alone, job without +SeccompEmu: $(cat "$W/error")"
# ... and a raw job whose data image is a symbolic link to a file of the
# worker, or whose image name carries a comma (a second --raw image), and
# an ELF job asking to run without --strict, which this owner does not allow.
wrapper_alone() {  # job ad lines (;-separated), executable name: the refusal, or "RAN"
    printf 'SeccompEmu = true\n%s\n' "${1//; /$'\n'}" >"$W/.job.ad"
    rm -f "$W/error"
    if as_user env -C "$HOME_IN/wrapper-alone" _CONDOR_JOB_AD="$HOME_IN/wrapper-alone/.job.ad" \
        _CONDOR_WRAPPER_ERROR_FILE="$HOME_IN/wrapper-alone/error" "$LIBEXEC/seccomp-emu-wrapper" \
        "$2" >/dev/null 2>&1; then echo RAN; else cat "$W/error"; fi
}
cp build/examples/raw/count_job_x86_64.text.bin "$W/text.bin"
cp build/examples/raw/count_job_x86_64.text.bin "$W/text.bin,passwd"
ln -s /etc/passwd "$W/passwd"
cp build/examples/safe_job64 "$W/"
raw='SeccompEmuMode = "raw"; SeccompEmuArch = "x86_64"'
for attempt in "$raw; SeccompEmuRawData = \"passwd\"|text.bin|not a regular file" \
               "$raw; SeccompEmuRawData = \"\"|text.bin,passwd|plain file name" \
               'SeccompEmuMode = "emulated"|safe_job64|not one this machine'"'"'s owner allows'; do
    IFS='|' read -r ad exe want <<<"$attempt"
    got=$(wrapper_alone "$ad" "$exe")
    case $got in *"$want"*) say "4. wrapper alone, $ad, executable $exe: $got" ;;
                 *) fail "wrapper alone, $ad, executable $exe: $got" ;; esac
done
declare -A cluster
for b in script dynamic noflag environment; do
    cluster[$b]=$(submit bypass $b.sub)
    [ -n "${cluster[$b]}" ] || fail "condor_submit $b.sub"
done
bypass_ended() { in_history "${cluster[script]}" && in_history "${cluster[dynamic]}"; }
wait_for 90 "the script and dynamic bypass jobs to end" bypass_ended
for b in script dynamic; do
    read -r code by_signal < <(exit_of "${cluster[$b]}")
    [ "$code" = 126 ] || fail "bypass job $b ended with ExitCode $code (expected 126: seccomp-emu refused it)"
    say "4. $b job: exit_code $code; seccomp-emu said: $(cat "$ROOT$HOME_IN/bypass/$b.err")"
done
for b in noflag environment; do
    [ "$(job_status "${cluster[$b]}")" = 1 ] || fail "bypass job $b is not idle: START should refuse it"
    rejects=$(as_user condor_q "${cluster[$b]}" -better-analyze 2>/dev/null \
        | sed -n 's/^ *\([0-9]*\) reject your job because of their own requirements.*/\1/p')
    [ "$rejects" = 4 ] || fail "bypass job $b: $rejects slots reject it by their own requirements, not 4"
    say "4. $b job: idle; condor_q -better-analyze: all 4 slots reject it by their own requirements (START)"
    as_user condor_rm "${cluster[$b]}" >/dev/null
done
markers=$(ls -A "$M")
[ -z "$markers" ] || fail "a bypass job ran: markers $markers"
say "4. no marker in $HOME_IN/markers: no bypass job ran anything on the worker"

# ---- 5. a dishonest worker is caught by running each job twice ----
install -m 755 grid/pool/dishonest-wrapper "$ROOT$LIBEXEC/"
install -m 644 grid/pool/80-dishonest-slot.config "$ROOT/etc/condor/config.d/"
say "5. slot2 now lies about its output; two jobs, each on slot1 and slot2"
if as_user python3 "$HOME_IN/grid/submit/master.py" --jobs "$HOME_IN/build" --work "$HOME_IN/dishonest" \
    --replicas 2 --only "safe job" | tee "$WORK/dishonest.txt"; then
    fail "the master did not notice the dishonest worker"
fi
[ "$(grep -c ": outputs DISAGREE" "$WORK/dishonest.txt")" -eq 2 ] || fail "expected 2 disagreements"
say "5. the master caught the dishonest worker on both jobs"
rm -f "$ROOT/etc/condor/config.d/80-dishonest-slot.config"

# ---- 6. the owner's limit holds; a job can only lower it ----
install -m 644 grid/pool/75-tight-output.config "$ROOT/etc/condor/config.d/"
say "6. the owner now allows 20 bytes of output; jobs asking for 10 and for 1000000"
declare -A limit_job
for asked in 10 1000000; do
    limit_job[$asked]=$(as_user sh -c "cd $HOME_IN/limits && condor_submit -terse -a asked=$asked output.sub" \
        | sed -n 's/^\([0-9]*\)\.0 - .*/\1/p')
    [ -n "${limit_job[$asked]}" ] || fail "condor_submit output.sub asked=$asked"
done
limits_ended() { in_history "${limit_job[10]}" && in_history "${limit_job[1000000]}"; }
wait_for 90 "the limit jobs to end" limits_ended
for asked in 10 1000000; do
    want=$(( asked < 20 ? asked : 20 ))
    read -r code by_signal signal < <(as_user condor_history "${limit_job[$asked]}" -limit 1 \
        -af ExitCode ExitBySignal ExitSignal)
    got=$(wc -c <"$ROOT$HOME_IN/limits/asked-$asked.out")
    err=$(head -c 300 "$ROOT$HOME_IN/limits/asked-$asked.err")
    [ "$got $by_signal $signal" = "$want true 25" ] \
        || fail "job asking for $asked bytes: ExitCode $code ExitBySignal $by_signal ExitSignal $signal, $got bytes (expected $want, then SIGXFSZ (25)); stderr: $err"
    say "6. job asking for $asked bytes: $got bytes out, then signal $signal (SIGXFSZ); stderr: $err"
done
rm -f "$ROOT/etc/condor/config.d/75-tight-output.config"

say "all checks passed in $(( $(date +%s) - started )) s"
