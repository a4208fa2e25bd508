// Package fetch is the contract every urlget scheme obeys, the registry of
// scheme fetchers, and the Client that applies policy on top of them.
//
// The split follows net/http: a Fetcher is transport (it carries out one
// scheme's access method and nothing else), a Client is policy (timeouts,
// proxies, credentials, redirects, size caps, progress). As an
// http.Transport holds its dialer and TLS settings, a Fetcher is built
// with its configuration (Config: dialer, TLS, user agent, cookie jar,
// verbose log, warnings, terminal), which the Client gives the Fetchers it
// builds from its own fields; a Request carries only the request. Opening a URL gives
// a Resource whose Body streams: nothing is ever buffered whole, and memory
// does not grow with the size of what is fetched.
//
// # Schemes
//
// Each scheme package registers its Scheme record (Register) from its
// init, with the function that builds its Fetcher from a Config
// (Scheme.New). Import the scheme packages you need, or all of them with
//
//	import _ "github.com/urlget/urlget/fetch/all"
//
// Package fetch/file serves file URLs (local files and directory listings);
// package fetch/http serves http and https, and is the HTTP proxy gateway
// for the other schemes.
//
// # Opening a URL
//
//	c := &fetch.Client{FollowRedirects: true, Fail: true}
//	res, err := c.Open(ctx, "https://example.com/file.txt")
//	if err != nil {
//		os.Exit(fetch.ExitCode(err))
//	}
//	defer res.Body.Close()
//	_, err = io.Copy(os.Stdout, res.Body)
//
// Client.Do takes a Request for a HEAD (Request.Head), a resume
// (Request.Offset, Request.Since), a part (Request.Range, see ParseRange)
// or a conditional retrieval (Request.IfModifiedSince,
// Request.IfUnmodifiedSince, Request.IfNoneMatch: a resource that fails
// the condition comes back as Meta.NotModified, with no body; ParseDate
// reads the dates curl's -z takes). The context governs the whole transfer:
// when it is done, the connection under a blocked Body.Read is closed and
// the Read fails with ErrAborted (cancelled) or ErrTimeout (deadline).
// Client.CloseIdleConnections ends the connections fetchers keep between
// requests (see IdleCloser). What a Fetcher tells the user whatever the
// verbosity (a field of the URL it ignores) goes to Client.Warnings
// (Config.Warn).
//
// A net/http program reaches the same schemes through RoundTripper, which
// RegisterProtocols registers on an http.Transport.
//
// # Response metadata
//
// A Resource's Meta is what the server said before the body: size, times,
// type, status. An HTTP response — from http or https, or an HTTP proxy
// gateway's reply for another scheme — has Meta.Proto set (Meta.IsHTTP),
// and Meta.Header holds its header fields as received, in order and case:
//
//	for _, f := range res.Header {
//		fmt.Printf("%s: %s\r\n", f.Name, f.Value)
//	}
//	etag := res.Header.Get("etag") // names compare without regard to case
//
// HTTP policy (Fail, the retry of 5xx replies in the CLI) follows
// Meta.IsHTTP, never the URL's scheme: ftp://host/missing fetched through
// a gateway that answers 404 fails with ErrHTTP under Fail. That error
// carries the reply (Error.Reply: status, header fields, EffectiveURL), as
// net/http hands back the *Response; FailWithBody returns the body too,
// its end the ErrHTTP error in place of io.EOF.
//
// # What the Client guarantees
//
// Before any Fetcher runs, the Client refuses with ErrMalformed a URL whose
// decoded fields hold CR, LF or NUL where they would go on the wire
// (CheckURL), for the URL asked for and every redirect target; each Fetcher
// makes the same check again for callers that use it without a Client
// (fetchtest runs both).
//
// A Body returned by the Client fails with ErrPartial, never io.EOF, when it
// ends before Meta.Size bytes; stops with ErrTooLarge at MaxFileSize; and
// reports progress to Client.Progress. It implements io.WriterTo, so that
// io.Copy keeps the fetcher's fast paths (a file:// body reaches
// copy_file_range).
//
// Client.LimitRate (a Limiter, curl's --limit-rate) paces every Body and
// every Request.Body; the transfers of one Client share its rate. With
// Client.LowSpeedLimit or LowSpeedTime (curl's -Y and -y) a request that
// moves too few bytes over the window — connecting, waiting for the reply
// or reading the body — fails with ErrTimeout ("operation too slow").
// RetryPolicy is the one rule for trying a failed request again (which
// errors, how many times, the backoff, a server's Retry-After): the CLI's
// --retry flags and the mirror fill one in. FailError is Fail's rule, for
// a caller that looks at a reply before applying it (the CLI retries a 503
// before -f fails it).
//
// Redirects (HTTP 301, 302, 303, 307, 308) are followed only with
// FollowRedirects, at most MaxRedirects times (0: the default 50;
// NoRedirects: none; ErrTooManyRedirects past that), and only to http,
// https and ftp URLs: any other target is
// refused with ErrUnsupported. Credentials — from the URL's userinfo, from
// Client.User (-u), or from netrc, and Client.Bearer — are sent only to the
// scheme, host and port of the URL first asked for, not to another after a
// redirect (Request.OtherOrigin), unless Client.LocationTrusted.
// Without FollowRedirects, the 3xx reply is the result, with Meta.Location
// the absolute target. The replies of the redirects followed are kept in
// Meta.Redirects.
//
// A referral (Meta.Referral, from a fetcher of names such as prospero: the
// name resolves to Meta.Location) is always followed, since it is the
// retrieval itself (without FollowRedirects), under the same policy:
// counted with redirects against MaxRedirects (NoRedirects: none
// followed, ErrTooManyRedirects; never more than DefaultMaxRedirects),
// credentials only to the first
// URL's scheme, host and port, only to the schemes a name service hands
// out (http, https, ftp, gopher, gophers, wais, prospero, telnet, tn3270),
// and to a file URL only from a server on this machine (IsLoopback).
// Meta.EffectiveURL is the URL finally fetched.
//
// # Credentials and netrc
//
// Client.User and Client.Password (curl's -u) override a URL's userinfo.
// With Client.Netrc, a URL without userinfo takes its login and password
// from the netrc file (Client.NetrcFile, default ~/.netrc) entry for its
// host, or from the file's default entry; a URL with a user but no password
// takes the password of that host's entry for that login. A missing
// ~/.netrc is no error; a missing NetrcFile is ErrRead. See Netrc for the
// file's syntax (machine, default, login, password, account, macdef).
//
// # Proxies
//
// Client.Proxy (curl's -x) applies to every scheme; without it, the
// environment is read the way curl and lynx read it (see ProxyFromEnv):
// http_proxy, https_proxy, ftp_proxy, gopher_proxy, news_proxy,
// nntp_proxy, wais_proxy (any <scheme>_proxy, upper case accepted too
// except HTTP_PROXY), all_proxy, and no_proxy. Client.NoProxy (--noproxy)
// replaces no_proxy. file and mailto URLs are never proxied.
//
// A socks5:// (names resolved locally) or socks5h:// (names resolved by the
// proxy) proxy carries connections of every scheme, with RFC 1929
// username/password from the proxy URL. An http:// or https:// proxy
// carries http (absolute-form requests) and https (CONNECT), and serves as
// a gateway for the schemes registered with the Gateway capability (ftp,
// gopher, gophers, news, nntp, nntps, wais and prospero):
// the Client sends "GET <URL> HTTP/1.1" to the proxy (RFC 1630) through the
// http fetcher, and the proxy's reply is the result (an HTTP reply, so Fail
// applies). telnet is never sent through an HTTP proxy. A proxy URL's
// userinfo becomes Proxy-Authorization.
//
// # Connections and TLS
//
// Every connection a Client's fetchers make goes through the Client's
// Dialer, which applies Resolve (a name's addresses without DNS),
// ConnectTo (another host and port for a URL's), IPVersion, Interface and
// LocalPorts — curl's --resolve, --connect-to, -4/-6, --interface and
// --local-port — to every scheme, SOCKS by curl's rules, an FTP data
// connection without ConnectTo (DataDialer). Client.TLS takes a client
// certificate (LoadClientCert), versions (ParseTLSVersion) and TLS 1.2
// cipher suites (CipherSuites); PinnedPubKeys pins the server's key; CRLs
// (LoadCRLs) refuse a revoked server certificate.
//
// A Trace in the context (WithTrace) hears a request's events, as
// net/http/httptrace's ClientTrace does, for every scheme: name resolved,
// connected, TLS done, request written, first byte of the reply, redirect
// followed, body sent.
//
// # Errors and exit codes
//
// Every error from the Client, and from a Body it returned, is an *Error
// with a Kind. A Kind is itself an error value for errors.Is:
//
//	if errors.Is(err, fetch.ErrNotFound) { ... }
//
// holds for every *Error of that kind in err's chain (KindOf gives the
// kind of any error). Kind.ExitCode gives the process exit code, curl's
// number wherever curl has the same meaning:
//
//	exit  kind                 meaning
//	   0                       success
//	   1  ErrOther             anything else
//	   1  ErrUnsupported       unsupported scheme, refused redirect target, unknown proxy scheme
//	   2  ErrNotConfigured     nothing set up to carry out the request (no mail server, no sendmail)
//	   3  ErrMalformed         malformed URL; CR, LF or NUL in a decoded field; file URL naming another host
//	   6  ErrResolve           host name did not resolve
//	   7  ErrConnect           could not connect (or through the proxy)
//	   8  ErrProtocol          the server's reply made no sense (endless or oversized header or reply lines, bad gzip, bad Location)
//	   9  ErrAccessDenied      access to the resource denied
//	  10  ErrAccept            an FTP server said it could not connect for the data (active mode)
//	  11  ErrAccount           an FTP server refused the account (ACCT)
//	  13  ErrPassive           an FTP server refused passive mode (EPSV, PASV) or named an impossible port
//	  14  ErrPassiveFormat     an FTP server's PASV reply held no address that can be read
//	  17  ErrTypeFailed        FTP TYPE refused
//	  18  ErrPartial           transfer ended before the whole resource
//	  19  ErrRetrFailed        FTP RETR refused
//	  21  ErrQuote             an FTP command given to send (ftp-quote, -Q) refused
//	  22  ErrHTTP              HTTP status >= 400 with Fail (-f)
//	  23  ErrWrite             writing the output failed
//	  25  ErrUpload            upload refused
//	  26  ErrRead              reading a local file failed (netrc)
//	  27  ErrHeaderLine        an HTTP reply's header line longer than a client keeps (100 KiB)
//	  28  ErrTimeout           a timeout fired (connect timeout, context deadline); an FTP 421
//	  30  ErrActive            an FTP server refused the address for active mode (EPRT, PORT)
//	  33  ErrRange             a resume answered without the range asked for (the server does not resume)
//	  35  ErrTLS               TLS handshake failure
//	  36  ErrResume            resume impossible (offset past the end, wrong range)
//	  37  ErrFileRead          file:// could not read the file
//	  42  ErrAborted           cancelled
//	  45  ErrInterface         the local address or port asked for (Interface, LocalPorts) could not be used
//	  47  ErrTooManyRedirects  more redirects than MaxRedirects
//	  49  ErrOptionSyntax      an option's value could not be parsed (ParseResolve, ParseConnectTo)
//	  52  ErrGotNothing        an HTTP server closed the connection without a byte of reply
//	  55  ErrSendFailed        the server refused the data sent, or the connection broke while the request was sent
//	  56  ErrRecv              the connection broke (reset) before the reply was complete
//	  58  ErrClientCert        the client certificate or key could not be read or used
//	  59  ErrCipher            a cipher or TLS version asked for is unknown or cannot be used
//	  60  ErrCertificate       the server's certificate could not be verified (TLSError)
//	  61  ErrBadEncoding       a body's content coding (deflate, gzip, br, zstd) or transfer coding could not be decoded
//	  63  ErrTooLarge          over MaxFileSize or MaxDecompressed
//	  64  ErrUseSSL            TLS was required and the server refuses it (FTP AUTH, PROT P)
//	  65  ErrRewind            a body to send again after a 307/308 redirect was read from a pipe
//	  67  ErrLoginDenied       login refused
//	  70  ErrDiskFull          the server had no room for the data sent (FTP 552 after STOR)
//	  77  ErrCACert            the CA certificates given could not be read
//	  78  ErrNotFound          remote file not found
//	  80  ErrTLSShutdown       TLS could not be ended as asked (FTP CCC: the server did not end its TLS)
//	  82  ErrCRLFile           the certificate revocation list given (LoadCRLs) could not be read
//	  84  ErrPRET              an FTP server refused PRET (ftp-pret), sent before passive mode
//	  90  ErrPinnedKey         the server's public key is not the one pinned (PinnedPubKey)
//	  97  ErrProxy             a SOCKS proxy refused or failed the connection (its handshake, login, reply); one not reached is ErrConnect
//
// # Writing a Fetcher
//
// A Fetcher is built from a Config (Scheme.New) and keeps it: it dials
// only with Config.Dialer, through Connect or DialNetwork (the Client's
// applies the connect timeout and SOCKS proxies, and closes the connection
// when the context is done), uses Config.TLS for TLS (HandshakeTLS), logs
// to Config.Verbose (Logf), warns with Config.Warn, returns typed *Error
// values, fills in Meta as far as the protocol tells, and returns a Body
// that reads straight from the connection. It never sees a URL the Client has not checked. The
// package fetch/fetchtest holds the conformance suite each scheme's tests
// run against a live server.
//
// # Adding a scheme
//
// A new scheme touches these places, and no others:
//
//   - its package, fetch/<scheme>, whose init calls Register with one
//     Scheme record per scheme name it serves: the name, how to build its
//     Fetcher from a Config (New), the capabilities policy and the CLI
//     read (Caps: may be a redirect or referral target, goes through an
//     HTTP proxy gateway, is a session,
//     sends a body, takes search words, has listings, its paths are
//     directories, ...; Layout: how its listings read, for urlget serve's
//     pages), the options it
//     reads from Request.Options (key, flag, kind, default, one line of
//     help) and the examples of its help. The CLI builds its flags, their
//     --help lines and the warning for a flag that no URL's scheme uses
//     from these declarations; the values reach the fetcher already
//     checked by the parser of their kind, and the fetcher reads them with
//     the Options accessors. Nothing outside the package lists the scheme.
//   - what the CLI shows: a directory-like result sets Resource.Render
//     (text and JSON lines) or Resource.Listing (entries); a request that
//     needs an answer from the user returns *InputNeededError; a fetcher
//     that sends Request.Body implements BodySender. None of these needs a
//     change outside the package.
//   - one import line in fetch/all, so that programs and the CLI get it;
//   - if its URLs have fields of their own, a typed URL in urlparse
//     (urlparse/scheme_<name>.go, which also declares the scheme's default
//     port and grammar there) that the fetcher reads;
//   - its in-tree test server beside it (fetch/<scheme>/<scheme>test, on
//     fetchtest.Serve), the conformance suite run against it (every case
//     given, or listed in Suite.Cannot with the reason; Open starts with
//     CheckURL, which the suite's direct Inject run checks), and a real
//     server started by internal/testserver where one exists (its Debian
//     package added to scripts/test);
//   - its section in docs/fetching.md (and its line in README's scheme table).
package fetch
