package download

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// ResumeAtEnd is Downloader.ResumeFrom for curl's -C -: resume at the end
// of what is already held (NAME.part, else NAME).
const ResumeAtEnd = -1

// BufferSize is the copy buffer a network body goes through when
// Downloader.Buffer is nil: a read and a write system call per MiB, about
// twice as fast as io.Copy's 32 KiB to a file over loopback HTTP.
const BufferSize = 1 << 20

// A Downloader fetches URLs into files or a stream (Do), by curl's rules,
// one at a time, or many at once (Parallel). Its fields are set before the
// first Do and not changed after; a Downloader whose Buffer and Timer are
// nil may then be used by several goroutines at once (give it a Files so
// that they do not write one file together).
type Downloader struct {
	// Client fetches (its Fail, FailWithBody, redirects, limits apply).
	Client *fetch.Client
	// Retry says when a failed attempt is made again. A status that says
	// "try again" (fetch.TransientStatus) is retried only while a retry
	// may still follow; otherwise it is the answer.
	Retry fetch.RetryPolicy

	// Stdout is where a Target of "-" goes; Stdin what an upload of "-"
	// reads (and an interactive session's input).
	Stdout io.Writer
	Stdin  io.Reader

	// OutputDir holds relative file names (curl's --output-dir);
	// CreateDirs creates the directories a file needs (--create-dirs).
	OutputDir  string
	CreateDirs bool
	// Resume (curl's -C) continues a transfer from byte ResumeFrom, or
	// with ResumeAtEnd from the end of NAME.part when there is one (a
	// transfer that failed before), else of NAME. NAME is appended to
	// only once the server confirms the offset; if it sends the whole
	// resource instead, that goes through NAME.part. Only a NAME.part
	// that urlget marked as it created it is checked against the
	// resource's modification time (If-Range); any other part is resumed
	// as curl does, and a local file larger than the resource is left
	// alone (ErrResume): see the package doc. With an upload to a
	// scheme that resumes uploads, the upload resumes instead.
	Resume     bool
	ResumeFrom int64
	// RemoteTime gives files the resource's modification time (-R); a
	// resumed file gets it when the reply gave it (HTTP; ftp asks MDTM
	// only to check a part urlget marked, as curl asks none).
	RemoteTime bool

	// Head asks for the metadata only, written as HeadText (-I); Include
	// writes the header block (HeaderBlock) before the body (-i).
	Head, Include bool
	// NoTunnelHeads leaves the CONNECT replies of proxy tunnels out of
	// what Head, Include and Headers write (curl's
	// --suppress-connect-headers); Result.Meta keeps them (-w
	// %{http_connect}, %{size_header}).
	NoTunnelHeads bool
	// Range asks for these bytes only (-r): a retry asks for it again and
	// skips what an earlier attempt wrote.
	Range *fetch.Range
	// The conditions of every request: -z and --etag-compare.
	IfModifiedSince, IfUnmodifiedSince time.Time
	IfNoneMatch                        string
	// Format is how a listing is written (Resource.Present).
	Format fetch.Format
	// Body is what is sent (-d, -F, -T, -G, --url-query).
	Body Body

	// Headers receives each reply's HeaderBlock (-D); ETagSave names the
	// file a reply's ETag is written to (--etag-save); Xattr records the
	// URL and type in a file's extended attributes (--xattr).
	Headers  io.Writer
	ETagSave string
	Xattr    bool

	// Buffer is the copy buffer of a network body; nil: one of
	// BufferSize from a pool. A Downloader with a Buffer must not run two
	// Do at once.
	Buffer []byte
	// Files, shared by the Downloaders of transfers run at once, makes
	// two transfers to one file wait for each other; nil: none do.
	Files *Files
	// Clobber says whether a file written replaces an existing file of
	// its name (see Clobber). RemoveOnError deletes what a failed
	// transfer wrote (curl's --remove-on-error) instead of keeping it in
	// NAME.part for a resume.
	Clobber       Clobber
	RemoveOnError bool
	// Timer, when set, records each attempt's events in Result.Timing;
	// the context given to Do must carry its Context.
	Timer *fetch.Timer

	// IsTerminal reports whether w is a terminal: a Target that is
	// implicitly stdout refuses binary data for a terminal. Nil: never.
	IsTerminal func(w io.Writer) bool
	// Readable writes menus, listings and network text as Format presents
	// them to files and pipes too. Without it only a terminal (stdout,
	// IsTerminal) gets them so; a file or a pipe gets the resource as the
	// server sent it (no Format; fetch.OptAsSent: a gopher menu's or text's
	// "." and CRLF kept; an ftp ASCII transfer's and a news article's CRLF
	// as LF, as curl writes them). FormatJSON is written anywhere.
	Readable bool
	// Ask answers a fetch.InputNeededError (search words, a password, a
	// form); the request is made again once with the answers. Nil, or a
	// nil answer: the error is the transfer's.
	Ask func(err error) fetch.Options
	// Warn is told what a user should know but does not stop the transfer
	// (one line, no prefix); Retrying that a failed attempt will be made
	// again after wait, left retries remaining.
	Warn     func(msg string)
	Retrying func(err error, wait time.Duration, left int)
	// Meter, when set, is called as a body starts (size -1 when unknown;
	// toFile when it goes to a file) and returns what to call when it
	// ends, or nil; the Client's Progress is where the bytes are told.
	Meter func(size int64, toFile bool) (done func())
	// Sending wraps each request body before it is sent (an upload's
	// meter).
	Sending func(body io.Reader, size int64) io.Reader
	// Session, when set, readies a request for an interactive session
	// (fetch.Session schemes) whose output is stdout: it returns the
	// context and Client to fetch with and a function given the fetch's
	// error when the session is over (a terminal handed over and back).
	Session func(ctx context.Context, req *fetch.Request) (context.Context, *fetch.Client, func(error) error, error)
}

