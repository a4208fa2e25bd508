package fetch

import (
	"bytes"
	"io"
	"strings"

	"github.com/urlget/urlget/urlparse"
)

// DataKind is how one of curl's data arguments is read (the -d family).
type DataKind uint8

const (
	DataPlain     DataKind = iota // -d/--data: "@FILE" is the file, CR and LF dropped
	DataBinary                    // --data-binary: "@FILE" is the file as it is
	DataRaw                       // --data-raw: the text as it is, no "@"
	DataURLEncode                 // --data-urlencode: TEXT, =TEXT, NAME=TEXT, @FILE or NAME@FILE, percent-encoded
	DataJSON                      // --json (curl 7.82): as --data-binary, and joined with nothing before it
	DataURLQuery                  // --url-query (curl 7.87): as --data-urlencode with lower-case hex digits; "+TEXT" as it is
)

// String is the curl flag the kind comes from, without dashes.
func (k DataKind) String() string {
	return [...]string{"data", "data-binary", "data-raw", "data-urlencode", "json", "url-query"}[k]
}

// A DataArg is one data argument, in command-line order.
type DataArg struct {
	Kind  DataKind
	Value string
}

// A DataError is a data argument that could not be read (a file named with
// "@").
type DataError struct {
	Arg DataArg
	Err error
}

func (e *DataError) Error() string {
	return "--" + e.Arg.Kind.String() + " " + e.Arg.Value + ": " + e.Err.Error()
}

func (e *DataError) Unwrap() error { return e.Err }

// ReadData reads data arguments, in order, joined as curl joins them (an
// "&" before each piece but a --json one, which is appended as it is):
// the body of an urlencoded POST (SetFormData) or, with curl's -G, a query
// (WithQueryData). read reads a file named with "@" whole ("-" is stdin,
// for read to say): these are form data, not transfers. An error is a
// *DataError.
func ReadData(args []DataArg, read func(name string) ([]byte, error)) ([]byte, error) {
	var parts [][]byte
	for _, a := range args {
		var p []byte
		var err error
		switch a.Kind {
		case DataPlain, DataBinary, DataJSON:
			if name, ok := strings.CutPrefix(a.Value, "@"); ok {
				p, err = read(name)
				if a.Kind == DataPlain {
					p = []byte(strings.NewReplacer("\r", "", "\n", "").Replace(string(p)))
				}
			} else {
				p = []byte(a.Value)
			}
		case DataRaw:
			p = []byte(a.Value)
		case DataURLEncode:
			p, err = URLEncodeData(a.Value, read)
		case DataURLQuery:
			if raw, ok := strings.CutPrefix(a.Value, "+"); ok {
				p = []byte(raw)
			} else {
				p, err = urlEncodeData(a.Value, read, hexLower)
			}
		}
		if err != nil {
			return nil, &DataError{Arg: a, Err: err}
		}
		if len(parts) > 0 && a.Kind != DataJSON {
			parts = append(parts, []byte("&"))
		}
		parts = append(parts, p)
	}
	return bytes.Join(parts, nil), nil
}

// IsJSON reports whether args hold a --json piece: the body is then sent
// as JSON (SetJSONData; curl's rule: one --json among -d's makes it so).
func IsJSON(args []DataArg) bool {
	for _, a := range args {
		if a.Kind == DataJSON {
			return true
		}
	}
	return false
}

// URLEncodeData is one --data-urlencode argument: "TEXT", "=TEXT",
// "NAME=TEXT", "@FILE" or "NAME@FILE", as curl reads them (read reads a
// FILE).
func URLEncodeData(v string, read func(name string) ([]byte, error)) ([]byte, error) {
	return urlEncodeData(v, read, hexUpper)
}

// The hex digits of a percent-encoding: curl 7.88 writes --data-urlencode's
// in upper case, --url-query's (through its URL API) in lower case.
const (
	hexUpper = "0123456789ABCDEF"
	hexLower = "0123456789abcdef"
)

func urlEncodeData(v string, read func(name string) ([]byte, error), hexd string) ([]byte, error) {
	eq, at := strings.IndexByte(v, '='), strings.IndexByte(v, '@')
	switch {
	case eq >= 0 && (at < 0 || eq < at):
		name := v[:eq]
		enc := formEscape(v[eq+1:], hexd)
		if name == "" {
			return []byte(enc), nil
		}
		return []byte(name + "=" + enc), nil
	case at >= 0:
		b, err := read(v[at+1:])
		if err != nil {
			return nil, err
		}
		if at == 0 {
			return []byte(formEscape(string(b), hexd)), nil
		}
		return []byte(v[:at] + "=" + formEscape(string(b), hexd)), nil
	}
	return []byte(formEscape(v, hexd)), nil
}

func formEscape(s, hexd string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		if c == ' ' {
			b.WriteByte('+')
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexd[c>>4])
		b.WriteByte(hexd[c&15])
	}
	return b.String()
}

// WithQueryData is u with data appended to its query, after "&" when it
// has one that is not empty (curl's -G: the data of a GET; --url-query).
func WithQueryData(u *urlparse.URL, data []byte) (*urlparse.URL, error) {
	q := u.RawQuery
	if q != "" {
		q += "&"
	}
	withQuery := u.Ref
	withQuery.HasQuery, withQuery.RawQuery = true, q+string(data)
	nu, err := urlparse.Parse(withQuery.String())
	if err != nil {
		return nil, NewError(ErrMalformed, "the URL with the query data", err)
	}
	return &nu, nil
}

// SetFormData makes data req's body, application/x-www-form-urlencoded
// (curl's -d), sent again after a redirect that keeps the method; its
// header lines go in opts (AddBodyHeaders).
func SetFormData(req *Request, opts Options, data []byte) {
	setData(req, data)
	AddBodyHeaders(opts, "application/x-www-form-urlencoded", req.BodySize)
}

// setData makes data the request's body, given again for a redirect.
func setData(req *Request, data []byte) {
	s := string(data)
	req.Body, req.BodySize = strings.NewReader(s), int64(len(s))
	req.GetBody = func() (io.Reader, error) { return strings.NewReader(s), nil }
}

// SetJSONData is SetFormData for curl's --json: the body with
// "Content-Type: application/json" and "Accept: application/json" (both
// replaced by -H lines of those names).
func SetJSONData(req *Request, opts Options, data []byte) {
	setData(req, data)
	AddBodyHeaders(opts, "application/json", req.BodySize)
	AddBodyHeader(opts, "Accept", "application/json")
}

// ExpectThreshold is the body size over which curl sends "Expect:
// 100-continue" with a POST (an upload with -T always sends it).
const ExpectThreshold = 1 << 20

// AddBodyHeaders adds the header lines of a body of type ctype and size
// (-1: unknown) to opts: Content-Type, and "Expect: 100-continue" for a
// body over ExpectThreshold or of unknown size, as curl.
func AddBodyHeaders(opts Options, ctype string, size int64) {
	AddBodyHeader(opts, "Content-Type", ctype)
	if size > ExpectThreshold || size < 0 {
		AddBodyHeader(opts, "Expect", "100-continue")
	}
}

// AddBodyHeader adds "name: value" to OptBodyHeader, the header lines that
// go with the request's body; OptHeader lines (-H) replace them (curl's
// rule).
func AddBodyHeader(opts Options, name, value string) {
	opts[OptBodyHeader] = strings.Join(append(opts.Strings(OptBodyHeader), name+": "+value), "\n")
}
