package fetch

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"path"
	"strings"
)

// Presents reports whether Present shows r as a rendered listing rather
// than its body as received: r is a listing (Dir) with a renderer of its
// own (Render), or asked for as JSON lines (f is FormatJSON), which every
// listing with a Listing parser can give. A zero Format presents nothing:
// every result as the server sent it.
func (r *Resource) Presents(f Format) bool {
	return f != 0 && r.Dir && (r.Render != nil || f == FormatJSON)
}

// PresentedType is the Content-Type of what Present gives: the resource's
// own, unless a listing is rendered — then text (a wais search's
// tab-separated body becomes a readable listing) or JSON lines.
func (r *Resource) PresentedType(f Format) string {
	switch {
	case !r.Presents(f):
		return r.ContentType
	case f == FormatJSON:
		return "application/x-ndjson"
	case strings.HasPrefix(r.ContentType, "text/plain"):
		return r.ContentType
	}
	return "text/plain"
}

// Present is what a program shows of r: a listing (see Presents) rendered
// for a person (FormatText: Render's readable text) or a script
// (FormatJSON: Render's JSON lines, else the parsed entries one JSON object
// a line, Entry.MarshalJSON); every other result its Body itself. The
// rendering streams (a pipe, written as the body is read); closing the
// reader ends it.
func (r *Resource) Present(f Format) io.ReadCloser {
	if !r.Presents(f) {
		return r.Body
	}
	render := func(w io.Writer) error { return r.Render(w, r.Body, f) }
	if r.Render == nil {
		render = func(w io.Writer) error { return Buffered(w, r.Body, r.writeEntriesJSON) }
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(render(pw)) }()
	return pr
}

// writeEntriesJSON writes a listing's parsed entries, one JSON object a
// line.
func (r *Resource) writeEntriesJSON(w io.Writer, body io.Reader) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for e, err := range r.EntriesFrom(body) {
		if err != nil {
			return err
		}
		if err := enc.Encode(e); err != nil {
			var fe *Error
			if errors.As(err, &fe) {
				return err
			}
			return NewError(ErrWrite, "failure writing output to destination", err)
		}
	}
	return nil
}

// TypeByName is the media type a file name's extension suggests (Go's
// mime table, the system's mime.types added), without parameters: the
// table says charset=utf-8 for text, which a name cannot tell. "" when the
// extension is unknown.
func TypeByName(name string) string {
	t, _, _ := strings.Cut(mime.TypeByExtension(path.Ext(name)), ";")
	return t
}
