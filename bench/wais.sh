#!/usr/bin/env bash
# bench/wais.sh — urlget fetching a WAIS document as it does by default (one
# request at a time, chunks as large as the server's buffer) against the
# same urlget asking in waissearch's and Lynx's 10000-byte chunks
# (--wais-chunk-size 10000), through the in-tree WAIS server behaving like
# freeWAIS-sf on loopback: one request at a time, DELAY of service time per
# reply (44 ms measured on the real server). See bench/README.md.
#
#   bench/wais.sh                         5 MB, 44 ms a reply, 3 rounds
#   ROUNDS=1 SIZE=20000000 bench/wais.sh
#
# No WAIS server is packaged anywhere: the server is
# internal/testserver/cmd/testserver wais, stopped by PID.
#
# Target: urlget's median wall time <= MAX_RATIO (0.25) x the 10000-byte
# lockstep's, i.e. at least 4 times faster. Exit status: 0 met, 1 missed,
# 2 a client failed.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

PACKAGES=(time)

ROUNDS=${ROUNDS:-3}
SIZE=${SIZE:-5000000}
DELAY=${DELAY:-44ms}
MAX_RATIO=${MAX_RATIO:-0.25}

bench_init
bench_need_packages "${PACKAGES[@]}"
command -v go >/dev/null || bench_die "go is not on PATH"
bench_note "bench: building"
bench_build
bench_build_urlget

src=$BENCH_TMP/doc.bin
bench_start_server wais -size "$SIZE" -delay "$DELAY" -file "$src"
url=$BENCH_URL

URLGET=("$BENCH_BIN/urlget" -s -o @OUT@ @URL@)
LOCKSTEP=("$BENCH_BIN/urlget" -s --wais-chunk-size 10000 -o @OUT@ @URL@)

echo "== wais: a $SIZE-byte document, $DELAY a reply, one request at a time, $ROUNDS rounds"
echo "   urlget: chunks as large as the server's buffer; lockstep: 10000-byte chunks (waissearch, Lynx)"
echo "   $(uname -sr)"
bench_load_note

bench_check urlget "$src" "$url" "${URLGET[@]}"
bench_check lockstep "$src" "$url" "${LOCKSTEP[@]}"
bench_rounds "$url" urlget URLGET lockstep LOCKSTEP
echo
bench_report "$SIZE" urlget lockstep
echo
bench_ratio urlget lockstep "$MAX_RATIO"
bench_ratio_info urlget lockstep
bench_status
