#!/usr/bin/env bash
# bench/http.sh — urlget against curl, downloading one big file over HTTP
# from nginx on 127.0.0.1. See bench/README.md.
#
#   bench/http.sh                       256 MiB, 5 rounds
#   ROUNDS=9 SIZE_MIB=1024 bench/http.sh
#   URLGET_CMD="curl -s" bench/http.sh  check the script itself: "urlget" is curl
#
# Targets: urlget's median wall time <= 0.85 x curl's; urlget's peak RSS
# < 20 MiB. Exit status: 0 all met, 1 a target missed, 2 a client failed.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# Debian packages this benchmark needs (installed when run as root).
PACKAGES=(nginx-light curl time)

ROUNDS=${ROUNDS:-5}
SIZE_MIB=${SIZE_MIB:-256}
MAX_RATIO=${MAX_RATIO:-0.85}       # urlget wall / curl wall
MAX_RSS_KIB=${MAX_RSS_KIB:-20480}  # urlget peak RSS (20 MiB)

bench_init
bench_need_packages "${PACKAGES[@]}"
command -v go >/dev/null || bench_die "go is not on PATH"
bench_note "bench: building"
bench_build

bench_clients

mkdir "$BENCH_TMP/www"
src=$BENCH_TMP/www/big.bin
bench_random_file "$src"

bench_start_server nginx -root "$BENCH_TMP/www"
url=$BENCH_URL/big.bin

echo "== HTTP: GET $url ($SIZE_MIB MiB, random bytes), $ROUNDS rounds"
echo "   $(nginx -v 2>&1 | head -n 1); $(curl --version | head -n 1 | cut -d' ' -f1-2); urlget: ${URLGET[*]}"
echo "   $(uname -sr)"
bench_load_note

bench_versus_curl "$src" "$url"
