package download_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urlget/urlget/download"
	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/all" // every scheme
)

// Do fetches a URL into a file named after it, in a directory; --write-out
// formats tell of it.
func ExampleDownloader_Do() {
	modified := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/pub/notes.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		http.ServeContent(w, r, "notes.txt", modified, strings.NewReader("hello, world\n"))
	}))
	defer srv.Close()
	dir, err := os.MkdirTemp("", "download")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	d := &download.Downloader{
		Client:     &fetch.Client{Fail: true},
		Retry:      fetch.RetryPolicy{Retries: 3},
		OutputDir:  filepath.Join(dir, "in"),
		CreateDirs: true,
		RemoteTime: true,
	}
	r := d.Do(context.Background(), srv.URL+"/pub/notes.txt", download.Target{Remote: true})
	if r.Err != nil {
		log.Fatal(r.Err)
	}
	b, _ := os.ReadFile(r.Filename)
	fi, _ := os.Stat(r.Filename)
	fmt.Printf("%s %q %s\n", filepath.Base(r.Filename), b, fi.ModTime().UTC().Format(time.DateOnly))
	download.ParseWriteOut(`%{http_code} %{size_download} %{content_type} %{exitcode}\n`).Render(os.Stdout, os.Stderr, r)

	r = d.Do(context.Background(), srv.URL+"/gone", download.Target{Name: "gone.txt"})
	fmt.Println(r.Code, r.Err)
	// Output:
	// notes.txt "hello, world\n" 2024-05-01
	// 200 13 text/plain 0
	// 22 The requested URL returned error: 404
}

// A transfer cut short keeps what it received in NAME.part; Resume goes on
// from there (asking the server whether the resource changed since) and
// renames the file into place once it is whole.
func ExampleDownloader_Do_resume() {
	data := strings.Repeat("0123456789", 1000)
	modified := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	cut := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cut {
			cut = false
			w.Header().Set("Content-Length", fmt.Sprint(len(data)))
			w.Header().Set("Last-Modified", modified.Format(http.TimeFormat))
			w.Write([]byte(data[:4000]))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // the connection breaks
		}
		http.ServeContent(w, r, "big", modified, strings.NewReader(data))
	}))
	defer srv.Close()
	dir, err := os.MkdirTemp("", "download")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "big")

	d := &download.Downloader{Client: &fetch.Client{}}
	r := d.Do(context.Background(), srv.URL+"/big", download.Target{Name: name})
	fmt.Println(r.Code, filepath.Base(r.Kept), r.KeptSize)

	d.Resume, d.ResumeFrom = true, download.ResumeAtEnd
	r = d.Do(context.Background(), srv.URL+"/big", download.Target{Name: name})
	b, _ := os.ReadFile(name)
	_, err = os.Stat(name + ".part")
	fmt.Println(r.Code, r.Status, r.Size, len(b) == len(data) && string(b) == data, os.IsNotExist(err))
	// Output:
	// 18 big.part 4000
	// 0 206 6000 true true
}
