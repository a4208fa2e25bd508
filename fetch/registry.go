package fetch

import (
	"slices"
	"strings"
	"sync"

	"github.com/urlget/urlget/urlparse"
)

// A Scheme is everything urlget knows of one URL scheme, declared once by
// the scheme's package (in its init, with Register): the Client's policy,
// the proxy code and the CLI read it, and keep no list of scheme names of
// their own.
type Scheme struct {
	Name string // lower case, as in a URL
	// New builds the scheme's Fetcher from a configuration: a Client calls
	// it once for each Config it uses (see Config), a program without a
	// Client when it likes. It is cheap, and starts nothing.
	New func(Config) Fetcher
	// Port is the scheme's well-known port (0: none). Register fills it in
	// from urlparse.DefaultPort, where the typed URL keeps it.
	Port int
	// Options are the options its fetcher reads from Request.Options. A
	// package that serves several names declares them once, in one of its
	// records, each Option naming in Option.Schemes the names it applies
	// to. The options of this package (OptSearch, OptSSL) are read by the
	// schemes whose Caps say so.
	Options []Option
	// Examples are command lines for 'urlget help SCHEME' and the manual.
	Examples []Example
	Caps     Caps
	// SearchWords, for a scheme with the Search capability, tells whether
	// u takes search words from the caller (OptSearch, the CLI's -d); when
	// it does not, why says so in a few words for a warning ("holds its
	// search words already").
	SearchWords func(u *urlparse.URL) (takes bool, why string)
	// HostPrefix makes a URL written without a scheme one of this scheme
	// when its host starts so ("ftp."): see GuessScheme.
	HostPrefix string
	// Parent, for a DirPaths scheme whose names are paths only in part,
	// is the URL of the directory above the one u names, "" when there is
	// none (a Prospero server's own names have one, its gateways' do not:
	// the parent of GOPHER-GW/host(port)/1/ is no name it can answer);
	// nil: the URL one path segment up.
	Parent func(u *urlparse.URL) string
	// Layout is how the scheme's listings read (menus, articles, search
	// hits, files), for a program that shows them laid out, as urlget
	// serve's HTML does; the zero value is LayoutFiles.
	Layout Layout
	// GatewayReply, for a Gateway scheme, makes the 200 reply of an HTTP
	// proxy gateway for req (an HTTP Resource; its Body the bytes the
	// gateway sent) what the scheme's own fetch gives where the reply's
	// Content-Type or req's URL tells what it is: a listing (Dir, Listing,
	// Render), so that a caller presents it as it presents a direct
	// fetch's, a text in local line ends unless req asks for the bytes as
	// sent. nil: the reply is its bytes.
	GatewayReply func(res *Resource, req *Request)
}

// Layout is how the entries of a scheme's listings are best laid out.
type Layout uint8

const (
	// LayoutFiles: a directory, an entry a file with its size, date and
	// type (ftp, file, prospero).
	LayoutFiles Layout = iota
	// LayoutMenu: a menu, an entry an item with its type, kept in the
	// server's order, text lines among them (gopher).
	LayoutMenu
	// LayoutArticles: news groups or articles, with subject, author and
	// date (news, nntp).
	LayoutArticles
	// LayoutHits: search results with their scores (wais).
	LayoutHits
)

// Caps are what a scheme can do, as policy and the CLI need to know it.
type Caps uint32

const (
	// RedirectTarget: an HTTP redirect may lead to the scheme.
	RedirectTarget Caps = 1 << iota
	// ReferralTarget: a name service's referral (Meta.Referral) may lead
	// to the scheme.
	ReferralTarget
	// Gateway: an HTTP proxy fetches the scheme's URLs on urlget's behalf
	// (an RFC 1630 gateway: "GET <URL> HTTP/1.1").
	Gateway
	// SpeaksHTTP: the scheme is HTTP itself, so an HTTP proxy carries it
	// directly (absolute-form requests, CONNECT).
	SpeaksHTTP
	// Local: the scheme reads this machine (file). It is never proxied,
	// and a referral reaches it only from a server on this machine.
	Local
	// NoProxy: the scheme's URLs are never sent through a proxy (mailto).
	NoProxy
	// Session: the scheme opens an interactive session on the terminal
	// (telnet); the CLI hands the terminal over.
	Session
	// SendsBody: the scheme's fetcher can send Request.Body (an upload, a
	// mail, a POST, a session's input); see BodySender for which URLs.
	SendsBody
	// ResumesUpload: an upload (Request.Body) resumes at Request.Offset,
	// or at the resource's present size (UploadAtEnd): the bytes of the
	// Body the resource holds already are skipped, the rest appended (ftp
	// APPE). Other schemes send the Body whole.
	ResumesUpload
	// Search: the scheme takes search words (OptSearch; the CLI's -d
	// gives them too).
	Search
	// StartTLS: the scheme can switch a plain connection to TLS (OptSSL).
	StartTLS
	// Lists: some of the scheme's results are directory-like (menus,
	// listings, search results), with Resource.Listing or Resource.Render.
	Lists
	// Mail: the scheme sends a message, built from the URL's header
	// fields and Request.Body; the CLI asks before sending.
	Mail
	// Opaque: the scheme's URLs have no authority, so they are written
	// without "//" ("news:", "mailto:", "mid:").
	Opaque
	// Ranges: the scheme honours Request.Range (http, ftp, file, wais);
	// others send the whole resource, as curl does.
	Ranges
	// DirPaths: the URL's path names directories, "/"-separated, so that
	// a listing's parent is the URL one segment up (ftp, file, prospero,
	// http); a gopher selector, say, is opaque.
	DirPaths
)

