#!/usr/bin/env bash
# bench/mirror-http.sh — `urlget mirror` beside `lftp mirror` and `wget -m`,
# mirroring one nginx autoindex tree through a delaying proxy, in one run.
#
#   bench/mirror-http.sh                1000 files in 50 directories (~31 MiB), 40 ms RTT, 4 connections
#   ROUNDS=3 bench/mirror-http.sh       three timed runs of each client
#   CLIENTS="urlget lftp" bench/mirror-http.sh   leave wget out
#   DELAY_MS=0 bench/mirror-http.sh     no added latency
#   BENCH_KEEP=1 bench/mirror-http.sh   keep the temp dir (trees, logs)
#   URLGET_BASE=/tmp/old/urlget CLIENTS="base urlget lftp wget" bench/mirror-http.sh
#                                       also an urlget built elsewhere (a before/after)
#
# nginx (autoindex on) serves the tree on 127.0.0.1; the delaying proxy
# (internal/testserver/delayproxy.go, run by mirror/internal/benchtool)
# listens on 127.0.0.2 and releases every chunk DELAY_MS after reading it,
# in each direction, and makes every new connection cost one round trip
# more, as a TCP handshake does (-handshake): what keep-alive saves. lftp
# and urlget use PARALLEL connections, kept alive; wget has one (kept
# alive too). Each client mirrors into an empty directory; the
# result must equal the served tree (diff -r; wget's index.html files and
# urlget's manifest left out). Then every client runs again on its
# finished mirror (nothing changed): urlget asks each file with
# If-None-Match/If-Modified-Since (304s), wget -m with If-Modified-Since,
# lftp compares the index's sizes and dates.
#
# Information only: no target (issue 25 sets none for http). Exit status 0,
# or 2 when a client failed.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

PACKAGES=(nginx-light lftp wget time)

ROUNDS=${ROUNDS:-1}
FILES=${FILES:-1000}
DIRS=${DIRS:-50}
MIB=${MIB:-31}
DELAY_MS=${DELAY_MS:-20} # each way: RTT = 2 x DELAY_MS
PARALLEL=${PARALLEL:-4}
CLIENTS=${CLIENTS:-"urlget lftp wget"}

bench_init
bench_need_packages "${PACKAGES[@]}"
bench_build_mirror

ROOT=$BENCH_TMP/www
mkdir -p "$ROOT"
chmod 755 "$BENCH_TMP" "$ROOT"
bench_ftp_tree "$ROOT/pub"
sync -f "$ROOT"

mkdir -p "$BENCH_TMP/nginx"
bench_start_helper nginx nginx -root "$ROOT" -dir "$BENCH_TMP/nginx"
PORT=$(awk '$1 == "PORT" { print $2 }' "$HELPER_OUT")
bench_start_helper proxy delayproxy -delay "${DELAY_MS}ms" -handshake "127.0.0.2:$PORT=127.0.0.1:$PORT"
HOSTPORT=127.0.0.2:$PORT
URL=http://$HOSTPORT/pub/

# The clients: NAME and a command with @OUT@ for the target directory.
client_cmd() {
	case "$1" in
	urlget) CMD=("$BENCH_BIN/urlget" mirror -q -P "$PARALLEL" "$URL" @OUT@) ;;
	base)
		bench_need_base
		CMD=("$URLGET_BASE" mirror -q -P "$PARALLEL" "$URL" @OUT@)
		;;
	lftp) CMD=(lftp -c "set net:max-retries 3; set net:timeout 30; mirror --parallel=$PARALLEL $URL @OUT@") ;;
	wget) CMD=(wget -q -m -np -nH --cut-dirs=1 -R 'index.html*' -P @OUT@ "$URL") ;;
	*) bench_die "unknown client $1" ;;
	esac
}

echo "== HTTP mirror: $URL — $FILES files in $DIRS directories, $(awk -v b="$BYTES" 'BEGIN { printf "%.1f", b / 1048576 }') MiB; RTT $((2 * DELAY_MS)) ms (delay proxy); $PARALLEL connections (wget: 1); $ROUNDS round(s)"
echo "   $(nginx -v 2>&1); $(lftp --version | head -n 1); $(wget --version | head -n 1 | cut -d' ' -f1-3)"
echo "   $(uname -sr)"
bench_load_note

bench_mirror_rounds "$BENCH_TMP/out-" "$ROOT/pub" 'index.html*' '.urlget-mirror*'
for c in "${clients[@]}"; do
	bench_note "bench: $c again on its finished mirror"
	bench_mirror_run "$c" "${c}2" "$BENCH_TMP/out-$c" "$ROOT/pub" 'index.html*' '.urlget-mirror*'
done

echo
names=()
for c in "${clients[@]}"; do names+=("$c"); done
for c in "${clients[@]}"; do [ -e "$BENCH_TMP/${c}2.runs" ] && names+=("${c}2"); done
bench_report "$BYTES" "${names[@]}"
echo "(NAME2: the same client run again on its finished mirror — nothing changed)"
echo
for c in base lftp wget; do
	if [[ " $CLIENTS " == *" urlget "* && " $CLIENTS " == *" $c "* ]]; then
		bench_ratio_info urlget "$c"
		bench_ratio_info urlget2 "${c}2"
	fi
done
bench_status
