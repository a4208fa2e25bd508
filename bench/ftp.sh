#!/usr/bin/env bash
# bench/ftp.sh — urlget against curl, downloading one big file over FTP
# (passive, binary) from vsftpd on 127.0.0.1. See bench/README.md.
#
#   bench/ftp.sh                        256 MiB, 5 rounds
#   ROUNDS=9 SIZE_MIB=1024 bench/ftp.sh
#   URLGET_CMD="curl -s" bench/ftp.sh   check the script itself: "urlget" is curl
#
# Targets: urlget's median wall time <= 0.85 x curl's; urlget's peak RSS
# < 20 MiB. Exit status: 0 all met, 1 a target missed, 2 a client failed.
# Must run as root (vsftpd needs it).
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# Debian packages this benchmark needs (installed when run as root).
PACKAGES=(vsftpd curl time)

ROUNDS=${ROUNDS:-5}
SIZE_MIB=${SIZE_MIB:-256}
MAX_RATIO=${MAX_RATIO:-0.85}      # urlget wall / curl wall
MAX_RSS_KIB=${MAX_RSS_KIB:-20480} # urlget peak RSS (20 MiB)

bench_init
[ "$(id -u)" = 0 ] || bench_die "vsftpd needs root: run bench/ftp.sh as root"
bench_need_packages "${PACKAGES[@]}"
command -v go >/dev/null || bench_die "go is not on PATH"
bench_note "bench: building"
go build -o "$BENCH_BIN/ftpserver" ./internal/testserver/cmd/ftpserver || bench_die "cannot build internal/testserver/cmd/ftpserver"

bench_clients

src=$BENCH_TMP/big.bin
bench_random_file "$src"

bench_start_program ftpserver -dir "$BENCH_TMP/ftp" -file "$src" vsftpd
url=$BENCH_URL/pub/big.bin

echo "== FTP: RETR $url ($SIZE_MIB MiB, random bytes, passive, TYPE I), $ROUNDS rounds"
echo "   vsftpd $(dpkg-query -W -f='${Version}' vsftpd); $(curl --version | head -n 1 | cut -d' ' -f1-2); urlget: ${URLGET[*]}"
echo "   $(uname -sr)"
bench_load_note

bench_versus_curl "$src" "$url"
