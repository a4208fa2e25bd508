package main

// The gateway of urlget serve beside the real clients that use such a
// gateway: lynx through gopher_proxy=, curl -x for ftp, and urlget's own
// -x, against the real servers of internal/testserver and the in-tree WAIS
// and Prospero servers. They skip under -short, and fail when CI is set
// and a server or client is missing.

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/fetch/nntp/nntptest"
	"github.com/urlget/urlget/fetch/prospero/prosperotest"
	"github.com/urlget/urlget/fetch/wais/waistest"
	"github.com/urlget/urlget/internal/testserver"
	"github.com/urlget/urlget/serve"
	"github.com/urlget/urlget/serve/servetest"
)

// TestServeLynx: lynx -dump with gopher_proxy= set to the gateway shows
// the gopher menu (as the gateway's HTML), and the gateway logged lynx's
// proxy request.
func TestServeLynx(t *testing.T) {
	lynx := testserver.Require(t, "lynx")
	fetchtest.ClearProxyEnv(t)
	gs := testserver.Gophernicus(t)
	g := servetest.Start(t, nil, serve.Options{})
	gw := g.URL
	target := gs.URL("1/menu")
	cmd := exec.Command(lynx, "-dump", "-noreferer", target)
	cmd.Env = append(os.Environ(), "gopher_proxy="+gw+"/", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("lynx -dump %s: %v\n%s", target, err, out)
	}
	for _, want := range []string{"Welcome to the fixture menu", "Hello", "Docs", "Search the docs", "Binary"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("lynx -dump lacks %q:\n%s", want, out)
		}
	}
	if !g.Logged(target) {
		t.Errorf("the gateway did not log lynx's proxy request for %s:\n%s", target, g.Log())
	}
}

// TestServeCurlFTP: curl -x with the gateway as its proxy gets exactly the
// bytes a direct urlget writes to a pipe, and curl itself gets directly,
// for ftp files and a directory listing (its lines ending in LF, though
// vsftpd sends CRLF); for a binary file, the bytes curl -x gets through
// Squid's ftp gateway too.
func TestServeCurlFTP(t *testing.T) {
	curl := testserver.Require(t, "curl")
	fetchtest.ClearProxyEnv(t)
	ftp := testserver.StartFTP(t, testserver.Vsftpd)
	squid := testserver.Squid(t)
	g := servetest.Start(t, nil, serve.Options{})
	gw := g.URL
	files := []string{ftp.URL + "/pub/binary.bin", ftp.URL + "/pub/hello.txt", ftp.URL + "/pub/dir%20with%20spaces/file%20name.txt"}
	for _, u := range append(files, ftp.URL+"/pub/") {
		direct := runCLI(t, nil, u)
		if direct.code != 0 {
			t.Fatalf("urlget %s: exit %d: %s", u, direct.code, direct.stderr)
		}
		if own, err := exec.Command(curl, "-sS", "-f", u).Output(); err != nil || !bytes.Equal(own, []byte(direct.stdout)) {
			t.Errorf("%s: curl directly gives %v %.300q, urlget %.300q", u, err, own, direct.stdout)
		}
		proxies := []string{gw}
		if u == files[0] {
			// Squid makes a page of a listing, and fetches a file whose
			// MIME type is text/* in ASCII mode (vsftpd then sends CRLF).
			proxies = append(proxies, squid.URL)
		}
		for _, p := range proxies {
			out, err := exec.Command(curl, "-sS", "-f", "-x", p, u).Output()
			if err != nil {
				t.Errorf("curl -x %s %s: %v", p, u, err)
				continue
			}
			if !bytes.Equal(out, []byte(direct.stdout)) {
				t.Errorf("%s: curl -x %s gives %d bytes, urlget %d, not the same:\n%.300q\n%.300q", u, p, len(out), len(direct.stdout), out, direct.stdout)
			}
		}
		if !g.Logged(u) {
			t.Errorf("the gateway did not log curl's proxy request for %s", u)
		}
	}
}

