#!/usr/bin/env bash
# bench/serve.sh — `urlget serve`, the web gateway, beside Squid 5.7's ftp
# gateway and beside direct urlget fetches, in one run. See bench/README.md.
#
#   bench/serve.sh                                  256 MiB files, 3 rounds, 10 s of load each
#   ROUNDS=5 SIZE_MIB=512 LOAD_SECONDS=20 bench/serve.sh
#
# Servers (127.0.0.1): vsftpd (big.bin in pub/, and pub/many/ with ENTRIES
# files), gophernicus under socat (big.bin, and menu/ with a gophermap of
# ENTRIES items), Squid and the gateway (urlget serve). Clients: curl
# through the gateway (ftp with -x, as a proxy; gopher through the web
# front, /gopher://…, since curl -x tunnels gopher with CONNECT), curl
# through Squid (ftp), urlget directly, and bench/load (a Go load client
# sending the absolute-form requests a proxy gets) for the listings.
#
#   1. One 256 MiB file at a time, ROUNDS rounds: gw-ftp, sq-ftp, ug-ftp,
#      gw-goph, ug-goph. Targets: gw-ftp no slower than sq-ftp; gw-ftp and
#      gw-goph within MAX_DIRECT_RATIO (1.3) of the direct fetch; the same
#      client on both sides: ux-ftp, ux-goph and ux-ftp-file (urlget -x
#      gateway) within MAX_SAME_CLIENT_RATIO (1.2) of ug-ftp, ug-goph and
#      ug-ftp-file, gw-ftp within MAX_CURL_RATIO (1.05) of cu-ftp. Those
#      rows write to /dev/null, which urlget's splice makes free (no byte
#      is ever read); cu-ftp is curl direct, ux-* urlget through the
#      gateway, and gw-ftp-file, ug-ftp-file, cu-ftp-file, ux-ftp-file the
#      same clients saving the file, as a user does, into $BENCH_TMP
#      (removed after each run, outside the timing); gw-ftp-file/ug-ftp-file
#      is reported without a target.
#   2. PARALLEL (50) transfers of it at once through the gateway, ftp then
#      gopher: aggregate MiB/s. Target: the gateway's peak RSS over 1 and 2
#      < MAX_RSS_KIB (32 MiB). (Its peak under the load of 3 is reported.)
#   3. LOAD_CLIENTS (32) connections for LOAD_SECONDS each (bench/load), the
#      absolute-form request a proxy gets: the ftp directory of ENTRIES
#      (10,000) files as HTML through the gateway and through Squid (target:
#      the gateway's requests/s >= MIN_LISTING_SPEEDUP (2) x Squid's); the
#      gopher menu of ENTRIES items as HTML and raw through the gateway
#      (target: HTML requests/s >= MIN_MENU_RATIO (0.5) x raw). p99 latency
#      reported.
#
# Exit status: 0 all met, 1 a target missed, 2 a client failed. Must run as
# root (vsftpd and Squid need it).
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# Debian packages this benchmark needs (installed when run as root).
PACKAGES=(vsftpd squid gophernicus socat curl time)

ROUNDS=${ROUNDS:-3}
SIZE_MIB=${SIZE_MIB:-256}
PARALLEL=${PARALLEL:-50}
ENTRIES=${ENTRIES:-10000}
LOAD_CLIENTS=${LOAD_CLIENTS:-32}
LOAD_SECONDS=${LOAD_SECONDS:-10}
MAX_DIRECT_RATIO=${MAX_DIRECT_RATIO:-1.3}       # gateway wall / direct urlget wall
MAX_SAME_CLIENT_RATIO=${MAX_SAME_CLIENT_RATIO:-1.2} # urlget -x gateway wall / urlget wall (ftp, gopher)
MAX_CURL_RATIO=${MAX_CURL_RATIO:-1.05}          # curl -x gateway wall / curl wall (ftp)
MAX_SQUID_RATIO=${MAX_SQUID_RATIO:-1.0}         # gateway wall / Squid wall (ftp)
MAX_RSS_KIB=${MAX_RSS_KIB:-32768}               # the gateway's peak RSS (32 MiB)
MIN_LISTING_SPEEDUP=${MIN_LISTING_SPEEDUP:-2.0} # gateway req/s / Squid req/s, ftp listing as HTML
MIN_MENU_RATIO=${MIN_MENU_RATIO:-0.5}           # gateway req/s, menu as HTML / menu raw
# GATEWAY_ARGS: flags for urlget serve (word-split); the default lets one
# client have PARALLEL or LOAD_CLIENTS requests at once, to one host.
limit=$((PARALLEL > LOAD_CLIENTS ? PARALLEL : LOAD_CLIENTS))
GATEWAY_ARGS=${GATEWAY_ARGS:---max-per-client $limit --max-per-host $limit}