// Has reports whether every capability in c is in s.
func (s Caps) Has(c Caps) bool { return s&c == c }

// Example is one command line shown in a scheme's help (urlget help
// SCHEME) and in the manual page.
type Example struct {
	Args string // the arguments after "urlget", as typed in a shell
	Help string // one line: what it does
}

var (
	regMu    sync.RWMutex
	registry = map[string]*Scheme{}
	order    []*Scheme // in the order registered
	options  []Option  // every option: this package's, then the records'
	flags    = map[string]bool{}
)

// Register declares a scheme. It is meant to be called from the scheme
// package's init, once per scheme name; a name registered twice, or an
// option flag (long or short) declared twice, panics.
func Register(s Scheme) {
	regMu.Lock()
	defer regMu.Unlock()
	if s.Name == "" || s.New == nil {
		panic("fetch: scheme without a name or a way to build its fetcher: " + s.Name)
	}
	if _, dup := registry[s.Name]; dup {
		panic("fetch: scheme registered twice: " + s.Name)
	}
	s.Port = urlparse.DefaultPort(s.Name)
	s.Options = slices.Clone(s.Options)
	s.Examples = slices.Clone(s.Examples)
	declare(s.Options)
	for i, o := range options {
		if o.caps != 0 && s.Caps.Has(o.caps) {
			options[i].Schemes = append(options[i].Schemes, s.Name)
		}
	}
	registry[s.Name] = &s
	order = append(order, &s)
}

// declare adds options; regMu is held.
func declare(opts []Option) {
	for _, o := range opts {
		if o.Key == "" || o.Kind == 0 {
			panic("fetch: option without a key or a kind: " + o.FlagName())
		}
		for _, name := range []string{"--" + o.FlagName(), "-" + o.Short} {
			if name == "-" {
				continue
			}
			if flags[name] {
				panic("fetch: option flag declared twice: " + name)
			}
			flags[name] = true
		}
		options = append(options, o)
	}
}

// LookupScheme returns the record registered for name.
func LookupScheme(name string) (Scheme, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	s, ok := registry[name]
	if !ok {
		return Scheme{}, false
	}
	return *s, true
}

// NewFetcher builds the Fetcher of the scheme registered as scheme from
// cfg (Scheme.New); false when no such scheme is registered.
func NewFetcher(scheme string, cfg Config) (Fetcher, bool) {
	regMu.RLock()
	s, ok := registry[scheme]
	regMu.RUnlock()
	if !ok {
		return nil, false
	}
	return s.New(cfg), true
}

// HasCaps reports whether scheme is registered with every capability in c.
func HasCaps(scheme string, c Caps) bool {
	regMu.RLock()
	defer regMu.RUnlock()
	s, ok := registry[scheme]
	return ok && s.Caps.Has(c)
}

// Schemes lists the registered schemes, in the order registered.
func Schemes() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	s := make([]string, len(order))
	for i, r := range order {
		s[i] = r.Name
	}
	return s
}

// SchemesWith lists the registered schemes with every capability in c, in
// the order registered.
func SchemesWith(c Caps) []string {
	regMu.RLock()
	defer regMu.RUnlock()
	return schemesWith(c)
}

func schemesWith(c Caps) []string {
	var s []string
	for _, r := range order {
		if r.Caps.Has(c) {
			s = append(s, r.Name)
		}
	}
	return s
}

// Examples gives the examples declared for scheme, in declaration order.
func Examples(scheme string) []Example {
	regMu.RLock()
	defer regMu.RUnlock()
	if s, ok := registry[scheme]; ok {
		return slices.Clone(s.Examples)
	}
	return nil
}

