package mirror

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
	"github.com/urlget/urlget/internal/testserver"
	"github.com/urlget/urlget/mirror/internal/warc"
)

// warcRecord is a record read back.
type warcRecord struct {
	h       warc.Header
	block   []byte
	payload []byte // the payload, without HTTP head and transfer coding
}

var recordID = regexp.MustCompile(`^<urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}>$`)

// readWARC reads a WARC file back record by record and checks each: the
// version line, a warcinfo record first that the others refer to, unique
// record IDs, WARC-Date, the block digest recomputed, and the payload
// digest recomputed over the payload (an HTTP response's body, dechunked).
func readWARC(t *testing.T, name string) []warcRecord {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := warc.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []warcRecord
	ids := map[string]bool{}
	info := ""
	for {
		h, block, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("record %d: %v", len(out), err)
		}
		id := h["WARC-Record-ID"]
		if !recordID.MatchString(id) || ids[id] {
			t.Errorf("record %d: WARC-Record-ID %q (bad or repeated)", len(out), id)
		}
		ids[id] = true
		if _, err := time.Parse(time.RFC3339Nano, h["WARC-Date"]); err != nil {
			t.Errorf("record %d: WARC-Date %q: %v", len(out), h["WARC-Date"], err)
		}
		switch {
		case h["WARC-Type"] == warc.TypeWarcinfo:
			info = id
		case info == "":
			t.Fatalf("record %d (%s) before any warcinfo", len(out), h["WARC-Type"])
		case h["WARC-Warcinfo-ID"] != info:
			t.Errorf("record %d: WARC-Warcinfo-ID %q, want %q", len(out), h["WARC-Warcinfo-ID"], info)
		}
		if got := sha1Digest(block); h["WARC-Block-Digest"] != got {
			t.Errorf("record %d (%s): WARC-Block-Digest %q, recomputed %q", len(out), h["WARC-Target-URI"], h["WARC-Block-Digest"], got)
		}
		rec := warcRecord{h: h, block: block}
		switch h["WARC-Type"] {
		case warc.TypeResource:
			rec.payload = block
		case warc.TypeResponse:
			if h["Content-Type"] != warc.HTTPResponse {
				t.Errorf("response record with Content-Type %q", h["Content-Type"])
			}
			resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(block)), nil)
			if err != nil {
				t.Fatalf("record %d: the block is no HTTP response: %v", len(out), err)
			}
			rec.payload, err = io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("record %d: the HTTP body does not read: %v", len(out), err)
			}
		case warc.TypeRevisit:
			if h["WARC-Profile"] != warc.ProfileNotModified || !bytes.HasPrefix(block, []byte("HTTP/1.1 304 ")) {
				t.Errorf("revisit record %q: profile %q, block %q", h["WARC-Target-URI"], h["WARC-Profile"], block)
			}
		}
		payload := rec.payload
		if h["WARC-Type"] == warc.TypeRequest {
			if h["Content-Type"] != warc.HTTPRequest {
				t.Errorf("request record with Content-Type %q", h["Content-Type"])
			}
			req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(block)))
			if err != nil {
				t.Fatalf("record %d: the block is no HTTP request: %v", len(out), err)
			}
			if payload, err = io.ReadAll(req.Body); err != nil {
				t.Fatalf("record %d: the request body does not read: %v", len(out), err)
			}
		}
		if payload != nil || h["WARC-Payload-Digest"] != "" {
			if got := sha1Digest(payload); h["WARC-Payload-Digest"] != got {
				t.Errorf("record %d (%s): WARC-Payload-Digest %q, recomputed %q", len(out), h["WARC-Target-URI"], h["WARC-Payload-Digest"], got)
			}
		}
		out = append(out, rec)
	}
	if len(out) == 0 || out[0].h["WARC-Type"] != warc.TypeWarcinfo {
		t.Fatal("the WARC file does not start with a warcinfo record")
	}
	return out
}

func sha1Digest(b []byte) string {
	h := sha1.New()
	h.Write(b)
	return warc.Digest(h)
}