bench_init
[ "$(id -u)" = 0 ] || bench_die "vsftpd and Squid need root: run bench/serve.sh as root"
bench_need_packages "${PACKAGES[@]}"
command -v go >/dev/null || bench_die "go is not on PATH"
bench_note "bench: building"
bench_build
go build -o "$BENCH_BIN/ftpserver" ./internal/testserver/cmd/ftpserver || bench_die "cannot build internal/testserver/cmd/ftpserver"
bench_build_urlget
bench_failed urlget && bench_die "urlget did not build: $(cat "$BENCH_TMP/urlget.failed")"
urlget=$BENCH_BIN/urlget

# gophernicus runs as nobody: the served tree must be reachable by others.
chmod 755 "$BENCH_TMP"
mkdir -m 755 "$BENCH_TMP/gopher" "$BENCH_TMP/gopher/menu"
src=$BENCH_TMP/gopher/big.bin
bench_random_file "$src"
chmod 644 "$src"
bench_note "bench: writing a menu of $ENTRIES items, a directory of $ENTRIES files"
awk -v n="$ENTRIES" 'BEGIN {
	for (i = 1; i <= n; i++)
		printf "0File number %d of the archive\t/archive/file-%05d.txt\n", i, i
}' >"$BENCH_TMP/gopher/menu/gophermap"
chmod 644 "$BENCH_TMP/gopher/menu/gophermap"

bench_start_program ftpserver -dir "$BENCH_TMP/ftp" -file "$src" vsftpd
ftp=$BENCH_URL
anon=$(awk '$1 == "ANON" { print $2; exit }' "$BENCH_LAUNCH_OUT")
mkdir -p "$anon/pub/many"
(cd "$anon/pub/many" && seq -f 'file-%05g.txt' 1 "$ENTRIES" | xargs touch)
bench_start_gophernicus "$BENCH_TMP/gopher"
gopher=$BENCH_URL
bench_start_server squid
squid=$BENCH_URL

# The gateway: urlget serve on a free port, in the background, stopped by
# PID at exit.
# shellcheck disable=SC2086 # GATEWAY_ARGS is a list of flags
bench_start_on_port gateway "$urlget" serve --listen "127.0.0.1:@PORT@" $GATEWAY_ARGS
gwport=$BENCH_PORT
gwpid=$BENCH_PID
gw=http://127.0.0.1:$gwport

ftp_big=$ftp/pub/big.bin
gopher_big=$gopher/9/big.bin
echo "== urlget serve: $SIZE_MIB MiB files, $ROUNDS rounds; $PARALLEL transfers at once; $ENTRIES-entry listings, $LOAD_CLIENTS clients x ${LOAD_SECONDS}s"
echo "   gateway: urlget serve --listen 127.0.0.1:$gwport $GATEWAY_ARGS (pid $gwpid)"
echo "   $(squid -v | head -n 1); vsftpd $(dpkg-query -W -f='${Version}' vsftpd); gophernicus $(dpkg-query -W -f='${Version}' gophernicus); $(curl --version | head -n 1 | cut -d' ' -f1-2)"
echo "   $(uname -sr)"
bench_load_note

