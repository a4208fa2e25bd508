package fetch_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/http"
	"github.com/urlget/urlget/urlparse"
)

func mustURL(t *testing.T, s string) *urlparse.URL {
	t.Helper()
	u, err := urlparse.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return &u
}

// The file in curl's format: a host, a domain with its subdomains
// (leading "."), trailing dots on either side, an expired entry, a
// comment and a line that cannot be read.
func TestHSTSUpgrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hsts.txt")
	os.WriteFile(path, []byte(`# comment
this.example "99991001 04:47:41"
.sub.example. "unlimited"
old.example "20000101 00:00:00"
broken line
`), 0o644)
	h, err := fetch.LoadHSTS(path)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"http://this.example/p?q":    "https://this.example/p?q",
		"http://this.example./p":     "https://this.example./p",
		"http://a.this.example/":     "",
		"http://sub.example/":        "https://sub.example/",
		"http://a.b.sub.example:8/x": "https://a.b.sub.example:8/x",
		"http://old.example/":        "",
		"https://this.example/":      "",
		"http://127.0.0.1/":          "",
		"http://broken/":             "",
	} {
		got := ""
		if up := h.Upgrade(mustURL(t, in)); up != nil {
			got = up.String()
		}
		if got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

// A Client with HSTS fetches an http URL of a known host by https, keeps
// the reply's Strict-Transport-Security, and Save writes it in curl's
// format; max-age=0 forgets a host.
func TestHSTSClient(t *testing.T) {
	sts := "max-age=3600; includeSubDomains"
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Strict-Transport-Security", sts)
		io.WriteString(w, "secure")
	}))
	defer srv.Close()
	_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "https://"), ":")
	h := fetch.NewHSTS()
	h.Observe(mustURL(t, "https://localhost/"), fetch.Header{{Name: "Strict-Transport-Security", Value: "max-age=60"}})
	c := &fetch.Client{HSTS: h, Insecure: true}
	res, err := c.Do(context.Background(), &fetch.Request{URL: mustURL(t, "http://localhost:"+port+"/x")})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != "secure" || !strings.HasPrefix(res.EffectiveURL, "https://localhost:") {
		t.Errorf("%q from %s, want the https server", b, res.EffectiveURL)
	}
	path := filepath.Join(t.TempDir(), "hsts.txt")
	if err := h.Save(path); err != nil {
		t.Fatal(err)
	}
	saved, _ := os.ReadFile(path)
	if !strings.Contains(string(saved), "\n.localhost \"") {
		t.Errorf("saved:\n%s\nwant .localhost (includeSubDomains)", saved)
	}
	h.Observe(mustURL(t, "https://localhost/"), fetch.Header{{Name: "Strict-Transport-Security", Value: "max-age=0"}})
	if h.Upgrade(mustURL(t, "http://localhost/")) != nil {
		t.Error("max-age=0: the host is still upgraded")
	}
}
