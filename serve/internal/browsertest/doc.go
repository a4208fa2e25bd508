// Package browsertest holds urlget serve's browser tests: a real headless
// chromium, driven with chromedp, browses the gateway on 127.0.0.1 as a
// person would, against the real servers of internal/testserver.
//
// It is a module of its own, so that urlget's go.mod does not carry
// chromedp and cdproto: a Go program that imports urlget's packages does
// not download browser automation. scripts/test runs it:
//
//	cd serve/internal/browsertest && go test ./...
//
// With -screenshots DIR the tests write the screenshots README shows
// (go test -run 'TestBrowser$' -args -screenshots ../../../docs).
package browsertest
