package mirror

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp"
	"github.com/urlget/urlget/urlparse"
)

// This file is the reverse mirror (Options.Reverse, lftp's mirror -R): the
// tree in Dir is uploaded below an ftp URL, on fetch/ftp's Conn like the
// download mirror.

// upPrefix starts the names of files being uploaded. The name says which
// local file and which version of it (its path's hash, size and
// modification time), so that a run finding one left by a run that was cut
// short continues it (APPE) only when the local file is still the one it
// was made from, and removes it otherwise.
const upPrefix = ".urlget-up-"

// earlyWrite is the size up to which a file's data go out before the
// server's 150 reply to STOR.
const earlyWrite = 64 << 10

// upJob is one file to upload.
type upJob struct {
	rel   string // local path below Dir, "/"-separated
	dir   string // server directory (absolute)
	name  string // name in it
	url   string
	size  int64
	mtime time.Time
	had   bool   // the server had a file of that name (changed, not new)
	why   string // why it is uploaded
	part  int64  // bytes of its temporary file already on the server (a cut run's)
	tmp   string // the temporary name on the server
}

// upDir is a local directory and the server directory it goes to.
type upDir struct {
	url    string
	rel    string // local path below Dir ("" for Dir)
	remote string // server path (absolute)
	segs   []string
	exists bool // the server directory exists (listed, or made)
	depth  int
}

// reverse is the state of a reverse run.
type reverse struct {
	e       *engine
	s       *ftpState
	src     *os.Root
	setTime string // how file times are set: MFMT, MDTM (vsftpd's form with a time), "SITE UTIME"; "" once none works
	exact   bool   // times can be set (MFMT in FEAT): an unchanged file has exactly the local time
	mu      sync.Mutex
	deletes []remoteItem
}

// remoteItem is something on the server to delete.
type remoteItem struct {
	dir, name string
	isDir     bool
	url, rel  string
}

// runReverse uploads opt.Dir below the ftp URL: new files and files whose
// size or time differ from the server's, each to a temporary name renamed
// into place once complete, over Parallel connections; with Delete, what
// the server has and Dir does not is deleted.
func runReverse(ctx context.Context, opt Options, u *urlparse.URL) (Summary, error) {
	sum := Summary{URL: fetch.Redacted(u), Dir: opt.Dir, DryRun: opt.DryRun, Reverse: true}
	if u.Scheme != "ftp" {
		return sum, &fetch.Error{Kind: fetch.ErrUnsupported, URL: fetch.Redacted(u), Msg: "mirror: only ftp URLs can be uploaded to (reverse mirror), not " + u.Scheme}
	}
	if opt.WARC != "" || opt.Checksum || opt.Verify {
		return sum, &fetch.Error{Kind: fetch.ErrUnsupported, URL: fetch.Redacted(u), Msg: "mirror: WARC, Checksum and Verify are for downloads, not for Reverse"}
	}
	e, err := newPolicy(opt, u)
	if err != nil {
		return sum, err
	}
	src, err := os.OpenRoot(opt.Dir)
	if err != nil {
		return sum, fmt.Errorf("mirror: %w", err)
	}
	defer src.Close()
	// The items' records stay in memory: nothing is written into Dir.
	e.man = &manifest{dryRun: true, index: map[string]span{}, cache: newLRU()}
	e.ctx, e.cancel = context.WithCancelCause(ctx)
	defer e.cancel(nil)
	r := &reverse{e: e, src: src}
	stopProgress := e.startProgress()
	walkErr := r.run()
	stopProgress()
	if r.s != nil {
		for _, c := range r.s.conns {
			if c != nil {
				c.Quit()
			}
		}
	}
	sum = e.summary()
	return e.end(sum, e.outcome(sum, walkErr))
}

func (r *reverse) run() error {
	e := r.e
	s, segs, err := e.ftpSession()
	if err != nil {
		return err
	}
	r.s = s
	n := min(e.parallel, e.perHost)
	s.conns = make([]*ftpConn, n)
	c, err := e.ftpConnFor(s, 0)
	if err != nil {
		return err
	}
	feat, _ := c.Features()
	r.setTime = "MDTM"
	if _, ok := feat["MFMT"]; ok {
		r.setTime, r.exact = "MFMT", true
	}
	root, err := r.rootDir(c, segs)
	if err != nil {
		return err
	}
	// Directories are listed and files uploaded by the same workers,
	// each on its connection: listings first, so that the tree is known
	// early (the engine's scheduler).
	e.sched = newScheduler(e.perHost)
	e.sched.push(&task{list: true, host: s.host, job: root})
	e.runWorkers(n, r.task)
	if e.ctx.Err() == nil && e.fatal == nil && e.nFailed.Load() == 0 {
		r.deleteGone()
	}
	return nil
}

