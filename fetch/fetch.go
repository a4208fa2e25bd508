package fetch

import (
	"cmp"
	"context"
	"io"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/urlget/urlget/urlparse"
)

// A Fetcher carries out one scheme's access method. A scheme's package
// registers how to build one from a Config (Scheme.New) with Register, from
// its init; a Client builds the Fetchers it uses from its own fields.
//
// The Client calls Open only after checking the URL with CheckURL, so that
// no CR, LF or NUL reaches a field that goes on the wire; Open checks again
// (CheckURL, before any connection), for callers without a Client.
type Fetcher interface {
	Open(ctx context.Context, req *Request) (*Resource, error)
}

// FetcherFunc adapts a function to the Fetcher interface.
type FetcherFunc func(ctx context.Context, req *Request) (*Resource, error)

// Open calls f(ctx, req).
func (f FetcherFunc) Open(ctx context.Context, req *Request) (*Resource, error) { return f(ctx, req) }

// Dialer opens network connections on behalf of a Fetcher (Config.Dialer).
// The Client's dialer applies its connect timeout and SOCKS proxy, returns typed
// errors, and closes the connection once the context passed to DialContext
// is done, which is what aborts a blocked Body read: dial with the context
// given to Open.
type Dialer interface {
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
}

// Request is one retrieval handed by the Client to a Fetcher: what to
// fetch, never how (that is the Fetcher's Config).
type Request struct {
	URL *urlparse.URL

	// Head asks for metadata only: Resource.Body is empty.
	Head bool
	// Offset asks for the resource from this byte on (resume); 0 for all.
	// With a Body to a scheme that ResumesUpload, it resumes the upload
	// instead: the resource holds the Body's first Offset bytes already
	// (UploadAtEnd: as many as it holds now), so they are skipped and the
	// rest is appended; a resource as long as the Body is left alone.
	Offset int64
	// Since, with Offset, is the modification time of the part already
	// held: a fetcher that can tell the resource changed since then sends it
	// whole (Resource.Offset 0) instead of resuming.
	Since time.Time
	// Range, when set, asks for part of the resource (curl's -r; see
	// Range for what each scheme makes of it); Offset is then 0. The
	// body is the part sent, Meta.Offset where it starts when known.
	Range *Range

	// IfModifiedSince and IfNoneMatch make the request conditional (RFC
	// 9110 §13.1): a fetcher that can tell the resource is unchanged — its
	// modification time, to the second, is not after IfModifiedSince, or
	// (HTTP) its entity tag is one of IfNoneMatch's ("\"v1\"", a
	// comma-separated list, or "*") — returns it with Meta.NotModified set
	// and an empty Body instead of its content. A fetcher that cannot tell
	// sends the resource as usual. http sends them as If-Modified-Since and
	// If-None-Match (its 304 is NotModified; a 200 whose Last-Modified is
	// not after IfModifiedSince is too, as curl treats it), ftp compares MDTM, gopher the Gopher+ Mod-Date and file
	// the file's time; other schemes ignore them. Unlike Since they need no
	// Offset: they are curl's -z/--time-cond and --etag-compare.
	IfModifiedSince time.Time
	IfNoneMatch     string
	// IfUnmodifiedSince is the opposite condition (curl's -z -DATE): a
	// resource modified after it is not sent (Meta.NotModified: the
	// condition was not met); http sends it as If-Unmodified-Since.
	IfUnmodifiedSince time.Time

	// User and Password are the credentials to use, already chosen by the
	// Client from the URL, -u or netrc. HasPassword tells an empty password
	// from none.
	User        string
	Password    string
	HasPassword bool

	// Bearer is an OAuth 2.0 Bearer token to send instead of User and
	// Password (http: "Authorization: Bearer TOKEN"); Digest asks for HTTP
	// Digest authentication with User and Password instead of Basic (the
	// first request without them, the 401 challenge answered). Other
	// schemes ignore both. See Client.Bearer and Client.Digest.
	Bearer string
	Digest bool
	// AnyAuth (Client.AnyAuth) sends the first request without the
	// credentials and answers the 401 challenge with Digest when the
	// server offers it, else with Basic.
	AnyAuth bool
	// NTLM (Client.NTLM) sends User and Password by NTLM, the exchange on
	// one connection; with AnyAuth a 401 offering NTLM (and not Digest)
	// is answered so. ProxyNTLM and ProxyAnyAuth do the same with the
	// Proxy's credentials and its 407 (Client.ProxyNTLM); ProxyDigest
	// answers the 407's Digest challenge (Client.ProxyDigest).
	NTLM         bool
	ProxyNTLM    bool
	ProxyAnyAuth bool
	ProxyDigest  bool
	// ProxyHTTP10 (Client.ProxyHTTP10) makes a tunnel's CONNECT an
	// HTTP/1.0 request.
	ProxyHTTP10 bool
	// ProxyHeader (Client.ProxyHeader) is header lines for the proxy
	// only: added to a request sent to the proxy (after the caller's
	// own), and a tunnel's CONNECT's (TunnelOptions.Header).
	ProxyHeader []string
	// OtherOrigin says a redirect has led the request to another origin
	// (scheme, host, port) than the first URL's, one not trusted with the
	// caller's credentials (Client.LocationTrusted): the Client has
	// left out User, Password and Bearer, and a fetcher leaves out the
	// credentials the caller put in its options (http: the Authorization
	// and Cookie lines of OptHeader), as curl does.
	OtherOrigin bool

	// Proxy is the HTTP proxy (an http:// or https:// URL) chosen for
	// this request, or nil. Only the http fetcher sees it set: the Client
	// sends http and https requests through it, and every other scheme
	// with an HTTP proxy to the http fetcher as a gateway request. SOCKS
	// proxies are applied by the Fetcher's Config.Dialer and leave Proxy nil.
	Proxy *urlparse.URL

	// Options holds scheme-specific settings by key (for example
	// "ftp-method"), as declared in the Scheme records; a fetcher ignores
	// keys it does not know.
	Options Options

	// Body is what the request sends to the resource (an ftp STOR, the
	// text of a mail message, what is typed into a telnet session); nil
	// for a plain retrieval. BodySize is its length when known, else -1.
	// The Client hands Body only to a Fetcher that implements BodySender;
	// it is never sent through an HTTP proxy gateway. After a redirect it
	// is dropped or sent again as Client.KeepPost says; GetBody, when set,
	// gives the same body afresh for that (nil: Body cannot be replayed,
	// as a pipe cannot).
	Body     io.Reader
	BodySize int64
	GetBody  func() (io.Reader, error)
}