// A Target is where one URL's data goes.
type Target struct {
	// Name is the file; "-" is Downloader.Stdout.
	Name string
	// Remote names the file after the URL (curl's -O): RemoteName.
	Remote bool
	// HeaderName, with Remote, names the file as an HTTP reply's
	// Content-Disposition does (curl's -J), when it gives a file name that
	// CheckRemoteName accepts (its directory part dropped); else Remote's
	// name stays. Such a file never replaces one (ClobberDefault).
	HeaderName bool
	// Implicit: stdout because no file was asked for, so binary data is
	// refused for a terminal (see Downloader.IsTerminal).
	Implicit bool
	// Upload, when set, is the file this URL is sent instead of Body's
	// (curl's Nth -T for the Nth URL; "-": Stdin).
	Upload string
}

// Clobber is whether an output file replaces an existing one.
type Clobber int

const (
	// ClobberDefault replaces an existing file, but for a Target's
	// HeaderName, as ClobberNever.
	ClobberDefault Clobber = iota
	// ClobberNever (curl's --no-clobber) never replaces a file: the
	// transfer goes to the first free name of NAME.1 to NAME.100, and
	// fails (ErrWrite) when all are taken.
	ClobberNever
	// ClobberAlways (--clobber) replaces a HeaderName's file too.
	ClobberAlways
)

// Stdout is the Target of data asked for nowhere: stdout.
var Stdout = Target{Name: "-", Implicit: true}

