#!/usr/bin/env bash
# scripts/fuzz.sh TARGET SECONDS: run one libFuzzer harness (tests/fuzz) for
# SECONDS, starting from its kept corpus.  TARGET: elf, proc_seccomp,
# guest_code, raw, fdmap, bpf, bpf_model, or all.  Builds build-fuzz/ (clang, ASan+UBSan) first.
# New corpus entries go to build-fuzz/corpus/TARGET; a crashing input is
# written to tests/fuzz/corpus/TARGET/crash-* (keep it: it is a regression
# test from then on) and the script fails.
. "$(dirname "$0")/lib/fail-loudly.bash"
cd "$(dirname "$0")/.."
if [ $# -ne 2 ]; then
    echo "usage: scripts/fuzz.sh elf|proc_seccomp|guest_code|raw|fdmap|bpf|bpf_model|all SECONDS" >&2
    exit 2
fi
target=$1 secs=$2
scripts/install-deps.sh
if [ ! -f build-fuzz/build.ninja ]; then
    CC=clang quiet meson setup build-fuzz -Dfuzzing=true -Db_sanitize=address,undefined \
        -Db_lundef=false -Dc_args=-fsanitize=fuzzer-no-link
fi
quiet meson compile -C build-fuzz
targets=$target
[ "$target" = all ] && targets="elf proc_seccomp guest_code raw fdmap bpf bpf_model"
status=0
for t in $targets; do
    bin=build-fuzz/tests/fuzz/fuzz_$t
    [ -x "$bin" ] || { echo "fuzz.sh: no target $t" >&2; exit 2; }
    work=build-fuzz/corpus/$t
    mkdir -p "$work"
    extra=() leaks=1
    # Unicorn is not built with ASan and keeps allocations to exit: not ours
    # to police (LeakSanitizer's exit report would count as a crash).
    [ "$t" = guest_code ] && extra=(-detect_leaks=0 -max_len=4096) leaks=0
    echo "fuzz.sh: $t for ${secs}s"
    if ! ASAN_OPTIONS=abort_on_error=1:detect_leaks=$leaks UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        "$bin" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="tests/fuzz/corpus/$t/" \
        "${extra[@]}" "$work" "tests/fuzz/corpus/$t" 2>build-fuzz/fuzz-$t.log; then
        echo "fuzz.sh: $t FOUND A CRASH; see build-fuzz/fuzz-$t.log" >&2
        status=1
    fi
    grep -E "stat::number_of_executed_units|stat::new_units_added|Done [0-9]+ runs" build-fuzz/fuzz-$t.log || true
done
exit $status
