package fetch

import (
	"io"
	"strings"
	"testing"
)

func TestPresent(t *testing.T) {
	res := func() *Resource {
		return &Resource{Meta: Meta{Dir: true, ContentType: "text/plain; charset=x"},
			Body:    io.NopCloser(strings.NewReader("a\nb<\n")),
			Listing: func(l []byte) Entry { return Entry{Name: string(l), Type: EntryFile, Size: -1} }}
	}
	r := res()
	if got := r.PresentedType(FormatJSON); got != "application/x-ndjson" {
		t.Errorf("PresentedType(JSON) = %q", got)
	}
	b, err := io.ReadAll(r.Present(FormatJSON))
	if want := "{\"name\":\"a\",\"type\":\"file\"}\n{\"name\":\"b<\",\"type\":\"file\"}\n"; err != nil || string(b) != want {
		t.Errorf("Present(JSON) = %q, %v; want %q", b, err, want)
	}
	// Without a renderer there is no text form, and a zero Format is the
	// body as sent.
	for _, f := range []Format{FormatText, 0} {
		r := res()
		if r.Presents(f) || r.Present(f) != r.Body || r.PresentedType(f) != r.ContentType {
			t.Errorf("format %d: a listing without Render was presented", f)
		}
	}
	r = res()
	r.Render = func(w io.Writer, body io.Reader, f Format) error {
		_, err := io.WriteString(w, "rendered")
		return err
	}
	if got := r.PresentedType(FormatText); got != "text/plain; charset=x" {
		t.Errorf("PresentedType(Text) = %q", got)
	}
	if b, _ := io.ReadAll(r.Present(FormatText)); string(b) != "rendered" {
		t.Errorf("Present(Text) = %q", b)
	}
}
