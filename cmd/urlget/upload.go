package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp"
	"github.com/urlget/urlget/urlparse"
)

// upload sends the -T file to one URL (ftp only: STOR, or APPE with
// --append). A URL ending in "/" gets the local file's name appended, as
// curl does.
func (c *fetchCmd) upload(ctx context.Context, u *urlparse.URL, r *xferResult) error {
	if u.Scheme != "ftp" {
		return fetch.NewError(fetch.ErrUnsupported, "-T/--upload-file: uploads go to ftp:// URLs only, not "+u.Scheme+":", nil)
	}
	if strings.HasSuffix(u.RawPath, "/") && u.FTP.Type == 0 {
		withName := u.String() + urlparse.SegmentEscape(filepath.Base(c.o.uploadFile))
		named, err := parseFetchURL(withName)
		if err != nil {
			return fetch.NewError(fetch.ErrMalformed, "malformed URL", err)
		}
		u, r.effective = &named, withName
	}
	f, err := os.Open(c.o.uploadFile)
	if err != nil {
		return fetch.NewError(fetch.ErrRead, "-T/--upload-file", err)
	}
	defer f.Close()
	if c.o.maxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.o.maxTime)
		defer cancel()
	}
	app, _ := c.o.options.Bool(ftp.OptAppend) // checked when the flags were read
	r.size, err = ftp.Upload(ctx, c.client, &fetch.Request{URL: u, Options: c.asked}, f, app)
	return err
}