// Result is what is known of one URL's transfer when it ends: the
// variables of curl's --write-out (WriteOut) and the exit status.
type Result struct {
	Num         int    // the URL's number, for WriteOut's urlnum: the caller's
	URL         string // as given
	Effective   string // after redirects (and a query or name added)
	Scheme      string
	Status      int   // the protocol's status, 0 when none
	Size        int64 // body bytes received in the last attempt (on the wire)
	ContentType string
	Filename    string // the output file; "" for stdout
	Err         error  // nil on success; a *fetch.Error
	Code        int    // fetch.ExitCode of Err: curl's exit code
	Elapsed     time.Duration
	// Kept and KeptSize: the .part file holding what a failed transfer
	// received, for a Resume to continue; "" when nothing was kept.
	Kept     string
	KeptSize int64
	Meta     fetch.Meta   // the last reply
	Timing   fetch.Timing // with Downloader.Timer
	Method   string       // the request's method ("GET" for schemes without)
}

var bufs = sync.Pool{New: func() any { b := make([]byte, BufferSize); return &b }}

// Do fetches raw (curl's guess of a missing scheme applies) into t,
// retrying transient failures; with Body.Upload it sends instead. The
// Result tells how it went: Do itself never fails.
func (d *Downloader) Do(ctx context.Context, raw string, t Target) *Result {
	if t.Upload != "" && t.Upload != d.Body.Upload {
		dd := *d
		dd.Body.Upload = t.Upload
		d = &dd
	}
	start := time.Now()
	r := &Result{URL: raw, Effective: raw, Method: "GET"}
	if d.Timer != nil {
		d.Timer.Begin(&r.Timing)
		defer d.Timer.End(&r.Timing)
	}
	if u, err := ParseURL(raw); err != nil {
		r.Err = fetch.NewError(fetch.ErrMalformed, "", err) // err says "malformed URL …"
	} else {
		r.Scheme = u.Scheme
		if w := d.Body.dataWarning(&u); w != "" {
			d.warn(w)
		}
		if nu, err := d.prepareURL(&u, r); err != nil {
			r.Err = err
		} else {
			d.transfer(ctx, nu, r, t)
		}
	}
	r.Elapsed = time.Since(start)
	r.Code = fetch.ExitCode(r.Err)
	if r.Status == 0 {
		r.Status = fetch.StatusOf(r.Err) // an FTP 550, an NNTP 411: -w %{response_code}
	}
	return r
}

// xfer is one Do's state.
type xfer struct {
	d     *Downloader
	asked fetch.Options // answers to the current URL's questions
	buf   []byte
}

// transfer fetches u into its output, retrying transient failures; the
// outcome goes into r.
func (d *Downloader) transfer(ctx context.Context, u *urlparse.URL, r *Result, t Target) {
	out, err := d.newOutput(u, t)
	if err != nil {
		r.Err = err
		return
	}
	r.Filename = out.path
	defer d.Files.hold(out.path)()
	x := &xfer{d: d, buf: d.Buffer}
	if x.buf == nil {
		b := bufs.Get().(*[]byte)
		defer bufs.Put(b)
		x.buf = *b
	}
	pol := d.Retry
	first := time.Now()
	r.Err = pol.Do(ctx, func(attempt int) error {
		retryStatus := func(err error) bool {
			_, ok := pol.Wait(attempt+1, err, time.Since(first))
			return attempt < pol.Retries && ok
		}
		for {
			err := x.attempt(ctx, u, out, r, retryStatus)
			if err == nil || x.asked != nil || d.Ask == nil {
				return err
			}
			// A gopher search or +ASK form: ask, then try again with the
			// answers (once; not a retry).
			if x.asked = d.Ask(err); x.asked == nil {
				return err
			}
		}
	}, func(attempt int, err error, wait time.Duration) bool {
		if d.Body.Upload == "-" {
			return false // what was read of stdin cannot be sent again
		}
		if d.Retrying != nil {
			d.Retrying(err, wait, pol.Retries-attempt)
		}
		return true
	})
	if fe := (*fetch.Error)(nil); errors.As(r.Err, &fe) && fe.URL != "" && fe.URL != fetch.Redacted(u) && r.Meta.EffectiveURL == "" {
		// The URL that failed is not the one given: a redirect's, or the
		// https one HSTS asked for. -w %{url_effective} names it, as curl.
		r.Effective = fe.URL
	}
	if kept := (bodyThenFail{}); r.Err == nil || errors.As(r.Err, &kept) {
		if err := out.commit(); err != nil {
			r.Err = err
		}
		r.Filename = out.path // a name not clobbered
		d.setXattr(out, r)
	} else {
		r.Kept, r.KeptSize = out.abort()
	}
}

