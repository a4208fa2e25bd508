package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteOutCLI(t *testing.T) {
	inDir(t)
	srv := newFakeSrv(map[string]*fakeFile{"/a": {data: []byte("hello")}})
	r := runCLI(t, srv, "-s", "-w", "%{http_code} %{size_download} %{exitcode}\\n", "http://h/a", "http://h/none", "test://h/none")
	if r.stdout != "hello200 5 0\nnot found404 9 0\n000 0 78\n" || r.code != 78 {
		t.Errorf("-w: %+v", r)
	}
	r = runCLI(t, srv, "-s", "-o", "f", "-w", "%{json}", "http://h/a")
	var m map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || m["filename_effective"] != "f" || m["url_effective"] != "http://h/a" {
		t.Errorf("-w %%{json}: %+v %v", r, err)
	}
	// -w @file
	os.WriteFile(filepath.Join(".", "fmt"), []byte("code=%{http_code}"), 0o644)
	if r := runCLI(t, srv, "-s", "-o", "/dev/null", "-w", "@fmt", "http://h/a"); r.stdout != "code=200" {
		t.Errorf("-w @file: %+v", r)
	}
}
