// Package file fetches file URLs (RFC 1738 §3.10, RFC 8089): files and
// directories of the local machine. Importing it registers the "file"
// scheme with package fetch.
//
// A file URL whose host is empty or "localhost" names a local file, and so
// does one of host 127.0.0.1, as curl takes it; any other host is refused with ErrMalformed (exit 3), since urlget has no way to
// reach another machine's files.
//
// A regular file streams straight from the *os.File: nothing is buffered,
// and io.Copy reaches the kernel's copy_file_range or sendfile. Meta.Size
// and Meta.ModTime come from the file. A resume (Request.Offset) seeks;
// with Request.Since set, a file modified after Since (to the second) is
// sent whole instead (Meta.Offset 0). An offset past the end of the file is
// ErrResume. Meta.Header holds what curl shows as a file's headers
// (Content-Length, Accept-ranges, Last-Modified). A Request.Range seeks to its start and ends the body after its
// last byte (the first range only; of a regular file only, as curl).
// Request.Head gives the metadata with an empty Body. With
// Request.IfModifiedSince, a file not modified after it (to the second) is
// Meta.NotModified, with an empty Body.
//
// A file that does not exist or cannot be read is ErrFileRead (exit 37),
// as in curl.
//
// A Request.Body (the Fetcher is a fetch.BodySender) is written to the file
// instead, created or truncated, as curl -T FILE file:///path does.
//
// A directory gives a listing (Meta.Dir set, Resource.Listing parsing it;
// see Resource.Entries): one line per entry, "." and ".." left out,
//
//	TYPE SIZE MTIME NAME
//	l SIZE MTIME NAME -> TARGET
//
// where TYPE is one letter as in ls -l ('-' regular file, 'd' directory,
// 'l' symbolic link, 'p' named pipe, 's' socket, 'c' character device,
// 'b' block device, '?' anything else), SIZE the size in bytes (of the link
// itself for a link), MTIME the modification time in UTC as RFC 3339
// ("2006-01-02T15:04:05Z"), and NAME the file name. In NAME and TARGET a
// backslash is written "\\", tab, newline and carriage return "\t", "\n",
// "\r", and any other control byte "\xHH"; in NAME, a ">" that follows " -"
// is written "\x3e", so that " -> " only ever separates a link from its
// target. For example:
//
//	d 4096 2024-05-01T12:00:00Z src
//	- 1234 2024-05-01T12:00:00Z notes.txt
//	l 9 2024-05-01T12:00:00Z latest -> notes.txt
//
// A directory of at most 4096 entries is listed sorted by name; a larger one
// is listed in the order the system returns its entries, sorted only within
// each batch of 256, so that memory stays bounded.
package file

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

func init() {
	fetch.Register(fetch.Scheme{Name: "file", New: func(fetch.Config) fetch.Fetcher { return Fetcher{} }, Caps: fetch.ReferralTarget | fetch.Local | fetch.Lists | fetch.SendsBody | fetch.Ranges | fetch.DirPaths,
		Examples: []fetch.Example{
			{Args: "file:///etc/hosts", Help: "print a local file"},
			{Args: "--json-lines file:///var/log/", Help: "a directory's entries as JSON lines"},
			{Args: "-T notes.txt file:///tmp/copy.txt", Help: "write a file (as curl -T)"},
		}})
}

// Fetcher is the file scheme's fetch.Fetcher.
type Fetcher struct{}

