#!/usr/bin/env bash
# bench/parallel.sh — urlget -Z beside curl -Z, in one run: HTTP_FILES URLs
# (one glob) from nginx and FTP_FILES from vsftpd, on 127.0.0.1, with the
# same --parallel-max. See bench/README.md.
#
#   bench/parallel.sh                     200 http and 50 ftp files (1-512 KiB), 5 rounds, --parallel-max 50
#   ROUNDS=9 PARALLEL_MAX=20 bench/parallel.sh
#   URLGET_CMD="curl" bench/parallel.sh   check the script itself: "urlget" is curl
#   BENCH_KEEP=1 bench/parallel.sh        keep the temp dir (trees, logs)
#
# Each run fetches every file into an empty directory (--output-dir,
# -o 'f#1.bin'), which must then equal the served tree byte for byte (diff
# -r), else the client is reported as failed. Rounds alternate which
# client goes first.
#
# Targets: urlget's median wall time <= MAX_RATIO (1.0) x curl's, for http
# and for ftp; urlget's peak RSS < MAX_RSS_KIB (64 MiB): flat, whatever the
# number of files. Exit status: 0 targets met, 1 a target missed, 2 a
# client failed. Needs root (vsftpd).
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

PACKAGES=(nginx-light vsftpd curl time)

ROUNDS=${ROUNDS:-5}
HTTP_FILES=${HTTP_FILES:-200}
FTP_FILES=${FTP_FILES:-50}
MAX_KIB=${MAX_KIB:-512} # each file 1 to MAX_KIB KiB of random bytes
PARALLEL_MAX=${PARALLEL_MAX:-50}
MAX_RATIO=${MAX_RATIO:-1.0}
MAX_RSS_KIB=${MAX_RSS_KIB:-65536}

bench_init
[ "$(id -u)" = 0 ] || bench_die "vsftpd needs root: run bench/parallel.sh as root"
bench_need_packages "${PACKAGES[@]}"
bench_build_mirror # benchtool (vsftpd) and urlget
bench_build        # testserver (nginx)
if [ -n "${URLGET_CMD:-}" ]; then
	read -r -a URLGET_BIN <<<"$URLGET_CMD"
else
	URLGET_BIN=("$BENCH_BIN/urlget")
fi

# write_files DIR N: f001.bin ... f00N.bin of 1 to MAX_KIB KiB each (the
# same sizes every run: RANDOM is seeded).
write_files() {
	local dir=$1 n=$2 i
	mkdir -p "$dir"
	RANDOM=26
	for ((i = 1; i <= n; i++)); do
		head -c "$(((RANDOM % MAX_KIB + 1) << 10))" /dev/urandom >"$dir/$(printf 'f%03d.bin' "$i")"
	done
	sync -f "$dir"
}

bench_note "bench: writing $HTTP_FILES + $FTP_FILES files"
write_files "$BENCH_TMP/www" "$HTTP_FILES"
ANON=$BENCH_TMP/anon
write_files "$ANON/pub" "$FTP_FILES"
chmod 755 "$BENCH_TMP" "$ANON" "$ANON/pub"
HTTP_BYTES=$(du -b -s "$BENCH_TMP/www" | awk '{ print $1 - 4096 }')
FTP_BYTES=$(du -b -s "$ANON/pub" | awk '{ print $1 - 4096 }')

bench_start_server nginx -root "$BENCH_TMP/www"
HTTP_URL="$BENCH_URL/f[001-$(printf '%03d' "$HTTP_FILES")].bin"
mkdir -p "$BENCH_TMP/vsftpd"
bench_start_helper vsftpd vsftpd -root "$ANON" -dir "$BENCH_TMP/vsftpd" -pasv "$(bench_free_range 200)"
FTP_URL="$(awk '$1 == "URL" { print $2 }' "$HELPER_OUT")/pub/f[001-$(printf '%03d' "$FTP_FILES")].bin"

# client_cmd NAME: CMD, the run NAME (CLIENT-PROTO) with @OUT@ for its
# directory (bench_mirror_run).
client_cmd() {
	local url
	case "${1#*-}" in
	http) url=$HTTP_URL ;;
	ftp) url=$FTP_URL ;;
	esac
	case "${1%-*}" in
	curl) CMD=(curl -s -Z --parallel-max "$PARALLEL_MAX" --create-dirs --output-dir @OUT@ -o 'f#1.bin' "$url") ;;
	urlget) CMD=("${URLGET_BIN[@]}" -s -Z --parallel-max "$PARALLEL_MAX" --create-dirs --output-dir @OUT@ -o 'f#1.bin' "$url") ;;
	esac
}

echo "== -Z: $HTTP_FILES http files ($(awk -v b="$HTTP_BYTES" 'BEGIN { printf "%.1f", b / 1048576 }') MiB) from nginx, $FTP_FILES ftp files ($(awk -v b="$FTP_BYTES" 'BEGIN { printf "%.1f", b / 1048576 }') MiB) from vsftpd; --parallel-max $PARALLEL_MAX; $ROUNDS rounds"
echo "   $(nginx -v 2>&1 | head -n 1); vsftpd $(dpkg-query -W -f='${Version}' vsftpd); $(curl --version | head -n 1 | cut -d' ' -f1-2); urlget: ${URLGET_BIN[*]}"
echo "   $(uname -sr)"
bench_load_note

for proto in http ftp; do
	served=$BENCH_TMP/www
	[ "$proto" = ftp ] && served=$ANON/pub
	for ((r = 1; r <= ROUNDS; r++)); do
		order=(curl urlget)
		((r % 2)) || order=(urlget curl)
		for c in "${order[@]}"; do
			bench_note "bench: round $r: $c $proto"
			bench_mirror_run "$c-$proto" "$c-$proto" "$BENCH_TMP/out-$c-$proto" "$served"
		done
	done
done

echo
bench_report "$HTTP_BYTES" curl-http urlget-http
bench_report "$FTP_BYTES" curl-ftp urlget-ftp | tail -n +2
echo
for proto in http ftp; do
	bench_ratio "urlget-$proto" "curl-$proto" "$MAX_RATIO"
	bench_ratio_info "urlget-$proto" "curl-$proto"
	bench_rss_limit "urlget-$proto" "$MAX_RSS_KIB"
done
bench_status
