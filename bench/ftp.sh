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

# urlget must have the ftp fetcher. Until fetch/all imports fetch/ftp, build
# it with an overlay that adds the import (the work tree is not touched).
build_urlget_ftp() {
	if grep -q '"github.com/urlget/urlget/fetch/ftp"' fetch/all/all.go; then
		bench_build_urlget
		return
	fi
	local ov=$BENCH_TMP/overlay
	mkdir -p "$ov"
	sed 's#^import (#import (\n\t_ "github.com/urlget/urlget/fetch/ftp"#' fetch/all/all.go >"$ov/all.go"
	printf '{"Replace":{"%s":"%s"}}\n' "$PWD/fetch/all/all.go" "$ov/all.go" >"$ov/overlay.json"
	bench_note "bench: fetch/all does not import fetch/ftp yet: building urlget with an overlay that adds it"
	if ! go build -overlay "$ov/overlay.json" -o "$BENCH_BIN/urlget" ./cmd/urlget 2>"$BENCH_TMP/urlget-build.log"; then
		bench_mark_failed urlget "go build ./cmd/urlget failed: $(head -n 3 "$BENCH_TMP/urlget-build.log" | tr '\n' ' ')"
	fi
}

# ftp_start_server ARGS...: run `ftpserver ARGS...` like bench_start_server
# runs testserver: in the background, stopped by PID at exit; sets BENCH_URL.
ftp_start_server() {
	local n=${#BENCH_SERVER_PIDS[@]}
	local out=$BENCH_TMP/server$n.out err=$BENCH_TMP/server$n.err
	: >"$out"
	"$BENCH_BIN/ftpserver" "$@" >"$out" 2>"$err" &
	local pid=$!
	BENCH_SERVER_PIDS+=("$pid")
	local i
	for ((i = 0; i < 300; i++)); do
		BENCH_URL=$(awk '$1 == "URL" { print $2; exit }' "$out")
		[ -n "$BENCH_URL" ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	cat "$err" >&2
	bench_die "ftpserver $* did not start"
}

CURL=(curl -s -o @OUT@ @URL@)
if [ -n "${URLGET_CMD:-}" ]; then
	read -r -a urlget_cmd <<<"$URLGET_CMD"
else
	build_urlget_ftp
	urlget_cmd=("$BENCH_BIN/urlget")
fi
URLGET=("${urlget_cmd[@]}" -o @OUT@ @URL@)

src=$BENCH_TMP/big.bin
bench_note "bench: writing $SIZE_MIB MiB of random bytes"
head -c "$((SIZE_MIB << 20))" /dev/urandom >"$src"
sync "$src"
bytes=$(stat -c %s "$src")

ftp_start_server -dir "$BENCH_TMP/ftp" -file "$src" vsftpd
url=$BENCH_URL/pub/big.bin

echo "== FTP: RETR $url ($SIZE_MIB MiB, random bytes, passive, TYPE I), $ROUNDS rounds"
echo "   vsftpd $(dpkg-query -W -f='${Version}' vsftpd); $(curl --version | head -n 1 | cut -d' ' -f1-2); urlget: ${URLGET[*]}"
echo "   $(uname -sr)"
bench_load_note

bench_check curl "$src" "$url" "${CURL[@]}"
bench_check urlget "$src" "$url" "${URLGET[@]}"
sync -f "$BENCH_TMP"

for ((i = 1; i <= ROUNDS; i++)); do
	if ((i % 2)); then
		bench_run curl "$url" "${CURL[@]}"
		bench_run urlget "$url" "${URLGET[@]}"
	else
		bench_run urlget "$url" "${URLGET[@]}"
		bench_run curl "$url" "${CURL[@]}"
	fi
done

echo
bench_report "$bytes" curl urlget
echo
bench_ratio urlget curl "$MAX_RATIO"
bench_ratio_info urlget curl
bench_rss_limit urlget "$MAX_RSS_KIB"
bench_status