// toTerminal reports whether out is stdout and stdout a terminal.
func (d *Downloader) toTerminal(out *output) bool {
	return out.path == "" && d.IsTerminal != nil && d.IsTerminal(d.Stdout)
}

// attempt makes one try at a URL, appending to (or restarting) out.
func (x *xfer) attempt(ctx context.Context, u *urlparse.URL, out *output, r *Result, retryStatus func(error) bool) (err error) {
	d := x.d
	// A Result reports the last attempt.
	r.Status, r.ContentType, r.Size = 0, "", 0
	defer func() {
		if err != nil {
			err = classify(ctx, err)
		}
	}()

	off, since, err := out.want()
	if err != nil {
		return err
	}
	if d.Head {
		off, since = 0, time.Time{}
	}
	req := &fetch.Request{URL: u, Head: d.Head, Offset: off, Since: since, Options: x.asked}
	if d.RemoteTime || !since.IsZero() || d.Resume && off == 0 && out.fresh() {
		// ftp asks MDTM only when the modification time is wanted: -R,
		// a part urlget marked to check against it, a resume that
		// starts a part of its own (its mark records the time). A
		// plain resume of bytes urlget did not mark (-C N, a NAME or
		// NAME.part of unknown origin) is curl's: SIZE and REST only.
		req.Options = req.Options.With(fetch.OptModTime, "1")
	}
	if err := d.shapeRequest(req); err != nil {
		return err
	}
	if d.Range != nil {
		req.Range, req.Offset, req.Since = d.Range, 0, time.Time{}
	}
	req.IfModifiedSince, req.IfUnmodifiedSince = d.IfModifiedSince, d.IfUnmodifiedSince
	if d.IfNoneMatch != "" {
		req.IfNoneMatch = d.IfNoneMatch
	}
	off = req.Offset
	if req.Body != nil && d.Resume && fetch.HasCaps(u.Scheme, fetch.ResumesUpload) {
		// An upload that resumes (ResumeAtEnd: fetch.UploadAtEnd); the
		// reply is not the resource.
		req.Offset, off = d.ResumeFrom, 0
	}
	actx, cl, endSession := ctx, d.Client, func(err error) error { return err }
	if fetch.HasCaps(u.Scheme, fetch.Session) && !d.Head {
		// A session's input is the -T file, else stdin, whose terminal
		// may be handed over.
		if req.Body == nil {
			req.Body, req.BodySize = d.Stdin, -1
		}
		if d.Session != nil && out.path == "" && req.Body == d.Stdin {
			if actx, cl, endSession, err = d.Session(ctx, req); err != nil {
				return err
			}
		}
	}
	defer func() { err = endSession(err) }()
	format := d.Format
	if format == fetch.FormatText && !d.Readable && !d.toTerminal(out) {
		format = 0
		req.Options = req.Options.With(fetch.OptAsSent, "1")
	}
	if fetch.HasCaps(u.Scheme, fetch.Mail) && out.path != "" {
		// A file to write: the composed message is written instead of
		// sent (fetch.OptDryRun).
		req.Options = req.Options.With(fetch.OptDryRun, "1")
	}
	if cl.Verbose != nil && off > 0 {
		fmt.Fprintf(cl.Verbose, "* Resuming transfer from byte position %d\n", off)
	}
	r.Method = cmp.Or(cl.Method(req), "GET") // the http fetcher's rule
	if d.Timer != nil {
		d.Timer.Begin(&r.Timing)
	}
	res, err := cl.Do(actx, req)
	if fe := (*fetch.Error)(nil); errors.As(err, &fe) && fe.Reply != nil {
		// The reply failed (Fail, too many redirects, a refused proxy
		// tunnel), yet Result, Headers and ETagSave tell of it; Include
		// shows the heads that came, as curl writes them as they come
		// (under Fail, to stdout only: a file would be a part to resume).
		if err := d.reply(fe.Reply, out, r, nil); err != nil {
			return err
		}
		if d.Include && (fe.Kind != fetch.ErrHTTP || out.path == "") {
			// The heads are all there is to write: the output is whole
			// (curl leaves them in it), no part to resume.
			if err := d.include(fe.Reply, out); err != nil {
				return err
			}
			if err := out.commit(); err != nil {
				return err
			}
		}
		return err
	}
	if fe := (*fetch.Error)(nil); errors.As(err, &fe) && fe.Kind == fetch.ErrResume && off > 0 && out.path != "" && !out.started {
		// A resume refused before anything is written (an HTTP 416 with
		// the resource's size): say what became of the file.
		c := *fe
		c.Msg += "; " + out.held() + " left as it is"
		err = &c
	}
	if err != nil {
		return err
	}
	defer res.Body.Close()
	// Head and Result.ContentType say what is written, which for a
	// listing is what Present makes of it.
	res.ContentType = res.PresentedType(d.Format)
	if err := d.reply(&res.Meta, out, r, nil); err != nil {
		return err
	}
	// HTTP rules follow what the reply is (an ftp:// URL through an HTTP
	// proxy gateway gets an HTTP reply), not the URL's scheme.
	if res.IsHTTP() {
		// A status that says "try again" while retries remain is Fail's
		// error: its body is never written.
		if err := fetch.FailError(res, off); err != nil && fetch.TransientStatus(res.Status) && retryStatus(err) {
			return err
		}
		if off > 0 && req.Range == nil && !d.Head && res.Offset == 0 && res.Status >= 400 {
			// A resume answered by an error page (a 416 is not one: it
			// comes at the offset): nothing is written after the part.
			return d.notResumed(&res.Meta, out, off)
		}
	}
	if d.Head {
		if _, err := out.start(0, 0); err != nil {
			return err
		}
		if _, err := out.Write(headText(&res.Meta, !d.NoTunnelHeads)); err != nil {
			return writeError(err)
		}
		return nil
	}
	if res.NotModified {
		if d.Include {
			// curl writes the head, even of a 200 it finds not newer.
			if err := d.include(&res.Meta, out); err != nil {
				return err
			}
		} else {
			out.untouched = true // curl leaves the output as it is
		}
		if res.IsHTTP() {
			r.Status = http.StatusNotModified // a 200 found not newer too: curl's "simulated 304"
		}
		return nil
	}
	got, asked := res.Offset, off
	if req.Range != nil {
		// A part, not a resume: a retry asks for the range again and
		// skips what an earlier attempt wrote.
		got, asked = 0, out.written
	} else if asked > 0 && got == 0 && !out.started && (out.path != "" || res.IsHTTP()) {
		whole, err := d.restarting(req, &res.Meta, out, asked)
		if err != nil {
			return err
		}
		if whole {
			out.untouched = true // curl: "the entire document is already downloaded"
			return nil
		}
	}
	if out.headerName && !out.started {
		name, err := nameFromReply(&res.Meta)
		if err != nil {
			return err
		}
		if name != "" {
			if err := out.place(name); err != nil {
				return err
			}
			r.Filename = out.path
		}
	}
	skip, err := out.start(got, asked)
	if err != nil {
		return err
	}
	if d.Include && skip == 0 {
		if block := headerBlock(&res.Meta, !d.NoTunnelHeads); block != nil {
			if _, err := out.Write(block); err != nil {
				return writeError(err)
			}
		}
	}
	if d.Meter != nil {
		if done := d.Meter(res.Size, out.path != ""); done != nil {
			defer done()
		}
	}
	body := res.Present(format)
	defer body.Close()
	n, err := x.copyBody(body, out, skip, fetch.HasCaps(u.Scheme, fetch.Local) && body == res.Body)
	r.Size = n
	if err == nil && res.Trailer != nil {
		if err := d.trailer(res.Trailer(), out); err != nil {
			return err
		}
	}
	if res.WireBytes != nil {
		r.Size = res.WireBytes() // size_download: the bytes on the wire, as curl counts them
	}
	r.Status = res.Status // an ftp transfer's final reply (226) once the body is read
	if fetch.KindOf(err) == fetch.ErrHTTP && cl.FailWithBody {
		return bodyThenFail{err} // the body is written: keep it
	}
	return err
}