# 1. One file at a time.
GW=(curl -s -x "$gw" -o @OUT@ @URL@)
SQ=(curl -s -x "$squid" -o @OUT@ @URL@)
WEB=(curl -s -o @OUT@ @URL@)
UG=("$urlget" -s -o @OUT@ @URL@)
UX=("$urlget" -s -x "$gw" -o @OUT@ @URL@)
# cu-ftp (curl direct) and ux-ftp, ux-goph (urlget through the gateway)
# tell the gateway's cost from the client's: the same client on both
# sides. The -file rows are four of them again saving the file, as a user
# does, into $BENCH_TMP/download.bin (one file system for every client;
# removed after each run, outside the timing).
names=(gw-ftp sq-ftp ug-ftp gw-goph ug-goph cu-ftp ux-ftp ux-goph gw-ftp-file ug-ftp-file cu-ftp-file ux-ftp-file)
declare -A url=([gw-ftp]=$ftp_big [sq-ftp]=$ftp_big [ug-ftp]=$ftp_big [gw-goph]=$gw/$gopher_big [ug-goph]=$gopher_big [cu-ftp]=$ftp_big [ux-ftp]=$ftp_big [ux-goph]=$gopher_big)
declare -A tmpl=([gw-ftp]=GW [sq-ftp]=SQ [ug-ftp]=UG [gw-goph]=WEB [ug-goph]=UG [cu-ftp]=WEB [ux-ftp]=UX [ux-goph]=UX)
for n in gw-ftp ug-ftp cu-ftp ux-ftp; do
	url[$n-file]=${url[$n]}
	tmpl[$n-file]=${tmpl[$n]}
done
download=$BENCH_TMP/download.bin
# Transfers through the gateway in a round, for its CPU per transfer.
per_round=0
for n in "${names[@]}"; do
	case ${tmpl[$n]}:${url[$n]} in GW:* | UX:* | "WEB:$gw/"*) per_round=$((per_round + 1)) ;; esac
