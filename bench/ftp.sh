#!/usr/bin/env bash
# bench/ftp.sh — urlget against curl, downloading one big file over FTP
# (passive, binary) from an FTP server on 127.0.0.1. See bench/README.md.
#
#   bench/ftp.sh                        256 MiB from vsftpd, 5 rounds
#   ROUNDS=9 SIZE_MIB=1024 bench/ftp.sh
#   FTPD=pure-ftpd bench/ftp.sh         the server: vsftpd (default), pure-ftpd or proftpd
#   URLGET_CMD="curl -s" bench/ftp.sh   check the script itself: "urlget" is curl
#
# The server is run by the harness helper internal/testserver/cmd/ftpserver:
# vsftpd is installed from Debian here; pure-ftpd and ProFTPD are the copies
# scripts/test unpacks (run it once first). With perf on PATH, the server's
# CPU time during each run is counted too (bench_server_cpu).
#
# Targets: urlget's median wall time <= 0.85 x curl's; urlget's peak RSS
# < 20 MiB. Exit status: 0 all met, 1 a target missed, 2 a client failed.
# Must run as root (the servers need it).
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

FTPD=${FTPD:-vsftpd}
case $FTPD in
vsftpd | pure-ftpd | proftpd) ;;
*) echo "bench: FTPD must be vsftpd, pure-ftpd or proftpd, not $FTPD" >&2; exit 2 ;;
esac

# Debian packages this benchmark needs (installed when run as root).
PACKAGES=(curl time)
[ "$FTPD" = vsftpd ] && PACKAGES+=(vsftpd)

ROUNDS=${ROUNDS:-5}
SIZE_MIB=${SIZE_MIB:-256}
MAX_RATIO=${MAX_RATIO:-0.85}      # urlget wall / curl wall
MAX_RSS_KIB=${MAX_RSS_KIB:-20480} # urlget peak RSS (20 MiB)

bench_init
[ "$(id -u)" = 0 ] || bench_die "$FTPD needs root: run bench/ftp.sh as root"
bench_need_packages "${PACKAGES[@]}"
command -v go >/dev/null || bench_die "go is not on PATH"
bench_note "bench: building"
go build -o "$BENCH_BIN/ftpserver" ./internal/testserver/cmd/ftpserver || bench_die "cannot build internal/testserver/cmd/ftpserver"

bench_clients

src=$BENCH_TMP/big.bin
bench_random_file "$src"

bench_start_program ftpserver -dir "$BENCH_TMP/ftp" -file "$src" "$FTPD"
url=$BENCH_URL/pub/big.bin
bench_server_cpu "$(awk '$1 == "PID" { print $2; exit }' "$BENCH_LAUNCH_OUT")"

if [ "$FTPD" = vsftpd ]; then
	version=$(dpkg-query -W -f='${Version}' vsftpd)
else # the .deb scripts/test unpacked
	version=$(find "${URLGET_TEST_CACHE:-/var/cache/urlget-test}/debs" -name '*.deb' -printf '%f\n' 2>/dev/null | awk -F_ -v p="${FTPD/proftpd/proftpd-core}" '$1 == p { print $2 }')
fi
echo "== FTP: RETR $url ($SIZE_MIB MiB, random bytes, passive, TYPE I), $ROUNDS rounds"
echo "   $FTPD ${version:-?}; $(curl --version | head -n 1 | cut -d' ' -f1-2); urlget: ${URLGET[*]}"
# The sender's congestion control changes the figures (bench/README.md):
# BBR paces the server's socket with timers on loopback, CUBIC does not.
echo "   $(uname -sr); default TCP congestion control $(cat /proc/sys/net/ipv4/tcp_congestion_control 2>/dev/null || echo ?)"
bench_load_note

bench_versus_curl "$src" "$url"