// restarting is told that the server sends the whole resource m to a
// resume of out at byte asked. One of the very size of the file itself
// (not a part), not known to have changed since (req.Since), is whole
// already, and left as it is (curl's "already downloaded"). Otherwise an
// HTTP server that ignored a plain Range does not resume: ErrRange (curl's
// 33), out left as it is (after an If-Range, the part's mark, the 200 says
// the resource changed: it comes whole). A resource smaller than what is
// held, not known to have changed, leaves it as it is (ErrResume, curl's 36
// for ftp); otherwise a warning says why the transfer starts again.
func (d *Downloader) restarting(req *fetch.Request, m *fetch.Meta, out *output, asked int64) (whole bool, err error) {
	changed := !req.Since.IsZero() && (m.IsHTTP() || m.ModTime.After(req.Since))
	if !changed && m.Size == asked && out.held() == out.path {
		if d.Client.Verbose != nil {
			fmt.Fprintf(d.Client.Verbose, "* %s already holds the %d bytes of the resource: left as it is\n", out.path, asked)
		}
		return true, nil
	}
	if !changed && m.IsHTTP() {
		return false, d.notResumed(m, out, asked)
	}
	if !changed && m.Size >= 0 && m.Size < asked {
		return false, fetch.NewError(fetch.ErrResume, fmt.Sprintf("cannot resume at byte %d: the resource has %d bytes; %s left as it is", asked, m.Size, out.held()), nil)
	}
	why := "the server does not resume it"
	if changed {
		why = "it changed since the part was fetched"
	}
	d.warn(fmt.Sprintf("cannot resume %s at byte %d: %s; fetching it whole", out.held(), asked, why))
	return false, nil
}

