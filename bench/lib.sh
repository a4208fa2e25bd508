# shellcheck shell=bash
# bench/lib.sh — shared functions for urlget's benchmark scripts. Source it:
#
#   . "$(dirname "$0")/lib.sh"
#   bench_init                          temp dir, cleanup trap, cd to the repo
#   bench_need_packages nginx-light curl time
#   bench_build                         go build the testserver helper into $BENCH_BIN
#   bench_build_urlget                  go build ./cmd/urlget into $BENCH_BIN
#   bench_build_mirror                  go build benchtool (mirror/internal/benchtool) and urlget
#   bench_ftp_tree DIR                  a tree of $FILES files in $DIRS directories; sets BYTES
#   bench_mirror_rounds PREFIX SERVED   ROUNDS timed runs of each client of $CLIENTS into PREFIX<name>
#   bench_start_server nginx -root DIR  sets BENCH_URL; stopped by PID at exit
#   bench_check NAME FILE URL TEMPLATE...  the client must fetch URL's bytes = FILE
#   bench_run NAME URL TEMPLATE...      one timed run: wall, peak RSS, CPU, status
#   bench_run_to OUT NAME URL TEMPLATE...  the same, the output to the file OUT (removed after)
#   bench_rounds URL A ARRAY_A B ARRAY_B  ROUNDS runs of each, alternating
#   bench_report BYTES NAME...          table: median wall, peak RSS, CPU per NAME
#   bench_ratio A B [MAX]               median wall A / B, checked against MAX (if given)
#   bench_ratio_info A B                fastest-run and CPU ratios (no target)
#   bench_load_note                     load average, warning when busy
#   bench_rss_limit NAME MAX_KIB        peak RSS of NAME checked against MAX_KIB
#   bench_free_port, bench_wait_port PORT PID   a free port; wait for one to answer
#   bench_start_on_port NAME WORD...    a server on a free port (@PORT@); sets BENCH_PORT, BENCH_PID
#   bench_start_gophernicus ROOT        gophernicus (under socat) serving ROOT; sets BENCH_URL
#   bench_peak_reset PID, bench_peak_kib PID   a running server's peak RSS
#   bench_cpu_s PID                     a running server's CPU seconds so far
#   bench_server_cpu PID                each later run also counts PID's CPU (perf stat)
#   bench_server_cpu_report NAME...     its median a run for each NAME
#   bench_parallel NAME N URL TEMPLATE...  N copies of a client at once
#   bench_load NAME PROXY TARGET ACCEPT  bench/load: requests/s and latency through a proxy
#   bench_load_report NAME..., bench_min_ratio A B MIN, bench_kib_limit WHAT KIB MAX
#
# A client is a command TEMPLATE: words, where @URL@ stands for the URL and
# @OUT@ for the output file, e.g. curl -s -o @OUT@ @URL@.
#
# Wall time is measured with `date +%s%N` around the command; peak RSS
# ("Maximum resident set size", KiB) and user/system CPU come from GNU time
# (/usr/bin/time, Debian package "time"). Servers are run by the Go helper
# internal/testserver/cmd/testserver, in the foreground as children of the
# script, and stopped by PID (SIGTERM, then SIGKILL) — never by name.
#
# Each check or run that fails is recorded; bench_status returns 0 when
# every client worked and every target was met, 1 when a target was missed,
# 2 when a client failed.

BENCH_STATUS=0 # raised by failures: 1 target missed, 2 a client failed

bench_note() { printf '%s\n' "$*" >&2; }
bench_die() {
	printf 'bench: %s\n' "$*" >&2
	exit 2
}
bench_fail() { # LEVEL: remember the worst outcome
	[ "$1" -gt "$BENCH_STATUS" ] && BENCH_STATUS=$1
	return 0
}
bench_status() { return "$BENCH_STATUS"; }

# bench_init: cd to the repository, make $BENCH_TMP (kept if BENCH_KEEP=1),
# and arrange for servers to be stopped and the temp dir removed at exit.
bench_init() {
	cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
	BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/urlget-bench.XXXXXX")
	BENCH_BIN=$BENCH_TMP/bin
	mkdir -p "$BENCH_BIN"
	BENCH_SERVER_PIDS=()
	trap bench_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

bench_cleanup() {
	local st=$?
	bench_stop_servers
	if [ "${BENCH_KEEP:-}" = 1 ]; then
		bench_note "bench: kept $BENCH_TMP"
	else
		rm -rf "$BENCH_TMP"
	fi
	return $st
}

# bench_need_packages PKG...: install the missing Debian packages (as root),
# or fail saying which are missing.
bench_need_packages() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
		bench_die "missing Debian packages: ${missing[*]} (run as root to install them)"
	fi
	bench_note "bench: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	if [ ! -e /usr/sbin/policy-rc.d ]; then # keep packaged daemons from starting
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod +x /usr/sbin/policy-rc.d
	fi
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null || bench_die "apt-get install ${missing[*]} failed"
}

