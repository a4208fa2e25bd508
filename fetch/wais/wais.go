package wais

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/wais/apdu"
	"github.com/urlget/urlget/urlparse"
)

// Option keys read from fetch.Request.Options (besides fetch.OptSearch).
const (
	OptMaxResults   = "wais-max-results"
	OptAllowForward = "wais-allow-forward"
	OptPrompt       = "wais-prompt"
	OptChunkSize    = "wais-chunk-size"
	OptPipeline     = "wais-pipeline"
)

// DefaultPort is the port of wais URLs without one (Z39.50).
const DefaultPort = 210

// DefaultMaxResults is how many hits a search asks for (waissearch's 40).
const DefaultMaxResults = 40

// maxMaxResults bounds wais-max-results: freeWAIS-sf allocates a header
// per possible hit, and every hit costs memory here.
const maxMaxResults = 10000

// LockstepChunkSize is the chunk of waissearch and Lynx (CHARS_PER_PAGE),
// which every server takes: Fetcher.ChunkSize or wais-chunk-size for a
// server that cannot send more at a time.
const LockstepChunkSize = 10000

// maxWindow bounds the requests sent ahead (wais-pipeline).
const maxWindow = 64

func init() {
	schemes := []string{"wais"}
	fetch.Register(fetch.Scheme{Name: "wais", New: New,
		Caps:        fetch.ReferralTarget | fetch.Gateway | fetch.Search | fetch.Lists | fetch.Ranges,
		Layout:      fetch.LayoutHits,
		SearchWords: searchWords,
		Options: []fetch.Option{
			{Key: OptMaxResults, Kind: fetch.Int, Arg: "N", Default: strconv.Itoa(DefaultMaxResults), Schemes: schemes,
				Help: "ask a search for at most N documents (1 to " + strconv.Itoa(maxMaxResults) + ")"},
			{Key: OptAllowForward, Kind: fetch.Bool, Schemes: schemes,
				Help: "allow a database named db@host:port, which makes the server forward the search to that host"},
			{Key: OptPrompt, Kind: fetch.Bool, Schemes: schemes,
				Help: "ask for the search words when a database URL has none (instead of listing the database's help records)"},
			{Key: OptChunkSize, Kind: fetch.Int, Arg: "BYTES", Default: "0", Schemes: schemes,
				Help: "ask for a document BYTES at a time (0: as many as the server's buffer holds, halved while it sends empty replies; " +
					strconv.Itoa(LockstepChunkSize) + ": what waissearch and Lynx ask)"},
			{Key: OptPipeline, Kind: fetch.Int, Arg: "N", Default: "1", Schemes: schemes,
				Help: "keep N document requests in flight (1: one at a time; freeWAIS-sf closes the connection on a request sent ahead)"},
		},
		Examples: []fetch.Example{
			{Args: "wais://wais.example.org/src?gopher", Help: "search a database"},
			{Args: `-d "gopher protocol" wais://wais.example.org/src`, Help: "the same search, words given with -d (or --search)"},
		}})
}

// Fetcher fetches wais URLs. The zero value is ready to use and is what is
// registered; the fields are for tests and benchmarks.
type Fetcher struct {
	// ChunkSize is the number of bytes asked for per retrieval. 0 asks for
	// as many as fit the server's message buffer (the size its
	// InitResponse gives, else freeWAIS-sf's 100000) and halves the chunk
	// while the server answers with empty messages; LockstepChunkSize is
	// waissearch's and Lynx's. It is lowered to fit the server's buffer.
	// The option wais-chunk-size overrides it.
	ChunkSize int
	// Window is how many chunk requests are in flight at once (0 or 1:
	// one at a time, the only way freeWAIS-sf takes them). More is for
	// servers known to answer requests sent ahead. The option
	// wais-pipeline overrides it.
	Window int

	Config fetch.Config // the dialer and verbose log
}

// New is the Fetcher for cfg (fetch.Scheme.New).
func New(cfg fetch.Config) fetch.Fetcher { return Fetcher{Config: cfg} }

// plan is one request, worked out from the URL and options before any
// connection is made.
type plan struct {
	url  string
	u    *urlparse.URL
	addr string
	db   string

	doc     bool
	words   string
	maxDocs int

	docID   []byte
	docType string
	length  int64 // from the URL; -1 when unknown
}

func malformed(msg string, err error) error {
	return &fetch.Error{Kind: fetch.ErrMalformed, Msg: msg, Err: err}
}

// checkText refuses CR, LF and NUL in text the server logs and parses.
func checkText(what, s string) error {
	if i := strings.IndexAny(s, "\r\n\x00"); i >= 0 {
		return malformed(fmt.Sprintf("wais: the %s holds a control character (byte %d: %q)", what, i, s[i]), nil)
	}
	return nil
}