// notResumed is the error of an HTTP reply m to a resume of out at byte
// asked that is not the range asked for (no Content-Range): the server does
// not resume, or it failed (an error status). Nothing goes after the part
// held; Include writes the head to stdout, as curl writes it before it
// stops (a file keeps only its part).
func (d *Downloader) notResumed(m *fetch.Meta, out *output, asked int64) error {
	msg := fmt.Sprintf("cannot resume at byte %d: the server answered %d without the range (it does not resume)", asked, m.Status)
	if m.Status >= 400 {
		msg = fmt.Sprintf("cannot resume at byte %d: the server answered %d", asked, m.Status)
	}
	if out.path != "" {
		msg += "; " + out.held() + " left as it is"
	} else if d.Include {
		if err := d.include(m, out); err != nil {
			return err
		}
		if err := out.commit(); err != nil {
			return err
		}
	}
	e := fetch.NewError(fetch.ErrRange, msg, nil)
	e.Status = m.Status // -w %{http_code}
	return e
}

// include writes m's header block (Include) to out, as the start of what
// is written.
func (d *Downloader) include(m *fetch.Meta, out *output) error {
	block := headerBlock(m, !d.NoTunnelHeads)
	if block == nil {
		return nil
	}
	if _, err := out.start(0, 0); err != nil {
		return err
	}
	if _, err := out.Write(block); err != nil {
		return writeError(err)
	}
	return nil
}