// task runs one listing or upload on worker w's connection; false stops
// the worker (the server refused it a connection while others are
// logged in: they carry on).
func (r *reverse) task(w int, t *task) bool {
	e := r.e
	c, err := e.ftpConnFor(r.s, w)
	if err != nil {
		if e.ctx.Err() != nil {
			e.sched.done(t)
			return true
		}
		if is421(err) && r.s.live.Load() > 0 {
			e.sched.requeue(t)
			return false
		}
		e.retryOrFail(t, err)
		return true
	}
	switch j := t.job.(type) {
	case upDir:
		e.setCurrent(w, j.rel+"/")
		sub, err := r.walkDir(c, j)
		e.setCurrent(w, "")
		if err != nil {
			if connBroken(err) {
				e.dropConn(r.s, w)
			}
			e.retryOrFail(t, err)
			return true
		}
		for _, d := range sub {
			e.sched.push(&task{list: true, host: r.s.host, job: d})
		}
	case *upJob:
		if e.opt.DryRun {
			e.emit(Event{Kind: EventWouldGet, URL: j.url, Path: j.rel, Size: j.size, Err: errors.New(string(e.fetchedKind(j.had))), Why: j.why})
			break
		}
		// While a file is renamed, the next one's passive request goes
		// in the same write (a round trip less per file), on this
		// connection: it is taken from the queue here.
		for {
			var nt *task
			var next *upJob
			if !j.had {
				if nt = e.sched.tryFile(r.s.host); nt != nil {
					next = nt.job.(*upJob)
				}
			}
			e.setCurrent(w, j.rel)
			err := r.put(c, j, next)
			e.setCurrent(w, "")
			if err != nil {
				if connBroken(err) || c.ahead {
					e.dropConn(r.s, w) // replies are still due: out of step
				}
				if nt != nil {
					e.sched.requeue(nt)
				}
				e.retryOrFail(t, err)
				return true
			}
			kind := e.fetchedKind(j.had)
			e.emit(Event{Kind: kind, URL: j.url, Path: j.rel, Size: j.size, Why: j.why})
			if nt == nil {
				break
			}
			e.sched.done(t)
			t, j = nt, next
		}
	}
	e.sched.done(t)
	return true
}

// url is the URL of a name in the directory segs below the login
// directory ("" for the directory itself).
func (r *reverse) url(segs []string, name string) string {
	if name == "" {
		return urlparse.FTPURL(r.s.urlHost, r.s.urlPort, r.s.urlUser, "", segs, "", 0)
	}
	return urlparse.FTPURL(r.s.urlHost, r.s.urlPort, r.s.urlUser, "", segs, name, 0)
}

// serverPath is the server path of segs below home (a segment starting
// with "/" starts again from there).
func serverPath(home string, segs []string) string {
	p := home
	for _, sg := range segs {
		if strings.HasPrefix(sg, "/") {
			p = sg
		} else {
			p = joinServer(p, sg)
		}
	}
	return p
}

// rootDir is the server directory of the URL, made (MKD, one level at a
// time) when it is missing, as lftp does; a dry run makes nothing.
func (r *reverse) rootDir(c *ftpConn, segs []string) (upDir, error) {
	d := upDir{url: r.url(segs, ""), remote: serverPath(c.home, segs), segs: segs, exists: true}
	rep, err := c.Cmd("CWD", d.remote)
	if err != nil {
		return d, err
	}
	if rep.Positive() {
		c.cwd = d.remote
		return d, nil
	}
	if r.e.opt.DryRun {
		d.exists = false
		return d, nil
	}
	for i := range segs {
		p := serverPath(c.home, segs[:i+1])
		if rep, err = c.Cmd("CWD", p); err != nil {
			return d, err
		}
		if rep.Positive() {
			continue
		}
		if rep, err = c.Cmd("MKD", p); err != nil {
			return d, err
		}
		if !rep.Positive() {
			c.cwd = ""
			return d, ftp.RefusedError("CWD", p, rep) // a directory that cannot be made cannot be entered: access denied
		}
		r.e.emit(Event{Kind: EventNew, URL: r.url(segs, ""), Path: "", Why: "directory made (MKD)"})
	}
	c.cwd = ""
	return d, nil
}

