package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlget/urlget/internal/testserver"
)

// TestJSONBesideCurl sends curl's --json with curl and urlget to the
// recorder: the same method, header fields (but User-Agent) and body.
func TestJSONBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	base := "http://" + rec.addr
	file := filepath.Join(t.TempDir(), "body.json")
	if err := os.WriteFile(file, []byte("{\r\n  \"from\": \"file\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		args  []string
		stdin string
	}{
		{"one", []string{"--json", `{"a":1}`, base + "/api"}, ""},
		{"repeated", []string{"--json", `{"a":`, "--json", `1}`, base + "/api"}, ""},
		{"@file", []string{"--json", "@" + file, base + "/api"}, ""},
		{"@-", []string{"--json", "@-", base + "/api"}, "[1,2,\n3]\n"},
		{"after -d", []string{"-d", "x=1", "--json", `{"b":2}`, base + "/api"}, ""},
		{"before -d", []string{"--json", `{"b":2}`, "-d", "x=1", base + "/api"}, ""},
		{"scalar", []string{"--json", "true", base + "/api"}, ""},
		{"negative", []string{"--json", "-1", base + "/api"}, ""},
		{"URL inside", []string{"--json", `"http://example.org/"`, base + "/api"}, ""},
		{"-H Accept", []string{"--json", "{}", "-H", "Accept: text/plain", base + "/api"}, ""},
		{"-H Content-Type", []string{"--json", "{}", "-H", "Content-Type: application/vnd.x+json", base + "/api"}, ""},
		{"-X PUT", []string{"-X", "PUT", "--json", "{}", base + "/api"}, ""},
		{"two URLs", []string{"--json", "{}", base + "/one", base + "/two"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			creqs, ureqs, cout, uout := sendBesideCurl(t, curl, rec, append([]string{"-s"}, tc.args...), tc.stdin)
			if len(creqs) != len(ureqs) || len(creqs) == 0 {
				t.Fatalf("curl sent %d requests, urlget %d", len(creqs), len(ureqs))
			}
			for i := range creqs {
				if c, u := comparableRequest(creqs[i]), comparableRequest(ureqs[i]); c != u {
					t.Errorf("requests differ:\nurlget %q\ncurl   %q", u, c)
				}
			}
			if cout != uout {
				t.Errorf("stdout differs:\nurlget %q\ncurl   %q", uout, cout)
			}
		})
	}
}

// sendBesideCurl runs curl, then urlget, with args and stdin, each to
// exit 0, and gives the requests the recorder received from each and what
// each wrote to stdout.
func sendBesideCurl(t *testing.T, curl string, rec *recorder, args []string, stdin string) (creqs, ureqs [][]byte, cout, uout string) {
	t.Helper()
	cmd := exec.Command(curl, args...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Dir = t.TempDir()
	var cbuf bytes.Buffer
	cmd.Stdout = &cbuf
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		t.Fatalf("curl: %v", err)
	}
	creqs = rec.take()
	t.Chdir(t.TempDir())
	var ubuf, uerr bytes.Buffer
	if code := run(env{args: args, stdin: strings.NewReader(stdin), stdout: &ubuf, stderr: &uerr}); code != 0 {
		t.Fatalf("urlget exit %d: %s", code, uerr.String())
	}
	return creqs, rec.take(), cbuf.String(), ubuf.String()
}