// nameList names the schemes with the capabilities c for a message
// ("http, https and ftp"): those that speak HTTP first, then the others in
// the order registered.
func nameList(c Caps) string {
	regMu.RLock()
	defer regMu.RUnlock()
	names := append(schemesWith(c|SpeaksHTTP), slices.DeleteFunc(schemesWith(c), func(n string) bool {
		return registry[n].Caps.Has(SpeaksHTTP)
	})...)
	switch len(names) {
	case 0:
		return "no"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// SearchWords is the record of u's scheme's SearchWords: whether u takes
// search words from the caller (OptSearch), and if not, why not ("" for a
// scheme that takes none).
func SearchWords(u *urlparse.URL) (takes bool, why string) {
	if s, ok := LookupScheme(u.Scheme); ok && s.SearchWords != nil {
		return s.SearchWords(u)
	}
	return false, ""
}

// GuessScheme is the scheme of a URL written without one ("ftp.example.org/x"),
// as curl guesses it: the scheme whose HostPrefix starts raw (in any case),
// else http.
func GuessScheme(raw string) string {
	regMu.RLock()
	defer regMu.RUnlock()
	for _, r := range order {
		if p := r.HostPrefix; p != "" && len(raw) >= len(p) && strings.EqualFold(raw[:len(p)], p) {
			return r.Name
		}
	}
	return "http"
}

// GuessURL parses a URL or IRI as a person types it (urlparse.ParseIRI),
// as curl does: one without "://" whose scheme is not registered is taken
// as host[:port][/path] and given the scheme GuessScheme says ("ftp." ->
// ftp, "gopher." -> gopher, else http). A registered scheme with a URL it
// refuses ("http:/host", "news:") is that scheme's error, never a host
// named after the scheme.
func GuessURL(raw string) (urlparse.URL, error) {
	u, guess, err := parseOrGuess(raw)
	if !guess {
		return u, err
	}
	g, gerr := urlparse.ParseIRI(GuessScheme(raw) + "://" + raw)
	if gerr == nil {
		return g, nil
	}
	if err == nil {
		return u, nil // no guess fits: let the scheme be refused
	}
	return u, err
}

// authoritySchemes are the schemes whose URLs always name a host, where
// curl takes "scheme:/host" and "scheme:///host" for "scheme://host".
var authoritySchemes = []string{"http", "https", "ftp", "ftps", "gopher", "gophers", "telnet"}

// FixSlashes is raw with curl's repair of the slashes after the scheme
// of a URL that always names a host (http, https, ftp, ftps, gopher,
// gophers, telnet): one or three become two ("http:/h/p" and
// "http:///h/p" are "http://h/p"); anything else is raw as it is. Such a
// URL never parses as written (its host would be empty or missing), so
// callers try it only after the URL as written was refused: on the
// command line and in a redirect's Location, as curl does in both.
func FixSlashes(raw string) string {
	scheme, rest, ok := strings.Cut(raw, ":")
	if !ok {
		return raw
	}
	known := false
	for _, s := range authoritySchemes {
		known = known || strings.EqualFold(scheme, s)
	}
	if !known {
		return raw
	}
	n := len(rest) - len(strings.TrimLeft(rest, "/"))
	if n == 1 || n == 3 {
		raw = scheme + "://" + rest[n:]
	}
	return raw
}

// SchemeLess reports whether raw is a URL written without its scheme, one
// GuessURL gives a guessed scheme ("ftp.example.org/pub/", "h:8080/x").
func SchemeLess(raw string) bool {
	_, guess, _ := parseOrGuess(raw)
	return guess
}

// parseOrGuess parses raw; guess says it names no registered scheme and
// is to be taken as host[:port][/path].
func parseOrGuess(raw string) (u urlparse.URL, guess bool, err error) {
	known := func(s string) bool {
		_, ok := LookupScheme(s)
		return ok
	}
	u, err = urlparse.ParseIRI(raw)
	if err == nil && (strings.Contains(raw, "://") || known(u.Scheme)) {
		return u, false, nil
	}
	if name, _, ok := strings.Cut(raw, ":"); strings.Contains(raw, "://") || ok && known(strings.ToLower(name)) {
		return u, false, err
	}
	return u, true, err
}

// A Namer is a Fetcher that knows a better local file name for a URL than
// its last path segment (-O): a wais document URL ends in a DocID, not a
// name.
type Namer interface {
	// FileName returns a local file name for u, already made safe with
	// SafeName, or "" when the URL's last path segment is the name.
	FileName(u *urlparse.URL) string
}

// FileName is the name the Fetcher of u's scheme gives u when it is a
// Namer, else "".
func FileName(u *urlparse.URL) string {
	f, ok := NewFetcher(u.Scheme, Config{})
	if !ok {
		return ""
	}
	n, ok := f.(Namer)
	if !ok {
		return ""
	}
	return n.FileName(u)
}
