package fetch

import (
	"context"
	"io"
	"strings"

	"errors"
	"github.com/urlget/urlget/urlparse"
	"testing"
	"time"
)

func TestOptionsWith(t *testing.T) {
	o := Options{"a": "1"}
	w := o.With("b", "2")
	if len(o) != 1 || w.String("a") != "1" || w.String("b") != "2" || len(w) != 2 {
		t.Errorf("With: %v from %v", w, o)
	}
	if n := Options(nil).With("k", "v"); n.String("k") != "v" {
		t.Errorf("nil With: %v", n)
	}
}

func TestOptionsAccessors(t *testing.T) {
	o := Options{"b1": "YES", "b0": "off", "bx": "maybe", "i": "-42", "ix": "4x", "d": "2.5", "dg": "150ms", "dn": "-1", "ss": "a\nb", "e": ""}
	for key, want := range map[string]bool{"b1": true, "b0": false, "missing": false, "e": false} {
		if got, err := o.Bool(key); err != nil || got != want {
			t.Errorf("Bool(%s) = %v, %v; want %v", key, got, err, want)
		}
	}
	if _, err := o.Bool("bx"); KindOf(err) != ErrMalformed {
		t.Errorf("Bool(bx) error %v, want ErrMalformed", err)
	}
	if n, err := o.Int("i", 7); err != nil || n != -42 {
		t.Errorf("Int(i) = %d, %v", n, err)
	}
	if n, err := o.Int("missing", 7); err != nil || n != 7 {
		t.Errorf("Int(missing) = %d, %v", n, err)
	}
	if _, err := o.Int("ix", 7); KindOf(err) != ErrMalformed {
		t.Errorf("Int(ix) error %v", err)
	}
	if d, err := o.Duration("d", 0); err != nil || d != 2500*time.Millisecond {
		t.Errorf("Duration(d) = %v, %v", d, err)
	}
	if d, err := o.Duration("dg", 0); err != nil || d != 150*time.Millisecond {
		t.Errorf("Duration(dg) = %v, %v", d, err)
	}
	if _, err := o.Duration("dn", 0); err == nil {
		t.Error("Duration(dn) accepted a negative value")
	}
	if got := o.Strings("ss"); len(got) != 2 || got[1] != "b" {
		t.Errorf("Strings(ss) = %q", got)
	}
	if o.Strings("missing") != nil || !o.Has("e") || o.Has("missing") {
		t.Error("Strings/Has on a missing key")
	}
}

func TestRegisteredOptionsGroupsAndRefusesDuplicates(t *testing.T) {
	var seen = map[string]bool{}
	last := ""
	for _, o := range RegisteredOptions() {
		s := firstScheme(o)
		if s != last && seen[s] {
			t.Errorf("options of %q are not grouped together", s)
		}
		seen[s], last = true, s
	}
	defer func() {
		if recover() == nil {
			t.Error("a flag declared twice did not panic")
		}
	}()
	Register(Scheme{Name: "x-options-test", New: func(Config) Fetcher { return FetcherFunc(nil) }, Options: []Option{{Key: OptSearch, Flag: "search", Kind: String}}})
}

func TestInputNeededErrorWraps(t *testing.T) {
	inner := &Error{Kind: ErrMalformed, Msg: "needs words"}
	err := error(&InputNeededError{Key: OptSearch, Prompt: "Search: ", Err: inner})
	var ine *InputNeededError
	if !errors.As(err, &ine) || KindOf(err) != ErrMalformed || err.Error() != inner.Error() {
		t.Errorf("InputNeededError does not wrap its error: %v", err)
	}
}

type sender struct{ FetcherFunc }

func (sender) SendsBody(u *urlparse.URL) bool { return u.Path != "/dir/" }

func TestClientHandsBodyOnlyToSenders(t *testing.T) {
	var got []byte
	open := FetcherFunc(func(ctx context.Context, r *Request) (*Resource, error) {
		if r.Body != nil {
			got, _ = io.ReadAll(r.Body)
		}
		return &Resource{}, nil
	})
	c := &Client{Fetchers: map[string]func(Config) Fetcher{
		"ftp":    func(Config) Fetcher { return sender{open} },
		"gopher": func(Config) Fetcher { return open },
	}}
	do := func(raw string) error {
		u, err := urlparse.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Do(context.Background(), &Request{URL: &u, Body: strings.NewReader("data"), BodySize: 4})
		if err == nil {
			res.Body.Close()
		}
		return err
	}
	if err := do("ftp://h/dir/f"); err != nil || string(got) != "data" {
		t.Fatalf("ftp body: %v, sent %q", err, got)
	}
	for _, raw := range []string{"ftp://h/dir/", "gopher://h/0x"} {
		if err := do(raw); KindOf(err) != ErrUnsupported {
			t.Errorf("%s with a body: %v, want ErrUnsupported", raw, err)
		}
	}
}

// TestRequestMethod: the one rule for an HTTP request's method (the http
// fetcher sends it, the CLI's -w %{method} shows it).
func TestRequestMethod(t *testing.T) {
	for _, tc := range []struct {
		req  Request
		want string
	}{
		{Request{}, "GET"},
		{Request{Head: true}, "HEAD"},
		{Request{Body: strings.NewReader("x")}, "POST"},
		{Request{Body: strings.NewReader("x"), Options: Options{OptMethod: "PUT"}}, "PUT"},
		{Request{Head: true, Options: Options{OptMethod: "DELETE"}}, "DELETE"},
	} {
		if got := tc.req.Method(); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.req, got, tc.want)
		}
	}
	// -X given to the Client is the request's method too.
	c := &Client{Options: Options{OptMethod: "DELETE"}}
	if got := c.Method(&Request{}); got != "DELETE" {
		t.Errorf("Client.Method with the Client's -X: %s, want DELETE", got)
	}
	if got := c.Method(&Request{Options: Options{OptMethod: "PUT"}}); got != "PUT" {
		t.Errorf("Client.Method with the request's own -X: %s, want PUT", got)
	}
}
