package mirror

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp"
)

// ftpLocal opens where file j is written: its partial file when the
// server's version of it (size and exact time) is known, continued from
// what an earlier run left there (the offset for REST), else a new
// temporary file.
func (e *engine) ftpLocal(j *ftpFileJob, version time.Time) (*tmpFile, int64, error) {
	e.touch(path.Dir(j.rec.Path))
	if j.rec.Size <= 0 || version.IsZero() {
		t, err := e.fs.create(j.rec.Path)
		return t, 0, err
	}
	sum := sha256.Sum256([]byte(j.rec.URL))
	name := fmt.Sprintf("%s%x-%d-%d", partPrefix, sum[:8], j.rec.Size, version.Unix())
	rel := path.Join(path.Dir(j.rec.Path), name)
	if path.Dir(j.rec.Path) == "." {
		rel = name
	}
	t, err := e.fs.openPart(rel)
	if err != nil {
		return nil, 0, err
	}
	if t.n >= j.rec.Size {
		if err := t.truncate(); err != nil {
			t.discard()
			return nil, 0, err
		}
	}
	if t.n > 0 {
		j.why += fmt.Sprintf("; continuing a partial copy from byte %d (REST)", t.n)
	}
	return t, t.n, nil
}

// keepPart closes a partial file that was not committed, and keeps it for
// the next run (when it holds anything).
func (e *engine) keepPart(t *tmpFile, of string) {
	if t.done || !t.keep {
		t.discard()
		return
	}
	n := t.n
	t.discard()
	if n == 0 {
		t.l.root.Remove(t.rel)
		return
	}
	e.mu.Lock()
	if e.parts == nil {
		e.parts = map[string]bool{}
	}
	e.parts[t.rel] = true
	e.mu.Unlock()
	e.markNote(fmt.Sprintf("%s: kept the %d bytes fetched (%s) for the next run to continue", of, n, t.rel))
}

// ftpFiles fetches the file of task t on c, and, while each file arrives,
// sends the commands of the next one (taken from the queue), so that the
// server answers them as soon as the transfer ends: one round trip per
// file instead of three or four.
func (e *engine) ftpFiles(s *ftpState, w int, c *ftpConn, t *task) {
	if e.opt.DryRun {
		j := t.job.(*ftpFileJob)
		kind := e.fetchedKind(j.hasOld)
		e.emit(Event{Kind: EventWouldGet, URL: j.rec.URL, Path: j.rec.Path, Size: j.rec.Size, Err: errors.New(string(kind)), Why: j.why})
		e.sched.done(t)
		return
	}
	p, err := c.sendPrelude(t)
	if err != nil {
		e.dropConn(s, w)
		e.retryOrFail(t, err)
		return
	}
	for {
		if e.ctx.Err() != nil || e.overBytes() {
			if e.overBytes() {
				e.markIncomplete(fmt.Sprintf("mirror.Options.MaxBytes %d reached", e.opt.MaxBytes))
			}
			// Its commands were sent: the connection is not in a
			// known state any more.
			e.dropConn(s, w)
			e.sched.done(p.t)
			return
		}
		next, err := e.ftpRetr(s, w, c, p)
		if err != nil {
			// The connection is gone: the file is tried again, the next
			// one (whose commands were sent) goes back to the queue.
			e.dropConn(s, w)
			if next != nil {
				e.sched.requeue(next.t)
			}
			e.retryOrFail(p.t, err)
			return
		}
		if next == nil {
			nt := e.sched.tryFile(s.host)
			if nt == nil {
				return
			}
			if next, err = c.sendPrelude(nt); err != nil {
				e.dropConn(s, w)
				e.retryOrFail(nt, err)
				return
			}
		}
		p = next
	}
}