// Method is the method an HTTP request for r uses (curl's %{method}):
// its OptMethod (-X), else HEAD for Head, with a Body OptBodyMethod or
// POST, else GET.
func (r *Request) Method() string {
	switch m := r.Options.String(OptMethod); {
	case m != "":
		return m
	case r.Head:
		return "HEAD"
	case r.Body != nil:
		return cmp.Or(r.Options.String(OptBodyMethod), "POST")
	}
	return "GET"
}

// UploadAtEnd as Request.Offset, with a Body to a scheme that
// ResumesUpload, resumes the upload where the resource ends now (curl's
// -C - with -T): the fetcher asks its size (ftp SIZE; none there: 0).
const UploadAtEnd = -1

// EntryType classifies a listing entry.
type EntryType uint8

const (
	EntryUnknown EntryType = iota
	EntryFile
	EntryDir
	EntryLink
	EntryOther // device, socket, gopher info line, …
)

// Entry is one parsed line of a directory-like result (a directory listing,
// a gopher menu).
type Entry struct {
	Name     string    // as the server gave it: data, never a local path
	Type     EntryType //
	Size     int64     // -1 when unknown
	ModTime  time.Time // zero when unknown
	Target   string    // symlink target, when known
	URL      string    // absolute URL of the entry, when it has one
	Raw      string    // the line as received
	Unparsed bool      // the line could not be parsed: only Raw is set

	// What some schemes tell beside the name, for a program that shows
	// the entry (urlget serve): the gopher item type ('0', '1', 'i', …; 0
	// elsewhere) and Gopher+ flag ('+', or '?' for an item with a +ASK
	// form; 0 when none); a title the name does not give (a news
	// article's subject, a news group's description); an article's
	// author; a search hit's score (WAIS; 0 when none).
	ItemType byte
	Plus     byte
	Title    string
	Author   string
	Score    int64
}

