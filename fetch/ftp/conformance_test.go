package ftp_test

import (
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/ftp"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
)

// TestConformance runs the shared suite against the in-tree server, with
// a pooling Fetcher (the suite's repeated fetches reuse its connections).
func TestConformance(t *testing.T) {
	s := newServer(t)
	stallBody := newServer(t)
	configure(stallBody, func(s *ftptest.Server) { s.Hook = ftptest.StallData("binary.bin", binary, 1000) })
	early := newServer(t)
	configure(early, func(s *ftptest.Server) {
		s.Hook = ftptest.ShortData("binary.bin", binary, len(binary)/2, "226 Transfer complete")
	})
	f := &ftp.Fetcher{}
	t.Cleanup(f.CloseIdle)
	fetchtest.Run(t, fetchtest.Suite{
		Client:         client(f, nil),
		Known:          "ftp://" + s.Addr + "/pub/binary.bin",
		KnownBody:      binary,
		Missing:        "ftp://" + s.Addr + "/pub/nothere.bin",
		MissingKind:    fetch.ErrNotFound,
		Dir:            "ftp://" + s.Addr + "/pub/",
		DirNames:       []string{"binary.bin", "hello.txt", "a", "empty", "link-to-hello"},
		Stall:          "ftp://" + fetchtest.Stall(t, "", nil).Addr + "/pub/binary.bin",
		StallBody:      "ftp://" + stallBody.Addr + "/pub/binary.bin",
		StallBodyBytes: 1000,
		Early:          "ftp://" + early.Addr + "/pub/binary.bin",
		Inject:         "ftp://" + s.Addr + "/pub/x%0D%0ADELE%20binary.bin",
		Received:       s.Received,
	})
}