// ftpRetr fetches p's file; it returns the next file's prelude when it
// sent one. An error means the connection is no longer usable: p's file is
// then still to do (the caller retries it and puts next back). A file the
// server refuses, or that cannot be written, is dealt with here (recorded
// as failed, or queued again) and gives no error.
func (e *engine) ftpRetr(s *ftpState, w int, c *ftpConn, p *prelude) (*prelude, error) {
	j := p.j
	started := time.Now() // the copy's time for racy: a change after it may not show
	var next *prelude
	// sendNext sends the commands of the next file, if one is waiting.
	sendNext := func() error {
		nt := e.sched.tryFile(s.host)
		if nt == nil {
			return nil
		}
		np, err := c.sendPrelude(nt)
		if err != nil {
			e.sched.requeue(nt)
			return err
		}
		next = np
		return nil
	}
	// refused ends p's file without an error for the connection.
	refused := func(ferr error) (*prelude, error) {
		if e.again(p.t.attempt, ferr) {
			p.t.attempt++
			e.sched.requeue(p.t)
		} else {
			e.fail(j.rec, ferr)
			e.sched.done(p.t)
		}
		return next, nil
	}
	addr, mdtm, err := c.readPrelude(p)
	if err != nil {
		if connBroken(err) {
			return nil, err
		}
		return refused(err)
	}
	version := mdtm
	if j.exact {
		version = j.mtime
	}
	// The size the data are checked against: SIZE's, newer than the
	// listing's (a file that changed since it was listed is fetched as
	// it is now), else the listing's.
	sizeBy := "the listing"
	if p.stated >= 0 {
		if j.rec.Size >= 0 && p.stated != j.rec.Size {
			j.why += fmt.Sprintf("; SIZE %d, listed with %d: changed since listed", p.stated, j.rec.Size)
		}
		j.rec.Size, sizeBy = p.stated, "SIZE"
	}
	tmp, offset, lerr := e.ftpLocal(j, version)
	if lerr != nil {
		// Fetched all the same (and the data dropped), so that the
		// connection stays usable.
		tmp, offset = nil, 0
	}
	xfer, err := c.Retr(e.ctx, addr, j.name, offset)
	if err != nil && offset > 0 && fetch.KindOf(err) == fetch.ErrResume {
		// The server will not continue it: from the start.
		if err = tmp.truncate(); err == nil {
			offset = 0
			xfer, err = c.Retr(e.ctx, addr, j.name, 0)
		}
	}
	if err != nil {
		if tmp != nil {
			tmp.discard()
		}
		return nil, err
	}
	defer xfer.Close()
	xfer.Expect(j.rec.Size, sizeBy)
	if tmp != nil {
		defer e.keepPart(tmp, j.rec.Path)
	}
	if s.early.Load() {
		if err := sendNext(); err != nil {
			return nil, err
		}
	}
	e.setCurrent(w, j.rec.Path)
	defer e.setCurrent(w, "")
	r, err := sessionGone(xfer.Start())
	if err != nil {
		return next, err
	}
	if !r.Preliminary() && !r.Positive() {
		return refused(ftp.RefusedError("RETR", j.name, r))
	}
	if lerr != nil {
		// Read and drop the data, so that the connection stays usable.
		io.Copy(io.Discard, xfer)
		if _, err := sessionGone(xfer.Finish()); err != nil {
			return next, err
		}
		return refused(asLocal(lerr))
	}
	// What an earlier run got counts as fetched.
	e.fetched.Add(offset)
	// --limit-rate: the Client's Limiter.
	cr := &countReader{r: e.client.LimitRate.Reader(e.ctx, xfer), e: e, payload: true}
	_, cerr := io.Copy(tmp, cr)
	if errors.Is(cerr, errBytesCap) {
		return next, cerr // the run stops
	}
	fr, err := sessionGone(xfer.Finish())
	if err != nil && errors.Is(err, ftp.ErrWrongSize) && cerr == nil {
		// Cut short (or long) while the server's final reply says it
		// went well: the file failed, the connection is in step. Its
		// bytes stay in the partial file for the retry to continue.
		return refused(err)
	}
	if err != nil {
		return next, err
	}
	switch {
	case cerr != nil && cr.readErr == nil:
		return refused(asLocal(cerr))
	case cerr != nil:
		return refused(cerr)
	case !fr.Positive() && next != nil:
		// Perhaps the answer to the next file's commands, sent during
		// the transfer: no more of that on this server.
		s.early.Store(false)
		return next, &outOfStepError{&fetch.Error{Kind: fetch.ErrProtocol, Msg: "ftp: RETR " + strconv.Quote(j.name) +
			": reply " + strconv.Quote(fr.String()) + " (commands sent during transfers are not taken: not doing that any more)"}}
	case !fr.Positive():
		return refused(ftp.RefusedError("RETR", j.name, fr))
	}
	rec := j.rec
	rec.Size = tmp.n
	rec.SHA256 = tmp.sum()
	rec.Fetched = stamp(started)
	rec.Status = StatusOK
	mtime := j.mtime
	if !mdtm.IsZero() {
		mtime = mdtm
		rec.MTime, rec.MTimeSource = stamp(mdtm), "mdtm"
	}
	var meta [][2]string
	if j.facts != "" {
		meta = append(meta, [2]string{"ftp-mlsd-facts", j.facts})
	}
	if p.mdtmReply != nil {
		meta = replyFields("MDTM "+j.name, p.mdtmReply)
	}
	if offset > 0 {
		meta = append(meta, [2]string{"ftp-command", "REST " + strconv.FormatInt(offset, 10)})
	}
	meta = append(meta, replyFields("RETR "+j.name, r)...)
	for _, l := range fr.Lines() {
		meta = append(meta, [2]string{"ftp-reply", l})
	}
	if err := e.archiveResource(rec.URL, typeByName(j.name), tmp, meta); err != nil {
		return refused(asLocal(err))
	}
	if e.sameBytes(tmp, rec, j.old, j.hasOld, mtime) {
		e.sched.done(p.t)
		return next, nil
	}
	if err := e.commitOver(tmp, rec.Path, mtime); err != nil {
		return refused(asLocal(err))
	}
	e.man.put(rec)
	kind := e.fetchedKind(j.hasOld)
	e.emit(Event{Kind: kind, URL: rec.URL, Path: rec.Path, Size: rec.Size, Why: j.why})
	e.sched.done(p.t)
	return next, nil
}
