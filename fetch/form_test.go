package fetch_test

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
)

// TestForm: a multipart body as curl's -F writes it.
func TestForm(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "a.txt")
	os.WriteFile(f, []byte("file text"), 0o644)
	form, err := fetch.ParseForm([]fetch.FormArg{{Text: "v=1"}, {Text: "up=@" + f}, {Text: "txt=<" + f}, {Text: `q"uote=x;type=text/x`}})
	if err != nil {
		t.Fatal(err)
	}
	r, n, err := form.Open(func(name string) (io.Reader, int64, error) {
		b, err := os.ReadFile(name)
		return strings.NewReader(string(b)), int64(len(b)), err
	})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r)
	boundary := strings.TrimPrefix(form.ContentType(), "multipart/form-data; boundary=")
	want := strings.ReplaceAll("--B\r\nContent-Disposition: form-data; name=\"v\"\r\n\r\n1\r\n"+
		"--B\r\nContent-Disposition: form-data; name=\"up\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nfile text\r\n"+
		"--B\r\nContent-Disposition: form-data; name=\"txt\"\r\n\r\nfile text\r\n"+
		"--B\r\nContent-Disposition: form-data; name=\"q%22uote\"\r\nContent-Type: text/x\r\n\r\nx\r\n--B--\r\n", "B", boundary)
	if string(b) != want || n != int64(len(b)) {
		t.Errorf("form body (%d bytes, said %d):\n%q\nwant\n%q", len(b), n, b, want)
	}
	if _, err := fetch.ParseForm([]fetch.FormArg{{Text: "novalue"}}); err == nil {
		t.Error("-F novalue accepted")
	}
}

// TestFormWarnings: a ";KEYWORD" ParseForm does not know is skipped with a
// warning, as curl skips it; one it cannot do is an error.
func TestFormWarnings(t *testing.T) {
	form, err := fetch.ParseForm([]fetch.FormArg{{Text: "a=1;odd=2"}, {Text: "b=<f;filename=x"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`-F "a=1;odd=2": skipped the unknown ;odd=2`, `-F "b=<f;filename=x": a file name is not allowed here: x`}
	if !slices.Equal(form.Warnings, want) {
		t.Errorf("warnings %q, want %q", form.Warnings, want)
	}
	if _, err := fetch.ParseForm([]fetch.FormArg{{Text: "a=@f;headers=X-A: 1"}}); err == nil || !strings.Contains(err.Error(), ";headers= is not supported") {
		t.Errorf("headers=: %v", err)
	}
}

// TestFormMultipartReader: every kind of part Form writes (text, a file
// sent as a file, a file's text, a name that needs quoting, several files
// in one multipart/mixed part) reads back with mime/multipart, the parser
// of the standard library, with the bytes that went in.
func TestFormMultipartReader(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.bin")
	os.WriteFile(a, []byte("file text\r\n--not a boundary\r\n"), 0o644)
	os.WriteFile(b, []byte{0, 1, 2, '\r', '\n'}, 0o644)
	form, err := fetch.ParseForm([]fetch.FormArg{{Text: "v=1"}, {Text: "up=@" + a}, {Text: "txt=<" + a}, {Text: `q"uote=x;type=text/x`}, {Text: "many=@" + a + "," + b}})
	if err != nil {
		t.Fatal(err)
	}
	r, n, err := form.Open(func(name string) (io.Reader, int64, error) {
		b, err := os.ReadFile(name)
		return strings.NewReader(string(b)), int64(len(b)), err
	})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(r)
	if n != int64(len(body)) {
		t.Errorf("length said %d, body has %d", n, len(body))
	}
	_, params, err := mime.ParseMediaType(form.ContentType())
	if err != nil {
		t.Fatal(err)
	}
	type part struct{ name, file, ctype, body string }
	var got []part
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("mime/multipart: %v", err)
		}
		ct := p.Header.Get("Content-Type")
		if mt, mp, _ := mime.ParseMediaType(ct); mt == "multipart/mixed" {
			inner := multipart.NewReader(p, mp["boundary"])
			for {
				q, err := inner.NextPart()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("mime/multipart, mixed part: %v", err)
				}
				qb, _ := io.ReadAll(q)
				got = append(got, part{p.FormName() + "/", q.FileName(), q.Header.Get("Content-Type"), string(qb)})
			}
			continue
		}
		pb, _ := io.ReadAll(p)
		got = append(got, part{p.FormName(), p.FileName(), ct, string(pb)})
	}
	ta, _ := os.ReadFile(a)
	want := []part{
		{"v", "", "", "1"},
		{"up", "a.txt", "text/plain", string(ta)},
		{"txt", "", "", string(ta)},
		{"q%22uote", "", "text/x", "x"},
		{"many/", "a.txt", "text/plain", string(ta)},
		{"many/", "b.bin", "application/octet-stream", "\x00\x01\x02\r\n"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("parts read back:\n%q\nwant\n%q", got, want)
	}
}
