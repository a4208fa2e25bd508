// Package ftp fetches ftp:// URLs by RFC 1738's access method (§3.2),
// over RFC 959 with the extensions of RFC 2428 (EPSV, EPRT), RFC 3659
// (SIZE, MDTM, REST STREAM, MLSD) and RFC 2389 (FEAT). Importing it
// registers Default for the "ftp" scheme.
//
// # The access method
//
// Login: the URL's user and password, which the Client replaces with -u or
// fills from netrc (Request.User, Password, HasPassword). Without a user,
// USER anonymous and, unless a password was given, the e-mail address as
// PASS (option ftp-email, default DefaultEmail: ftp@example.com). A server
// that logs in on USER (230) gets no PASS; 332 is answered with ACCT
// (ftp-account). A user without a password whose server asks for one (331)
// stops the login before PASS with a *PasswordNeededError inside a
// *fetch.InputNeededError for fetch.OptPassword (Kind ErrLoginDenied, exit
// 67): the CLI prompts on a terminal and fetches again with the password.
// 530 is ErrLoginDenied.
//
// Directories: each <cwd> segment, decoded, is one CWD, in order, relative
// to the login directory (RFC 1738 §3.2.2): "%2Fetc/motd" sends CWD /etc
// then RETR motd, and "//etc/motd" a CWD without argument (a null
// argument: what it does is the server's business — vsftpd refuses it,
// ProFTPD answers 501, pure-ftpd goes to the login directory) then CWD etc.
// A refused CWD is ErrAccessDenied (exit 9). The ftp-method option trades
// this for curl's alternatives: singlecwd (one CWD with the segments joined
// by "/") or nocwd (no CWD; SIZE, RETR, LIST … get the whole path).
//
// Typecodes (§3.2.2, §3.2.3):
//
//	;type=d       NLST <name>, or NLST alone when the name is empty: the listing
//	;type=a       TYPE A, RETR (lines arrive with CRLF; the body has LF)
//	;type=i       TYPE I, SIZE, RETR (the bytes as stored)
//	none, name    TYPE I, as ;type=i: RFC 1738 leaves the guess to the client,
//	              and binary is the only guess that never alters the data
//	none, "/"     a URL ending in "/" lists the directory: LIST, parsed
//	              (ftp-list-only: NLST; ftp-mlsd: MLSD when FEAT offers it)
//
// The option ftp-type ("a" or "i") sets the type of URLs without a
// typecode (curl's -B/--use-ascii is "a"; "i" is the default, as curl's). A
// listing gets TYPE A unless the connection is known to be in ASCII
// already (as curl: RFC 959 makes ASCII the default, but a server may not
// start in it). In ASCII mode every CRLF
// of the data becomes LF (RFC 959 §3.1.1.1: NVT-ASCII to the local
// convention); Meta.Size is then -1, and a resume is fetched whole. A HEAD
// (Request.Head) sends SIZE in ASCII mode too and reports the server's
// answer, as curl -I does (ProFTPD refuses it: no size then).
//
// A URL naming a directory without its trailing slash (ftp://host/pub)
// is listed: when RETR pub is answered 550 and CWD pub then succeeds (not
// with a ;type=, a resume or a HEAD), the result is the directory's
// listing, and the verbose log says why.
//
// Errors: 550 on RETR (or SIZE and MDTM for a HEAD) is ErrNotFound (78);
// any other refused RETR is ErrRetrFailed (19); a refused TYPE is
// ErrTypeFailed (17); a refused LIST/NLST/MLSD is ErrNotFound (550) or
// ErrRetrFailed, except 450 ("No files found"), an empty listing. A reply
// that is not a reply is ErrProtocol (8). Every server refusal wraps a
// *ReplyError with the command, code and text.
//
// # The order of the commands
//
// The Fetcher sends its commands in curl 7.88's order, the one curl's test
// suite checks (tests/data/test100 ff.): after the login PWD (and SYST when
// the directory PWD gives is not an absolute Unix path: VMS, MVS, OS/400;
// an OS/400 server is asked SITE NAMEFMT 1 for Unix-style names, and PWD
// again),
// then the "before" quoted commands and the CWDs, MDTM when asked, the data
// connection (EPSV, PASV, or EPRT, PORT), TYPE, the "+" quoted commands,
// SIZE (binary), REST, and RETR, STOR, APPE, LIST or NLST. A HEAD opens no
// data connection: MDTM, TYPE, SIZE. Conn's own Retr, List and Stor open
// the data connection just before their command instead (the mirror
// pipelines it).
//
// # Data connections
//
// Passive first: EPSV, then PASV when EPSV is refused (remembered for the
// connection; ftp-epsv=0 skips EPSV). The address in a PASV reply is
// ignored — the data connection goes to the address the control connection
// reached — because a server naming another host would make the client
// connect wherever it says (RFC 2577's bounce, and NAT-broken servers);
// ftp-pasv-trust=1 uses it. Through a SOCKS proxy the URL's host is used,
// and the proxy connects. Active mode with ftp-port (curl's -P): "-" is
// the control connection's local address; else an IP address, an interface
// name or a host name, optionally ":PORT" or ":LOW-HIGH". EPRT is sent,
// then PORT if EPRT is refused (ftp-eprt=0 sends PORT at once; IPv6 needs
// EPRT). The server's connection is accepted only from the control
// connection's peer, within AcceptTimeout (ErrTimeout after it).
//
// # Transfers
//
// SIZE gives Meta.Size (binary only) and MDTM Meta.ModTime, which is asked
// for a HEAD, with modtime=1 (fetch.OptModTime, for -R/--remote-time), for a
// resume with Request.Since, and for Request.IfModifiedSince: a file whose
// MDTM is not after it (to the second) is not sent, the result is
// Meta.NotModified with an empty body. A resume (Request.Offset) sends REST before RETR,
// unless SIZE says the file is smaller than the offset, or MDTM says it
// changed after Since, or the transfer is ASCII, or REST is refused: then
// the file comes whole, with Meta.Offset 0. An offset equal to the size
// gives an empty body at that offset. A Request.Range (its first range)
// sends REST at its start (after SIZE, for "-LAST"; a range past the size,
// or a refused REST, is ErrResume) and, as curl does, closes the data
// connection once its last byte has come, sends ABOR, reads the replies and
// ends the session (QUIT) rather than pooling it.
//
// The body streams from the data connection. It ends with io.EOF only when
// the data connection has closed, the final reply (226/250) has come, and
// the bytes are every size the server stated — SIZE, and the 150 reply's
// "(N bytes)" for a binary transfer from the start (Transfer.Expect):
// otherwise ErrPartial (18): a short or long transfer (a data connection
// cut by a NAT or a firewall while the server's 226 went through),
// 426/451 as the final reply, or no final reply within FinalReplyTimeout. The context governs everything: a done context closes
// the connections under a blocked Read (ErrTimeout/ErrAborted through the
// Client).
//
// Uploads (Upload, Fetcher.Upload) go through the same CWDs and send STOR,
// or APPE to append, in binary unless ;type=a or ftp-type=a (uploads are
// never guessed); a refusal is ErrUpload (25). An upload with a
// Request.Offset resumes (fetch.ResumesUpload): the body's first Offset
// bytes are skipped and the rest sent with APPE; fetch.UploadAtEnd asks
// SIZE first (550 or another refusal: from the start, STOR, as curl), and a remote file as long as a body of
// known size is left alone.
//
// # Listings
//
// Resource.Listing parses LIST, MLSD (ParseMLSx) and NLST (ParseNLST)
// lines into fetch.Entry values, with Entry.URL set for entries of a
// directory URL. A LIST reply is read by one ListParser: its first lines
// settle the format, and later lines are read in that format only. The
// formats (ListFormat): UNIX ls -l with and without a year, link count or
// group, owners and groups of several words, symlinks, devices, ISO, CJK
// ("3月 2日") and AIX ("02 Mar") dates; DOS/IIS; EPLF; MLSx lines; VMS,
// entries wrapped over two lines included; OS/2; NetWare; OS/400 (IBM i);
// MVS datasets, partitioned-dataset members and JES jobs (with the ListMVS
// hint, from SystemListFormat of the SYST reply asked after a login whose
// PWD is not a Unix path, or their header line); and
// z/OS "Enterprise Unix". The body is the server's listing as sent. A line
// that cannot be parsed is an Entry with Unparsed set and Raw holding it,
// never an error.
//
// The parsers are checked against the 356 scored listing cases of the test
// suites of jlaffaye/ftp, Apache commons-net, node-ftp and basic-ftp
// (testdata/ftp-list-cases.json, see testdata/NOTICE); TestListCases lists
// where urlget deliberately answers otherwise, and why: devices are
// EntryOther, a DOS <DIR> has no size, a size beyond int64 is unknown, a
// VMS name keeps its version and its size (in blocks) is unknown. Names are data, never paths: a
// name with "/", "..", control bytes or an absolute path stays one URL
// segment (encoded) and SafeName makes one harmless local file name of it.
//
// # Connection reuse
//
// A Fetcher keeps logged-in control connections, per server address, user
// and password, up to MaxIdlePerHost (default 2) for IdleTimeout (default
// 30 s), and uses them for the next URLs (RFC 1738 §3.2.5 leaves this to
// the client). The login directory is noted with PWD after the login (a
// connection whose PWD fails is not kept); the next URL returns there with a
// CWD to it — unless the connection is already in the directory the URL
// names, or on the way to it, when only the missing CWDs are sent. TYPE and
// EPSV support are remembered. A connection goes back to the pool only when
// its exchange ended in step: after a complete transfer once the Body is
// closed, after HEAD, after a refusal (550 …); a Body closed early closes
// its connection. A pooled connection the server has dropped meanwhile is
// replaced before anything is sent. ftp-reuse=0, or MaxIdlePerHost < 0,
// turns reuse off (every URL then ends with QUIT). CloseIdle ends idle
// connections with QUIT.
//
// # The connection: Conn
//
// Conn is one logged-in control connection, the building block under the
// Fetcher's pool and the mirror (package mirror): Dial connects through the
// Request's Dialer (a Client's, with its connect timeout and SOCKS proxy:
// fill the Request with fetch.Client.Prepare) and logs in as above; Cmd
// sends a command and reads its reply; Send writes several commands at once
// and ReadReply reads their replies in order (pipelining); Retr, List and
// Stor return a Transfer, the one data path (the Fetcher's transfers and
// the mirror's go through it): passive to an address Passive gave, or set
// up by the Conn itself, passive or active (SetActive, ftp-port), with
// REST for an offset; Passive, DialData and OpenPassive open passive data
// connections by hand; Type and
// Features keep what the session knows, whichever way the commands were
// sent. Every command goes through one writer (CR, LF and NUL refused, PASS
// and ACCT masked in verbose output), every reply through ReadReply's
// bounds, and every refusal through one table, ReplyKind (RefusedError
// builds the error): a refused CWD is ErrAccessDenied (exit 9) for a fetch
// and for a mirror alike. A 4xx reply is transient (ReplyError.Transient),
// which fetch.Retryable reads; so is a reply that says the session is over
// whatever was asked (Reply.Gone: 421, and vsftpd's "500 OOPS: ..." when
// its helper process died), which also marks the connection dead
// (SessionGone): what was asked is to be asked again on a new connection.
//
// Some servers read commands sent during a transfer only once it is over
// (vsftpd, ProFTPD); pure-ftpd answers them at once with 500. A caller that
// sends commands during transfers must notice replies that come out of
// step (Passive reports one as ErrProtocol) and stop doing so.
//
// # Options
//
// Request.Options keys (set with fetch.Client.Options) and the curl-style
// flags the CLI maps to them:
//
//	ftp-method      multicwd (default) | singlecwd | nocwd   --ftp-method
//	ftp-pasv-trust  "1": use the PASV reply's address        --ftp-pasv-trust (curl: --no-ftp-skip-pasv-ip); "0" --ftp-skip-pasv-ip
//	ftp-port        active mode address ("-", IP, iface, host[:port[-port]])  -P/--ftp-port
//	ftp-epsv        "0": PASV only                           --disable-epsv
//	ftp-eprt        "0": PORT only                           --disable-eprt
//	ftp-list-only   "1": NLST for directory URLs             -l/--list-only
//	ftp-mlsd        "1": MLSD for directory URLs when FEAT offers it  --ftp-mlsd, --json-lines listings
//	ftp-email       anonymous password (ftp@example.com)   --ftp-email
//	ftp-account     ACCT argument when the server asks (332)  --ftp-account
//	ftp-alternative-to-user  a command sent when USER is refused  --ftp-alternative-to-user
//	ftp-type        "a" or "i": typecode for URLs without one  -B/--use-ascii ("a"), --ftp-binary ("i")
//	modtime         "1": MDTM for every file (Meta.ModTime)   -R/--remote-time, -z
//	ftp-reuse       "0": no connection reuse                  --no-keepalive
//	ftp-quote       commands to send, one a line              -Q/--quote
//	ftp-create-dirs "1": MKD the directories CWD refuses      --ftp-create-dirs
//	ftp-crlf        "1": an upload's LFs sent as CRLF, TYPE I too  --crlf
//
// ftp-quote is curl's -Q: each line is one command, sent after the login
// (before the CWDs); "+CMD" after the CWDs and TYPE, just before RETR or
// STOR (not before a listing, as curl); "-CMD" after a transfer that
// succeeded. A "*" after that prefix makes a refusal harmless; any other
// reply of 400 or more stops the request with ErrQuote (exit 21) wrapping
// the *ReplyError. A connection that ran quoted commands is never reused
// (they may have changed what it is known to be). ftp-create-dirs answers
// a refused CWD with MKD and the CWD again (curl's order), for any request
// (an upload is what needs it); the second refusal is ErrAccessDenied.
//
// A value that goes on the wire (ftp-email, ftp-account, ftp-port, ftp-quote) may not
// hold CR, LF or NUL (ErrMalformed). Bounds on what a server may send on
// the control connection: MaxReplyLine, MaxReplyBytes, MaxReplyLines.
//
// # Why not github.com/jlaffaye/ftp
//
// jlaffaye/ftp (v0.2.4) is the Go FTP client usually named for this job.
// It is not used because it does not do it; each point below is a test of
// fetch/ftp/internal/jlaffayecheck (a module of its own, so urlget's
// go.mod does not carry it), run beside this package on the same server:
//
//   - No active mode: it has neither EPRT nor PORT, so it cannot fetch
//     from a server with passive mode off (vsftpd pasv_enable=NO), where
//     ftp-port does (TestActiveMode).
//   - No ACCT: its Login fails on a 332 reply to PASS; this package
//     answers with ACCT (ftp-account) and logs in (TestACCT).
//   - No RFC 1738 access method: Retr sends the whole path in one RETR
//     ("RETR pub/a/deep.txt"), not a CWD per segment and RETR of the last
//     (TestCWDPerSegment); the per-segment CWDs, %2F, empty segments and
//     typecodes would all be the caller's to write.
//   - A RETR ended with 250 (RFC 959 allows it beside 226) fails its
//     Response.Close; this package takes both (TestFinal250).
//
// Read in its source, and not yet shown by a test of that module: one
// command, one reply (no pipelining: the mirror's batched commands cannot
// be sent through it); its Login always adds FEAT, TYPE I and OPTS UTF8
// round trips; a transfer cut short under a 226 is not noticed (no SIZE
// or "(N bytes)" check); replies are read by net/textproto with no bound
// on a line or a reply; a context bounds only the dial; LIST lines it cannot parse are dropped, not returned. Where it
// would fit — its ServerConn as the control connection, its LIST and MLSD
// parsers — the points above are the reason too: the control connection
// is where active mode, ACCT, pipelining and the reply bounds live, and
// its four LIST parsers (MLSx, ls -l, DOS, hostedftp.com) have no VMS,
// OS/2, NetWare, OS/400, MVS or EPLF, which ListParser reads.
package ftp