// warcCovers checks that every file the manifest records in dir has a
// record for its URL whose payload is the bytes on disk.
func warcCovers(t *testing.T, dir string, recs []warcRecord) {
	t.Helper()
	byURL := map[string][][]byte{}
	for _, r := range recs {
		if u := r.h["WARC-Target-URI"]; u != "" && r.payload != nil {
			byURL[u] = append(byURL[u], r.payload)
		}
	}
	n := 0
	for url, rec := range records(t, dir) {
		if rec.Status != StatusOK || rec.Type != TypeFile && rec.Type != TypeMenu {
			continue
		}
		disk, err := os.ReadFile(filepath.Join(dir, rec.Path))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, p := range byURL[url] {
			found = found || bytes.Equal(p, disk)
		}
		if !found {
			t.Errorf("%s (%s): no record whose payload is the %d bytes on disk", url, rec.Path, len(disk))
		}
		n++
	}
	if n == 0 {
		t.Error("no files mirrored")
	}
}

// Issue 25: --warc over http (nginx), ftp (vsftpd) and gopher
// (gophernicus): every record reads back with its digests, every file on
// disk has its record; a second http run adds revisit records for the
// 304s.
func TestWARC(t *testing.T) {
	t.Run("http", func(t *testing.T) {
		root, ng, _ := httpTree(t, "location = /moved.txt { return 301 /hello.txt; }\nlocation = /denied.txt { return 403; }")
		// Links to a redirect and to a refusal: their replies are
		// recorded too.
		fetchtest.WriteFile(t, filepath.Join(root, "moved.txt"), "x", t1)
		fetchtest.WriteFile(t, filepath.Join(root, "denied.txt"), "x", t1)
		dir, w := t.TempDir(), filepath.Join(t.TempDir(), "run.warc.gz")
		if _, err := Run(context.Background(), Options{URL: ng.URL + "/", Dir: dir, WARC: w, Retries: -1}); !errors.Is(err, ErrIncomplete) {
			t.Fatalf("first run: %v, want incomplete (denied.txt)", err)
		}
		recs := readWARC(t, w)
		warcCovers(t, dir, recs)
		statuses := map[string]bool{}
		for _, r := range recs {
			if u := r.h["WARC-Target-URI"]; strings.HasSuffix(u, "/moved.txt") || strings.HasSuffix(u, "/denied.txt") {
				statuses[string(r.block[:12])] = true
			}
		}
		if !statuses["HTTP/1.1 301"] || !statuses["HTTP/1.1 403"] {
			t.Errorf("the 301 and 403 replies are not both recorded: %v", statuses)
		}
		// The directory indexes, which nginx sends chunked, are recorded
		// with a Content-Length in place of the lost framing.
		indexes := 0
		for _, r := range recs {
			if strings.HasSuffix(r.h["WARC-Target-URI"], "/") && r.h["WARC-Type"] == warc.TypeResponse {
				indexes++
				if bytes.Contains(r.block, []byte("Transfer-Encoding")) || !bytes.Contains(r.block, []byte("Content-Length: ")) {
					t.Errorf("index %s recorded with the head %q", r.h["WARC-Target-URI"], r.block[:bytes.Index(r.block, []byte("\r\n\r\n"))])
				}
			}
		}
		if indexes != 4 {
			t.Errorf("%d directory indexes in the WARC file, want 4", indexes)
		}
		warcPairs(t, recs)
		sum, _ := Run(context.Background(), Options{URL: ng.URL + "/", Dir: dir, WARC: w, Retries: -1})
		revisits := 0
		recs = readWARC(t, w)
		warcPairs(t, recs)
		for _, r := range recs {
			if r.h["WARC-Type"] == warc.TypeRevisit {
				revisits++
			}
		}
		if int64(revisits) != sum.Unchanged || revisits == 0 {
			t.Errorf("second run: %d revisit records for %d unchanged files", revisits, sum.Unchanged)
		}
		crossCheck(t, w)
	})
	t.Run("ftp", func(t *testing.T) {
		s := testserver.StartFTP(t, testserver.Vsftpd)
		dir, w := t.TempDir(), filepath.Join(t.TempDir(), "run.warc")
		mirrorOK(t, Options{URL: s.URL + "/pub/", Dir: dir, WARC: w})
		recs := readWARC(t, w)
		warcCovers(t, dir, recs)
		warcMetadata(t, recs, regexp.MustCompile(`(?m)^ftp-command: RETR hello\.txt\r\nftp-reply: 150 .*\r\nftp-reply: 226 `))
		for _, r := range recs {
			if strings.HasSuffix(r.h["WARC-Target-URI"], "/hello.txt") && r.h["WARC-Type"] == warc.TypeResource && !strings.HasPrefix(r.h["Content-Type"], "text/plain") {
				t.Errorf("hello.txt: Content-Type %q", r.h["Content-Type"])
			}
		}
		crossCheck(t, w)
	})
	t.Run("gopher", func(t *testing.T) {
		root := t.TempDir()
		if err := testserver.GopherFixtures(root); err != nil {
			t.Fatal(err)
		}
		openUp(t, root)
		s := testserver.StartGophernicus(t, testserver.GopherConfig{Root: root})
		dir, w := t.TempDir(), filepath.Join(t.TempDir(), "run.warc.gz")
		mirrorOK(t, Options{URL: s.URL("1/"), Dir: dir, WARC: w, IgnoreRobots: true})
		recs := readWARC(t, w)
		warcCovers(t, dir, recs)
		warcMetadata(t, recs, regexp.MustCompile(`(?m)^gopher-item-type: 0\r\ngopher-selector: /\S+\r\ngopher-menu-line: 0`))
		crossCheck(t, w)
	})
	// pygopherd answers Gopher+ "$": each document's attributes (its
	// Mod-Date) are in its metadata record.
	t.Run("gopher+", func(t *testing.T) {
		root := t.TempDir()
		fetchtest.WriteFile(t, filepath.Join(root, "doc.txt"), "a Gopher+ document\n", t1)
		openUp(t, root)
		s := testserver.StartPygopherd(t, testserver.GopherConfig{Root: root})
		dir, w := t.TempDir(), filepath.Join(t.TempDir(), "run.warc.gz")
		mirrorOK(t, Options{URL: s.URL(""), Dir: dir, WARC: w, IgnoreRobots: true})
		recs := readWARC(t, w)
		warcCovers(t, dir, recs)
		warcMetadata(t, recs, regexp.MustCompile(`(?m)^gopher-selector: /doc\.txt\r\n(.*\r\n)*gopher-plus-admin: .*\r\n(.*\r\n)*gopher-plus-admin: Mod-Date: .*<`+t1.UTC().Format("20060102150405")+`>\r\n`))
		crossCheck(t, w)
	})
}