// walkDir compares one local directory with its server directory: queues
// the files to upload, makes the missing subdirectories, notes what the
// server has that Dir has not, and returns the subdirectories to walk.
func (r *reverse) walkDir(c *ftpConn, d upDir) ([]upDir, error) {
	e := r.e
	local, err := fs.ReadDir(r.src.FS(), osPath(d.rel))
	if err != nil {
		return nil, asLocal(err)
	}
	remote := map[string]ftpEntry{}
	if d.exists {
		entries, _, err := c.list(&ftpDirJob{path: d.remote})
		if err != nil {
			return nil, err
		}
		for _, fe := range entries {
			remote[fe.Name] = fe
		}
	}
	e.nDirs.Add(1)
	e.emit(Event{Kind: EventDir, URL: d.url, Path: d.rel})
	var sub []upDir
	var files []*upJob
	inLocal := map[string]bool{}
	for _, de := range local {
		name := de.Name()
		rel := path.Join(d.rel, name)
		if strings.HasPrefix(name, ".urlget-") {
			continue // this program's own: a manifest, temporary files
		}
		inLocal[name] = true
		segs := append(d.segs[:len(d.segs):len(d.segs)], name)
		if strings.ContainsAny(name, "\r\n\x00") {
			e.fail(Record{URL: r.url(d.segs, ""), Path: rel}, &fetch.Error{Kind: fetch.ErrMalformed, Msg: "a name holding CR, LF or NUL cannot be sent to an FTP server"})
			continue
		}
		fe, onServer := remote[name]
		switch {
		case de.Type()&fs.ModeSymlink != 0:
			e.skip(Record{URL: r.url(d.segs, name), Path: rel}, "a symbolic link: not followed, not uploaded")
		case de.IsDir():
			if !e.filter.dir(rel) {
				continue
			}
			if e.maxDepth >= 0 && d.depth+1 > e.maxDepth {
				e.hitCap(fmt.Sprintf("mirror.Options.MaxDepth %d reached", e.maxDepth))
				continue
			}
			nd := upDir{url: r.url(segs, ""), rel: rel, remote: joinServer(d.remote, name), segs: segs, exists: onServer, depth: d.depth + 1}
			if onServer && fe.Type != fetch.EntryDir {
				e.fail(Record{URL: nd.url, Path: rel, Type: TypeDir}, errors.New("the server has something else than a directory under that name: left alone"))
				continue
			}
			if !onServer && !e.opt.DryRun {
				if err := c.do("MKD", nd.remote); err != nil {
					e.fail(Record{URL: nd.url, Path: rel, Type: TypeDir}, err)
					continue
				}
				nd.exists = true
			}
			sub = append(sub, nd)
		case de.Type().IsRegular():
			if !e.filter.file(rel) {
				continue
			}
			info, err := de.Info()
			if err != nil {
				e.fail(Record{URL: r.url(d.segs, name), Path: rel}, asLocal(err))
				continue
			}
			if !e.claimFileSlot() {
				continue
			}
			j := &upJob{rel: rel, dir: d.remote, name: name, url: r.url(d.segs, name), size: info.Size(), mtime: info.ModTime().Truncate(time.Second)}
			j.tmp = upTempName(j)
			if onServer && fe.Type == fetch.EntryDir {
				e.fail(Record{URL: j.url, Path: rel}, errors.New("the server has a directory under that name: left alone"))
				continue
			}
			j.had = onServer
			if fe, ok := remote[j.tmp]; ok && fe.Size > 0 && fe.Size < j.size {
				j.part = fe.Size
			}
			files = append(files, j)
			if !onServer {
				j.why = "new"
				continue
			}
			j.why = r.differs(j, fe)
		default:
			e.skip(Record{URL: r.url(d.segs, name), Path: rel}, "not a regular file or directory: not uploaded")
		}
	}
	r.settle(c, d, files)
	for name, fe := range remote {
		if inLocal[name] {
			continue
		}
		if strings.Contains(name, "/") {
			continue // not one name: never sent back in a DELE
		}
		rel := path.Join(d.rel, name)
		it := remoteItem{dir: d.remote, name: name, isDir: fe.Type == fetch.EntryDir, url: r.url(d.segs, name), rel: rel}
		switch {
		case strings.HasPrefix(name, upPrefix):
			if !r.wanted(name, files) && !e.opt.DryRun {
				c.Cmd("DELE", joinServer(d.remote, name)) // a stale temporary file of ours
			}
		case strings.HasPrefix(name, ".urlget-"):
			// Like the local ones: this program's (a download mirror's
			// manifest), never compared, never deleted.
		case fe.Type == fetch.EntryDir && !e.filter.dir(rel), fe.Type != fetch.EntryDir && !e.filter.file(rel):
		case fe.Type == fetch.EntryDir || fe.Type == fetch.EntryFile || fe.Type == fetch.EntryUnknown:
			r.mu.Lock()
			r.deletes = append(r.deletes, it)
			r.mu.Unlock()
		}
	}
	return sub, nil
}

