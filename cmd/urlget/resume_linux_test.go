package main

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestResumeMarkedPart: a NAME.part carrying urlget's mark is resumed with
// the mark's time as Request.Since (If-Range), so that a resource changed
// since comes whole; a mark of another URL, or one that is not urlget's,
// proves nothing.
func TestResumeMarkedPart(t *testing.T) {
	inDir(t)
	data := []byte("0123456789abcdefghij")
	fetched := time.Now().Add(-time.Hour).Truncate(time.Second)
	srv := newFakeSrv(map[string]*fakeFile{"/new": {data: data, mod: time.Now().Add(time.Hour)}})
	mark := func(v string) {
		os.WriteFile("new.part", []byte("stale..."), 0o644)
		if err := syscall.Setxattr("new.part", "user.urlget.part", []byte(v), 0); err != nil {
			t.Fatal(err)
		}
	}
	mark(strconv.FormatInt(fetched.Unix(), 10) + " test://h/new")
	srv.reqs = nil
	if r := runCLI(t, srv, "-C", "-", "-o", "new", "test://h/new"); r.code != 0 || readFile(t, "new") != string(data) {
		t.Errorf("marked part, changed: %+v %q", r, readFile(t, "new"))
	}
	if len(srv.reqs) == 0 || !srv.reqs[0].Since.Equal(fetched) {
		t.Errorf("asked %+v, want Since %v", srv.reqs, fetched)
	}
	if _, err := os.Stat("new.part"); err == nil {
		t.Error("new.part left")
	}
	var b [64]byte
	if _, err := syscall.Getxattr("new", "user.urlget.part", b[:]); err == nil {
		t.Error("the complete file still carries the part's mark")
	}
	for _, v := range []string{strconv.FormatInt(fetched.Unix(), 10) + " test://h/other", "not a time test://h/new"} {
		mark(v)
		os.Remove("new")
		if r := runCLI(t, srv, "-C", "-", "-o", "new", "test://h/new"); r.code != 0 || readFile(t, "new") != "stale..."+string(data[8:]) {
			t.Errorf("mark %q: %+v %q, want the part resumed as it is", v, r, readFile(t, "new"))
		}
	}
}
