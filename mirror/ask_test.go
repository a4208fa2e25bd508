package mirror

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
)

// A server that wants a password the URL does not give: Ask is asked, and
// the run made again with its answer, in a copy of the Client. Without an
// answer the run fails, and the directory it made is not left behind.
func TestAskPassword(t *testing.T) {
	s := ftptest.New(t)
	s.Configure(func(s *ftptest.Server) { s.Users = map[string]string{"kim": "sesame"} })
	files := ftpTree(s)
	url := "ftp://kim@" + s.Addr + "/pub/"
	cl := &fetch.Client{}

	dir := filepath.Join(t.TempDir(), "new")
	asked := 0
	opt := Options{URL: url, Dir: dir, Client: cl, Ask: func(err error) fetch.Options {
		asked++
		var ine *fetch.InputNeededError
		if !errors.As(err, &ine) || ine.Key != fetch.OptPassword {
			t.Errorf("asked for %v", err)
		}
		return nil
	}}
	if _, err := Run(context.Background(), opt); err == nil || asked != 1 {
		t.Fatalf("no answer: %v, asked %d times", err, asked)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the directory the failed run made is left: %v", err)
	}
	keep := t.TempDir() // there before the run: kept
	if _, err := Run(context.Background(), Options{URL: url, Dir: keep, Client: cl}); err == nil {
		t.Fatal("no Ask: the run went through")
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("a directory that was there is gone: %v", err)
	}

	opt.Ask = func(error) fetch.Options { return fetch.Options{fetch.OptPassword: "sesame"} }
	mirrorOK(t, opt)
	for name, want := range files {
		if got, err := os.ReadFile(filepath.Join(dir, name)); name != "link" && string(got) != want {
			t.Errorf("with the password, %s: %q %v", name, got, err)
		}
	}
	if cl.Options != nil {
		t.Errorf("the Client given was changed: %v", cl.Options)
	}
}