// Open opens the file or directory that req.URL names; see the package
// documentation.
func (Fetcher) Open(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	u := req.URL
	if err := fetch.CheckURL(u); err != nil {
		return nil, err
	}
	if !u.File.Local && u.Host != "127.0.0.1" {
		return nil, &fetch.Error{Kind: fetch.ErrMalformed,
			Msg: fmt.Sprintf("file:// URL names host %s: only local files (empty host, localhost or 127.0.0.1) are fetched", u.Host)}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := u.File.Path
	if u.HasQuery {
		// curl ignores a file URL's query: the name ends at the first
		// "?" (an escaped %3F stays in it). urlparse keeps "?" in
		// File.Path, RFC 1738's letter; Path is the part before it.
		p = u.Path
	}
	if p == "" {
		p = "/"
	}
	name := filepath.FromSlash(p)
	if req.Body != nil {
		return store(name, req.Body)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, openError(name, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, openError(name, err)
	}
	if fi.IsDir() {
		return openDir(f, fi, req)
	}
	regular := fi.Mode().IsRegular()
	size := int64(-1)
	if regular {
		size = fi.Size()
	}
	res := &fetch.Resource{Meta: fetch.Meta{Size: size, ModTime: fi.ModTime(), Header: header(fi)}}
	if req.Head {
		f.Close()
		res.Body = io.NopCloser(bytes.NewReader(nil))
		return res, nil
	}
	if req.Unchanged(fi.ModTime()) {
		f.Close()
		res.Size, res.NotModified = 0, true
		res.Body = io.NopCloser(bytes.NewReader(nil))
		return res, nil
	}
	off, limit := req.Offset, int64(-1)
	if req.Range != nil && regular {
		start, n, err := req.Range.Span(size)
		if err != nil {
			f.Close()
			return nil, err
		}
		off, limit = start, n
	}
	if off > 0 && !req.Since.IsZero() && fi.ModTime().Truncate(time.Second).After(req.Since.Truncate(time.Second)) {
		off = 0 // changed since the part held was fetched: send it whole
	}
	if off > 0 {
		if !regular {
			f.Close()
			return nil, &fetch.Error{Kind: fetch.ErrResume, Msg: "cannot resume " + name + ": not a regular file"}
		}
		if off > size {
			f.Close()
			return nil, &fetch.Error{Kind: fetch.ErrResume,
				Msg: fmt.Sprintf("cannot resume at byte %d: %s has only %d bytes", off, name, size)}
		}
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			f.Close()
			return nil, &fetch.Error{Kind: fetch.ErrResume, Msg: "cannot resume " + name, Err: err}
		}
		res.Offset = off
		res.Size = size - off
	}
	if limit >= 0 && limit < res.Size {
		res.Size = limit
		res.Body = struct {
			io.Reader
			io.Closer
		}{io.LimitReader(f, limit), f}
		return res, nil
	}
	res.Body = f
	return res, nil
}

// header is what curl writes as a file's headers (-D, -i): the size of a
// regular file (whatever part is sent) with "Accept-ranges: bytes", and
// the modification time.
func header(fi os.FileInfo) fetch.Header {
	var h fetch.Header
	if fi.Mode().IsRegular() {
		h = append(h, fetch.HeaderField{Name: "Content-Length", Value: strconv.FormatInt(fi.Size(), 10)},
			fetch.HeaderField{Name: "Accept-ranges", Value: "bytes"})
	}
	return append(h, fetch.HeaderField{Name: "Last-Modified", Value: fi.ModTime().UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT")})
}

// SendsBody reports that a Request.Body is written to the file a file URL
// names (curl's -T FILE file:///path).
func (Fetcher) SendsBody(u *urlparse.URL) bool { return u.Scheme == "file" }

// store writes body to the file name, created or truncated (mode 0666 less
// the umask). A file that cannot be written is ErrWrite (exit 23), a body
// that cannot be read ErrRead (26). The result is empty.
func store(name string, body io.Reader) (*fetch.Resource, error) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &fetch.Error{Kind: fetch.ErrWrite, Msg: "couldn't open file " + name + " for writing", Err: err}
	}
	_, err = io.Copy(f, body)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = &fetch.Error{Kind: fetch.ErrWrite, Msg: "writing " + name, Err: cerr}
	}
	if err != nil {
		if fetch.KindOf(err) == fetch.ErrOther {
			err = &fetch.Error{Kind: fetch.ErrWrite, Msg: "writing " + name, Err: err}
		}
		return nil, err
	}
	return &fetch.Resource{Meta: fetch.Meta{Size: 0}, Body: io.NopCloser(bytes.NewReader(nil))}, nil
}

func openError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &fetch.Error{Kind: fetch.ErrFileRead, Msg: "couldn't open file " + name, Err: err}
}

func openDir(f *os.File, fi fs.FileInfo, req *fetch.Request) (*fetch.Resource, error) {
	base := dirURL(req.URL)
	res := &fetch.Resource{
		Meta:    fetch.Meta{Size: -1, ModTime: fi.ModTime(), Dir: true, ContentType: "text/plain", Header: header(fi)},
		Listing: func(line []byte) fetch.Entry { return parseLine(line, base) },
	}
	if req.Head {
		f.Close()
		res.Body = io.NopCloser(bytes.NewReader(nil))
		return res, nil
	}
	res.Body = &lister{f: f, dir: f.Name()}
	return res, nil
}

// dirURL is the URL of the directory with a trailing slash and without query
// or fragment, so that entry names resolve under it.
func dirURL(u *urlparse.URL) string {
	r := u.Ref
	r.HasQuery, r.RawQuery = false, ""
	r.HasFragment, r.RawFragment = false, ""
	if !strings.HasSuffix(r.RawPath, "/") {
		r.RawPath += "/"
	}
	return r.String()
}