# bench_build: build the testserver helper into $BENCH_BIN.
bench_build() {
	go build -o "$BENCH_BIN/testserver" ./internal/testserver/cmd/testserver || bench_die "cannot build internal/testserver/cmd/testserver"
}

# bench_build_urlget: build ./cmd/urlget into $BENCH_BIN/urlget; if that
# fails, client "urlget" is marked failed with the compiler's first lines.
bench_build_urlget() {
	if ! go build -o "$BENCH_BIN/urlget" ./cmd/urlget 2>"$BENCH_TMP/urlget-build.log"; then
		bench_mark_failed urlget "go build ./cmd/urlget failed: $(head -n 3 "$BENCH_TMP/urlget-build.log" | tr '\n' ' ')"
	fi
}

# bench_launch NAME PATTERN PROGRAM ARGS...: run $BENCH_BIN/PROGRAM ARGS...
# in the background (stopped by PID at exit) and wait (up to 30 s) for a
# line of its stdout matching the extended regex PATTERN. Its stdout is
# $BENCH_TMP/NAME.out, also left in BENCH_LAUNCH_OUT.
bench_launch() {
	local name=$1 pattern=$2 prog=$3
	shift 3
	BENCH_LAUNCH_OUT=$BENCH_TMP/$name.out
	local err=$BENCH_TMP/$name.err
	: >"$BENCH_LAUNCH_OUT"
	"$BENCH_BIN/$prog" "$@" >"$BENCH_LAUNCH_OUT" 2>"$err" &
	local pid=$!
	BENCH_SERVER_PIDS+=("$pid")
	local i
	for ((i = 0; i < 300; i++)); do
		grep -qE "$pattern" "$BENCH_LAUNCH_OUT" && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	cat "$err" >&2
	bench_die "$prog $* did not start"
}

# bench_start_program PROGRAM ARGS...: bench_launch for a server that
# prints "URL …" when it is ready; sets BENCH_URL.
bench_start_program() {
	bench_launch "server${#BENCH_SERVER_PIDS[@]}" '^URL ' "$@"
	# shellcheck disable=SC2034 # read by the calling script
	BENCH_URL=$(awk '$1 == "URL" { print $2; exit }' "$BENCH_LAUNCH_OUT")
}

# bench_start_server KIND ARGS...: bench_start_program testserver KIND ARGS...
bench_start_server() { bench_start_program testserver "$@"; }

# bench_clients: set CURL and URLGET, the two clients of a single-download
# comparison, as templates (@OUT@, @URL@). URLGET_CMD replaces the urlget
# binary built from ./cmd/urlget, e.g. to try a script with curl alone.
bench_clients() {
	local urlget_cmd
	# shellcheck disable=SC2034 # read by bench_versus_curl
	CURL=(curl -s -o @OUT@ @URL@)
	if [ -n "${URLGET_CMD:-}" ]; then
		read -r -a urlget_cmd <<<"$URLGET_CMD"
	else
		bench_build_urlget
		urlget_cmd=("$BENCH_BIN/urlget")
	fi
	URLGET=("${urlget_cmd[@]}" -o @OUT@ @URL@)
}

# bench_random_file PATH: write SIZE_MIB MiB of random bytes to PATH and
# flush them, so that no writeback happens during the timed runs.
bench_random_file() {
	bench_note "bench: writing $SIZE_MIB MiB of random bytes"
	head -c "$((SIZE_MIB << 20))" /dev/urandom >"$1"
	sync "$1"
}

# bench_versus_curl SRC URL: the whole comparison of a single download:
# an untimed run of each client that checks the bytes against SRC (and
# warms the page cache), ROUNDS timed rounds alternating which client goes
# first, then the report and the MAX_RATIO and MAX_RSS_KIB targets. The
# clients are the arrays CURL and URLGET (templates with @OUT@ and @URL@).
bench_versus_curl() {
	local src=$1 url=$2
	bench_check curl "$src" "$url" "${CURL[@]}"
	bench_check urlget "$src" "$url" "${URLGET[@]}"
	sync -f "$BENCH_TMP"
	bench_rounds "$url" curl CURL urlget URLGET
	echo
	bench_report "$(stat -c %s "$src")" curl urlget
	echo
	bench_ratio urlget curl "$MAX_RATIO"
	bench_ratio_info urlget curl
	bench_server_cpu_report curl urlget
	bench_rss_limit urlget "$MAX_RSS_KIB"
	bench_status
}

