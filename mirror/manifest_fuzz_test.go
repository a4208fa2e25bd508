package mirror

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/urlget/urlget/internal/fuzzcheck"
)

// FuzzManifest: a manifest of any bytes (torn lines, hostile records, a
// header of another version) reads or fails; what reads has one record per
// URL, none of them empty or deleted; a run that loads it and compacts it
// leaves a manifest that reads the same; and the work is bounded by the
// file.
func FuzzManifest(f *testing.F) {
	header := `{"urlget_mirror":"urlget","version":1,"url":"ftp://127.0.0.1/"}` + "\n"
	fuzzcheck.Seeds(f,
		journalSample,
		header+`{"url":"gopher://127.0.0.1/1/m","path":"m/.gopher-menu","type":"menu","size":-7,"status":"ok","name":"\u0000/..","sha256":"x"}`+"\n",
		header+`{"url":"","status":"ok"}`+"\n"+`{"url":"a","url":"b","status":"deleted"}`+"\n"+`{"url":"c"`+"\n",
		header+"\n\n  \n"+`{"url":"ftp://127.0.0.1/\u00ff\ud800","path":"../../etc","type":"file","size":9223372036854775807,"status":"ok"}`,
		`{"urlget_mirror":"urlget","version":2,"url":"x"}`, "\n"+header, `{"urlget_mirror":""}`, "not json\n", "",
		header+strings.Repeat(`{"url":"u","status":"ok"}`+"\n", 500),
	)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, ManifestName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		var url string
		var recs []Record
		var err error
		fuzzcheck.Bounded(t, len(data), func() { url, recs, err = ReadManifest(dir) })
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, r := range recs {
			if r.URL == "" || r.Status == StatusDeleted || seen[r.URL] {
				t.Fatalf("%q: record %+v", data, r)
			}
			seen[r.URL] = true
		}
		l, err := openLocal(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer l.close()
		m, err := loadManifest(l, url, false)
		if err != nil {
			t.Fatalf("%q reads, but a run cannot load it: %v", data, err)
		}
		err = m.compact()
		m.release()
		if err != nil {
			t.Fatal(err)
		}
		url2, recs2, err := ReadManifest(dir)
		if err != nil || url2 != url || !reflect.DeepEqual(recs2, recs) {
			t.Fatalf("%q: compacted, reads as %q %+v (%v), not %q %+v", data, url2, recs2, err, url, recs)
		}
	})
}
