#!/usr/bin/env bash
# bench/mirror-scale.sh — `urlget mirror` beside `lftp mirror -P 4` on a
# large FTP tree from vsftpd, in one run: wall time and peak RSS of a first
# run into an empty directory and of a rerun with nothing changed.
#
#   bench/mirror-scale.sh                        1,000,000 files in 10,000 directories (~30+ min a client)
#   FILES=100000 DIRS=1000 bench/mirror-scale.sh  a tenth of it
#   URLGET_BASE=/tmp/urlget-old CLIENTS="urlget base lftp" bench/mirror-scale.sh
#                                                an older build beside this one
#   DELAY_MS=20 bench/mirror-scale.sh             through the delaying proxy (RTT 40 ms)
#   BENCH_KEEP=1 bench/mirror-scale.sh            keep the temp dir (trees, logs)
#
# What grows with the tree is the state a client keeps: urlget's manifest is
# a sorted file read one directory at a time (mirror/store.go), so its peak
# RSS (GNU time's maximum resident set, file pages included) should stay
# flat. Files are small (MIB in all, default FILES/2000 MiB) so that the
# walk, not the bytes, is measured. Every mirror must equal the served tree
# (diff -r), else the client is reported as failed.
#
# Targets (issue 37): urlget's peak RSS <= MAX_RSS_KIB (64 MiB) on both
# runs, its first run no slower than lftp's (MAX_RATIO 1.0), its no-change
# rerun <= MAX_RERUN_RATIO (0.5) x lftp's. Exit status: 0 targets met, 1
# missed, 2 a client failed. Needs root (vsftpd).
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

PACKAGES=(vsftpd lftp time)

ROUNDS=1
FILES=${FILES:-1000000}
DIRS=${DIRS:-10000}
MIB=${MIB:-$(((FILES + 1999) / 2000))}
DELAY_MS=${DELAY_MS:-0}
PARALLEL=${PARALLEL:-4}
MAX_RSS_KIB=${MAX_RSS_KIB:-65536}
MAX_RATIO=${MAX_RATIO:-1.0}
MAX_RERUN_RATIO=${MAX_RERUN_RATIO:-0.5}
CLIENTS=${CLIENTS:-"urlget lftp"}

bench_init
[ "$(id -u)" = 0 ] || bench_die "vsftpd needs root: run bench/mirror-scale.sh as root"
bench_need_packages "${PACKAGES[@]}"
bench_build_mirror

bench_anon_tree

if [ "$DELAY_MS" = 0 ]; then
	bench_start_vsftpd "$ANON" 127.0.0.1
	HOSTPORT=127.0.0.1:$PORT
else
	bench_start_vsftpd "$ANON" 127.0.0.2
	bench_start_helper proxy delayproxy -delay "${DELAY_MS}ms" "127.0.0.2:$PORT=127.0.0.1:$PORT" "127.0.0.2:$PASV=127.0.0.1:${PASV%-*}"
	HOSTPORT=127.0.0.2:$PORT
fi
URL=ftp://$HOSTPORT/pub/

# The clients: NAME and a command with @OUT@ for the target directory.
client_cmd() {
	case "$1" in
	urlget) CMD=("$BENCH_BIN/urlget" mirror -q -P "$PARALLEL" --max-files -1 "$URL" @OUT@) ;;
	base)
		bench_need_base
		CMD=("$URLGET_BASE" mirror -q -P "$PARALLEL" --max-files -1 "$URL" @OUT@)
		;;
	lftp) CMD=(lftp -c "set net:max-retries 3; set net:timeout 30; open ftp://$HOSTPORT; mirror --parallel=$PARALLEL /pub @OUT@") ;;
	*) bench_die "unknown client $1" ;;
	esac
}

echo "== FTP mirror at scale: $URL — $FILES files in $DIRS directories, $(awk -v b="$BYTES" 'BEGIN { printf "%.1f", b / 1048576 }') MiB; RTT $((2 * DELAY_MS)) ms; $PARALLEL connections"
echo "   vsftpd $(dpkg-query -W -f='${Version}' vsftpd 2>/dev/null); $(lftp --version | head -n 1)"
echo "   $(uname -sr)"
bench_load_note

read -r -a clients <<<"$CLIENTS"
for c in "${clients[@]}"; do
	bench_note "bench: $c, first run"
	bench_mirror_run "$c" "$c" "$BENCH_TMP/out-$c" "$ANON/pub" '.urlget-mirror*'
	bench_note "bench: $c again on its finished mirror"
	bench_mirror_run "$c" "${c}2" "$BENCH_TMP/out-$c" "$ANON/pub" '.urlget-mirror*'
	rm -rf "$BENCH_TMP/out-$c" # the disk holds one mirror at a time
done

echo
names=()
for c in "${clients[@]}"; do names+=("$c" "${c}2"); done
bench_report "$BYTES" "${names[@]}"
echo "(NAME2: the same client run again on its finished mirror — nothing to fetch)"
echo
if [[ " $CLIENTS " == *" urlget "* ]]; then
	bench_rss_limit urlget "$MAX_RSS_KIB"
	bench_rss_limit urlget2 "$MAX_RSS_KIB"
fi
if [[ " $CLIENTS " == *" urlget "* && " $CLIENTS " == *" lftp "* ]]; then
	bench_ratio urlget lftp "$MAX_RATIO"
	bench_ratio urlget2 lftp2 "$MAX_RERUN_RATIO"
fi
if [[ " $CLIENTS " == *" base "* && " $CLIENTS " == *" lftp "* ]]; then
	bench_ratio base lftp
	bench_ratio base2 lftp2
fi
bench_status
