package ftp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/urlget/urlget/fetch"
)

// upload is the body of a request being stored.
type upload struct {
	r      io.Reader
	size   int64 // Request.BodySize: -1 when unknown
	append bool
	crlf   bool // OptCRLF: LF sent as CRLF in TYPE I too
	n      int64
}

// Upload stores what r holds at an ftp URL, through the Client c (nil: a
// zero Client): STOR name, or APPE name when appending, after the same
// CWDs as a retrieval (ftp-method applies). The URL must end in a file
// name. The transfer type is ;type=a or ;type=i when the URL says, else
// the ftp-type option, else binary: uploads are never guessed from the
// name, so that a file arrives byte for byte unless ASCII is asked for
// (then LF line ends are sent as CRLF). It returns the bytes sent (before
// any ASCII conversion: the bytes taken from r).
//
// req gives the URL (and nothing else is read from it: Head, Offset and
// Since are ignored); the Client fills in the rest as for a retrieval.
// Errors: the server refusing STOR/APPE or the transfer is ErrUpload
// (exit 25); reading r failing is ErrRead (26); the login and CWD errors
// are those of a retrieval. An ftp URL that the Client would send through
// an HTTP proxy cannot be uploaded (ErrUnsupported): proxies get GET.
//
// To resume an upload, use Client.Do with the Body and Request.Offset
// (fetch.UploadAtEnd: where the remote file ends now).
func Upload(ctx context.Context, c *fetch.Client, req *fetch.Request, r io.Reader, append bool) (int64, error) {
	if c == nil {
		c = &fetch.Client{}
	}
	if req == nil || req.URL == nil {
		return 0, &fetch.Error{Kind: fetch.ErrMalformed, Msg: "no URL to upload to"}
	}
	u := req.URL
	if u.Scheme != "ftp" {
		return 0, &fetch.Error{Kind: fetch.ErrUnsupported, URL: fetch.Redacted(u), Msg: "ftp.Upload: not an ftp URL"}
	}
	cr := &fetch.CountingReader{R: r}
	opts := fetch.Options{}
	for k, v := range req.Options {
		opts[k] = v
	}
	if append {
		opts[OptAppend] = "1"
	}
	res, err := c.Do(ctx, &fetch.Request{URL: u, Options: opts, Body: cr, BodySize: -1})
	if err != nil {
		return cr.N, err
	}
	res.Body.Close()
	return cr.N, nil
}

// startTransfer readies a transfer in curl's order: the data connection
// for cmd (when open: not for -I), TYPE typ, then the "+" quoted commands.
// The caller closes the Transfer if it goes unused (closeUnused).
func (f *Fetcher) startTransfer(ctx context.Context, c *pconn, o *options, typ byte, open bool, cmd Command) (*Transfer, error) {
	var t *Transfer
	if open {
		var err error
		if t, err = c.openTransfer(ctx, cmd); err != nil {
			return nil, err
		}
	}
	fail := func(err error) (*Transfer, error) {
		if t != nil {
			t.closeUnused()
		}
		return nil, err
	}
	if err := c.Type(typ); err != nil {
		return fail(err)
	}
	if err := f.quote(ctx, c, o.quote, quoteStart); err != nil {
		return fail(err)
	}
	return t, nil
}

