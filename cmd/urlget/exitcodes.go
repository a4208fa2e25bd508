package main

// exitStatuses is urlget's table of exit statuses, curl's numbers wherever
// curl has the same meaning: the one source of the exit-code table in docs/exit-codes.md.
// TestExitStatuses checks it against fetch's kinds, the fetch package
// doc's table and --help's summary, and writes docs/exit-codes.md's block from it.
var exitStatuses = []struct {
	Codes   []int  // one row may hold a pair (FTP TYPE / RETR)
	Meaning string // Markdown
}{
	{[]int{0}, "success (an HTTP status ≥ 400 without `-f` is success, as in curl)"},
	{[]int{1}, "unsupported scheme (or one `--proto` leaves out), refused redirect target or proxy scheme, an HTTP reply in a version not spoken (`HTTP/1.2`), a server error with no better code, other errors"},
	{[]int{2}, "usage: unknown flag, bad flag value (including an unreadable `-w @FILE` or a bad `-x`), no URL; mailto: no way to send mail (no `--smtp-server`, `$SMTP_SERVER`, `$MAILHOST` or sendmail)"},
	{[]int{3}, "malformed URL (or IRI); a URL that breaks its scheme's syntax (when fetching, or with `urlget url --strict`); CR, LF or NUL (or a scheme's other forbidden bytes) in a decoded URL field; a `file://` URL naming another host; a gopher port refused; a news: URL with no server; a gopher search or +ASK answer needed; a mailto URL's bcc without `--mail-allow-bcc`; a news article to post without From or Subject, or with a malformed header"},
	{[]int{4}, "`urlget mirror` only: the run went through but some items failed or a limit stopped it"},
	{[]int{6}, "host name did not resolve"},
	{[]int{7}, "could not connect (to the server or through the proxy)"},
	{[]int{8}, "the server's reply made no sense: a malformed status or reply line, endless or oversized reply lines (every line protocol but HTTP, whose bounds are 27 and 56)"},
	{[]int{9}, "access denied"},
	{[]int{10}, "ftp active mode (`-P`): the server said it could not connect for the data (a 4xx reply after its 150)"},
	{[]int{11}, "ftp: the server refused the account (`--ftp-account`, ACCT)"},
	{[]int{13}, "ftp: the server refused passive mode (EPSV and PASV) or named a port that cannot be"},
	{[]int{14}, "ftp: the server's PASV reply held no address that can be read"},
	{[]int{17}, "FTP TYPE refused"},
	{[]int{18}, "transfer ended before the whole resource arrived, or with other than the size the server stated (ftp: SIZE, the 150 reply's \"(N bytes)\"), even after a `226`; a wais server closed the connection before its reply (the message names the request)"},
	{[]int{19}, "FTP RETR refused"},
	{[]int{21}, "an ftp `-Q/--quote` command refused (a reply of 400 or more, without the `*` prefix)"},
	{[]int{22}, "HTTP status ≥ 400 with `-f`; an HTTP error answer to a resume into a file"},
	{[]int{23}, "writing the output failed (a full disk, no inodes left: for a mirror too, its manifest included); cannot create the output file or directory; `-O` name refused; stdout closed (a closed pipe is said with the code alone)"},
	{[]int{25}, "upload refused (ftp STOR; news: the server does not permit posting, 440)"},
	{[]int{26}, "reading a local file failed (`--netrc-file`, the `-T` file, a `-F` file)"},
	{[]int{27}, "an HTTP reply's header line over 100 KiB (curl 7.88's bound and code)"},
	{[]int{28}, "timeout (`--max-time`, `--connect-timeout`, `-Y`/`-y` too slow); an ftp server's 421 (it closes the session: curl's reading, \"timeout\")"},
	{[]int{30}, "ftp active mode (`-P`): the server refused the address (EPRT and PORT)"},
	{[]int{35}, "TLS handshake failure"},
	{[]int{36}, "resume impossible"},
	{[]int{37}, "`file://` could not read the file"},
	{[]int{42}, "aborted"},
	{[]int{45}, "`--interface` or `--local-port` could not be used"},
	{[]int{47}, "too many redirects or referrals (`--max-redirs`)"},
	{[]int{49}, "a malformed `--resolve` or `--connect-to`"},
	{[]int{52}, "an HTTP server closed the connection without sending a byte of its reply (curl's \"Empty reply from server\")"},
	{[]int{55}, "mail: the SMTP server refused the sender, a recipient or the message, or closed the session; sendmail failed; news: the server refused the article (441) or closed the connection before confirming it; the connection broke while a request was sent"},
	{[]int{56}, "the connection was reset or broke before the reply was complete; an HTTP reply's head over 300 KiB (curl 7.88's bound); an HTTP proxy refused the CONNECT tunnel (`-p`, https)"},
	{[]int{58}, "the client certificate or key (`--cert`, `--key`, `--cert-type`) could not be read or used"},
	{[]int{59}, "`--ciphers` names a suite urlget does not know; `--tlsv1.x` above `--tls-max`"},
	{[]int{60}, "the server's certificate could not be verified (`SSL certificate problem: …`)"},
	{[]int{61}, "an HTTP body that cannot be decoded: a broken `--compressed` body (deflate, gzip, br, zstd) or one of more than 5 codings, a Transfer-Encoding other than chunked (curl's \"Unrecognized content encoding\", \"more than 5 content encodings\")"},
	{[]int{63}, "over `--max-filesize` (or the decompressed size cap)"},
	{[]int{64}, "ftp: TLS was required (`--ssl-reqd`, `--ftp-ssl-control`, ftps://) and the server refuses it (AUTH, PROT P)"},
	{[]int{65}, "a body to send again after a 307/308 redirect was read from a pipe (curl's \"send failed, rewind\")"},
	{[]int{67}, "login refused"},
	{[]int{70}, "ftp: the server had no room for the upload (552 after STOR)"},
	{[]int{77}, "`--cacert` / `--capath` gave no CA certificate"},
	{[]int{78}, "remote file, article, group or gopher item not found; a prospero name not found; a wais document or database not found (the server's diagnostic, or no records at all for a database)"},
	{[]int{90}, "the server's public key is not the one pinned (`--pinnedpubkey`)"},
	{[]int{97}, "a SOCKS proxy refused or failed the connection: the target it could not reach, a login refused or too long (over 255 bytes), a handshake that broke or made no sense, a target name it cannot take (curl 7.73's `CURLE_PROXY`); a SOCKS proxy that cannot be connected to is 7"},
	{[]int{130}, "interrupted by SIGINT or SIGTERM (what arrived stays in `FILE.part`)"},
}