// wanted reports whether the temporary name is that of a file to upload.
func (r *reverse) wanted(tmp string, files []*upJob) bool {
	for _, j := range files {
		if j.tmp == tmp && j.why != "" {
			return true
		}
	}
	return false
}

// upTempName is the server name a file is uploaded to before its rename.
func upTempName(j *upJob) string {
	h := sha256.Sum256([]byte(j.rel))
	return fmt.Sprintf("%s%x-%d-%d", upPrefix, h[:8], j.size, j.mtime.Unix())
}

// differs says why a file the server has is uploaded again, "" when it is
// not: a size that differs, or a time that does not match — where the
// listing's time is not exact (LIST), MDTM decides (settle).
func (r *reverse) differs(j *upJob, fe ftpEntry) string {
	switch {
	case r.e.opt.Refetch:
		return "mirror.Options.Refetch"
	case fe.Size >= 0 && fe.Size != j.size:
		return fmt.Sprintf("size %d on the server, %d here", fe.Size, j.size)
	case fe.Size < 0 || !fe.exact:
		return "?" // asked with MDTM
	}
	return r.timeWhy(j, fe.ModTime)
}

// timeWhy compares the server's exact time of a file with the local one
// ("" when they say it is unchanged). Where times can be set (MFMT), the
// same second is the rule; elsewhere a server time not before the local
// one is accepted too, since the upload time is all such a server keeps.
func (r *reverse) timeWhy(j *upJob, t time.Time) string {
	switch {
	case t.IsZero():
		return "the server gives no time for it"
	case t.Unix() == j.mtime.Unix():
		return ""
	case !r.exact && t.After(j.mtime):
		return ""
	}
	return "modified " + stamp(j.mtime) + " here, " + stamp(t) + " on the server"
}

// settle decides the files whose listing entry could not (MDTM, asked in
// one batch), and queues the ones to upload.
func (r *reverse) settle(c *ftpConn, d upDir, files []*upJob) {
	e := r.e
	var ask []mdtmCheck
	for _, j := range files {
		if j.why == "?" {
			ask = append(ask, mdtmCheck{job: &ftpFileJob{name: j.name}})
		}
	}
	if len(ask) > 0 {
		replies, err := c.askBatch(d.remote, "MDTM", ask)
		k := 0
		for _, j := range files {
			if j.why != "?" {
				continue
			}
			var t time.Time
			if err == nil && replies[k].Code() == 213 {
				t, _ = ftp.ParseMDTM(strings.TrimSpace(replies[k].Text()))
			}
			k++
			j.why = r.timeWhy(j, t)
		}
	}
	for _, j := range files {
		if j.why == "" {
			e.nUnchanged.Add(1)
			e.emit(Event{Kind: EventUnchanged, URL: j.url, Path: j.rel, Size: j.size, Why: "same size and modification time as on the server"})
			continue
		}
		if j.part > 0 {
			j.why += fmt.Sprintf("; continuing the upload a cut run left (%d bytes, APPE)", j.part)
		}
		e.toFetch.Add(j.size)
		e.sched.push(&task{host: r.s.host, job: j})
	}
}

