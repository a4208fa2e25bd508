package main

import (
	"context"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp"
	"github.com/urlget/urlget/urlparse"
)

// upload sends the -T file (or stdin, "-T -") to an ftp URL: STOR, or APPE
// with --append. A URL ending in "/" gets the local file's name appended,
// as curl does. Other schemes get the -T body through the fetch itself
// (request.go: an HTTP PUT, or the scheme's fetch.BodySender).
func (c *fetchCmd) upload(ctx context.Context, u *urlparse.URL, r *xferResult) error {
	u, err := c.prepareURL(u, r)
	if err != nil {
		return err
	}
	src, size, err := openUpload(c.o.uploadFile, c.e.stdin)
	if err != nil {
		return err
	}
	if cr, ok := src.(closingReader); ok {
		defer cr.f.Close()
	}
	if c.o.maxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.o.maxTime)
		defer cancel()
	}
	app, _ := c.o.options.Bool(ftp.OptAppend) // checked when the flags were read
	r.size, err = ftp.Upload(ctx, c.client, &fetch.Request{URL: u, Options: c.asked}, c.countUpload(src, size), app)
	return err
}
