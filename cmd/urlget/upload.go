package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp"
	"github.com/urlget/urlget/urlparse"
)

// upload sends the -T file (or stdin, "-T -") to an ftp URL: STOR, or APPE
// with --append. A URL ending in "/" gets the local file's name appended,
// as curl does. With -C - the remote file's size (SIZE) is skipped of the
// local file and the rest APPEnded; -C N skips N bytes; a remote file
// already whole is left alone. Other schemes get the -T body through the fetch itself
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
	off, err := c.uploadOffset(ctx, u)
	if err != nil {
		return err
	}
	if off > 0 {
		switch {
		case size >= 0 && off > size:
			return fetch.NewError(fetch.ErrResume, fmt.Sprintf("cannot resume the upload: the remote file has %d bytes, %s only %d", off, c.o.uploadFile, size), nil)
		case off == size:
			return nil // already whole
		}
		if _, err := io.CopyN(io.Discard, src, off); err != nil {
			return fetch.NewError(fetch.ErrRead, "-T/--upload-file "+c.o.uploadFile+": skipping the part already sent", err)
		}
		if size >= 0 {
			size -= off
		}
		app = true
		if c.o.verbose {
			fmt.Fprintf(c.e.stderr, "* Resuming the upload at byte %d\n", off)
		}
	}
	r.size, err = ftp.Upload(ctx, c.client, &fetch.Request{URL: u, Options: c.asked}, c.countUpload(src, size), app)
	return err
}

// uploadOffset is where an upload resumes: -C N, or with -C - the remote
// file's size (none there: 0).
func (c *fetchCmd) uploadOffset(ctx context.Context, u *urlparse.URL) (int64, error) {
	switch {
	case c.o.continueAt == "":
		return 0, nil
	case c.o.resumeFrom >= 0:
		return c.o.resumeFrom, nil
	}
	res, err := c.client.Do(ctx, &fetch.Request{URL: u, Head: true, Options: c.asked})
	if fetch.KindOf(err) == fetch.ErrNotFound {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	res.Body.Close()
	return max(res.Size, 0), nil
}
