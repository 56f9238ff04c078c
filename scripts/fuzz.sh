#!/usr/bin/env bash
# Runs every fuzz target in fuzz/ for a bounded time each, on stable Rust,
# and prints libFuzzer's final stats. No nightly and no cargo-fuzz: the
# targets link libFuzzer through `libfuzzer-sys` and are built by plain cargo
# with the coverage instrumentation cargo-fuzz would ask for (LLVM's
# SanitizerCoverage, stable `-C passes` / `-C llvm-args` flags), debug
# assertions and overflow checks on, and no AddressSanitizer (that one needs
# nightly's `-Zsanitizer`; the core has no `unsafe` that fuzzed input reaches).
#
#   scripts/fuzz.sh               # 60 s per target (CI)
#   scripts/fuzz.sh 600           # 10 minutes per target (the documented run)
#   scripts/fuzz.sh 60 names rank # only the named targets
#   FUZZ_UPDATE_CORPUS=1 scripts/fuzz.sh 600
#                                 # then merge what was found, minimised,
#                                 # into the committed fuzz/corpus/<target>
#
# Each target starts from its committed corpus, fuzz/corpus/<target>, copied
# to target/fuzz/work/<target> so a run leaves the work tree as it was. A
# crash is saved in target/fuzz/artifacts/<target>/ and stops the run with a
# non-zero exit; turn it into a regression test in guest/core/tests/fuzz_regressions.rs.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

seconds="${1:-60}"
shift || true
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
    mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | grep -v '^agent-memory-fuzz$')
fi

host="$(rustc -vV | sed -n 's/^host: //p')"
out=../target/fuzz
# What cargo-fuzz passes for `-s none` (fuzz/README: SanitizerCoverage's
# inline 8-bit counters, PC table and comparison tracing for libFuzzer), on
# the target only: `--target` keeps build scripts and proc macros plain.
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
export CARGO_INCREMENTAL=0
echo "== build ($host, release with coverage instrumentation)"
cargo build --release --locked --target "$host" --target-dir "$out" --bins

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for target in "${targets[@]}"; do
    echo "== $target: ${seconds}s"
    work="$out/work/$target"
    artifacts="$out/artifacts/$target"
    rm -rf "$work"
    mkdir -p "$work" "$artifacts" "corpus/$target"
    cp -r "corpus/$target/." "$work/"
    set +e
    "$out/$host/release/$target" "$work" -max_total_time="$seconds" -rss_limit_mb=4096 \
        -max_len=65536 -timeout=25 -print_final_stats=1 -artifact_prefix="$artifacts/" \
        >"$log" 2>&1
    status=$?
    set -e
    grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::peak_rss_mb|Done [0-9]+ runs)' "$log" || true
    echo "corpus: $(find "$work" -type f | wc -l) inputs (committed: $(find "corpus/$target" -type f | wc -l))"
    if [ "$status" -ne 0 ]; then
        tail -n 40 "$log" >&2
        echo "== $target FAILED (exit $status): see $artifacts" >&2
        exit 1
    fi
    if [ "${FUZZ_UPDATE_CORPUS:-0}" = 1 ]; then
        merged="$out/merged/$target"
        rm -rf "$merged"
        mkdir -p "$merged"
        "$out/$host/release/$target" -merge=1 -max_len=65536 "$merged" "corpus/$target" "$work" >"$log" 2>&1
        rm -rf "corpus/$target"
        mv "$merged" "corpus/$target"
        echo "corpus/$target: $(find "corpus/$target" -type f | wc -l) inputs after merging"
    fi
done