// trailer writes a body's trailer section t after it, as curl writes
// one: to the output with Include, to Headers.
func (d *Downloader) trailer(t []byte, out *output) error {
	if len(t) == 0 {
		return nil
	}
	if d.Include {
		if _, err := out.Write(t); err != nil {
			return writeError(err)
		}
	}
	if d.Headers != nil {
		if _, err := d.Headers.Write(t); err != nil {
			return writeError(err)
		}
	}
	return nil
}

// reply notes what a reply says, for the Result, Headers, ETagSave and
// RemoteTime, and returns failed (the request's error, nil when it did not
// fail) unless writing fails.
func (d *Downloader) reply(m *fetch.Meta, out *output, r *Result, failed error) error {
	r.Meta = *m
	r.Status, r.ContentType = m.Status, m.ContentType
	if m.Method != "" {
		r.Method = m.Method // the last request's, after redirects
	}
	out.modTime = m.ModTime
	if m.EffectiveURL != "" {
		r.Effective = m.EffectiveURL
	}
	if d.Headers != nil {
		if block := headerBlock(m, !d.NoTunnelHeads); block != nil {
			if _, err := d.Headers.Write(block); err != nil {
				return writeError(err)
			}
		}
	}
	if err := d.saveETag(m); err != nil {
		return err
	}
	return failed
}

// bodyThenFail is FailWithBody's error: the body was written and the
// output is kept, yet the transfer failed (exit 22).
type bodyThenFail struct{ error }

func (e bodyThenFail) Unwrap() error { return e.error }

// classify turns any error of an attempt into a typed one: an interrupt
// is an abort (42).
func classify(ctx context.Context, err error) error {
	var fe *fetch.Error
	switch {
	case ctx.Err() != nil:
		return fetch.NewError(fetch.ErrAborted, "interrupted", nil)
	case errors.As(err, &fe):
		return err
	}
	return fetch.NewError(fetch.KindOf(err), "", err)
}

// writeError marks an error of the output side.
func writeError(err error) error {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	return fetch.NewError(fetch.ErrWrite, "failure writing output to destination", err)
}

// readError types an error met while copying a body; the Client's Body
// types its own, so this only catches the unexpected: a failure of the
// connection means the transfer stopped short (18).
func readError(err error) error {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	switch k := fetch.KindOf(err); k {
	case fetch.ErrOther:
		return fetch.NewError(fetch.ErrPartial, "transfer closed early", err)
	default:
		return fetch.NewError(k, "", err)
	}
}

// copyBody streams body into out, discarding the first skip bytes (already
// written by an earlier attempt). Memory stays flat whatever the size.
//
// A network body goes through one buffer (BufferSize): a read and a write
// system call per (up to) 1 MiB. On loopback HTTP to a file this measured
// about twice as fast as io.Copy's 32 KiB chunks (and as curl). A file:
// body goes through io.Copy, so that the Client's Body (an io.WriterTo)
// reaches the output file's ReadFrom and the kernel copies
// (copy_file_range). Read errors are typed by the Client's Body, write
// errors (ErrWrite) by typedWriter, or on the io.Copy path by the Body too.
func (x *xfer) copyBody(body io.Reader, out *output, skip int64, kernelCopy bool) (n int64, err error) {
	if skip > 0 {
		k, err := io.CopyN(io.Discard, body, skip)
		n += k
		if err == io.EOF {
			return n, fetch.NewError(fetch.ErrPartial, "transfer closed before the part already written", nil)
		}
		if err != nil {
			return n, readError(err)
		}
	}
	var k int64
	if kernelCopy {
		k, err = io.Copy(out.writer(), body)
	} else {
		// Hide WriterTo and ReadFrom (they would pick io.Copy's 32 KiB);
		// typedWriter types write errors.
		k, err = io.CopyBuffer(typedWriter{out.writer()}, struct{ io.Reader }{body}, x.buf)
	}
	n += k
	out.written += k
	if err != nil {
		return n, readError(err)
	}
	return n, nil
}