done
one() { # NAME check|run
	local -n t=${tmpl[$1]}
	if [ "$2" = check ]; then
		bench_check "$1" "$src" "${url[$1]}" "${t[@]}"
	elif [[ $1 == *-file ]]; then
		bench_run_to "$download" "$1" "${url[$1]}" "${t[@]}"
	else
		bench_run "$1" "${url[$1]}" "${t[@]}"
	fi
}
for n in "${names[@]}"; do one "$n" check; done
sync -f "$BENCH_TMP"
bench_peak_reset "$gwpid"
cpu0=$(bench_cpu_s "$gwpid")
for ((i = 1; i <= ROUNDS; i++)); do
	# Rotate the order from round to round.
	for ((j = 0; j < ${#names[@]}; j++)); do
		one "${names[(i + j) % ${#names[@]}]}" run
	done
done
rss_one=$(bench_peak_kib "$gwpid")
cpu1=$(bench_cpu_s "$gwpid")

# 2. PARALLEL transfers at once through the gateway.
bench_peak_reset "$gwpid"
bench_parallel gw-ftp-par "$PARALLEL" "$ftp_big" "${GW[@]}"
bench_parallel gw-goph-par "$PARALLEL" "$gw/$gopher_big" "${WEB[@]}"
rss_par=$(bench_peak_kib "$gwpid")
cpu2=$(bench_cpu_s "$gwpid")

# 3. Listings under load. First a check that each answers the whole
# listing: every entry's name, as a link in the HTML pages.
# The request is the one bench/load sends, "GET TARGET" to the proxy (curl -x
# would tunnel gopher with CONNECT).
listing_check() { # NAME PROXY TARGET ACCEPT MIN_COUNT PATTERN
	local out=$BENCH_TMP/$1.page n
	if ! curl -sS -f --request-target "$3" -H "Accept: $4" -o "$out" "$2/" 2>"$BENCH_TMP/$1.stderr"; then
		bench_mark_failed "$1" "GET $3 from $2 failed: $(head -n 2 "$BENCH_TMP/$1.stderr" | tr '\n' ' ')"
		return 0
	fi
	n=$(grep -o -E "$6" "$out" | wc -l)
	[ "$n" -ge "$5" ] || bench_mark_failed "$1" "the page has $n entries matching $6, $5 expected ($(stat -c %s "$out") bytes)"
}
listing_check gw-ftp-html "$gw" "$ftp/pub/many/" text/html "$ENTRIES" 'href="[^"]*file-[0-9]{5}\.txt"'
listing_check sq-ftp-html "$squid" "$ftp/pub/many/" text/html "$ENTRIES" 'href="[^"]*file-[0-9]{5}\.txt"'
listing_check gw-menu-html "$gw" "$gopher/1/menu" text/html "$ENTRIES" 'href="[^"]*file-[0-9]{5}\.txt"'
listing_check gw-menu-raw "$gw" "$gopher/1/menu" '*/*' "$ENTRIES" $'^0File number [0-9]+ of the archive\t'
bench_peak_reset "$gwpid"
bench_load gw-ftp-html "$gw" "$ftp/pub/many/" text/html
bench_load sq-ftp-html "$squid" "$ftp/pub/many/" text/html
bench_load gw-menu-html "$gw" "$gopher/1/menu" text/html
bench_load gw-menu-raw "$gw" "$gopher/1/menu" '*/*'
rss_load=$(bench_peak_kib "$gwpid")
cpu3=$(bench_cpu_s "$gwpid")

echo
BENCH_NAME_WIDTH=12 bench_report "$((SIZE_MIB << 20))" "${names[@]}"
echo
printf '%-12s %9s %10s %10s\n' "at once" transfers "wall s" "MiB/s"
for n in gw-ftp-par gw-goph-par; do
	if bench_failed "$n"; then
		printf '%-12s FAILED: %s\n' "$n" "$(cat "$BENCH_TMP/$n.failed")"
		continue
	fi
	read -r w _ <"$BENCH_TMP/$n.par"
	printf '%-12s %9s %10s %10s\n' "$n" "$PARALLEL" "$w" "$(awk -v n="$PARALLEL" -v m="$SIZE_MIB" -v w="$w" 'BEGIN { printf "%.0f", n * m / w }')"
done
echo
bench_load_report gw-ftp-html sq-ftp-html gw-menu-html gw-menu-raw
echo
printf 'gateway peak RSS: one transfer at a time %s KiB; %s at once %s KiB; listings under load %s KiB\n' "$rss_one" "$PARALLEL" "$rss_par" "$rss_load"
awk -v a="$cpu0" -v b="$cpu1" -v c="$cpu2" -v d="$cpu3" -v r="$ROUNDS" -v k="$per_round" -v n="$PARALLEL" 'BEGIN {
	printf "gateway CPU s: one at a time %.2f (%.2f a transfer); %d at once %.2f (%.2f a transfer); listings under load %.2f\n", b - a, (b - a) / (k * r), n, c - b, (c - b) / (2 * n), d - c
}'
echo
bench_ratio gw-ftp sq-ftp "$MAX_SQUID_RATIO"
bench_ratio gw-ftp ug-ftp "$MAX_DIRECT_RATIO"
bench_ratio gw-goph ug-goph "$MAX_DIRECT_RATIO"
bench_ratio_info gw-ftp ug-ftp
bench_ratio_info gw-goph ug-goph
bench_ratio_info gw-ftp cu-ftp
bench_ratio_info ux-ftp ug-ftp
# The gateway's cost with the same client on both sides (issue 38).
bench_ratio ux-ftp ug-ftp "$MAX_SAME_CLIENT_RATIO"
bench_ratio ux-goph ug-goph "$MAX_SAME_CLIENT_RATIO"
bench_ratio ux-ftp-file ug-ftp-file "$MAX_SAME_CLIENT_RATIO"
bench_ratio gw-ftp cu-ftp "$MAX_CURL_RATIO"
bench_ratio gw-ftp-file ug-ftp-file
bench_ratio_info gw-ftp-file ug-ftp-file
bench_ratio_info gw-ftp-file cu-ftp-file
bench_min_ratio gw-ftp-html sq-ftp-html "$MIN_LISTING_SPEEDUP"
bench_min_ratio gw-menu-html gw-menu-raw "$MIN_MENU_RATIO"
rss_max=$(printf '%s\n' "$rss_one" "$rss_par" | sort -n | tail -n 1)
bench_kib_limit "gateway (transfers)" "$rss_max" "$MAX_RSS_KIB"
bench_status
