#!/usr/bin/env bash
# bench/mirror-reverse.sh — `urlget mirror -R` beside `lftp mirror -R`,
# uploading one tree to vsftpd through a delaying proxy, in one run.
#
#   bench/mirror-reverse.sh               300 files in 20 directories (~10 MiB), 40 ms RTT, 4 connections
#   ROUNDS=3 bench/mirror-reverse.sh      three timed runs of each client
#   DELAY_MS=0 bench/mirror-reverse.sh    no added latency
#   BENCH_KEEP=1 bench/mirror-reverse.sh  keep the temp dir (trees, logs)
#
# vsftpd and the delaying proxy are those of bench/mirror-ftp.sh (every
# control and data connection through the proxy on 127.0.0.2). Each client
# uploads the tree, as the FTP user, into a directory of its own that it
# makes (urlget: up-urlget, lftp: up-lftp); the server's copy must then
# equal the tree (diff -r), otherwise the client is reported as failed.
# Then, as information, each runs again on its finished upload (nothing to
# send). Both use PARALLEL connections. No target: the figures are
# information (exit 0 unless a client failed). Needs root (vsftpd).
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

PACKAGES=(vsftpd lftp time)

ROUNDS=${ROUNDS:-1}
FILES=${FILES:-300}
DIRS=${DIRS:-20}
MIB=${MIB:-10}
DELAY_MS=${DELAY_MS:-20} # each way: RTT = 2 x DELAY_MS
PARALLEL=${PARALLEL:-4}
CLIENTS=${CLIENTS:-"urlget lftp"}

bench_init
[ "$(id -u)" = 0 ] || bench_die "vsftpd needs root: run bench/mirror-reverse.sh as root"
bench_need_packages "${PACKAGES[@]}"
bench_build_mirror

SRC=$BENCH_TMP/src
mkdir -p "$BENCH_TMP/anon"
chmod 755 "$BENCH_TMP" "$BENCH_TMP/anon"
bench_ftp_tree "$SRC"

bench_start_vsftpd "$BENCH_TMP/anon" 127.0.0.2
HOME_DIR=$BENCH_TMP/vsftpd/home # the FTP user's login directory
chown urlget "$HOME_DIR"
bench_start_helper proxy delayproxy -delay "${DELAY_MS}ms" "127.0.0.2:$PORT=127.0.0.1:$PORT" "127.0.0.2:$PASV=127.0.0.1:${PASV%-*}"
HOSTPORT=127.0.0.2:$PORT

# The clients: NAME and a command; @OUT@ (the server's copy, as seen
# here) is not on their command lines: each uploads to up-NAME.
client_cmd() {
	case "$1" in
	urlget) CMD=("$BENCH_BIN/urlget" mirror -R -q -P "$PARALLEL" "$SRC" "ftp://urlget:secret@$HOSTPORT/up-urlget/") ;;
	lftp) CMD=(lftp -c "set net:max-retries 3; set net:timeout 30; open -u urlget,secret ftp://$HOSTPORT; mirror -R --no-perms --parallel=$PARALLEL $SRC up-lftp") ;;
	*) bench_die "unknown client $1" ;;
	esac
}

echo "== FTP reverse mirror (upload): $FILES files in $DIRS directories, $(awk -v b="$BYTES" 'BEGIN { printf "%.1f", b / 1048576 }') MiB to vsftpd; RTT $((2 * DELAY_MS)) ms (delay proxy); $PARALLEL connections; $ROUNDS round(s)"
echo "   vsftpd $(dpkg-query -W -f='${Version}' vsftpd 2>/dev/null); $(lftp --version | head -n 1)"
echo "   $(uname -sr)"
bench_load_note

bench_mirror_rounds "$HOME_DIR/up-" "$SRC"
for c in "${clients[@]}"; do
	bench_note "bench: $c again on its finished upload"
	bench_mirror_run "$c" "${c}2" "$HOME_DIR/up-$c" "$SRC"
done

echo
names=()
for c in "${clients[@]}"; do names+=("$c"); done
for c in "${clients[@]}"; do [ -e "$BENCH_TMP/${c}2.runs" ] && names+=("${c}2"); done
bench_report "$BYTES" "${names[@]}"
echo "(urlget2, lftp2: the same client run again on its finished upload — nothing to send)"
echo
if [[ " $CLIENTS " == *" urlget "* && " $CLIENTS " == *" lftp "* ]]; then
	bench_ratio_info urlget lftp
	bench_ratio_info urlget2 lftp2
fi
bench_status
