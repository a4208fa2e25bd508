package download

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// Body is what a Downloader sends, as curl's request flags say. For an
// http or https URL: Data as an application/x-www-form-urlencoded POST
// (JSON: as application/json), or with Get in the query of a GET; Form as
// multipart/form-data; Upload as a PUT. For a scheme that takes search
// words (fetch.SearchWords: a gopher search, wais), Data is the words. An
// Upload goes to any scheme that takes a body (ftp: STOR; mailto: the
// text), to the URL with the file's name added when it ends in "/".
type Body struct {
	Data    []byte // curl's -d and its companions, joined with "&" (fetch.ReadData)
	HasData bool   // Data is given (it may be empty)
	JSON    bool   // Data is JSON (--json)
	Get     bool   // Data goes in the query of a GET (-G)
	// Query is added to every URL's query (--url-query); nil: none.
	Query []byte
	Form  *fetch.Form // -F; its files are opened for each attempt
	// FormEscape escapes the Form's names with backslashes (curl's
	// --form-escape; fetch.Form.Backslash).
	FormEscape bool
	// Upload is the file to send (-T); "-" is Downloader.Stdin, which
	// cannot be sent again: a failed upload from it is not retried.
	Upload string
}

// Read fills b from curl's body arguments as given: data (-d,
// --data-binary, --data-raw, --data-urlencode, --json, in command-line
// order; fetch.ReadData), query (--url-query) and form (-F; its files are
// opened for each attempt), read names the files "@FILE" arguments name.
// It refuses what curl refuses together: -F with -d, -F with -G, and -T
// with either body.
func (b *Body) Read(data, query []fetch.DataArg, form []fetch.FormArg, read func(name string) ([]byte, error)) error {
	b.JSON = fetch.IsJSON(data)
	if len(query) > 0 {
		q, err := fetch.ReadData(query, read)
		if err != nil {
			return err
		}
		if len(q) > 0 {
			// --url-query "" alone adds nothing, as in curl.
			b.Query = q
		}
	}
	if len(data) > 0 {
		d, err := fetch.ReadData(data, read)
		if err != nil {
			return err
		}
		b.Data, b.HasData = d, true
	}
	if len(form) > 0 {
		switch {
		case b.HasData:
			return fmt.Errorf("-F/--form and -d/--data: give one or the other")
		case b.Get:
			return fmt.Errorf("-G/--get and -F/--form: a form cannot go in a query string")
		}
		f, err := fetch.ParseForm(form)
		if err != nil {
			return fmt.Errorf("-F/--form %v", err)
		}
		f.Backslash = b.FormEscape
		b.Form = f
	}
	if b.Upload != "" && (b.HasData || b.Form != nil) && !b.Get {
		return fmt.Errorf("-T/--upload-file and %s: give one body only", map[bool]string{true: "-d/--data", false: "-F/--form"}[b.HasData])
	}
	return nil
}

// dataWarning is the warning for Data given to a URL it means nothing for
// ("" when it means something): Do sends no Data there, and says so (Warn)
// before.
func (b *Body) dataWarning(u *urlparse.URL) string {
	if !b.HasData || isHTTP(u.Scheme) {
		return ""
	}
	if takes, why := fetch.SearchWords(u); !takes && why != "" {
		return "-d/--data: " + fetch.Redacted(u) + " " + why + ": the data is not sent"
	}
	return ""
}

// isHTTP tells whether a URL's scheme takes curl's HTTP request flags
// (a body, a method, -G's query).
func isHTTP(scheme string) bool { return fetch.HasCaps(scheme, fetch.SpeaksHTTP) }

// prepareURL is the URL a fetch goes to: with Query, its query added;
// with Upload, a URL ending in "/" gets the file's name.
func (d *Downloader) prepareURL(u *urlparse.URL, r *Result) (*urlparse.URL, error) {
	if d.Body.Query != nil {
		nu, err := fetch.WithQueryData(u, d.Body.Query)
		if err != nil {
			return nil, err
		}
		u = nu
		r.Effective = u.String()
	}
	if d.Body.Upload == "" {
		return u, nil
	}
	nu, err := withUploadName(u, d.Body.Upload)
	if err != nil {
		return nil, err
	}
	if nu != u {
		r.Effective = nu.String()
	}
	return nu, nil
}

// withUploadName gives a URL ending in "/" the upload file's name, as curl
// does (not for stdin), percent-encoded as curl 7.88's URL API writes it:
// hex digits in lower case ("te%5b%5dst.txt").
func withUploadName(u *urlparse.URL, file string) (*urlparse.URL, error) {
	if file == "-" || !strings.HasSuffix(u.RawPath, "/") || u.FTP.Type != 0 || fetch.HasCaps(u.Scheme, fetch.Session) {
		return u, nil
	}
	named, err := fetch.GuessURL(u.String() + lowerHex(urlparse.SegmentEscape(filepath.Base(file))))
	if err != nil {
		return nil, fetch.NewError(fetch.ErrMalformed, "malformed URL", err)
	}
	return &named, nil
}

