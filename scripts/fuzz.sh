#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for a bounded time each and prints
# libFuzzer's final stats. Not part of CI: cargo-fuzz needs a nightly
# toolchain (`rustup toolchain install nightly`) and `cargo install cargo-fuzz`.
#
#   scripts/fuzz.sh            # 60 s per target
#   scripts/fuzz.sh 600        # 10 minutes per target
#   scripts/fuzz.sh 60 names   # only the named targets
#
# Corpora grow in fuzz/corpus/<target>; a crash is saved in
# fuzz/artifacts/<target>/ and stops the run with a non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

seconds="${1:-60}"
shift || true
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "cargo-fuzz is missing: cargo install cargo-fuzz --locked" >&2
    exit 2
fi
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for target in "${targets[@]}"; do
    echo "== $target: ${seconds}s"
    mkdir -p "corpus/$target"
    set +e
    cargo +nightly fuzz run "$target" "corpus/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=4096 -max_len=65536 \
        -print_final_stats=1 >"$log" 2>&1
    status=$?
    set -e
    grep -E '^(stat::|Done [0-9]+ runs)' "$log" || true
    echo "corpus: $(find "corpus/$target" -type f | wc -l) inputs"
    if [ "$status" -ne 0 ]; then
        tail -n 40 "$log" >&2
        echo "== $target FAILED (exit $status): see fuzz/artifacts/$target" >&2
        exit 1
    fi
done
