package mirror

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
	"github.com/urlget/urlget/internal/testserver"
)

// TestRealRacy: a file rewritten at the same size and given back its
// modification time (to the second: MDTM, MLSD, Last-Modified and nginx's
// ETag are the same; to the minute: an ls date) is fetched again by the
// next run when that time was still current, within its precision, as it
// was fetched ("racy", as git and rsync treat such entries): on vsftpd
// (MDTM; a vsftpd that refuses MDTM still names it in FEAT, and every
// file whose MDTM fails is fetched) and on nginx (Last-Modified, ETag). Before, each said "unchanged" and kept the old
// copy. A file with an old time is not fetched again.
func TestRealRacy(t *testing.T) {
	check := func(t *testing.T, url, dir string, rewrite func(string)) {
		t.Helper()
		mirrorOK(t, Options{URL: url, Dir: dir})
		if got := tree(t, dir)["racy.txt"]; got != "seven!\n" {
			t.Fatalf("first run: racy.txt = %q", got)
		}
		rewrite("SEVEN!\n")
		w := &whys{path: "racy.txt"}
		old := &whys{path: "old.txt"}
		sum := mirrorOK(t, Options{URL: url, Dir: dir, Event: func(ev Event) { w.event(ev); old.event(ev) }})
		if sum.Changed != 1 || !strings.Contains(w.String(), "changed: racy") {
			t.Errorf("rewritten in the second: %+v, events %s", countsOf(sum), w)
		}
		if got := tree(t, dir)["racy.txt"]; got != "SEVEN!\n" {
			t.Errorf("racy.txt = %q, want the new bytes", got)
		}
		if !strings.HasPrefix(old.String(), "unchanged: ") {
			t.Errorf("old.txt: %s", old)
		}
	}
	// A recent time, whole seconds (as MDTM and Last-Modified give it).
	now := time.Now().Add(-5 * time.Second).Truncate(time.Second)
	ftpCase := func(t *testing.T, s *testserver.FTPServer) {
		pub := filepath.Join(s.Anon, "pub", "racy")
		p := filepath.Join(pub, "racy.txt")
		fetchtest.WriteFile(t, p, "seven!\n", now)
		fetchtest.WriteFile(t, filepath.Join(pub, "old.txt"), "old\n", t1)
		check(t, s.URL+"/pub/racy/", t.TempDir(), func(data string) {
			fetchtest.WriteFile(t, p, data, now)
			os.Chmod(p, 0o644)
		})
	}
	t.Run("ftp MDTM", func(t *testing.T) {
		ftpCase(t, testserver.StartFTP(t, testserver.Vsftpd))
	})
	t.Run("http", func(t *testing.T) {
		root := t.TempDir()
		p := filepath.Join(root, "racy.txt")
		fetchtest.WriteFile(t, p, "seven!\n", now)
		fetchtest.WriteFile(t, filepath.Join(root, "old.txt"), "old\n", t1)
		ng := testserver.StartNginx(t, testserver.NginxConfig{Root: root})
		check(t, ng.URL+"/", t.TempDir(), func(data string) { fetchtest.WriteFile(t, p, data, now) })
	})
}

// TestFTPRacyNoMDTM: on a server without MDTM or MLSD (the in-tree one:
// vsftpd names MDTM in FEAT even when it refuses it), the LIST minute is
// all there is: a copy fetched within that minute (any time zone
// allowed) is fetched again by the next run, which finds the same-size
// rewrite; before, the listing's date matching the copy's kept it.
func TestFTPRacyNoMDTM(t *testing.T) {
	s := ftptest.New(t)
	configure(s, func(srv *ftptest.Server) {
		srv.NoMLSD = true
		srv.Features = []string{"EPSV", "PASV", "SIZE"}
	})
	now := time.Now().Add(-5 * time.Second).Truncate(time.Second)
	s.AddFile("pub/racy.txt", []byte("seven!\n"), now)
	s.AddFile("pub/old.txt", []byte("old\n"), t1)
	url := "ftp://" + s.Addr + "/pub/"
	dir := t.TempDir()
	mirrorOK(t, Options{URL: url, Dir: dir})
	s.AddFile("pub/racy.txt", []byte("SEVEN!\n"), now)
	w := &whys{path: "racy.txt"}
	sum := mirrorOK(t, Options{URL: url, Dir: dir, Event: w.event})
	if sum.Changed != 1 || !strings.Contains(w.String(), "changed: racy") {
		t.Errorf("rewritten in the minute: %+v, events %s", countsOf(sum), w)
	}
	if got := tree(t, dir)["racy.txt"]; got != "SEVEN!\n" {
		t.Errorf("racy.txt = %q, want the new bytes", got)
	}
}