# bench_rounds URL A TEMPLATE_A B TEMPLATE_B: ROUNDS timed rounds of the
# clients A and B (TEMPLATE_A, TEMPLATE_B: the names of their template
# arrays), alternating which goes first.
bench_rounds() {
	local url=$1 a=$2 b=$4 i
	local -n bench_ta=$3 bench_tb=$5
	for ((i = 1; i <= ROUNDS; i++)); do
		if ((i % 2)); then
			bench_run "$a" "$url" "${bench_ta[@]}"
			bench_run "$b" "$url" "${bench_tb[@]}"
		else
			bench_run "$b" "$url" "${bench_tb[@]}"
			bench_run "$a" "$url" "${bench_ta[@]}"
		fi
	done
}

# bench_stop_servers: SIGTERM to each helper's PID (it stops its server the
# same way), up to 10 s to exit, then SIGKILL.
bench_stop_servers() {
	local pid i
	for pid in "${BENCH_SERVER_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null || continue
		for ((i = 0; i < 100; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	BENCH_SERVER_PIDS=()
}

# bench_expand OUT URL WORD...: set the array BENCH_CMD to WORD... with the
# words @OUT@ and @URL@ replaced by OUT and URL. Client commands are written
# once as such templates, e.g. (curl -s -o @OUT@ @URL@).
bench_expand() {
	local out=$1 url=$2 w
	shift 2
	BENCH_CMD=()
	for w in "$@"; do
		case "$w" in
		@OUT@) BENCH_CMD+=("$out") ;;
		@URL@) BENCH_CMD+=("$url") ;;
		*) BENCH_CMD+=("$w") ;;
		esac
	done
}

# bench_check NAME FILE URL TEMPLATE...: run the client once, writing to a
# temp file, which must then hold exactly the bytes of FILE (this also warms
# the caches). A failure marks NAME failed: bench_run then skips it and
# bench_report says why.
bench_check() {
	local name=$1 want=$2 url=$3 st=0
	shift 3
	bench_failed "$name" && return 0
	local out=$BENCH_TMP/$name.check.out
	rm -f "$out"
	bench_expand "$out" "$url" "$@"
	"${BENCH_CMD[@]}" >"$BENCH_TMP/$name.check.stdout" 2>"$BENCH_TMP/$name.stderr" || st=$?
	if [ $st -ne 0 ]; then
		bench_mark_failed "$name" "exit status $st: $(head -c 300 "$BENCH_TMP/$name.stderr" | head -n 3 | tr '\n' ' ')"
	elif ! cmp -s "$want" "$out"; then
		bench_mark_failed "$name" "output differs from the served file ($(stat -c %s "$out" 2>/dev/null || echo no) bytes written, $(stat -c %s "$want") expected)"
	fi
	rm -f "$out"
}

bench_mark_failed() {
	printf '%s\n' "$2" >"$BENCH_TMP/$1.failed"
	bench_note "bench: $1 FAILED: $2"
	bench_fail 2
}

bench_failed() { [ -e "$BENCH_TMP/$1.failed" ]; }

# bench_run NAME URL TEMPLATE...: one timed run of the client, its output
# going to /dev/null, unless NAME has failed. Appends "wall_s peak_rss_kib
# user_s sys_s status" to $BENCH_TMP/NAME.runs. A non-zero status marks NAME
# failed.
bench_run() { bench_run_to /dev/null "$@"; }

# bench_run_to OUT NAME URL TEMPLATE...: bench_run with the output going to
# OUT. A file OUT is removed before the run (the client creates it, as a
# user's download does) and after it, outside the timing: its pages leave
# the page cache before any writeback, and runs do not pile up on disk.
bench_run_to() {
	local out=$1 name=$2 url=$3
	shift 3
	bench_failed "$name" && return 0
	[ "$out" = /dev/null ] || rm -f "$out"
	bench_expand "$out" "$url" "$@"
	local tf=$BENCH_TMP/$name.time st=0 t0 t1
	bench_server_cpu_start
	t0=$(date +%s%N)
	"$BENCH_TIME" -f '%M %U %S' -o "$tf" "${BENCH_CMD[@]}" >/dev/null 2>"$BENCH_TMP/$name.stderr" || st=$?
	t1=$(date +%s%N)
	bench_server_cpu_stop "$name"
	local rss user sys
	read -r rss user sys < <(tail -n 1 "$tf")
	awk -v a="$t0" -v b="$t1" -v r="${rss:-0}" -v u="${user:-0}" -v s="${sys:-0}" -v x="$st" \
		'BEGIN { printf "%.4f %d %.2f %.2f %d\n", (b - a) / 1e9, r, u, s, x }' >>"$BENCH_TMP/$name.runs"
	[ "$out" = /dev/null ] || rm -f "$out"
	if [ $st -ne 0 ]; then
		bench_mark_failed "$name" "exit status $st in a timed run: $(head -n 3 "$BENCH_TMP/$name.stderr" | tr '\n' ' ')"
	fi
}

