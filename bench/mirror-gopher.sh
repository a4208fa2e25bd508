#!/usr/bin/env bash
# bench/mirror-gopher.sh — `urlget mirror` of a gopher hole served by
# gophernicus through a delaying proxy.
#
#   bench/mirror-gopher.sh              2000 items under 50 menus, 40 ms RTT, 4 connections
#   ROUNDS=3 bench/mirror-gopher.sh
#   LSB_STUB=0 bench/mirror-gopher.sh   gophernicus exactly as installed (see below)
#   BENCH_KEEP=1 bench/mirror-gopher.sh
#
# Gopher has one request per connection, so the floor is one round trip
# per item: ITEMS x RTT / PARALLEL (20 s for the defaults). Target: urlget's
# median wall time <= MAX_FACTOR (1.15) x that.
#
# Latency comes from a TCP proxy (internal/testserver/delayproxy.go, run by
# mirror/internal/benchtool) on 127.0.0.2 that releases every chunk
# DELAY_MS after reading it, in each direction; gophernicus names
# 127.0.0.2 and its own port in its menus, so every request goes through
# the proxy.
#
# gophernicus runs /usr/bin/lsb_release (a shell script that starts getopt,
# cut and tr) twice per request to name the platform in its menu footer:
# about 18 ms of CPU per request on this kind of machine — 36 CPU seconds
# for 2000 items, more than the 2 cores can hide behind the network wait.
# That is the server's cost, not the client's, so by default (LSB_STUB=1,
# root only) gophernicus runs in a private mount namespace where a
# one-line stub stands in for lsb_release; the host is not touched. The
# "server floor" line times the same mirror with no added latency: what
# the server and client cost by themselves.
#
# Each run mirrors into an empty directory; every served item must then be
# in the mirror byte for byte, otherwise the run counts as failed.
# Exit status: 0 target met, 1 missed, 2 the client failed.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

PACKAGES=(gophernicus socat time)

ROUNDS=${ROUNDS:-1}
ITEMS=${ITEMS:-2000}
MENUS=${MENUS:-50}
SIZE=${SIZE:-1024}
DELAY_MS=${DELAY_MS:-20}
PARALLEL=${PARALLEL:-4}
MAX_FACTOR=${MAX_FACTOR:-1.15}
LSB_STUB=${LSB_STUB:-1}

bench_init
bench_need_packages "${PACKAGES[@]}"
command -v go >/dev/null || bench_die "go is not on PATH"
if [ "$LSB_STUB" = 1 ] && [ "$(id -u)" != 0 ]; then
	bench_note "bench: not root: gophernicus runs lsb_release for every request (LSB_STUB=0)"
	LSB_STUB=0
fi
bench_note "bench: building"
go build -o "$BENCH_BIN/benchtool" ./mirror/internal/benchtool || bench_die "cannot build mirror/internal/benchtool"
bench_build_urlget

case "$BENCH_TMP" in
*[[:space:],:!\"\'\\]*) bench_die "socat cannot take the path $BENCH_TMP" ;;
esac
chmod 755 "$BENCH_TMP"
ROOT=$BENCH_TMP/hole
bench_note "bench: writing $ITEMS items of $SIZE bytes under $MENUS menus"
"$BENCH_BIN/benchtool" gophertree -root "$ROOT" -items "$ITEMS" -menus "$MENUS" -size "$SIZE" >/dev/null
BYTES=$((ITEMS * SIZE))
stub=()
[ "$LSB_STUB" = 1 ] && stub=(-lsb-stub)

# The delayed server names the proxy's address; the floor server its own.
mkdir -p "$BENCH_TMP/g1" "$BENCH_TMP/g2"
bench_start_helper gophernicus gophernicus "${stub[@]}" -root "$ROOT" -dir "$BENCH_TMP/g1" -host 127.0.0.2
PORT=$(awk '$1 == "PORT" { print $2 }' "$HELPER_OUT")
bench_start_helper proxy delayproxy -delay "${DELAY_MS}ms" "127.0.0.2:$PORT=127.0.0.1:$PORT"
bench_start_helper floor gophernicus "${stub[@]}" -root "$ROOT" -dir "$BENCH_TMP/g2" -host 127.0.0.1
FLOOR_PORT=$(awk '$1 == "PORT" { print $2 }' "$HELPER_OUT")
URL=gopher://127.0.0.2:$PORT/1/

# run NAME URL: one timed mirror into a new directory, checked.
run() {
	local name=$1 url=$2 out=$BENCH_TMP/out-$1
	bench_failed "$name" && return 0
	rm -rf "$out"
	bench_timed "$name" "$BENCH_BIN/urlget" mirror -q -P "$PARALLEL" "$url" "$out" || return 0
	local n=0 bad=0 f rel
	while IFS= read -r f; do
		rel=${f#"$ROOT"/}
		n=$((n + 1))
		cmp -s "$f" "$out/$rel" || bad=$((bad + 1))
	done < <(find "$ROOT" -type f -name '*.bin')
	if [ "$n" != "$ITEMS" ] || [ "$bad" != 0 ]; then
		bench_mark_failed "$name" "$bad of $n items missing or different in the mirror"
	fi
}

echo "== gopher mirror: $URL — $ITEMS items of $SIZE bytes under $MENUS menus; RTT $((2 * DELAY_MS)) ms (delay proxy); $PARALLEL connections; $ROUNDS round(s)"
echo "   gophernicus $(dpkg-query -W -f='${Version}' gophernicus 2>/dev/null) under socat$([ "$LSB_STUB" = 1 ] && echo ', lsb_release stubbed')"
echo "   $(uname -sr)"
bench_load_note

for ((r = 1; r <= ROUNDS; r++)); do
	bench_note "bench: round $r"
	run urlget "$URL"
done
bench_note "bench: server floor (no added latency)"
run floor "gopher://127.0.0.1:$FLOOR_PORT/1/"

echo
bench_report "$BYTES" urlget floor
echo "(floor: the same mirror with no added latency — what gophernicus and urlget cost by themselves)"
echo
ideal=$(awk -v n="$ITEMS" -v d="$DELAY_MS" -v p="$PARALLEL" 'BEGIN { printf "%.2f", n * 2 * d / 1000 / p }')
med=$(bench_stat urlget | awk '{ print $2 }')
if bench_failed urlget || [ -z "$med" ]; then
	printf 'wall urlget: n/a (failed)  target <= %s x %s s  FAIL\n' "$MAX_FACTOR" "$ideal"
	bench_fail 1
else
	awk -v m="$med" -v i="$ideal" -v f="$MAX_FACTOR" 'BEGIN {
		r = m / i
		printf "wall urlget: %.2f s = %.3f x items x RTT / connections (%s s)  target <= %s  %s\n", m, r, i, f, (r <= f) ? "ok" : "MISS"
		exit !(r <= f)
	}' || bench_fail 1
fi
bench_status
