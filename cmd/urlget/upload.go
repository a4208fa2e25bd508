package main

import (
	"context"
	"fmt"
	"io"
	"maps"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// appendsTo reports whether -T to a URL of scheme goes through upload: the
// scheme can append to a file (it takes --append: ftp), so that an upload
// can resume.
func appendsTo(scheme string) bool {
	for _, o := range fetch.RegisteredOptions() {
		if o.FlagName() == "append" && o.AppliesTo(scheme) {
			return true
		}
	}
	return false
}

// upload sends the -T file (or stdin, "-T -") to a URL of a scheme that
// can append (appendsTo: ftp's STOR, or APPE with --append) as the
// Request.Body of one Client.Do. A URL ending in "/" gets the local file's
// name appended, as curl does. With -C - the remote file's size (a HEAD) is
// skipped of the local file and the rest appended; -C N skips N bytes; a
// remote file already whole is left alone. Other schemes get the -T body
// in the fetch itself (request.go: an HTTP PUT, a mail's text, or the
// scheme's fetch.BodySender).
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
	appendKey := optionKey("append")
	app, _ := c.o.options.Bool(appendKey) // checked when the flags were read
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
	opts := maps.Clone(c.asked)
	if app {
		if opts == nil {
			opts = fetch.Options{}
		}
		opts[appendKey] = "1"
	}
	body := &fetch.CountingReader{R: c.countUpload(src, size)}
	res, err := c.client.Do(ctx, &fetch.Request{URL: u, Options: opts, Body: body, BodySize: -1})
	r.size = body.N
	if err != nil {
		return err
	}
	res.Body.Close()
	return nil
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