// Meta is what is known about a resource before its body is read.
type Meta struct {
	Size         int64     // body size in bytes, -1 when unknown
	ModTime      time.Time // zero when unknown
	ContentType  string    // MIME type, when the protocol says
	ItemType     byte      // gopher item type, 0 elsewhere
	EffectiveURL string    // the URL finally fetched, after redirects
	Method       string    // the method of the request answered (Client.Method: GET after a 302 to a POST), "" when not known
	Status       int       // protocol status (HTTP code, FTP or NNTP reply), 0 when none; ftp: the final reply (226) once the body has been read to its end
	Offset       int64     // where Body starts within the resource (resume)
	Dir          bool      // the result is a listing; see Resource.Listing

	// NotModified says the resource has not changed since the Request's
	// IfModifiedSince or IfNoneMatch (an HTTP 304; an ftp MDTM or a file's
	// time not after IfModifiedSince): Body is empty, ModTime and (HTTP)
	// the ETag field describe the resource. It is an outcome, not an
	// error: the copy the caller holds is current, and a command exits 0.
	NotModified bool

	// Location is the redirect target of a 3xx reply (HTTP Location): as
	// the server sent it from a Fetcher, resolved to an absolute URL by the
	// Client. "" when the reply is not a redirect.
	Location string
	// Referral says that Location is what the URL resolves to, not a
	// reply to show: a name service (prospero) found the resource there.
	// The Client then fetches Location in its place, without
	// FollowRedirects but under the same policy as a redirect
	// (Client.Do).
	Referral bool

	// Proto is the protocol of an HTTP response ("HTTP/1.1"), set for
	// http and https and for the reply of an HTTP proxy gateway to any
	// other scheme; "" when the result is not an HTTP response. It is
	// what decides whether HTTP rules (Client.Fail, retry on 5xx) apply,
	// never the URL's scheme.
	Proto string
	// Reason is the reason phrase of the HTTP status line as received
	// ("Not Found"); "" for other protocols or when the server sent none.
	Reason string
	// Header holds the response header fields in the order and the case
	// in which the server sent them (HTTP, gateway replies); for file the
	// fields curl shows as a file's headers (Content-Length,
	// Accept-ranges, Last-Modified); nil when the protocol has none.
	Header Header
	// Head is an HTTP/1.x response head as received: the status line,
	// the field lines and the empty line, with the line ends (CRLF or
	// bare LF) and folding the server sent, for curl's -i and -D, which
	// echo it so; nil for HTTP/2 and every other protocol.
	Head []byte
	// Interim is the heads of the interim (1xx) replies received before
	// Head, as received, for curl's -i and -D, which show them; nil when
	// none came. In an Error's Reply it is what was read of the heads
	// before the reply was found broken, shown as curl shows it.
	Interim []byte
	// Tunnel is the reply of the HTTP proxy that opened the CONNECT
	// tunnel this reply came through (Status, Proto, Reason, Head), on
	// the request that opened it; nil otherwise (TunnelReply).
	Tunnel *Meta
	// Request is the HTTP request as the fetcher wrote it on the
	// connection, for an archive (a WARC request record): request line,
	// header fields and body as framed, credentials included; inside TLS,
	// the plaintext; nil when not recorded (another protocol, a request
	// over 1 MiB).
	Request []byte

	// Redirects are the replies of the redirects the Client followed to
	// get here, the first first (Status, Location, Header, …); empty when
	// none was followed.
	Redirects []Meta
	// AuthReplies are the replies to the requests a fetcher sent before
	// this one to authenticate, first first (HTTP Digest: the 401
	// challenges answered, the reply to a probe sent without the body);
	// their bodies were discarded. See Replies.
	AuthReplies []Meta
}

