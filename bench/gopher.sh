#!/usr/bin/env bash
# bench/gopher.sh — urlget against curl, downloading one big binary item
# (type 9) from gophernicus on 127.0.0.1. See bench/README.md.
#
#   bench/gopher.sh                       256 MiB, 5 rounds
#   ROUNDS=9 SIZE_MIB=1024 bench/gopher.sh
#   URLGET_CMD="curl -s" bench/gopher.sh  check the script itself: "urlget" is curl
#
# gophernicus is an inetd-style server: socat listens and runs it for each
# connection (as nobody when run as root; gophernicus refuses root). The
# server is started by the harness helper (internal/testserver/cmd/testserver
# gophernicus) when it has that command, otherwise here with socat; either
# way it is stopped by PID.
#
# Targets: urlget's median wall time <= 1.0 x curl's (no slower); urlget's
# peak RSS < 20 MiB. Exit status: 0 all met, 1 a target missed, 2 a client
# failed.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# Debian packages this benchmark needs (installed when run as root).
PACKAGES=(gophernicus socat curl time)

ROUNDS=${ROUNDS:-5}
SIZE_MIB=${SIZE_MIB:-256}
MAX_RATIO=${MAX_RATIO:-1.0}       # urlget wall / curl wall
MAX_RSS_KIB=${MAX_RSS_KIB:-20480} # urlget peak RSS (20 MiB)

bench_init
bench_need_packages "${PACKAGES[@]}"
command -v go >/dev/null || bench_die "go is not on PATH"
bench_note "bench: building"
bench_build

bench_clients

# gophernicus runs as nobody: the served tree must be reachable by others.
chmod 755 "$BENCH_TMP"
mkdir -m 755 "$BENCH_TMP/gopher"
src=$BENCH_TMP/gopher/big.bin
bench_random_file "$src"
chmod 644 "$src"

# bench_free_port: a TCP port on 127.0.0.1 that nothing answers on now.
bench_free_port() {
	local p i
	for ((i = 0; i < 100; i++)); do
		p=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	bench_die "no free port found"
}

# start_gophernicus ROOT: socat + gophernicus in the background; sets
# BENCH_URL and adds socat's PID to the servers bench_cleanup stops.
start_gophernicus() {
	local root=$1 port bin socat i
	bin=$(command -v gophernicus || echo /usr/sbin/gophernicus)
	socat=$(command -v socat) || bench_die "socat not found"
	port=$(bench_free_port)
	local su=()
	[ "$(id -u)" = 0 ] && su=(,su=nobody)
	# -nm: no shared memory, hence no per-client throttling (-k: 4 GiB a
	# session would otherwise be reached over the rounds).
	"$socat" "TCP-LISTEN:$port,bind=127.0.0.1,fork,reuseaddr" \
		"EXEC:$bin -h 127.0.0.1 -p $port -r $root -nv -ns -nm,nofork${su[*]}" \
		2>"$BENCH_TMP/socat.err" &
	BENCH_SERVER_PIDS+=("$!")
	for ((i = 0; i < 100; i++)); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			BENCH_URL=gopher://127.0.0.1:$port
			return 0
		fi
		sleep 0.05
	done
	cat "$BENCH_TMP/socat.err" >&2
	bench_die "gophernicus (socat) did not start on port $port"
}

case "$BENCH_TMP" in
*[[:space:],:!\"\'\\]*) bench_die "socat cannot take the path $BENCH_TMP" ;;
esac
if "$BENCH_BIN/testserver" 2>&1 | grep -q gophernicus; then
	bench_start_server gophernicus -root "$BENCH_TMP/gopher"
else
	start_gophernicus "$BENCH_TMP/gopher"
fi
url=$BENCH_URL/9/big.bin

echo "== gopher: $url ($SIZE_MIB MiB, random bytes, type 9), $ROUNDS rounds"
echo "   gophernicus $(dpkg-query -W -f='${Version}' gophernicus 2>/dev/null || echo '?') under socat; $(curl --version | head -n 1 | cut -d' ' -f1-2); urlget: ${URLGET[*]}"
echo "   $(uname -sr)"
bench_load_note

bench_versus_curl "$src" "$url"
