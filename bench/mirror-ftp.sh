#!/usr/bin/env bash
# bench/mirror-ftp.sh — `urlget mirror` beside `lftp mirror` and `wget -m`,
# mirroring one FTP tree from vsftpd through a delaying proxy, in one run.
#
#   bench/mirror-ftp.sh                 1000 files in 50 directories (~31 MiB), 40 ms RTT, 4 connections
#   ROUNDS=3 bench/mirror-ftp.sh        three timed runs of each client
#   CLIENTS="urlget lftp" bench/mirror-ftp.sh   leave wget out (it takes ~2 minutes)
#   DELAY_MS=0 bench/mirror-ftp.sh      no added latency
#   BENCH_KEEP=1 bench/mirror-ftp.sh    keep the temp dir (trees, logs)
#   URLGET_BASE=/tmp/urlget-old CLIENTS="urlget base lftp" bench/mirror-ftp.sh
#                                       an older build beside this one, in one run
#
# The machine's kernel has no netem, so latency comes from a TCP proxy
# (internal/testserver/delayproxy.go, run by mirror/internal/benchtool)
# that releases every chunk DELAY_MS after reading it, in each direction.
# It listens on 127.0.0.2 — the control port, and the passive port range
# mapped one to one — and vsftpd announces 127.0.0.2 in its PASV replies,
# so every client's control and data connections go through it. lftp and
# urlget use PARALLEL connections; wget has no parallel FTP (one).
#
# Each client mirrors into an empty directory; the result must equal the
# served tree (diff -r; wget's .listing files and urlget's manifest left
# out), otherwise the client is reported as failed. Then, as information,
# urlget and lftp run again on their finished mirrors (nothing to fetch).
#
# Targets (issue 25): urlget's median wall time <= MAX_RATIO (0.30) x lftp's,
# and its no-change rerun <= MAX_RERUN_RATIO (0.5) x lftp's no-change rerun.
# Exit status: 0 target met, 1 missed, 2 a client failed. Needs root
# (vsftpd).
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

PACKAGES=(vsftpd lftp wget time)

ROUNDS=${ROUNDS:-1}
FILES=${FILES:-1000}
DIRS=${DIRS:-50}
MIB=${MIB:-31}
DELAY_MS=${DELAY_MS:-20} # each way: RTT = 2 x DELAY_MS
PARALLEL=${PARALLEL:-4}
MAX_RATIO=${MAX_RATIO:-0.30}             # urlget wall / lftp wall
MAX_RERUN_RATIO=${MAX_RERUN_RATIO:-0.5} # the same for the no-change reruns
CLIENTS=${CLIENTS:-"urlget lftp wget"}

bench_init
[ "$(id -u)" = 0 ] || bench_die "vsftpd needs root: run bench/mirror-ftp.sh as root"
bench_need_packages "${PACKAGES[@]}"
bench_build_mirror

bench_anon_tree

bench_start_vsftpd "$ANON" 127.0.0.2
bench_start_helper proxy delayproxy -delay "${DELAY_MS}ms" "127.0.0.2:$PORT=127.0.0.1:$PORT" "127.0.0.2:$PASV=127.0.0.1:${PASV%-*}"
HOSTPORT=127.0.0.2:$PORT
URL=ftp://$HOSTPORT/pub/

# The clients: NAME and a command with @OUT@ for the target directory.
client_cmd() {
	case "$1" in
	urlget) CMD=("$BENCH_BIN/urlget" mirror -q -P "$PARALLEL" "$URL" @OUT@) ;;
	base)
		bench_need_base
		CMD=("$URLGET_BASE" mirror -q -P "$PARALLEL" "$URL" @OUT@)
		;;
	lftp) CMD=(lftp -c "set net:max-retries 3; set net:timeout 30; open ftp://$HOSTPORT; mirror --parallel=$PARALLEL /pub @OUT@") ;;
	wget) CMD=(wget -q -m -np -nH --cut-dirs=1 -P @OUT@ "$URL") ;;
	*) bench_die "unknown client $1" ;;
	esac
}

echo "== FTP mirror: $URL — $FILES files in $DIRS directories, $(awk -v b="$BYTES" 'BEGIN { printf "%.1f", b / 1048576 }') MiB; RTT $((2 * DELAY_MS)) ms (delay proxy); $PARALLEL connections (wget: 1); $ROUNDS round(s)"
echo "   vsftpd $(dpkg-query -W -f='${Version}' vsftpd 2>/dev/null); $(lftp --version | head -n 1); $(wget --version | head -n 1 | cut -d' ' -f1-3)"
echo "   $(uname -sr)"
bench_load_note

bench_mirror_rounds "$BENCH_TMP/out-" "$ANON/pub" .listing '.urlget-mirror*'
for c in "${clients[@]}"; do
	case "$c" in urlget | lftp)
		bench_note "bench: $c again on its finished mirror"
		bench_mirror_run "$c" "${c}2" "$BENCH_TMP/out-$c" "$ANON/pub" .listing '.urlget-mirror*'
		;;
	esac
done

echo
names=()
for c in "${clients[@]}"; do names+=("$c"); done
for c in urlget2 lftp2; do [ -e "$BENCH_TMP/$c.runs" ] && names+=("$c"); done
bench_report "$BYTES" "${names[@]}"
echo "(urlget2, lftp2: the same client run again on its finished mirror — nothing to fetch)"
echo
if [[ " $CLIENTS " == *" urlget "* && " $CLIENTS " == *" lftp "* ]]; then
	bench_ratio urlget lftp "$MAX_RATIO"
	bench_ratio urlget2 lftp2 "$MAX_RERUN_RATIO"
fi
if [[ " $CLIENTS " == *" urlget "* && " $CLIENTS " == *" wget "* ]]; then
	bench_ratio_info urlget wget
	a=$(bench_stat urlget | awk '{ print $2 }')
	b=$(bench_stat wget | awk '{ print $2 }')
	[ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN { printf "(info) wall urlget/wget: %.3f\n", a / b }'
fi
bench_status
