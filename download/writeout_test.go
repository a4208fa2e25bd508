package download

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
)

func TestWriteOutRender(t *testing.T) {
	r := &Result{Num: 1, URL: "http://h/x", Effective: "http://h/y", Scheme: "http", Status: 200, Size: 1234,
		ContentType: "text/html", Filename: "out", Elapsed: 1500 * time.Millisecond}
	for format, want := range map[string]string{
		"%{http_code} %{size_download}\\n":   "200 1234\n",
		"%{response_code}|%{url_effective}":  "200|http://h/y",
		"%{url}\\t%{filename_effective}\\r":  "http://h/x\tout\r",
		"%{exitcode} %{errormsg}.":           "0 .",
		"100%% %{content_type} %{scheme}":    "100% text/html HTTP",
		"%{time_total} %{speed_download}":    "1.500000 822",
		"%{urlnum}":                          "1",
		"plain \\x \\\\ %d %":                "plain \\x \\\\ %d %",
		"%{unclosed":                         "%{unclosed",
		"a%{stderr}b%{stdout}c%{stderr}d\\n": "ac",
	} {
		var out, errw bytes.Buffer
		ParseWriteOut(format).Render(&out, &errw, r)
		if out.String() != want {
			t.Errorf("%q: %q, want %q", format, out.String(), want)
		}
		if strings.Contains(format, "%{stderr}") && errw.String() != "bd\n" {
			t.Errorf("%q: stderr %q", format, errw.String())
		}
	}
	var out, errw bytes.Buffer
	ParseWriteOut("[%{nosuch}]").Render(&out, &errw, r)
	if out.String() != "[]" || !strings.Contains(errw.String(), "unknown --write-out variable: 'nosuch'") {
		t.Errorf("unknown variable: %q %q", out.String(), errw.String())
	}
	// %{onerror}: the rest only after a failure (curl's test 1188).
	for code, want := range map[int]string{0: "a", 22: "a22b"} {
		out.Reset()
		errw.Reset()
		ParseWriteOut("a%{onerror}%{exitcode}b").Render(&out, &errw, &Result{Code: code})
		if out.String() != want || errw.Len() != 0 {
			t.Errorf("%%{onerror} with exit %d: %q (stderr %q), want %q", code, out.String(), errw.String(), want)
		}
	}
	// No Status: 000, as curl.
	out.Reset()
	ParseWriteOut("%{http_code}").Render(&out, &errw, &Result{})
	if out.String() != "000" {
		t.Errorf("no Status: %q", out.String())
	}
}

func TestWriteOutJSON(t *testing.T) {
	r := &Result{URL: "http://h/<x>&", Effective: "http://h/<x>&", Scheme: "http", Status: 404, Size: 5,
		Err: fetch.NewError(fetch.ErrHTTP, "The requested URL returned error: 404", nil), Code: 22}
	s := ParseWriteOut("").json(r)
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	if m["http_code"] != 404.0 || m["exitcode"] != 22.0 || m["size_download"] != 5.0 || m["url"] != "http://h/<x>&" ||
		m["errormsg"] != "The requested URL returned error: 404" || m["filename_effective"] != nil || m["content_type"] != nil {
		t.Errorf("json: %s", s)
	}
	if strings.Contains(s, `\u003c`) {
		t.Errorf("HTML-escaped: %s", s)
	}
	if _, ok := m["time_total"].(float64); !ok {
		t.Errorf("time_total not a number: %s", s)
	}
}

// The reply variables from a Meta: %header{} joins repeated fields,
// %{header_json} groups them under the lower-case name of the first, in
// curl's layout; %{size_header} counts every HTTP header block, the
// redirects' too; redirect_url only for a redirect not followed.
func TestWriteOutReplyVariables(t *testing.T) {
	hop := fetch.Meta{Proto: "HTTP/1.1", Status: 301, Reason: "Moved Permanently", Location: "http://h/b",
		Header: fetch.Header{{Name: "Location", Value: "/b"}}}
	r := &Result{Meta: fetch.Meta{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Redirects: []fetch.Meta{hop},
		Header: fetch.Header{{Name: "Set-Cookie", Value: "a=1"}, {Name: "Content-Type", Value: "text/plain"}, {Name: "set-cookie", Value: "b=2"}}}}
	var out, errw bytes.Buffer
	ParseWriteOut("%header{SET-COOKIE}|%header{nosuch}|%{num_headers}|%{num_redirects}|%{http_version}|[%{redirect_url}]|%{size_header}\\n%{header_json}").Render(&out, &errw, r)
	// 301 block: "HTTP/1.1 301 Moved Permanently\r\n" 32 + "Location: /b\r\n" 14 + "\r\n" 2 = 48;
	// 200 block: "HTTP/1.1 200 OK\r\n" 17 + 17 + 26 + 17 + 2 = 79.
	want := "a=1, b=2||3|1|1.1|[]|127\n{\"set-cookie\":[\"a=1\",\"b=2\"],\n\"content-type\":[\"text/plain\"]\n}"
	if out.String() != want || errw.Len() > 0 {
		t.Errorf("got %q (%q), want %q", out.String(), errw.String(), want)
	}
	out.Reset()
	ParseWriteOut("[%{redirect_url}] %{http_version} %{header_json}").Render(&out, &errw, &Result{Meta: hop})
	if out.String() != "[http://h/b] 1.1 {\"location\":[\"/b\"]\n}" {
		t.Errorf("not followed: %q", out.String())
	}
	out.Reset()
	ParseWriteOut("%{http_version} %{size_header} %{header_json}").Render(&out, &errw, &Result{Scheme: "ftp"})
	if out.String() != "0 0 {\n}" {
		t.Errorf("no HTTP reply: %q", out.String())
	}
}
