package main

import (
	"context"
	"errors"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/gopher"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/fetch/mailto"
)

// TestOneInputNeededError: whatever a scheme needs from the person at the
// terminal — search words (gopher, wais), a password (ftp), the answers
// to a Gopher+ +ASK form, the confirmation of a mail — reaches the command
// as the one *fetch.InputNeededError that askUser answers, never as a
// scheme's own error type.
func TestOneInputNeededError(t *testing.T) {
	ftpSrv := newFTPServer(t)
	site := gophertest.Start(t, &gophertest.Site{Items: map[string]*gophertest.Item{
		"/form": {Type: '0', Display: "Form", Ask: []string{"Ask: Your name?"}, Answer: func(a []string) []byte { return nil }},
	}})
	cl := &fetch.Client{Options: fetch.Options{fetch.OptInteractive: "1"}}
	for _, tc := range []struct{ url, key string }{
		{"gopher://127.0.0.1:1/7/search", fetch.OptSearch},
		{site.URL("0/form%09%09?"), gopher.OptAsk},
		{"ftp://urlget@" + ftpSrv.Addr + "/pub/hello.bin", fetch.OptPassword},
		{"mailto:someone@example.org?subject=hi&body=text", mailto.OptConfirm},
	} {
		u, err := parseFetchURL(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		req := &fetch.Request{URL: &u}
		if err := doAndClose(cl, req); err == nil {
			t.Errorf("%s: no error", tc.url)
		} else if ine := (*fetch.InputNeededError)(nil); !errors.As(err, &ine) || ine.Key != tc.key {
			t.Errorf("%s: %v (%T), want an InputNeededError for %q", tc.url, err, err, tc.key)
		}
	}
}

// doAndClose makes one request and closes what it returns.
func doAndClose(cl *fetch.Client, req *fetch.Request) error {
	res, err := cl.Do(context.Background(), req)
	if err == nil {
		res.Body.Close()
	}
	return err
}