// warcPairs checks that every HTTP response (and revisit) record has its
// request record, and the other way round: each names the other in
// WARC-Concurrent-To, for the same URL, the request line asking for that
// URL's path and the conditions of a revisit (If-None-Match).
func warcPairs(t *testing.T, recs []warcRecord) {
	t.Helper()
	byID := map[string]warcRecord{}
	for _, r := range recs {
		byID[r.h["WARC-Record-ID"]] = r
	}
	pairs := 0
	for _, r := range recs {
		typ := r.h["WARC-Type"]
		if typ != warc.TypeRequest && typ != warc.TypeResponse && typ != warc.TypeRevisit {
			continue
		}
		other, ok := byID[r.h["WARC-Concurrent-To"]]
		if !ok || other.h["WARC-Concurrent-To"] != r.h["WARC-Record-ID"] || other.h["WARC-Target-URI"] != r.h["WARC-Target-URI"] ||
			(typ == warc.TypeRequest) == (other.h["WARC-Type"] == warc.TypeRequest) {
			t.Errorf("%s record for %s: WARC-Concurrent-To %q names no record of its pair", typ, r.h["WARC-Target-URI"], r.h["WARC-Concurrent-To"])
			continue
		}
		if typ != warc.TypeRequest {
			continue
		}
		pairs++
		req, _ := http.ReadRequest(bufio.NewReader(bytes.NewReader(r.block)))
		u, _ := url.Parse(r.h["WARC-Target-URI"])
		if req == nil || u == nil || req.URL.RequestURI() != u.RequestURI() || req.Host != u.Host {
			t.Errorf("request record for %s: the request %q asks for something else", r.h["WARC-Target-URI"], r.block)
		}
		if other.h["WARC-Type"] == warc.TypeRevisit && req != nil && req.Header.Get("If-None-Match") == "" {
			t.Errorf("request record for %s answered 304: no If-None-Match in %q", r.h["WARC-Target-URI"], r.block)
		}
	}
	if pairs == 0 {
		t.Error("no request records")
	}
}

