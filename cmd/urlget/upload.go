package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp"
	"github.com/urlget/urlget/urlparse"
)

// upload sends the -T file to one URL (ftp only: STOR, or APPE with
// --append). A URL ending in "/" gets the local file's name appended, as
// curl does.
func (c *fetchCmd) upload(ctx context.Context, num int, raw string) (r *xferResult) {
	start := time.Now()
	r = &xferResult{num: num, url: raw, effective: raw}
	defer func() {
		r.elapsed = time.Since(start)
		r.code = fetch.ExitCode(r.err)
	}()
	u, err := parseFetchURL(raw)
	if err != nil {
		r.err = fetch.NewError(fetch.ErrMalformed, "malformed URL", err)
		return r
	}
	r.scheme = u.Scheme
	if u.Scheme != "ftp" {
		r.err = fetch.NewError(fetch.ErrUnsupported, "-T/--upload-file: uploads go to ftp:// URLs only, not "+u.Scheme+":", nil)
		return r
	}
	if strings.HasSuffix(u.RawPath, "/") && u.FTP.Type == 0 {
		withName := u.String() + urlparse.SegmentEscape(filepath.Base(c.o.uploadFile))
		if u, err = parseFetchURL(withName); err != nil {
			r.err = fetch.NewError(fetch.ErrMalformed, "malformed URL", err)
			return r
		}
		r.effective = withName
	}
	f, err := os.Open(c.o.uploadFile)
	if err != nil {
		r.err = fetch.NewError(fetch.ErrRead, "-T/--upload-file", err)
		return r
	}
	defer f.Close()
	if c.o.maxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.o.maxTime)
		defer cancel()
	}
	r.size, r.err = ftp.Upload(ctx, c.client, &fetch.Request{URL: &u, Options: c.asked}, f, c.o.appendUpload)
	return r
}
