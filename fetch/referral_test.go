package fetch_test

import (
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/urlparse"
)

// referrer is a name-service fetcher: every URL refers to to(u).
func referrer(to func(u *urlparse.URL) string, seen *[]fetch.Request) fetch.Fetcher {
	return fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		*seen = append(*seen, *req)
		return &fetch.Resource{Meta: fetch.Meta{Size: -1, Location: to(req.URL), Referral: true}}, nil
	})
}

func body(data string, seen *[]fetch.Request) fetch.Fetcher {
	return fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		*seen = append(*seen, *req)
		return &fetch.Resource{Meta: fetch.Meta{Size: int64(len(data))}, Body: io.NopCloser(strings.NewReader(data))}, nil
	})
}

func TestReferralFollowed(t *testing.T) {
	var names, ftps []fetch.Request
	c := &fetch.Client{User: "u", Password: "p", HasPassword: true, Fetchers: fetchtest.Given(map[string]fetch.Fetcher{
		"prospero": referrer(func(*urlparse.URL) string { return "ftp://files.example/pub/x;type=i" }, &names),
		"ftp":      body("data", &ftps),
	})}
	res, err := c.Open(context.Background(), "prospero://names.example/x")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != "data" || res.EffectiveURL != "ftp://files.example/pub/x;type=i" {
		t.Errorf("body %q effective %q", b, res.EffectiveURL)
	}
	if len(names) != 1 || names[0].User != "u" || len(ftps) != 1 || ftps[0].User != "" || ftps[0].HasPassword {
		t.Errorf("credentials went to the referral target: %+v", ftps)
	}
}

func TestReferralPolicy(t *testing.T) {
	var seen []fetch.Request
	loop := referrer(func(u *urlparse.URL) string { return u.String() }, &seen)
	// No limit: a name server that refers in circles still stops at the
	// default; NoRedirects follows no referral either, 2 follows two.
	for _, tc := range []struct{ max, requests int }{
		{math.MaxInt, fetch.DefaultMaxRedirects + 1}, {fetch.NoRedirects, 1}, {2, 3},
	} {
		seen = nil
		c := &fetch.Client{MaxRedirects: tc.max, Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"prospero": loop})}
		_, err := c.Open(context.Background(), "prospero://h/x")
		if fetch.KindOf(err) != fetch.ErrTooManyRedirects || len(seen) != tc.requests {
			t.Errorf("loop, MaxRedirects %d: %v after %d requests, want %d", tc.max, err, len(seen), tc.requests)
		}
	}

	for _, tc := range []struct {
		from, to string
		kind     fetch.Kind
	}{
		{"prospero://remote.example/x", "file:///etc/passwd", fetch.ErrAccessDenied},
		{"prospero://h/x", "mailto:someone@example.net", fetch.ErrUnsupported},
		{"prospero://h/x", "nntp://news.example/group", fetch.ErrUnsupported},
	} {
		to := tc.to
		c := &fetch.Client{Fetchers: fetchtest.Given(map[string]fetch.Fetcher{
			"prospero": referrer(func(*urlparse.URL) string { return to }, &seen),
		})}
		_, err := c.Open(context.Background(), tc.from)
		if fetch.KindOf(err) != tc.kind {
			t.Errorf("%s → %s: %v, want kind %d", tc.from, tc.to, err, tc.kind)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for h, want := range map[string]bool{
		"localhost": true, "LOCALHOST.": true, "127.0.0.1": true, "127.1.2.3": true, "[::1]": true, "::1": true,
		"example.com": false, "10.0.0.1": false, "": false,
	} {
		if fetch.IsLoopback(h) != want {
			t.Errorf("IsLoopback(%q) = %v", h, !want)
		}
	}
}

func TestUDPThroughSOCKSRefused(t *testing.T) {
	proxy, _ := urlparse.Parse("socks5://127.0.0.1:1/")
	var got error
	c := &fetch.Client{Proxy: &proxy, Fetchers: map[string]func(fetch.Config) fetch.Fetcher{
		"prospero": func(cfg fetch.Config) fetch.Fetcher {
			return fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
				_, got = fetch.DialNetwork(ctx, cfg.Dialer, "udp", "127.0.0.1:1525", "dialing")
				return nil, got
			})
		},
	}}
	_, err := c.Open(context.Background(), "prospero://127.0.0.1/x")
	var fe *fetch.Error
	if !errors.As(got, &fe) || fe.Kind != fetch.ErrUnsupported || fetch.KindOf(err) != fetch.ErrUnsupported {
		t.Errorf("udp through SOCKS: %v / %v", got, err)
	}
}