// warcMetadata checks that every resource record has a metadata record
// beside it that refers to it (WARC-Refers-To), for the same URL, its block
// warc-fields lines; and that one of them matches want.
func warcMetadata(t *testing.T, recs []warcRecord, want *regexp.Regexp) {
	t.Helper()
	meta := map[string]warcRecord{}
	for _, r := range recs {
		if r.h["WARC-Type"] == warc.TypeMetadata {
			meta[r.h["WARC-Refers-To"]] = r
		}
	}
	matched := false
	for _, r := range recs {
		if r.h["WARC-Type"] != warc.TypeResource {
			continue
		}
		m, ok := meta[r.h["WARC-Record-ID"]]
		if !ok || m.h["WARC-Target-URI"] != r.h["WARC-Target-URI"] || m.h["Content-Type"] != warc.Fields {
			t.Errorf("resource %s: no metadata record refers to it", r.h["WARC-Target-URI"])
			continue
		}
		for _, l := range strings.SplitAfter(string(m.block), "\r\n") {
			if l != "" && !regexp.MustCompile(`^[a-z-]+: [^\r\n]*\r\n$`).MatchString(l) {
				t.Errorf("metadata for %s: line %q is no warc-fields line", r.h["WARC-Target-URI"], l)
			}
		}
		matched = matched || want.Match(m.block)
	}
	if !matched {
		t.Errorf("no metadata record matches %s", want)
	}
}

// Issue 37: a file cut mid-transfer (the run killed before it could
// record it) and resumed by the next run with Range has, beside the 206
// exchange as it was, a complete capture: a resource record of the whole
// file, whose payload digest is the file's, read by our reader and by
// gowarc (an independent one), with a metadata record saying how it was
// put together.
func TestWARCResumedFile(t *testing.T) {
	root, ng, _ := httpTree(t, "location /big/ { limit_rate 1m; }")
	big := make([]byte, 2<<20)
	rand.Read(big)
	fetchtest.WriteFile(t, filepath.Join(root, "big", "big.bin"), string(big), t1)
	dir, w := t.TempDir(), filepath.Join(t.TempDir(), "run.warc.gz")
	url := ng.URL + "/big/"
	ctx, cancel := context.WithCancel(context.Background())
	go cancelAtPart(ctx, cancel, dir, 200<<10)
	if _, err := Run(ctx, Options{URL: url, Dir: dir, WARC: w}); err == nil {
		t.Fatal("the first run was not interrupted")
	}
	cancel()
	if sum := mirrorOK(t, Options{URL: url, Dir: dir, WARC: w}); sum.New != 1 || sum.Bytes >= int64(len(big)) {
		t.Fatalf("second run: %+v, %d bytes: want 1 new, resumed", countsOf(sum), sum.Bytes)
	}
	recs := readWARC(t, w)
	warcCovers(t, dir, recs)
	warcPairs(t, recs)
	warcMetadata(t, recs, regexp.MustCompile(`(?m)^description: bytes 0-\d+ kept from an earlier run's partial copy, the rest from the 206 response <urn:uuid:`))
	target := url + "big.bin"
	partial := false
	for _, r := range recs {
		partial = partial || r.h["WARC-Target-URI"] == target && bytes.HasPrefix(r.block, []byte("HTTP/1.1 206 "))
	}
	if !partial {
		t.Error("no record of the 206 exchange")
	}
	lines := gowarcRecords(t, w)
	if lines == nil {
		return
	}
	whole := "resource\t" + target + "\t" + sha1Digest(big)
	if !slices.Contains(lines, whole) {
		t.Errorf("gowarc reads no record %q, only:\n%s", whole, strings.Join(lines, "\n"))
	}
}