// store carries out an upload on a connection in the right directory, in
// curl's order: the data connection, TYPE, the "+" quoted commands, SIZE
// for a resume at the end, STOR or APPE.
func (f *Fetcher) store(ctx context.Context, c *pconn, req *fetch.Request, o *options, p *plan, up *upload) (*fetch.Resource, error) {
	verb := "STOR"
	if up.append {
		verb = "APPE"
	}
	t, err := f.startTransfer(ctx, c, o, p.typ, true, Command{Verb: verb, Arg: p.name})
	if err != nil {
		return nil, err
	}
	defer t.closeUnused()
	if req.Offset != 0 {
		whole, err := f.resumeUpload(ctx, c, req.Offset, p, up)
		if err != nil {
			return nil, err
		}
		if whole {
			return f.done(ctx, c, o, fetch.Meta{Size: 0, Status: 213})
		}
	}
	if up.append {
		verb = "APPE" // resumeUpload appends
	}
	t, r, err := f.transfer(ctx, c, t, verb, p.name, 0)
	if err != nil {
		return nil, err
	}
	if !t.HasData() {
		return nil, replyError(fetch.ErrUpload, "ftp: "+verb+" ended before any data was sent", verb, r)
	}
	var src io.Reader
	cr := &fetch.CountingReader{R: up.r}
	if p.typ == 'a' || up.crlf {
		src = &lfToCRLF{r: cr}
	} else {
		src = cr
	}
	bp := bufPool.Get().(*[]byte)
	var werr, rerr error
	for {
		n, er := src.Read(*bp)
		if n > 0 {
			if _, ew := t.Write((*bp)[:n]); ew != nil {
				werr = ew
				break
			}
		}
		if er == io.EOF {
			break
		}
		if er != nil {
			rerr = er
			break
		}
	}
	bufPool.Put(bp)
	up.n = cr.N
	if werr != nil || rerr != nil {
		t.Close()
		c.broken = true // the server's reply to the cut transfer is still due
		switch {
		case ctx.Err() != nil:
			return nil, fetch.ContextError(ctx)
		case rerr != nil:
			var fe *fetch.Error
			if errors.As(rerr, &fe) {
				return nil, fe
			}
			return nil, &fetch.Error{Kind: fetch.ErrRead, Msg: "ftp: reading the data to upload", Err: rerr}
		}
		return nil, werr
	}
	if !r.Positive() {
		c.raw.SetReadDeadline(time.Now().Add(f.finalTimeout()))
	}
	fr, err := t.finish()
	c.raw.SetReadDeadline(time.Time{})
	if err != nil {
		return nil, ioError(ctx, fetch.ErrUpload, verb+": no final reply", err)
	}
	if fr.code == 552 {
		// "Exceeded storage allocation" after the data: the file is
		// not whole there (curl's 70).
		return nil, replyError(fetch.ErrDiskFull, "ftp: the server had no room for the data", shownCommand(verb, p.name), fr)
	}
	if !fr.Positive() {
		return nil, RefusedError(verb, p.name, fr)
	}
	return f.done(ctx, c, o, fetch.Meta{Size: 0, Status: fr.code})
}

// resumeUpload readies an upload that resumes at offset (Request.Offset;
// fetch.UploadAtEnd: the remote file's SIZE; none there, or SIZE refused: 0): the bytes
// of the body the remote file already holds are skipped and the rest is
// appended (APPE), as curl's -C with -T. whole says the remote file is
// whole already: nothing is to be sent.
func (f *Fetcher) resumeUpload(ctx context.Context, c *pconn, offset int64, p *plan, up *upload) (whole bool, err error) {
	if offset == fetch.UploadAtEnd {
		r, err := c.cmd("SIZE", p.name, true)
		if err != nil {
			return false, ioError(ctx, fetch.ErrProtocol, "SIZE", err)
		}
		if n, ok := ParseSize(r); ok {
			offset = n
		} else {
			// 550: no file there yet; SIZE refused or not understood:
			// the size is not known, and the upload starts over from
			// the beginning (STOR), as curl's does (its tests 235, 236).
			offset = 0
		}
	}
	if offset <= 0 {
		return false, nil
	}
	switch {
	case up.size >= 0 && offset > up.size:
		return false, &fetch.Error{Kind: fetch.ErrResume, Msg: fmt.Sprintf("ftp: cannot resume the upload: the remote file has %d bytes, the data to send only %d", offset, up.size)}
	case offset == up.size:
		return true, nil // already whole
	}
	if n, err := fetch.SkipBody(up.r, offset); err == io.EOF {
		return false, &fetch.Error{Kind: fetch.ErrResume, Msg: fmt.Sprintf("ftp: cannot resume the upload: the remote file has %d bytes, the data to send only %d", offset, n)}
	} else if err != nil {
		return false, &fetch.Error{Kind: fetch.ErrRead, Msg: "ftp: skipping the part already sent", Err: err}
	}
	up.append = true
	if f.Config.Verbose != nil {
		fetch.Logf(f.Config.Verbose, "* Resuming the upload at byte %d", offset)
	}
	return false, nil
}