// put uploads one file: to its temporary name (continued with APPE from
// what a cut run left, where that is the same version of the same file),
// checked with SIZE, given the local time, then renamed over the name.
func (r *reverse) put(c *ftpConn, j *upJob, next *upJob) error {
	e := r.e
	f, err := r.src.Open(osPath(j.rel))
	if err != nil {
		return asLocal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return asLocal(err)
	}
	if !fi.Mode().IsRegular() || fi.Size() != j.size || !fi.ModTime().Truncate(time.Second).Equal(j.mtime) {
		return asLocal(errors.New("changed while the mirror ran: left for the next run"))
	}
	off := j.part
	if off > 0 {
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			return asLocal(err)
		}
	}
	addr, _, err := c.passiveIn(j.dir)
	if err != nil {
		return err
	}
	xfer, err := c.Stor(e.ctx, addr, j.tmp, off > 0)
	if err != nil {
		return err
	}
	defer xfer.Close()
	verb := "STOR"
	if off > 0 {
		verb = "APPE"
	}
	// A small file is written without waiting for the 150 (it fits in
	// the socket buffers, and a server refusing it reads nothing of it,
	// which Finish then says): a round trip less per file. A larger one
	// waits, so that a refusal does not leave it stuck on a connection
	// nobody reads.
	var rep *ftp.Reply
	if j.size-off > earlyWrite {
		if rep, err = xfer.Start(); err != nil {
			return err
		}
		if !rep.Preliminary() && !rep.Positive() {
			return ftp.RefusedError(verb, j.tmp, rep)
		}
	}
	e.fetched.Add(off)
	cr := &countReader{r: e.client.LimitRate.Reader(e.ctx, f), e: e, payload: true}
	_, cerr := io.Copy(xfer, cr)
	if cerr != nil {
		if cr.readErr != nil || errors.Is(cerr, errBytesCap) {
			return asLocal(cerr)
		}
		if rep == nil { // perhaps refused: the reply says so
			if fr, err := xfer.Finish(); err == nil && !fr.Positive() && !fr.Preliminary() {
				return ftp.RefusedError(verb, j.tmp, fr)
			}
		}
		return cerr
	}
	if rep, err = xfer.Finish(); err != nil {
		return err
	}
	if !rep.Positive() {
		j.part = 0
		return ftp.RefusedError(verb, j.tmp, rep)
	}
	// The server must hold the whole file before it gets the name; its
	// time is set in the same write as SIZE is asked.
	how := r.timeWay()
	cmds := []ftp.Command{{Verb: "SIZE", Arg: j.tmp}}
	if tc, ok := timeCommand(how, j.mtime, j.tmp); ok {
		cmds = append(cmds, tc)
	}
	if err := c.Send(cmds...); err != nil {
		return err
	}
	rs, err := c.ReadReply()
	if err != nil {
		return err
	}
	var rt *ftp.Reply
	if len(cmds) > 1 {
		if rt, err = c.ReadReply(); err != nil {
			return err
		}
	}
	if rs.Code() == 213 {
		if n, perr := strconv.ParseInt(strings.TrimSpace(rs.Text()), 10, 64); perr == nil && n != j.size {
			j.part = 0
			c.Cmd("DELE", j.tmp)
			return &fetch.Error{Kind: fetch.ErrPartial, Msg: fmt.Sprintf("ftp: %s: the server holds %d bytes, not %d: uploaded again", j.tmp, n, j.size)}
		}
	}
	j.part = j.size
	if rt != nil && rt.Code()/100 != 2 {
		r.timeRefused(how)
		if err := r.setMTime(c, j.tmp, j.mtime); err != nil {
			return err
		}
	}
	return r.rename(c, j, next)
}

// cd makes dir (absolute) the connection's directory.
func (c *ftpConn) cd(dir string) error {
	if c.cwd == dir {
		return nil
	}
	c.cwd = ""
	if err := c.do("CWD", dir); err != nil {
		return err
	}
	c.cwd = dir
	return nil
}

// The ways a file's modification time is set, in the order tried: MFMT
// (pure-ftpd, ProFTPD), MDTM with a time (vsftpd), SITE UTIME (ProFTPD's
// mod_site_misc). A way the server refuses is not tried again; "" once
// none works, which is no error (the rerun then compares against the
// upload time).
var timeWays = []string{"MFMT", "MDTM", "SITE UTIME", ""}

// timeWay is the way to try next.
func (r *reverse) timeWay() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.setTime
}

// timeRefused moves on from the way how, refused.
func (r *reverse) timeRefused(how string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.setTime == how {
		for i, w := range timeWays[:len(timeWays)-1] {
			if w == how {
				r.setTime = timeWays[i+1]
			}
		}
	}
}

// timeCommand is the command that sets name's time t the way how.
func timeCommand(how string, t time.Time, name string) (ftp.Command, bool) {
	ts := t.UTC().Format("20060102150405")
	switch how {
	case "MFMT", "MDTM":
		return ftp.Command{Verb: how, Arg: ts + " " + name}, true
	case "SITE UTIME":
		return ftp.Command{Verb: "SITE", Arg: "UTIME " + ts + " " + name}, true
	}
	return ftp.Command{}, false
}