// shapeRequest puts the Body on one attempt's Request: the body, the
// method and Content-Type it implies, Get's query, and Data as the search
// words of a gopher search or a wais URL.
func (d *Downloader) shapeRequest(req *fetch.Request) error {
	u := req.URL
	b := &d.Body
	// The request's options as this attempt makes them: req.Options may
	// be answers shared by every attempt, never written to.
	opts := fetch.Options{}
	for k, v := range req.Options {
		opts[k] = v
	}
	defer func() {
		if len(opts) > 0 {
			req.Options = opts
		}
	}()
	if b.HasData && !isHTTP(u.Scheme) {
		if takes, _ := fetch.SearchWords(u); takes && !b.JSON {
			opts[fetch.OptSearch] = string(b.Data)
		}
		return nil // DataWarning
	}
	if !isHTTP(u.Scheme) {
		return d.uploadBody(req, opts)
	}
	switch {
	case b.HasData && b.Get:
		nu, err := fetch.WithQueryData(u, b.Data)
		if err != nil {
			return err
		}
		req.URL = nu
		return d.uploadBody(req, opts)
	case b.HasData:
		if b.JSON {
			fetch.SetJSONData(req, opts, b.Data)
		} else {
			fetch.SetFormData(req, opts, b.Data)
		}
		return nil
	case b.Form != nil:
		r, n, err := d.openForm()
		if err != nil {
			return err
		}
		req.Body, req.BodySize = d.sending(r, n), n
		if !b.Form.ReadsStdin() {
			req.GetBody = func() (io.Reader, error) {
				r, n, err := d.openForm()
				return d.sending(r, n), err
			}
		}
		fetch.AddBodyHeaders(opts, b.Form.ContentType(), req.BodySize)
		return nil
	}
	return d.uploadBody(req, opts)
}

// sending is Sending, when set.
func (d *Downloader) sending(r io.Reader, size int64) io.Reader {
	if d.Sending == nil {
		return r
	}
	return d.Sending(r, size)
}

// openForm opens the Form body, its files as an Upload is opened.
func (d *Downloader) openForm() (io.Reader, int64, error) {
	b, n, err := d.Body.Form.Open(func(name string) (io.Reader, int64, error) {
		if name == "-" {
			// curl reads a form's stdin whole before it sends, and
			// sends its length: no chunked body.
			b, err := io.ReadAll(d.Stdin)
			if err != nil {
				return nil, 0, fetch.NewError(fetch.ErrRead, "standard input", err)
			}
			return bytes.NewReader(b), int64(len(b)), nil
		}
		return openUpload(name, name, d.Stdin)
	})
	if err != nil {
		// curl's exit 26: a local file could not be read.
		return nil, 0, &fetch.Error{Kind: fetch.ErrRead, Msg: "-F/--form " + err.Error()}
	}
	return b, n, nil
}

// uploadBody attaches the Upload to a request: http and https get a PUT
// (unless the Client's options give a method), a mail the text after its
// URL's body=, a session (telnet) it as what is typed, as curl sends it.
// The method and the Expect header go into opts, the request's options as
// shapeRequest is making them.
func (d *Downloader) uploadBody(req *fetch.Request, opts fetch.Options) error {
	name := d.Body.Upload
	if name == "" || name == "-" && fetch.HasCaps(req.URL.Scheme, fetch.Session) {
		return nil // a session's input is stdin
	}
	b, n, err := openUpload("-T/--upload-file "+name, name, d.Stdin)
	if err != nil {
		return err
	}
	req.Body, req.BodySize = d.sending(b, n), n
	if name != "-" {
		req.GetBody = func() (io.Reader, error) {
			b, n, err := openUpload("-T/--upload-file "+name, name, d.Stdin)
			return d.sending(b, n), err
		}
	}
	if isHTTP(req.URL.Scheme) {
		opts[fetch.OptBodyMethod] = "PUT" // unless -X: a GET after a 303, as curl
		fetch.AddBodyHeader(opts, "Expect", "100-continue")
	}
	return nil
}

// openUpload opens a file to send: name, or "-" for stdin (size -1:
// unknown). A file is closed at its end, on an error, or when the reader
// is closed; an error is a *fetch.Error (ErrRead, curl's 26).
func openUpload(what, name string, stdin io.Reader) (io.Reader, int64, error) {
	if name == "-" {
		return stdin, -1, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, fetch.NewError(fetch.ErrRead, what, fetch.PathCause(err))
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fetch.NewError(fetch.ErrRead, what, fetch.PathCause(err))
	}
	return closingReader{f}, st.Size(), nil
}

// closingReader closes its file at EOF or on an error, or when closed.
type closingReader struct{ f *os.File }

func (r closingReader) Close() error { return r.f.Close() }

func (r closingReader) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	if err != nil {
		r.f.Close()
	}
	return n, err
}

// lowerHex is s, a percent-encoded string, with the hex digits of its
// percent-encodings in lower case.
func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lowerASCII(b[i+1]), lowerASCII(b[i+2])
			i += 2
		}
	}
	return string(b)
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
