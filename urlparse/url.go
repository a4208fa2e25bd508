package urlparse

// URL is a parsed absolute URL: the generic RFC 3986 components (embedded
// Ref) plus the typed fields of its scheme. Exactly one of the scheme
// structs is filled in, the one named by Scheme; for a scheme urlget does
// not know, only Ref is.
//
// All typed string fields are percent-decoded and hold exactly the bytes the
// scheme's RFC says go on the wire: nothing is trimmed, folded or fixed.
// Before any of them reaches a line protocol, call CheckLine.
type URL struct {
	Ref

	FTP      FTP
	HTTP     HTTP
	Gopher   Gopher
	Mailto   Mailto
	News     News
	NNTP     NNTP
	Telnet   Telnet
	WAIS     WAIS
	File     File
	Prospero Prospero

	schemeErr *Error // the scheme layer's verdict, when Parse refused
}

// FTP is an ftp URL (RFC 1738 §3.2): ftp://user:password@host:port/cwd1/cwd2/name;type=X
// User, password, host and port are in Ref.
type FTP struct {
	// CWD holds the <cwd> segments, each percent-decoded after splitting on
	// a literal "/": "%2F" stays inside its segment and empty segments are kept.
	CWD []string
	// Name is the decoded <name> (the last segment); "" for a directory URL.
	Name string
	// Type is the ;type= typecode: 'a', 'i' or 'd', or 0 when absent.
	Type byte
}

// HTTP is an http or https URL (RFC 1738 §3.3): path and search are Ref.Path
// and Ref.Query.
type HTTP struct {
	// Userinfo is set when the URL carried userinfo, which RFC 1738 §3.3
	// does not allow; the parser accepts it so the caller can decide.
	Userinfo bool
}

// Gopher is a gopher or gophers URL (RFC 1738 §3.4, RFC 4266).
type Gopher struct {
	Type      byte   // item type; '1' when the gopher-path is empty
	Selector  string // decoded selector (may hold '?', '/', anything but TAB)
	Search    string // decoded search string, after the first encoded TAB
	HasSearch bool
	Plus      string // decoded gopher+ string, after the second encoded TAB
	HasPlus   bool
}

// Header is one RFC 6068 hfield, decoded.
type Header struct {
	Name  string
	Value string
}

// Mailto is a mailto URL (RFC 6068).
type Mailto struct {
	To      []string // decoded addresses from the path
	Headers []Header // decoded hfields in order (to, cc, subject, body, …)
}

// News is a news URL (RFC 1738 §3.6): exactly one of the three forms.
type News struct {
	Group     string // news:comp.lang.go
	MessageID string // news:abc@host (without angle brackets, which may be pasted: see ParseIRI)
	All       bool   // news:*
}

// NNTP is an nntp URL (RFC 1738 §3.7): nntp://host:port/group/article.
// A message-id pasted in place of the article or of the group
// (nntp://host/group/<id@host>, nntp://host/<id@host>) is MessageID.
type NNTP struct {
	// All is set for nntp://host/ (or nntp://host), which names no group:
	// the server's list of groups, as lynx reads it (an extension: RFC
	// 1738 wants a group).
	All       bool
	Group     string // "" when the URL names only a message-id, or All
	Article   string // digits only; "" when absent
	MessageID string // without angle brackets; "" when absent
}

// Telnet is a telnet URL (RFC 1738 §3.8): all of it is in Ref.
type Telnet struct{}

// WAIS is a wais URL (RFC 1738 §3.9):
//
//	wais://host:port/database
//	wais://host:port/database?search
//	wais://host:port/database/wtype/wpath
//	wais://host:port/database/wtype/length/wpath   (as real WAIS clients write)
type WAIS struct {
	Database  string
	Search    string
	HasSearch bool
	DocType   string // wtype
	DocPath   string // wpath
	Length    string // document length in the four-segment form; "" otherwise
	// DocFields is the wpath read as a DocID in the notation of Lynx and
	// CERN libwww, "<tag>=<value>;" for every field (values percent-decoded
	// one by one, so an escaped ";" or "=" stays inside its value); nil when
	// the wpath is not written that way (see WAISDocFieldsURL).
	DocFields []WAISField
}

// WAISField is one field of a WAIS DocID: its tag (1 original server,
// 2 original database, 3 original local id, 4–6 the same for the
// distributor, 7 copyright disposition) and its bytes.
type WAISField struct {
	Tag   int
	Value string
}

// File is a file URL (RFC 1738 §3.10).
type File struct {
	// Local is true when the host is empty or "localhost" (this machine).
	// Any other host is kept in Ref.Host and refused by the fetcher.
	Local bool
	Path  string // decoded path
}

// Field is one Prospero ;field=value pair, decoded.
type Field struct {
	Name  string
	Value string
}

// Prospero is a prospero URL (RFC 1738 §3.11): prospero://host:port/hsoname;field=value
type Prospero struct {
	HSOName string  // decoded; may start with "/" (the URL path then starts "//")
	Fields  []Field // in order
}

// Found is a URL found in running text by Extract.
type Found struct {
	URL        string // the URL, with whitespace inside a <URL:…> or <…> wrapper removed
	Start, End int    // byte span in the text, wrapper included
}