// TestServeURLGetThroughGateway: urlget -x with the gateway writes to a
// pipe exactly the bytes a direct urlget writes there (a gopher menu as
// sent, an ftp listing's and a news article's lines ending in LF), for
// every scheme that goes through a
// gateway (fetch.Gateway): ftp (vsftpd), gopher (gophernicus; pygopherd's
// Gopher+ items), news and nntp (INN), wais, prospero, gophers and nntps
// (the in-tree servers). Every such scheme must have a case here.
func TestServeURLGetThroughGateway(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	ftp := testserver.StartFTP(t, testserver.Vsftpd)
	gn := testserver.Gophernicus(t)
	pg := testserver.Pygopherd(t)
	inn := testserver.INN(t)
	wais := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{waistest.TestDB()}})
	root := prosperotest.DefaultRoot
	ps := &prosperotest.Server{Objects: map[string]*prosperotest.Object{
		root + "/pub":         {Dir: true},
		root + "/pub/a.txt":   {Contents: []byte("alpha\n")},
		root + "/pub/bin.dat": {Contents: waistest.Bytes(5000, 7)},
	}}
	prospero := "prospero://" + ps.Start(t) + "/" + root
	// gophers and nntps: the in-tree servers with the tests' certificate,
	// which the gateway and the direct urlget (--cacert) trust.
	serverTLS, clientTLS := fetchtest.TLSConfigs(t)
	certPEM, _, err := fetchtest.CertPEM()
	if err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, certPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	gophers := gophertest.StartTLS(t, &gophertest.Site{Items: map[string]*gophertest.Item{
		"":       {Type: '1', Menu: []string{"iOver TLS\tfake\t(NULL)\t0", "0Hello\t/hello", "9Data\t/data"}},
		"/hello": {Type: '0', Data: []byte("hello over TLS\n")},
		"/data":  {Type: '9', Data: waistest.Bytes(70_000, 9)},
	}})
	nntps := (&nntptest.Server{TLS: serverTLS, ImplicitTLS: true, Groups: []*nntptest.Group{{
		Name: "local.tls",
		Articles: []*nntptest.Article{{
			MessageID: "<tls-1@example.net>",
			Head:      []string{"From: a@example.net", "Newsgroups: local.tls", "Subject: over TLS", "Message-ID: <tls-1@example.net>"},
			Body:      []string{"An article over TLS.", ".leading dot"},
		}},
	}}}).Start(t)
	g := servetest.Start(t, &fetch.Client{TLS: clientTLS}, serve.Options{})
	gw := g.URL

	cases := map[string][]string{
		"ftp": {ftp.URL + "/pub/binary.bin", ftp.URL + "/pub/hello.txt", ftp.URL + "/pub/", ftp.URL + "/pub/a/b/c/deep.txt"},
		"gopher": {gn.URL("1/menu"), gn.URL("0/hello.txt"), gn.URL("9/binary.bin"), gn.URL("0/dots.txt"),
			gn.URL("7/cgi-bin/search.cgi%09one"), pg.URL("1/"), pg.URL("0/hello.txt")},
		"news": {"news://" + inn.Addr + "/local.test", "news://" + inn.Addr + "/" + strings.Trim(testserver.INNDotsID, "<>")},
		"nntp": {"nntp://" + inn.Addr + "/local.test", "nntp://" + inn.Addr + "/local.test/1",
			"nntp://" + inn.Addr + "/comp.infosystems.www.servers.unix/1"},
		"wais":     {wais.URL("test?orchard"), wais.DocURL("test", waistest.TestDB().Docs[0], true), wais.DocURL("test", waistest.TestDB().Docs[3], true)},
		"prospero": {prospero + "/pub", prospero + "/pub/a.txt", prospero + "/pub/bin.dat"},
		"gophers":  {gophers.URL(""), gophers.URL("0/hello"), gophers.URL("9/data")},
		"nntps":    {"nntps://" + nntps.Addr + "/local.tls", "nntps://" + nntps.Addr + "/local.tls/1"},
	}
	for _, scheme := range fetch.Schemes() {
		s, _ := fetch.LookupScheme(scheme)
		if _, ok := cases[scheme]; s.Caps.Has(fetch.Gateway) && !ok {
			t.Errorf("scheme %s goes through gateways, and this test has no case for it", scheme)
		}
	}
	for scheme, urls := range cases {
		for _, u := range urls {
			direct := runCLI(t, nil, "--cacert", ca, u)
			if direct.code != 0 || direct.stdout == "" {
				t.Errorf("%s: urlget %s: exit %d, %d bytes: %s", scheme, u, direct.code, len(direct.stdout), direct.stderr)
				continue
			}
			via := runCLI(t, nil, "-x", gw, u)
			if via.code != 0 {
				t.Errorf("%s: urlget -x %s %s: exit %d: %s", scheme, gw, u, via.code, via.stderr)
				continue
			}
			if via.stdout != direct.stdout {
				t.Errorf("%s: %s: urlget -x gives %d bytes, urlget %d, not the same:\n%.300q\n%.300q",
					scheme, u, len(via.stdout), len(direct.stdout), via.stdout, direct.stdout)
			}
			if !g.Logged(u) {
				t.Errorf("%s: the gateway did not log urlget's proxy request for %s:\n%s", scheme, u, g.Log())
			}
		}
	}
}

// TestServeURLGetTerminal: with the gateway as its proxy (-x, or
// gopher_proxy), urlget on a terminal prints gophernicus's menus, search
// results and texts in the readable form a direct fetch prints there, not
// the bytes the gateway passes on; --json-lines gives the same items too.
func TestServeURLGetTerminal(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	gn := testserver.Gophernicus(t)
	g := servetest.Start(t, nil, serve.Options{})
	gw := g.URL
	term := func(c *fetchCmd) { c.isTerminal = func(w io.Writer) bool { return w == c.e.stdout } }
	for _, u := range []string{gn.URL("1/menu"), gn.URL("7/cgi-bin/search.cgi%09one"), gn.URL("0/hello.txt"), gn.URL("0/dots.txt")} {
		for _, args := range [][]string{nil, {"--json-lines"}} {
			direct := runCLIWith(t, nil, term, append(args, u)...)
			if direct.code != 0 || direct.stdout == "" {
				t.Fatalf("urlget %q %s on a terminal: exit %d: %s", args, u, direct.code, direct.stderr)
			}
			via := runCLIWith(t, nil, term, append(append([]string{"-x", gw}, args...), u)...)
			if via.code != 0 || via.stdout != direct.stdout {
				t.Errorf("urlget -x GATEWAY %q %s on a terminal: exit %d %s\n%.400q\nwant what it prints without the proxy:\n%.400q", args, u, via.code, via.stderr, via.stdout, direct.stdout)
			}
		}
	}
	t.Setenv("gopher_proxy", gw)
	u := gn.URL("1/")
	if via, direct := runCLIWith(t, nil, term, u), runCLIWith(t, nil, term, "--noproxy", "*", u); via.code != 0 || via.stdout != direct.stdout || via.stdout == "" {
		t.Errorf("gopher_proxy=GATEWAY urlget %s on a terminal:\n%.400q\nwant\n%.400q", u, via.stdout, direct.stdout)
	}
	if !g.Logged(u) {
		t.Errorf("gopher_proxy: the gateway did not log %s:\n%s", u, g.Log())
	}
}