func makePlan(req *fetch.Request) (*plan, error) {
	u := req.URL
	if u == nil {
		return nil, malformed("wais: no URL", nil)
	}
	if u.Scheme != "wais" {
		return nil, &fetch.Error{Kind: fetch.ErrUnsupported, Msg: "wais: cannot fetch a " + u.Scheme + " URL"}
	}
	// The Client has checked already; a direct caller may not have.
	if err := u.CheckLine(); err != nil {
		return nil, malformed("wais: refused before connecting", err)
	}
	p := &plan{url: u.String(), u: u, length: -1}
	if u.Host == "" {
		return nil, malformed("wais: the URL has no host", nil)
	}
	port := u.Port
	if port < 0 {
		port = DefaultPort
	}
	if port == 0 || port > 65535 {
		return nil, malformed("wais: bad port "+strconv.Itoa(port), nil)
	}
	p.addr = net.JoinHostPort(u.Host, strconv.Itoa(port))
	w := &u.WAIS
	p.db = w.Database
	if p.db == "" {
		return nil, malformed("wais: the URL names no database (wais://host/database)", nil)
	}
	if err := checkText("database name", p.db); err != nil {
		return nil, err
	}
	allow, err := req.Options.Bool(OptAllowForward)
	if err != nil {
		return nil, err
	}
	if strings.IndexByte(p.db, '@') >= 0 && !allow {
		return nil, malformed(fmt.Sprintf("wais: the database %q names another server: this server would forward the request there; allow it with --%s",
			fetch.SanitizeLine(p.db, 200), OptAllowForward), nil)
	}

	if w.DocType != "" || w.DocPath != "" {
		p.doc = true
		p.docType = w.DocType
		if w.DocFields != nil {
			p.docID = apdu.AppendDocID(nil, w.DocFields)
		} else {
			p.docID = []byte(w.DocPath)
		}
		if len(p.docID) == 0 {
			return nil, malformed("wais: the document URL has no document id", nil)
		}
		if len(p.docID) > maxDocID {
			return nil, malformed(fmt.Sprintf("wais: a document id of %d bytes (at most %d)", len(p.docID), maxDocID), nil)
		}
		if w.Length != "" {
			n, err := strconv.ParseInt(w.Length, 10, 64)
			if err != nil {
				return nil, malformed("wais: bad document length "+strconv.Quote(w.Length), nil)
			}
			p.length = n
		}
		return p, nil
	}

	n, err := req.Options.Int(OptMaxResults, DefaultMaxResults)
	if err != nil {
		return nil, err
	}
	if n < 1 || n > maxMaxResults {
		return nil, malformed(fmt.Sprintf("wais: %s must be 1 to %d, not %d", OptMaxResults, maxMaxResults, n), nil)
	}
	p.maxDocs = int(n)
	switch {
	case w.HasSearch:
		// As Lynx reads it: "+" is a space, %2B a plus.
		p.words = urlparse.Unescape(strings.ReplaceAll(u.RawQuery, "+", " "))
	case req.Options.Has(fetch.OptSearch):
		p.words = req.Options.String(fetch.OptSearch)
	default:
		prompt, err := req.Options.Bool(OptPrompt)
		if err != nil {
			return nil, err
		}
		interactive, err := req.Options.Bool(fetch.OptInteractive)
		if err != nil {
			return nil, err
		}
		if prompt || interactive {
			return nil, &fetch.InputNeededError{Key: fetch.OptSearch, Prompt: "Search: ",
				Err: malformed("wais: "+p.url+" is a database: give the search words in the URL (…?words) or with -d WORDS", ErrNeedSearch)}
		}
		// No words: the empty search, which gives the help records.
	}
	if err := checkText("search", p.words); err != nil {
		return nil, err
	}
	return p, nil
}

// ErrNeedSearch is wrapped by the InputNeededError of a database URL
// without words when the wais-prompt option asks for them.
var ErrNeedSearch error = fetch.Sentinel("wais: a database URL needs search words")

// maxDocID bounds a DocID taken from a URL (freeWAIS's are ~150 bytes).
const maxDocID = 8 << 10

// contentType is the MIME type Lynx gives a WAIS document type.
func contentType(t string) string {
	switch strings.ToUpper(t) {
	case "TEXT", "TEXT-FTP", "FTP-DIR":
		return "text/plain"
	case "HTML":
		return "text/html"
	case "GIF":
		return "image/gif"
	case "WSRC":
		return "application/x-wais-source"
	case "PS":
		return "application/postscript"
	}
	return "application/octet-stream"
}

// Open fetches req.URL. See the package documentation.
func (f Fetcher) Open(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	p, err := makePlan(req)
	if err != nil {
		return nil, err
	}
	if req.Body != nil {
		return nil, &fetch.Error{Kind: fetch.ErrUnsupported, Msg: "wais: nothing can be sent to a WAIS server"}
	}
	if p.doc {
		return f.openDoc(ctx, req, p)
	}
	return openSearch(ctx, &f.Config, req, p)
}

// FileName is the local file name of a document URL (-O): the base name
// of the file in its DocID's local id, "<start> <end> <path>" in
// freeWAIS-sf's DocIDs, decoded and made safe with fetch.SafeName. It is
// "" for any other URL, or a DocID without a file path.
func (Fetcher) FileName(u *urlparse.URL) string {
	w := &u.WAIS
	fields := w.DocFields
	if fields == nil && w.DocPath != "" {
		fields, _ = apdu.DocIDFields([]byte(w.DocPath))
	}
	for _, tag := range []int{3, 6} { // the original local id, else the distributor's
		for _, f := range fields {
			if f.Tag != tag {
				continue
			}
			parts := strings.SplitN(f.Value, " ", 3)
			if len(parts) < 3 {
				continue
			}
			path := strings.TrimRight(parts[2], "/")
			if name := fetch.SafeName(path[strings.LastIndexByte(path, '/')+1:]); name != "" {
				return name
			}
		}
	}
	return ""
}

// emptyBody is the body of a Head request.
func emptyBody() io.ReadCloser { return io.NopCloser(strings.NewReader("")) }

// searchWords is the Scheme record's SearchWords: a database's URL without
// a search of its own takes the words; a document's does not.
func searchWords(u *urlparse.URL) (bool, string) {
	switch {
	case u.WAIS.HasSearch:
		return false, "holds its search words already"
	case u.WAIS.DocType != "" || u.WAIS.DocPath != "":
		return false, "is a WAIS document, not a database to search"
	}
	return true, ""
}