// setMTime gives the file its time, trying the ways left in turn.
func (r *reverse) setMTime(c *ftpConn, name string, t time.Time) error {
	for {
		how := r.timeWay()
		cmd, ok := timeCommand(how, t, name)
		if !ok {
			return nil
		}
		rep, err := c.Cmd(cmd.Verb, cmd.Arg)
		if err != nil {
			return err
		}
		if rep.Code()/100 == 2 {
			return nil
		}
		r.timeRefused(how)
	}
}

// rename gives the uploaded temporary file its name (RNFR, RNTO). A server
// that will not rename over an existing file gets a DELE of it first.
func (r *reverse) rename(c *ftpConn, j *upJob, next *upJob) error {
	for try := 0; ; try++ {
		// RNTO goes in the same write: it fails harmlessly (503) after
		// a refused RNFR; and so does the next file's passive request
		// (not when a DELE may have to follow).
		cmds := []ftp.Command{{Verb: "RNFR", Arg: j.tmp}, {Verb: "RNTO", Arg: j.name}}
		if next != nil && !j.had && try == 0 {
			cmds = append(cmds, c.aheadCommands(next.dir)...)
		}
		if err := c.Send(cmds...); err != nil {
			return err
		}
		rf, err := c.ReadReply()
		if err != nil {
			return err
		}
		rt, err := c.ReadReply()
		if err != nil {
			return err
		}
		switch {
		case rf.Code() != 350:
			return ftp.RefusedError("RNFR", j.tmp, rf)
		case rt.Positive():
			return nil
		case try > 0 || !j.had:
			return ftp.RefusedError("RNTO", j.name, rt)
		}
		if err := c.do("DELE", j.name); err != nil {
			return err
		}
	}
}

// deleteGone deletes, with Delete, what the server has and Dir has not
// (not what the filters leave out, nor a tree the run did not list
// completely), at most DeleteLimit items; without Delete it is reported as
// gone.
func (r *reverse) deleteGone() {
	e := r.e
	sort.Slice(r.deletes, func(a, b int) bool { return r.deletes[a].rel < r.deletes[b].rel })
	if !e.opt.Delete {
		for _, it := range r.deletes {
			e.nGone.Add(1)
			e.emit(Event{Kind: EventGone, URL: it.url, Path: it.rel})
		}
		return
	}
	if lim := e.opt.DeleteLimit; lim < 0 || lim > 0 && len(r.deletes) > lim {
		e.markIncomplete(fmt.Sprintf("%d items are gone from %s: more than mirror.Options.DeleteLimit allows, none deleted", len(r.deletes), e.opt.Dir))
		return
	}
	for _, it := range r.deletes {
		if e.opt.DryRun {
			e.nDeleted.Add(1)
			e.emit(Event{Kind: EventWouldDel, URL: it.url, Path: it.rel})
			continue
		}
		c, err := e.ftpConnFor(r.s, 0)
		if err != nil {
			e.fail(Record{URL: it.url, Path: it.rel}, err)
			return
		}
		if err := r.remove(c, it.dir, it.name, it.isDir, 0); err != nil {
			e.fail(Record{URL: it.url, Path: it.rel}, err)
			if connBroken(err) {
				e.dropConn(r.s, 0)
			}
			continue
		}
		e.nDeleted.Add(1)
		e.emit(Event{Kind: EventDeleted, URL: it.url, Path: it.rel})
	}
}

// remove deletes a server file (DELE) or a directory with everything in
// it (listed, emptied, RMD).
func (r *reverse) remove(c *ftpConn, dir, name string, isDir bool, depth int) error {
	p := joinServer(dir, name)
	if !isDir {
		return c.do("DELE", p)
	}
	if depth > r.e.maxDepth && r.e.maxDepth >= 0 {
		return errors.New("deeper than mirror.Options.MaxDepth: not deleted")
	}
	entries, _, err := c.list(&ftpDirJob{path: p})
	if err != nil {
		return err
	}
	for _, fe := range entries {
		if fe.Type == fetch.EntryOther {
			continue
		}
		if err := r.remove(c, p, fe.Name, fe.Type == fetch.EntryDir, depth+1); err != nil {
			return err
		}
	}
	if c.cwd == p || strings.HasPrefix(c.cwd, p+"/") {
		if err := c.cd(dir); err != nil {
			return err
		}
	}
	return c.do("RMD", p)
}

// do sends a command that must succeed: a refusal is RefusedError's.
func (c *ftpConn) do(verb, arg string) error {
	rep, err := c.Cmd(verb, arg)
	if err != nil {
		return err
	}
	if !rep.Positive() {
		return ftp.RefusedError(verb, arg, rep)
	}
	return nil
}
