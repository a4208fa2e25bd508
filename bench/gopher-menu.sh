#!/usr/bin/env bash
# bench/gopher-menu.sh — urlget rendering a huge gopher menu to a file,
# beside curl fetching the same menu raw. See bench/README.md.
#
#   bench/gopher-menu.sh                    1,000,000 items, 5 rounds
#   ITEMS=10000000 ROUNDS=3 bench/gopher-menu.sh
#
# The menu is generated here and served by socat on 127.0.0.1 (the server
# reads the selector line, then sends the file): the clients, not the
# server, are measured. curl writes the menu as sent; urlget parses every
# item and writes its readable listing (--readable; both to a file in the
# temp dir).
#
# Targets: urlget's median wall time <= 2.0 x curl's raw fetch; urlget's
# peak RSS < 20 MiB. Exit status: 0 all met, 1 a target missed, 2 a client
# failed.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

PACKAGES=(socat curl time)

ROUNDS=${ROUNDS:-5}
ITEMS=${ITEMS:-1000000}
MAX_RATIO=${MAX_RATIO:-2.0}
MAX_RSS_KIB=${MAX_RSS_KIB:-20480}

bench_init
bench_need_packages "${PACKAGES[@]}"
command -v go >/dev/null || bench_die "go is not on PATH"
bench_note "bench: building"
bench_build
bench_build_urlget

menu=$BENCH_TMP/menu.txt
bench_note "bench: writing a menu of $ITEMS items"
awk -v n="$ITEMS" 'BEGIN {
	for (i = 1; i <= n; i++)
		printf "0File number %d of the archive\t/pub/archive/file-%08d.txt\tgopher.example.org\t70\r\n", i, i
	printf ".\r\n"
}' >"$menu"
sync "$menu"

case "$BENCH_TMP" in
*[[:space:],:!\"\'\\]*) bench_die "socat cannot take the path $BENCH_TMP" ;;
esac
bench_start_on_port socat socat "TCP-LISTEN:@PORT@,bind=127.0.0.1,fork,reuseaddr" "SYSTEM:head -n 1 >/dev/null; cat $menu"
port=$BENCH_PORT
url=gopher://127.0.0.1:$port/1/

out=$BENCH_TMP/out.txt
CURL=(curl -s -o "$out" @URL@)
URLGET=("$BENCH_BIN/urlget" -s --readable -o "$out" @URL@)
CHECK_CURL=(curl -s -o @OUT@ @URL@)

echo "== gopher menu: $url ($ITEMS items, $(stat -c %s "$menu") bytes), $ROUNDS rounds"
echo "   curl: raw bytes to a file; urlget: the readable listing to a file"
echo "   $(curl --version | head -n 1 | cut -d' ' -f1-2); $(uname -sr)"
bench_load_note

# Checks: curl's file is the menu; urlget's has one line per item.
bench_check curl "$menu" "$url" "${CHECK_CURL[@]}"
rm -f "$out"
if ! "$BENCH_BIN/urlget" -s --readable -o "$out" "$url" 2>"$BENCH_TMP/urlget.stderr"; then
	bench_mark_failed urlget "exit status $?: $(head -n 3 "$BENCH_TMP/urlget.stderr" | tr '\n' ' ')"
elif [ "$(wc -l <"$out")" -ne "$ITEMS" ]; then
	bench_mark_failed urlget "$(wc -l <"$out") lines rendered, $ITEMS expected"
fi
for ((i = 1; i <= ROUNDS; i++)); do
	rm -f "$out"
	if ((i % 2)); then
		bench_run curl "$url" "${CURL[@]}"
		rm -f "$out"
		bench_run urlget "$url" "${URLGET[@]}"
	else
		bench_run urlget "$url" "${URLGET[@]}"
		rm -f "$out"
		bench_run curl "$url" "${CURL[@]}"
	fi
done
echo
bench_report "$(stat -c %s "$menu")" curl urlget
echo
bench_ratio urlget curl "$MAX_RATIO"
bench_ratio_info urlget curl
bench_rss_limit urlget "$MAX_RSS_KIB"
bench_status
