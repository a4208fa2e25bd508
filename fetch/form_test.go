package fetch_test

import (
	"io"
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