# bench_median: the median of the numbers on stdin, one a line.
bench_median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.4f\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench_stat NAME: "runs median_wall min_wall max_wall peak_rss_kib
# median_cpu" over NAME's successful runs; nothing if there are none.
bench_stat() {
	local f=$BENCH_TMP/$1.runs ok
	[ -s "$f" ] || return 0
	ok=$(awk '$5 == 0' "$f")
	[ -n "$ok" ] || return 0
	local n mw mn mx rss mc
	n=$(printf '%s\n' "$ok" | wc -l)
	mw=$(printf '%s\n' "$ok" | awk '{ print $1 }' | bench_median)
	mn=$(printf '%s\n' "$ok" | awk '{ print $1 }' | sort -g | head -n 1)
	mx=$(printf '%s\n' "$ok" | awk '{ print $1 }' | sort -g | tail -n 1)
	rss=$(printf '%s\n' "$ok" | awk '{ print $2 }' | sort -g | tail -n 1)
	mc=$(printf '%s\n' "$ok" | awk '{ print $3 + $4 }' | bench_median)
	printf '%s %s %s %s %s %s\n' "$n" "$mw" "$mn" "$mx" "$rss" "$mc"
}

# bench_report BYTES NAME...: a table of every NAME's runs (names in a
# column BENCH_NAME_WIDTH wide, default 8).
bench_report() {
	local bytes=$1 w=${BENCH_NAME_WIDTH:-8}
	shift
	printf '%-*s %5s %10s %10s %10s %10s %12s %10s\n' "$w" client runs "median s" "min s" "max s" "MiB/s" "peak RSS" "CPU s"
	local name runs mw mn mx rss cpu
	for name in "$@"; do
		read -r runs mw mn mx rss cpu < <(bench_stat "$name"; echo)
		if bench_failed "$name"; then
			printf '%-*s FAILED: %s\n' "$w" "$name" "$(cat "$BENCH_TMP/$name.failed")"
		elif [ -z "$runs" ]; then
			printf '%-*s no runs\n' "$w" "$name"
		else
			printf '%-*s %5s %10s %10s %10s %10s %8.1f MiB %10s\n' "$w" "$name" "$runs" "$mw" "$mn" "$mx" \
				"$(awk -v b="$bytes" -v t="$mw" 'BEGIN { printf "%.0f", b / 1048576 / t }')" \
				"$(awk -v r="$rss" 'BEGIN { print r / 1024 }')" "$cpu"
		fi
	done
}

