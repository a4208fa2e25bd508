#!/usr/bin/env bash
# bench/gopher.sh — urlget against curl, downloading one big binary item
# (type 9) from gophernicus on 127.0.0.1. See bench/README.md.
#
#   bench/gopher.sh                       256 MiB, 5 rounds
#   ROUNDS=9 SIZE_MIB=1024 bench/gopher.sh
#   URLGET_CMD="curl -s" bench/gopher.sh  check the script itself: "urlget" is curl
#
# gophernicus is an inetd-style server: socat listens and runs it for each
# connection (as nobody when run as root; gophernicus refuses root). The
# server is started by the harness helper (internal/testserver/cmd/testserver
# gophernicus) when it has that command, otherwise here with socat; either
# way it is stopped by PID.
#
# Targets: urlget's median wall time <= 1.0 x curl's (no slower); urlget's
# peak RSS < 20 MiB. Exit status: 0 all met, 1 a target missed, 2 a client
# failed.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# Debian packages this benchmark needs (installed when run as root).
PACKAGES=(gophernicus socat curl time)

ROUNDS=${ROUNDS:-5}
SIZE_MIB=${SIZE_MIB:-256}
MAX_RATIO=${MAX_RATIO:-1.0}       # urlget wall / curl wall
MAX_RSS_KIB=${MAX_RSS_KIB:-20480} # urlget peak RSS (20 MiB)

bench_init
bench_need_packages "${PACKAGES[@]}"
command -v go >/dev/null || bench_die "go is not on PATH"
bench_note "bench: building"
bench_build

bench_clients

# gophernicus runs as nobody: the served tree must be reachable by others.
chmod 755 "$BENCH_TMP"
mkdir -m 755 "$BENCH_TMP/gopher"
src=$BENCH_TMP/gopher/big.bin
bench_random_file "$src"
chmod 644 "$src"

if "$BENCH_BIN/testserver" 2>&1 | grep -q gophernicus; then
	bench_start_server gophernicus -root "$BENCH_TMP/gopher"
else
	bench_start_gophernicus "$BENCH_TMP/gopher"
fi
url=$BENCH_URL/9/big.bin

echo "== gopher: $url ($SIZE_MIB MiB, random bytes, type 9), $ROUNDS rounds"
echo "   gophernicus $(dpkg-query -W -f='${Version}' gophernicus 2>/dev/null || echo '?') under socat; $(curl --version | head -n 1 | cut -d' ' -f1-2); urlget: ${URLGET[*]}"
echo "   $(uname -sr)"
bench_load_note

bench_versus_curl "$src" "$url"
