package main

import (
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/fetch/prospero/prosperotest"
)

// TestProsperoCLI: a file, a listing (readable and --json-lines), a file
// longer than its SIZE (exit 18), a missing name (exit 78), --prospero-resolve and the effective URL, through the
// in-tree Prospero server.
func TestProsperoCLI(t *testing.T) {
	root := prosperotest.DefaultRoot
	s := &prosperotest.Server{Objects: map[string]*prosperotest.Object{
		root + "/pub":           {Dir: true},
		root + "/pub/a.txt":     {Contents: []byte("alpha\n")},
		root + "/pub/long.txt":  {Contents: []byte("alpha\n"), Size: "4 bytes"},
		root + "/pub/elsewhere": {Methods: [][]string{{"AFTP", "INTERNET-D", "ftp.example", "ASCII", "/pub/x", "TEXT"}}},
	}}
	base := "prospero://" + s.Start(t) + "/" + root

	if r := runCLI(t, nil, "-w", "%{url_effective}", base+"/pub/a.txt"); r.code != 0 || r.stdout != "alpha\n"+base+"/pub/a.txt" {
		t.Errorf("file: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r := runCLI(t, nil, base+"/pub")
	if r.code != 0 || !strings.Contains(r.stdout, "a.txt\t"+base+"/pub/a.txt") {
		t.Errorf("listing: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, nil, "--json-lines", base+"/pub")
	if r.code != 0 || !strings.Contains(r.stdout, `{"name":"a.txt","type":"file","size":6,`) {
		t.Errorf("JSON listing: %d %q %q", r.code, r.stdout, r.stderr)
	}
	// More data than the SIZE attribute states: 18, as a short file.
	if r := runCLI(t, nil, base+"/pub/long.txt"); r.code != 18 || !strings.Contains(r.stderr, "2 bytes more than the server stated") {
		t.Errorf("longer than its SIZE: %d %q", r.code, r.stderr)
	}
	if r := runCLI(t, nil, base+"/pub/nope"); r.code != 78 || !strings.Contains(r.stderr, "NOT-FOUND") {
		t.Errorf("missing: %d %q", r.code, r.stderr)
	}
	if r := runCLI(t, nil, "--prospero-resolve", base+"/pub/elsewhere"); r.code != 0 || r.stdout != "ftp://ftp.example/pub/x;type=a\n" {
		t.Errorf("resolve: %d %q %q", r.code, r.stdout, r.stderr)
	}
	before := len(s.Packets())
	if r := runCLI(t, nil, base+"/pub/a%0Ab"); r.code != 3 || len(s.Packets()) != before {
		t.Errorf("LF in the name: %d %q, %d packets sent", r.code, r.stderr, len(s.Packets())-before)
	}
}

// TestProsperoMaxRedirs: --max-redirs bounds the referral hops as it
// bounds redirects: a name FORWARDED to another server is followed by
// default, and refused (47) with --max-redirs 0.
func TestProsperoMaxRedirs(t *testing.T) {
	root := prosperotest.DefaultRoot
	to := &prosperotest.Server{Objects: map[string]*prosperotest.Object{root + "/moved.txt": {Contents: []byte("moved\n")}}}
	toAddr := to.Start(t)
	from := &prosperotest.Server{Objects: map[string]*prosperotest.Object{
		root + "/moved.txt": {Forward: strings.Replace(toAddr, ":", "(", 1) + ")"},
	}}
	url := "prospero://" + from.Start(t) + "/" + root + "/moved.txt"
	if r := runCLI(t, nil, url); r.code != 0 || r.stdout != "moved\n" {
		t.Errorf("forwarded: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, nil, "--max-redirs", "1", url); r.code != 0 || r.stdout != "moved\n" {
		t.Errorf("--max-redirs 1: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, nil, "--max-redirs", "0", url); r.code != 47 || r.stdout != "" {
		t.Errorf("--max-redirs 0: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// TestProsperoGopherText: gopher text reached through a GOPHER access
// method is written as a direct fetch of the gopher URL writes it (the
// same fetcher): to a pipe as sent, readable (--readable) with its CRLF
// line ends made LF and the final "." line dropped.
func TestProsperoGopherText(t *testing.T) {
	g := gophertest.Start(t, &gophertest.Site{Items: map[string]*gophertest.Item{"t.txt": {Type: '0', Data: []byte("one\r\ntwo\r\n.\r\n")}}})
	host, port, _ := strings.Cut(strings.TrimPrefix(g.URL(""), "gopher://"), ":")
	port = strings.TrimSuffix(port, "/")
	root := prosperotest.DefaultRoot
	s := &prosperotest.Server{Objects: map[string]*prosperotest.Object{
		root + "/t.txt": {Methods: [][]string{{"GOPHER", "INTERNET-D", host + "(" + port + ")", "ASCII", "t.txt", "TEXT"}}},
	}}
	addr := s.Start(t)
	for _, tc := range []struct {
		flags []string
		want  string
	}{{nil, "one\r\ntwo\r\n.\r\n"}, {[]string{"--readable"}, "one\ntwo\n"}} {
		direct := runCLI(t, nil, append(tc.flags, g.URL("0t.txt"))...)
		referred := runCLI(t, nil, append(tc.flags, "prospero://"+addr+"/"+root+"/t.txt")...)
		if direct.code != 0 || referred.code != 0 || referred.stdout != direct.stdout || direct.stdout != tc.want {
			t.Errorf("%q: direct %d %q %s; through the referral %d %q %s", tc.flags, direct.code, direct.stdout, direct.stderr, referred.code, referred.stdout, referred.stderr)
		}
	}
}