# bench_ratio A B [MAX]: print median wall A / median wall B and whether it
# is at most MAX; a miss sets status 1. Without MAX, the ratio alone (no
# target).
bench_ratio() {
	local a b target="no target"
	[ $# -ge 3 ] && target="target <= $3"
	a=$(bench_stat "$1" | awk '{ print $2 }')
	b=$(bench_stat "$2" | awk '{ print $2 }')
	if bench_failed "$1" || bench_failed "$2" || [ -z "$a" ] || [ -z "$b" ]; then
		if [ $# -ge 3 ]; then
			printf 'wall %s/%s: n/a (a client failed)           %s  FAIL\n' "$1" "$2" "$target"
			bench_fail 1
		else
			printf 'wall %s/%s: n/a (a client failed)           %s\n' "$1" "$2" "$target"
		fi
		return 0
	fi
	local r ok=""
	r=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')
	[ $# -ge 3 ] && ok=$(awk -v r="$r" -v m="$3" 'BEGIN { print (r <= m) ? "  ok" : "  MISS" }')
	printf 'wall %s/%s: %s (%s s / %s s)  %s%s\n' "$1" "$2" "$r" "$a" "$b" "$target" "$ok"
	[ "$ok" != "  MISS" ] || bench_fail 1
}

# bench_ratio_info A B: the ratios A/B of the fastest runs and of median CPU
# time, which a busy machine disturbs less than median wall time (no target).
bench_ratio_info() {
	local sa sb
	sa=$(bench_stat "$1")
	sb=$(bench_stat "$2")
	[ -n "$sa" ] && [ -n "$sb" ] || return 0
	awk -v a="$sa" -v b="$sb" -v na="$1" -v nb="$2" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		printf "(info) %s/%s: fastest run %.3f, median CPU %s\n", na, nb, x[3] / y[3], (y[6] > 0 ? sprintf("%.3f", x[6] / y[6]) : "n/a")
	}'
}

# bench_load_note: print the load average, with a warning when the machine
# is busy enough to make timings unreliable (1-minute load > CPUs / 2).
bench_load_note() {
	local load cpus
	read -r load _ </proc/loadavg
	cpus=$(nproc)
	echo "   load average $load on $cpus CPUs"
	if awk -v l="$load" -v c="$cpus" 'BEGIN { exit !(l > c / 2) }'; then
		echo "   WARNING: the machine is busy; wall times are unreliable (compare CPU and fastest runs, or rerun when idle)"
	fi
}

# bench_rss_limit NAME MAX_KIB: check NAME's peak RSS is below MAX_KIB.
bench_rss_limit() {
	local rss ok
	rss=$(bench_stat "$1" | awk '{ print $5 }')
	if bench_failed "$1" || [ -z "$rss" ]; then
		printf 'peak RSS %s: n/a (failed)  target < %s KiB  FAIL\n' "$1" "$2"
		bench_fail 1
		return 0
	fi
	bench_kib_limit "$1" "$rss" "$2"
}

BENCH_TIME=${BENCH_TIME:-/usr/bin/time}

# bench_start_helper NAME ARGS...: run `benchtool ARGS...` (the mirror
# benchmarks' servers and delaying proxy, mirror/internal/benchtool) in the
# background (stopped by PID at exit) and wait for its READY or PORT line;
# sets HELPER_OUT to its stdout file.
bench_start_helper() {
	local name=$1
	shift
	bench_launch "$name" '^(READY|PORT) ' benchtool "$@"
	HELPER_OUT=$BENCH_LAUNCH_OUT
}

# bench_mirror_run NAME RUNSNAME OUT SERVED [EXCLUDE...]: one timed run of
# the mirror client NAME — the script's client_cmd NAME sets CMD, with @OUT@
# for the target directory — into
# OUT (emptied first unless RUNSNAME ends in "2": the second, incremental
# run); the result must equal the served tree SERVED (diff -r, leaving out
# the EXCLUDE patterns), else RUNSNAME is marked failed.
bench_mirror_run() {
	local name=$1 rname=$2 out=$3 served=$4 e
	shift 4
	local excl=()
	for e in "$@"; do excl+=(-x "$e"); done
	bench_failed "$rname" && return 0
	case "$rname" in *2) ;; *) rm -rf "$out" ;; esac
	client_cmd "$name"
	local i
	for i in "${!CMD[@]}"; do
		CMD[i]=${CMD[i]//@OUT@/$out}
	done
	bench_timed "$rname" "${CMD[@]}" || return 0
	if ! diff -r -q "${excl[@]}" "$served" "$out" >"$BENCH_TMP/$rname.diff" 2>&1; then
		bench_mark_failed "$rname" "the mirror differs from the served tree: $(head -n 3 "$BENCH_TMP/$rname.diff" | tr '\n' ' ')"
	fi
}

# bench_timed NAME CMD...: runs CMD once, timed, its output in
# $BENCH_TMP/NAME.stdout and .stderr, and appends "wall-seconds peak-RSS-KiB
# user-s sys-s status" to $BENCH_TMP/NAME.runs (what bench_report reads). A
# failed run marks NAME failed and returns 1.
bench_timed() {
	local name=$1 st=0 t0 t1 rss user sys
	shift
	t0=$(date +%s%N)
	"$BENCH_TIME" -f '%M %U %S' -o "$BENCH_TMP/$name.time" "$@" >"$BENCH_TMP/$name.stdout" 2>"$BENCH_TMP/$name.stderr" || st=$?
	t1=$(date +%s%N)
	read -r rss user sys < <(tail -n 1 "$BENCH_TMP/$name.time")
	awk -v a="$t0" -v b="$t1" -v r="${rss:-0}" -v u="${user:-0}" -v s="${sys:-0}" -v x="$st" \
		'BEGIN { printf "%.4f %d %.2f %.2f %d\n", (b - a) / 1e9, r, u, s, x }' >>"$BENCH_TMP/$name.runs"
	if [ $st -ne 0 ]; then
		bench_mark_failed "$name" "exit status $st: $(head -n 3 "$BENCH_TMP/$name.stderr" | tr '\n' ' ')"
		return 1
	fi
}

# bench_need_base: stops unless URLGET_BASE names the "base" mirror
# client's binary (an urlget built from an older commit, timed beside this
# one in one run).
bench_need_base() {
	[ -x "${URLGET_BASE:-}" ] || bench_die "the client base needs URLGET_BASE, an urlget binary built from an older commit"
}

# bench_free_range N: a range of N ports free on 127.0.0.1 and 127.0.0.2,
# below the kernel's ephemeral ports (outgoing connections never take them).
bench_free_range() {
	local n=$1 lo p ok try eph
	eph=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
	for ((try = 0; try < 50; try++)); do
		lo=$((10000 + RANDOM % (eph - 10000 - n)))
		ok=1
		for ((p = lo; p < lo + n; p++)); do
			if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || (exec 3<>"/dev/tcp/127.0.0.2/$p") 2>/dev/null; then
				ok=0
				break
			fi
		done
		if [ $ok = 1 ]; then
			echo "$lo-$((lo + n - 1))"
			return 0
		fi
	done
	bench_die "no $n free ports in a row"
}

# bench_build_mirror: go build the benchtool helper (mirror/internal/benchtool:
# trees, servers, the delaying proxy) and urlget into $BENCH_BIN.
bench_build_mirror() {
	command -v go >/dev/null || bench_die "go is not on PATH"
	bench_note "bench: building"
	go build -o "$BENCH_BIN/benchtool" ./mirror/internal/benchtool || bench_die "cannot build mirror/internal/benchtool"
	bench_build_urlget
}

# bench_anon_tree: the tree of bench_ftp_tree under $ANON/pub, ANON
# ($BENCH_TMP/anon) the anonymous ftp root vsftpd serves (bench_start_vsftpd).
bench_anon_tree() {
	ANON=$BENCH_TMP/anon
	mkdir -p "$ANON"
	chmod 755 "$BENCH_TMP" "$ANON"
	bench_ftp_tree "$ANON/pub"
	sync -f "$ANON"
}

# bench_start_vsftpd ROOT ADDR: vsftpd (the bench helper) serving ROOT
# anonymously, its passive ports a free range announced as ADDR; sets PASV
# (the range) and PORT. The range is wide: each data connection holds its
# port in TIME_WAIT for a minute after it, and at a thousand small files a
# second a range of 100 was half taken, so that vsftpd's ten tries at a
# free port failed now and then and it ended the session ("500 OOPS:
# vsf_sysutil_bind"), for lftp and urlget alike.
bench_start_vsftpd() {
	PASV=$(bench_free_range 2000)
	mkdir -p "$BENCH_TMP/vsftpd"
	bench_start_helper vsftpd vsftpd -root "$1" -dir "$BENCH_TMP/vsftpd" -pasv "$PASV" -pasv-address "$2"
	PORT=$(awk '$1 == "PORT" { print $2 }' "$HELPER_OUT")
}

# bench_ftp_tree DIR: writes $FILES files in $DIRS directories (~$MIB MiB)
# below DIR (benchtool ftptree) and sets BYTES to their total size.
bench_ftp_tree() {
	bench_note "bench: writing $FILES files in $DIRS directories (~$MIB MiB)"
	"$BENCH_BIN/benchtool" ftptree -root "$1" -files "$FILES" -dirs "$DIRS" -mib "$MIB" >"$BENCH_TMP/tree.out"
	BYTES=$(awk '$1 == "BYTES" { print $2 }' "$BENCH_TMP/tree.out")
}

# bench_mirror_rounds OUTPREFIX SERVED [EXCLUDE...]: ROUNDS timed runs of
# each client of $CLIENTS (also left in the array clients), client NAME into
# OUTPREFIXNAME (bench_mirror_run).
bench_mirror_rounds() {
	local prefix=$1 served=$2 r c
	shift 2
	read -r -a clients <<<"$CLIENTS"
	for ((r = 1; r <= ROUNDS; r++)); do
		for c in "${clients[@]}"; do
			bench_note "bench: round $r: $c"
			bench_mirror_run "$c" "$c" "$prefix$c" "$served" "$@"
		done
	done
}

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

# bench_wait_port PORT PID: wait (up to 10 s) until 127.0.0.1:PORT answers;
# 1 if it does not, or the process PID exits first.
bench_wait_port() {
	local i
	for ((i = 0; i < 200; i++)); do
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# bench_start_on_port NAME WORD...: run WORD... in the background, with
# each @PORT@ in the words replaced by a free port, and wait until the port
# answers; when the program exits first (the port was taken meanwhile:
# bench_free_port only sees ports that answer), again with another port,
# up to 5 times. Sets BENCH_PORT and BENCH_PID (stopped at exit); its
# stderr is $BENCH_TMP/NAME.err, its stdout $BENCH_TMP/NAME.out.
bench_start_on_port() {
	local name=$1 try w
	shift
	for ((try = 0; try < 5; try++)); do
		BENCH_PORT=$(bench_free_port)
		local cmd=()
		for w in "$@"; do cmd+=("${w//@PORT@/$BENCH_PORT}"); done
		"${cmd[@]}" >"$BENCH_TMP/$name.out" 2>"$BENCH_TMP/$name.err" &
		BENCH_PID=$!
		BENCH_SERVER_PIDS+=("$BENCH_PID")
		bench_wait_port "$BENCH_PORT" "$BENCH_PID" && return 0
		kill -0 "$BENCH_PID" 2>/dev/null && break # running, but not answering
	done
	cat "$BENCH_TMP/$name.err" >&2
	bench_die "$name did not start (last on port $BENCH_PORT)"
}

# bench_start_gophernicus ROOT: gophernicus serving ROOT on 127.0.0.1, run
# by socat for each connection (as nobody when run as root: gophernicus
# refuses root), in the background; sets BENCH_URL (gopher://127.0.0.1:PORT)
# and adds socat's PID to the servers bench_cleanup stops.
bench_start_gophernicus() {
	local root=$1 bin socat
	case "$root" in
	*[[:space:],:!\"\'\\]*) bench_die "socat cannot take the path $root" ;;
	esac
	bin=$(command -v gophernicus || echo /usr/sbin/gophernicus)
	socat=$(command -v socat) || bench_die "socat not found"
	local su=()
	[ "$(id -u)" = 0 ] && su=(,su=nobody)
	# -nm: no shared memory, hence no per-client throttling (-k: 4 GiB a
	# session would otherwise be reached over the rounds).
	bench_start_on_port gophernicus "$socat" "TCP-LISTEN:@PORT@,bind=127.0.0.1,fork,reuseaddr" \
		"EXEC:$bin -h 127.0.0.1 -p @PORT@ -r $root -nv -ns -nm,nofork${su[*]}"
	BENCH_URL=gopher://127.0.0.1:$BENCH_PORT
}

# bench_peak_reset PID: start a new peak-RSS measurement of a running
# process (Linux: clear_refs 5 sets VmHWM back to the current RSS; root or
# the process's owner).
bench_peak_reset() {
	echo 5 >"/proc/$1/clear_refs" 2>/dev/null || bench_note "bench: cannot reset the peak RSS of pid $1 (measuring since its start)"
}

# bench_peak_kib PID: the peak RSS (VmHWM, KiB) of a running process since
# its start or the last bench_peak_reset.
bench_peak_kib() {
	awk '$1 == "VmHWM:" { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0
}

# bench_cpu_s PID: the CPU seconds (user + system) a running process has
# used so far.
bench_cpu_s() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.2f\n", ($12 + $13) / hz }' "/proc/$1/stat" 2>/dev/null || echo 0
}

# bench_server_cpu PID: from now on each bench_run also counts the CPU time
# (perf stat's task-clock) of the server PID and of the processes it forks
# meanwhile (an ftp server's sessions), appending seconds to
# $BENCH_TMP/NAME.srv; bench_server_cpu_report prints the medians. On
# loopback the receiver's TCP work runs on the sender's CPU as well, so
# how a client reads shows in the server's CPU. Without perf (Debian:
# linux-perf) it says so and counts nothing.
bench_server_cpu() {
	if command -v perf >/dev/null && perf stat -e task-clock -p "$1" -o /dev/null -- sleep 0.01 2>/dev/null; then
		BENCH_SERVER_CPU_PID=$1
	else
		bench_note "bench: perf stat cannot count pid $1: no server CPU figures"
	fi
}

# bench_server_cpu_start, bench_server_cpu_stop NAME: around one timed run
# (bench_run_to), when bench_server_cpu is on. perf gets 0.2 s to attach
# before the run, and the server 0.1 s after it to finish its session
# (the sleeps are outside the timing).
bench_server_cpu_start() {
	[ -n "${BENCH_SERVER_CPU_PID:-}" ] || return 0
	perf stat -x, -e task-clock -p "$BENCH_SERVER_CPU_PID" -o "$BENCH_TMP/perf.out" &
	BENCH_PERF_PID=$!
	sleep 0.2
}

bench_server_cpu_stop() {
	[ -n "${BENCH_PERF_PID:-}" ] || return 0
	sleep 0.1
	kill -INT "$BENCH_PERF_PID" 2>/dev/null || true
	wait "$BENCH_PERF_PID" 2>/dev/null || true
	BENCH_PERF_PID=
	awk -F, '$3 == "task-clock" { printf "%.4f\n", $1 / 1000 }' "$BENCH_TMP/perf.out" >>"$BENCH_TMP/$1.srv"
}

# bench_server_cpu_report NAME...: the server's median CPU seconds a run
# for each NAME, and their range (nothing when bench_server_cpu is off).
bench_server_cpu_report() {
	[ -n "${BENCH_SERVER_CPU_PID:-}" ] || return 0
	local name line=""
	for name in "$@"; do
		[ -s "$BENCH_TMP/$name.srv" ] || continue
		line+=$(printf ' %s %s (%s-%s);' "$name" "$(bench_median <"$BENCH_TMP/$name.srv")" \
			"$(sort -g "$BENCH_TMP/$name.srv" | head -n 1)" "$(sort -g "$BENCH_TMP/$name.srv" | tail -n 1)")
	done
	echo "server CPU s a run (median, range):${line%;}"
}

# bench_parallel NAME N URL TEMPLATE...: N copies of the client at once,
# each writing to /dev/null; appends "wall_s failed_count" to
# $BENCH_TMP/NAME.par. Any failed copy marks NAME failed.
bench_parallel() {
	local name=$1 n=$2 url=$3 i t0 t1 bad=0
	shift 3
	bench_failed "$name" && return 0
	bench_expand /dev/null "$url" "$@"
	local pids=()
	t0=$(date +%s%N)
	for ((i = 0; i < n; i++)); do
		"${BENCH_CMD[@]}" >/dev/null 2>>"$BENCH_TMP/$name.stderr" &
		pids+=("$!")
	done
	for i in "${pids[@]}"; do
		wait "$i" || bad=$((bad + 1))
	done
	t1=$(date +%s%N)
	awk -v a="$t0" -v b="$t1" -v x="$bad" 'BEGIN { printf "%.4f %d\n", (b - a) / 1e9, x }' >>"$BENCH_TMP/$name.par"
	if [ "$bad" -ne 0 ]; then
		bench_mark_failed "$name" "$bad of $n transfers at once failed: $(head -n 3 "$BENCH_TMP/$name.stderr" | tr '\n' ' ')"
	fi
}

# bench_load NAME PROXY TARGET ACCEPT: LOAD_SECONDS (default 10) of
# requests "GET TARGET HTTP/1.1" (the absolute form a proxy is asked with)
# with "Accept: ACCEPT", sent to the HTTP proxy PROXY (http://HOST:PORT)
# over LOAD_CLIENTS (default 32) connections at once by bench/load (built
# into $BENCH_BIN), which also waits for the requests in flight when the
# time is up, so that a server slower than that is measured too. Writes
# "req_per_s p50_ms p99_ms requests" to $BENCH_TMP/NAME.load; a failed
# request marks NAME failed.
bench_load() {
	local name=$1 proxy=$2 target=$3 accept=$4 out=$BENCH_TMP/$1.loadout
	bench_failed "$name" && return 0
	if [ ! -x "$BENCH_BIN/load" ]; then
		go build -o "$BENCH_BIN/load" ./bench/load || bench_die "cannot build bench/load"
	fi
	if ! "$BENCH_BIN/load" -proxy "$proxy" -target "$target" -accept "$accept" \
		-c "${LOAD_CLIENTS:-32}" -d "${LOAD_SECONDS:-10}s" >"$out" 2>"$BENCH_TMP/$name.stderr"; then
		bench_mark_failed "$name" "$(cat "$out") $(head -n 3 "$BENCH_TMP/$name.stderr" | tr '\n' ' ')"
		return 0
	fi
	awk '{ for (i = 1; i < NF; i += 2) v[$i] = $(i + 1); print v["rps"], v["p50_ms"], v["p99_ms"], v["requests"] }' "$out" >"$BENCH_TMP/$name.load"
}

# bench_load_report NAME...: the table of bench_load's results.
bench_load_report() {
	printf '%-16s %10s %10s %10s %10s\n' load "req/s" "p50 ms" "p99 ms" requests
	local name rps p50 p99 n
	for name in "$@"; do
		if bench_failed "$name"; then
			printf '%-16s FAILED: %s\n' "$name" "$(cat "$BENCH_TMP/$name.failed")"
			continue
		fi
		read -r rps p50 p99 n _ <"$BENCH_TMP/$name.load"
		printf '%-16s %10s %10s %10s %10s\n' "$name" "$rps" "$p50" "$p99" "$n"
	done
}

# bench_min_ratio A B MIN: requests/second of load A over load B, checked
# to be at least MIN; a miss sets status 1.
bench_min_ratio() {
	if bench_failed "$1" || bench_failed "$2"; then
		printf 'req/s %s/%s: n/a (a load failed)  target >= %s  FAIL\n' "$1" "$2" "$3"
		bench_fail 1
		return 0
	fi
	local a b r ok
	a=$(awk '{ print $1 }' "$BENCH_TMP/$1.load")
	b=$(awk '{ print $1 }' "$BENCH_TMP/$2.load")
	r=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }')
	ok=$(awk -v r="$r" -v m="$3" 'BEGIN { print (r >= m) ? "ok" : "MISS" }')
	printf 'req/s %s/%s: %s (%s / %s)  target >= %s  %s\n' "$1" "$2" "$r" "$a" "$b" "$3" "$ok"
	[ "$ok" = ok ] || bench_fail 1
}

# bench_kib_limit WHAT KIB MAX_KIB: a peak RSS (of a client's runs, or
# bench_peak_kib of a server) checked to be below MAX_KIB.
bench_kib_limit() {
	local ok
	ok=$(awk -v r="$2" -v m="$3" 'BEGIN { print (r > 0 && r < m) ? "ok" : "MISS" }')
	printf 'peak RSS %s: %s KiB (%.1f MiB)  target < %s KiB  %s\n' "$1" "$2" "$(awk -v r="$2" 'BEGIN { print r / 1024 }')" "$3" "$ok"
	[ "$ok" = ok ] || bench_fail 1
}