// gowarcRecords reads the file with gowarc (warccheck -records): a line
// for each record, "TYPE\tTARGET-URI\tPAYLOAD-DIGEST"; nil, logged, when
// gowarc is not in the module cache (a failure with CI set).
func gowarcRecords(t *testing.T, name string) []string {
	t.Helper()
	cmd := exec.Command("go", "run", ".", "-records", name)
	cmd.Dir = filepath.Join("internal", "warccheck")
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil && !bytes.Contains(out, []byte(": invalid: ")):
		if testserver.InCI() {
			t.Errorf("no cross-check with gowarc (not in the module cache?): %v\n%s", err, out)
		} else {
			t.Logf("no cross-check with gowarc (not in the module cache?): %v\n%s", err, out)
		}
		return nil
	case err != nil:
		t.Errorf("gowarc: %s", out)
		return nil
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// crossCheck reads the file with github.com/nlnwa/gowarc, an independent
// implementation, under its strict validation (mirror/internal/warccheck,
// a module of its own), when the module cache has it: run offline, it
// says so and checks nothing otherwise.
func crossCheck(t *testing.T, name string) {
	t.Helper()
	cmd := exec.Command("go", "run", ".", name)
	cmd.Dir = filepath.Join("internal", "warccheck")
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil && !bytes.Contains(out, []byte(": invalid: ")):
		t.Logf("no cross-check with gowarc (not in the module cache?): %v\n%s", err, out)
	case err != nil:
		t.Errorf("gowarc: %s", out)
	default:
		t.Logf("gowarc: %s", bytes.TrimSpace(out))
	}
}

// TestWARCTornTail: a run killed while it wrote a record leaves the WARC
// file ending in part of one; the next run into the mirror cuts it away
// (the mark beside the manifest says where the last whole record ended),
// so that the file, with the next run's records appended, is one valid
// WARC file (ours and gowarc's readers). Whole records another writer
// appended meanwhile are kept.
func TestWARCTornTail(t *testing.T) {
	s := ftptest.New(t)
	ftpTree(s)
	testWARCTornTail(t, "ftp://"+s.Addr+"/pub/")
}

// TestRealWARCTornTail: the same on vsftpd.
func TestRealWARCTornTail(t *testing.T) {
	testWARCTornTail(t, testserver.StartFTP(t, testserver.Vsftpd).URL+"/pub/")
}

func testWARCTornTail(t *testing.T, url string) {
	for _, gz := range []bool{true, false} {
		name := "run.warc"
		if gz {
			name += ".gz"
		}
		dir, w := t.TempDir(), filepath.Join(t.TempDir(), name)
		mirrorOK(t, Options{URL: url, Dir: dir, WARC: w})
		first := len(readWARC(t, w))
		// A whole record appended by another writer, then a torn one.
		var extra bytes.Buffer
		ww := warc.NewWriter(&extra, gz, name)
		if err := ww.Warcinfo([][2]string{{"software", "another writer"}}); err != nil {
			t.Fatal(err)
		}
		block := strings.Repeat("x", 5000)
		rec := warc.Record{Type: warc.TypeResource, TargetURI: "ftp://elsewhere/x", Date: time.Now(),
			ContentType: "application/octet-stream", Block: strings.NewReader(block), BlockSize: int64(len(block))}
		if err := ww.Write(rec); err != nil {
			t.Fatal(err)
		}
		whole := extra.Len()
		if err := ww.Write(rec); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(w, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(extra.Bytes()[:whole+(extra.Len()-whole)/2])
		f.Close()
		mirrorOK(t, Options{URL: url, Dir: dir, WARC: w})
		recs := readWARC(t, w)
		others := 0
		for _, r := range recs {
			if r.h["WARC-Target-URI"] == "ftp://elsewhere/x" {
				others++
			}
		}
		if others != 1 || len(recs) <= first+2 {
			t.Errorf("gzip %v: %d records (%d of the other writer) after the second run, %d after the first: want its whole record kept, the torn one cut, a warcinfo more", gz, len(recs), others, first)
		}
		crossCheck(t, w)
	}
}