// Replies is every reply that led to m, in the order received: each
// redirect's AuthReplies and the redirect, then m's AuthReplies and m, as
// curl shows their header blocks (-i, -I) and counts them (size_header).
func (m *Meta) Replies() []Meta {
	var all []Meta
	for _, r := range append(slices.Clip(m.Redirects), *m) {
		all = append(append(all, r.AuthReplies...), r)
	}
	return all
}

// IsHTTP reports whether m describes an HTTP response (Proto set): an
// http or https reply, or an HTTP proxy gateway's reply for another scheme.
func (m *Meta) IsHTTP() bool { return m.Proto != "" }

// Header is a response header as received: the fields in wire order, names
// in the case the server used, one entry per field line (a repeated field
// is several entries; obsolete line folding is joined with a space).
// Unlike net/http.Header it keeps order and case, so that a header block
// can be shown exactly as the server sent it.
type Header []HeaderField

// HeaderField is one header field line.
type HeaderField struct {
	Name  string // as sent, e.g. "ETag"
	Value string // without the leading and trailing spaces
}

// Get returns the value of the first field named name (compared without
// regard to case), or "".
func (h Header) Get(name string) string {
	v, _ := h.Lookup(name)
	return v
}

// Lookup is Get, and whether the field is present at all.
func (h Header) Lookup(name string) (string, bool) {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return f.Value, true
		}
	}
	return "", false
}

// Values returns the values of every field named name, in order.
func (h Header) Values(name string) []string {
	var vs []string
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			vs = append(vs, f.Value)
		}
	}
	return vs
}

// Resource is an opened URL: metadata, and a streaming body the caller
// must close.
type Resource struct {
	Meta
	Body io.ReadCloser
	// Listing parses one line of a directory-like result into an Entry; it
	// is nil for other results. See Resource.Entries.
	Listing func(line []byte) Entry
	// Render, when non-nil, writes a directory-like result (a menu, a
	// listing, search results) for a person (FormatText) or a script
	// (FormatJSON), reading body as it goes: the caller passes Body (as
	// the Client wrapped it, so that progress, caps and cancellation still
	// apply). It writes through a buffer that it flushes whenever the input
	// pauses, so that a terminal sees items as they arrive. Callers that
	// want the bytes as the server sent them read Body instead.
	Render func(w io.Writer, body io.Reader, f Format) error
	// WireBytes, when set, tells how many bytes of the body have come
	// over the wire so far, for a body that is decoded on the way (HTTP
	// with Config.Compressed): curl's size_download. Nil when the body's
	// bytes are the wire's.
	WireBytes func() int64
	// Trailer, when set, is the trailer section of the body (an HTTP/1.1
	// chunked body's, RFC 9112 §7.1.2): its field lines as received, each
	// ending in CRLF, known once Body has been read to its end (nil when
	// there is none). curl writes them where it writes the head.
	Trailer func() []byte
}

// Format is how Resource.Render presents a result.
type Format uint8

const (
	FormatText Format = iota + 1 // readable, for a person (terminal or file)
	FormatJSON                   // one JSON object a line, for scripts
)

// BodySender is implemented by a Fetcher that can send Request.Body.
type BodySender interface {
	// SendsBody reports whether the fetcher sends Body for u (ftp: to a
	// file name, not a directory URL).
	SendsBody(u *urlparse.URL) bool
}
