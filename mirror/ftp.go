package mirror

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp"
	"github.com/urlget/urlget/urlparse"
)

// maxListing bounds one directory listing (bytes).
const maxListing = 64 << 20

// ftpState is the walk's shared state.
type ftpState struct {
	req     *fetch.Request // the Client's policy for the URL (Client.Prepare)
	cfg     fetch.Config   // and the configuration to dial with
	host    string         // host:port, the scheduler's key
	urlHost string
	urlPort int
	urlUser string
	mu      sync.Mutex
	visited map[string]bool // server paths listed or queued
	uniques map[string]bool // MLSD unique facts of directories seen
	conns   []*ftpConn      // by worker
	live    atomic.Int64    // connections logged in
	// early sends the next file's commands while a file arrives. Most
	// servers read them once the transfer is over; pure-ftpd answers them
	// during it ("500 Unknown command"), so it is turned off for pure-ftpd
	// and for any server whose replies come out of step.
	early atomic.Bool
}

// ftpDirJob is a directory to list.
type ftpDirJob struct {
	url    string
	path   string   // server path, absolute ("" for the root until a connection knows its home)
	segs   []string // URL segments from the login directory
	rel    string   // server names below the mirrored URL, for filters
	local  string   // local directory
	depth  int
	parent string
	node   *dirNode
	entry  dirEntry // what the parent's listing said of it
	// doubt is why its first listing was not believed, when it was
	// listed once already: the next look (on another connection) decides.
	doubt string
	view  *dirView // the local directory, while its entries are handled
	subs  []*task  // its subdirectories' listings, pushed once its entries are handled
}

// dirEntry is what a directory's record takes from its parent's listing
// (a queued listing holds no whole Record: a wide tree queues thousands).
type dirEntry struct{ mtime, mtimeSource, name string }

// ftpFileJob is a file to fetch.
type ftpFileJob struct {
	dir    string // server directory
	name   string
	rec    Record
	old    Record
	hasOld bool
	mtime  time.Time // from the listing
	exact  bool      // mtime is exact (MLSD): no MDTM needed
	why    string    // why it is fetched (-v)
	facts  string    // its MLSD facts, for the WARC file
}

func (e *engine) runFTP() error {
	s, clean, err := e.ftpSession()
	if err != nil {
		return err
	}
	e.sched.depthFirst = true // every directory is listed (see scheduler)
	root := &ftpDirJob{url: e.rootURL, segs: clean, node: &dirNode{url: e.rootURL}}
	root.local = e.paths.claimDir(e.rootURL, nil)
	e.markSeen(e.rootURL)
	e.sched.push(&task{list: true, host: s.host, job: root})
	n := min(e.parallel, e.perHost)
	s.conns = make([]*ftpConn, n)
	e.runWorkers(n, func(w int, t *task) bool { return e.ftpTask(s, w, t) })
	for _, c := range s.conns {
		if c != nil {
			c.Quit()
		}
	}
	return nil
}

// ftpSession is the shared state of an FTP run on e.u, with the Client's
// policy (Client.Prepare; an HTTP proxy cannot carry it), and the URL's
// path segments below the login directory (empty ones dropped).
func (e *engine) ftpSession() (*ftpState, []string, error) {
	u := e.u
	req, cfg, err := e.client.Prepare(u)
	if err != nil {
		return nil, nil, err
	}
	if req.Proxy != nil {
		return nil, nil, &fetch.Error{Kind: fetch.ErrUnsupported, URL: e.rootURL,
			Msg: "mirror: ftp through an HTTP proxy (" + fetch.Redacted(req.Proxy) + ") is not supported: use a SOCKS proxy, Client.NoProxy, or unset ftp_proxy"}
	}
	s := &ftpState{req: req, cfg: cfg, host: hostKey(u.Host, u.PortOrDefault()), urlHost: u.Host, urlPort: u.PortOrDefault(),
		visited: map[string]bool{}, uniques: map[string]bool{}}
	s.early.Store(true)
	if u.HasUserinfo {
		s.urlUser = u.User
	}
	segs := append([]string(nil), u.FTP.CWD...)
	if u.FTP.Name != "" {
		segs = append(segs, u.FTP.Name)
	}
	var clean []string
	for _, sg := range segs {
		if sg != "" {
			clean = append(clean, sg)
		}
	}
	return s, clean, nil
}

// ftpTask runs one task on worker w's connection. It returns false when
// the worker is to stop: the server refused it a connection (421, "too
// many connections") while others are logged in, which then carry on with
// fewer connections.
func (e *engine) ftpTask(s *ftpState, w int, t *task) bool {
	c, err := e.ftpConnFor(s, w)
	if err != nil {
		if e.ctx.Err() != nil {
			e.sched.done(t)
			return true
		}
		if is421(err) && s.live.Load() > 0 {
			e.markNote(fmt.Sprintf("the server refused a connection (421): going on with %d", s.live.Load()))
			e.sched.requeue(t)
			return false
		}
		e.retryOrFail(t, err)
		return true
	}
	switch j := t.job.(type) {
	case *ftpDirJob:
		return e.ftpList(s, w, c, t, j)
	case *ftpFileJob:
		e.ftpFiles(s, w, c, t)
	}
	return true
}

// markNote records something worth knowing that does not make the mirror
// incomplete (reported through an event).
func (e *engine) markNote(msg string) {
	e.emit(Event{Kind: EventSkipped, Err: errors.New(msg)})
}

// retryOrFail puts a failed task back after the backoff, or records the
// failure when it is not retryable or out of retries.
func (e *engine) retryOrFail(t *task, err error) {
	if e.ctx.Err() != nil || errors.Is(err, errBytesCap) {
		e.sched.done(t)
		return
	}
	if e.again(t.attempt, err) {
		t.attempt++
		// A session the server ended (421, vsftpd's 500 OOPS) is asked
		// again at once on a new connection: that login is the test of
		// the server, and its refusal waits (ftpTask). vsftpd on
		// loopback ends about one session in a thousand transfers when
		// its random passive port is taken ten times ("500 OOPS:
		// vsf_sysutil_bind"); a second's wait each time kept a worker
		// idle for 120 s of a 100,000-file mirror (issue 37).
		if ftp.SessionGone(err) || e.backoff(t.attempt) {
			e.sched.requeue(t)
			return
		}
		e.sched.done(t)
		return
	}
	switch j := t.job.(type) {
	case *ftpDirJob:
		e.failList(Record{URL: j.url, Type: TypeDir, Path: j.local, Parent: j.parent, Size: -1}, j.depth, err)
	case *ftpFileJob:
		e.fail(j.rec, err)
	case upDir: // a reverse mirror's (reverse.go)
		e.failList(Record{URL: j.url, Path: j.rel, Type: TypeDir, Size: -1}, j.depth, err)
	case *upJob:
		e.fail(Record{URL: j.url, Path: j.rel, Type: TypeFile, Size: j.size}, err)
	}
	e.sched.done(t)
}

// ftpList lists one directory and queues what is in it. It returns false
// when the worker is to stop (as ftpTask).
func (e *engine) ftpList(s *ftpState, w int, c *ftpConn, t *task, j *ftpDirJob) bool {
	if j.path == "" {
		j.path = serverPath(c.home, j.segs)
		s.mu.Lock()
		s.visited[j.path] = true
		s.mu.Unlock()
	}
	e.setCurrent(w, j.local+"/")
	// A listing is not believed on one look when it is empty or cut in a
	// line: it is listed again on another connection (a data connection
	// cut by a NAT or a firewall's FTP helper leaves the next ones
	// alone), with the server's other listing command where it has one,
	// before the directory is taken as it looks (empty: its files gone).
	// The worker's connection is replaced by a new one for that; when
	// the server refuses one, the directory goes back to the queue for
	// another worker's connection to look.
	doubt := j.doubt
	var entries []ftpEntry
	var self string
	var err error
	if doubt == "" {
		entries, self, doubt, err = c.look(j, false)
		if err == nil && doubt != "" {
			e.dropConn(s, w)
			if c, err = e.ftpConnFor(s, w); err != nil {
				j.doubt = doubt
				if is421(err) && s.live.Load() > 0 {
					e.setCurrent(w, "")
					e.sched.requeue(t)
					return false
				}
			}
		}
	}
	if err == nil && doubt != "" {
		entries, self, _, err = c.look(j, true)
		if err == nil && len(entries) > 0 {
			e.markNote(fmt.Sprintf("%s/: the first listing was not believed (%s); listed again on another connection with %s: %d %s",
				j.local, doubt, c.listed, len(entries), plural(int64(len(entries)), "entry", "entries")))
		}
	}
	e.setCurrent(w, "")
	if err != nil {
		if connBroken(err) {
			e.dropConn(s, w)
		}
		e.retryOrFail(t, err)
		return true
	}
	defer e.sched.done(t)
	if self != "" {
		s.mu.Lock()
		s.uniques[self] = true
		s.mu.Unlock()
	}
	e.nDirs.Add(1)
	e.markListed(j.url)
	if !e.opt.DryRun {
		rec := Record{URL: j.url, Type: TypeDir, Path: j.local, Parent: j.parent, Size: -1, Status: StatusOK,
			Fetched: stamp(time.Now())}
		old, had := e.man.get(j.url)
		if had {
			rec.MTime, rec.MTimeSource, rec.Name = old.MTime, old.MTimeSource, old.Name
		}
		if j.depth > 0 {
			rec.MTime, rec.MTimeSource, rec.Name = j.entry.mtime, j.entry.mtimeSource, j.entry.name
		}
		// An empty remote directory is made too, as lftp and wget do.
		if err := e.makeDir(j.local); err != nil {
			e.fail(rec, err)
			return true
		}
		e.putUnlessSame(old, had, rec)
	}
	e.emit(Event{Kind: EventDir, URL: j.url, Path: j.local})
	// Cycle check for servers without unique facts: a directory listed
	// the same as one of its ancestors contains itself.
	if a := j.node.sameAsAncestor(fingerprint(entries)); a != "" {
		e.skip(Record{URL: j.url, Type: TypeDir, Path: j.local, Parent: j.parent, Size: -1}, cycleWhy(a))
		return true
	}
	var checks []mdtmCheck
	j.view = e.fs.view(j.local)
	defer j.view.close()
	for _, fe := range entries {
		if e.ctx.Err() != nil {
			return true
		}
		if ck, ok := e.ftpEntry(s, j, fe); ok {
			checks = append(checks, ck)
		}
	}
	e.paths.done(j.local) // its entries are claimed
	e.sched.pushLists(j.subs)
	j.subs = nil
	e.ftpCheckMDTM(s, w, c, j, checks)
	return true
}

// ftpEntry handles one entry of a listing. A file whose entry cannot
// prove it unchanged is returned to be checked with MDTM.
func (e *engine) ftpEntry(s *ftpState, j *ftpDirJob, fe ftpEntry) (mdtmCheck, bool) {
	name := fe.Name
	rel := name
	if j.rel != "" {
		rel = j.rel + "/" + name
	}
	segs := append(append([]string(nil), j.segs...), name)
	local := EncodeName(name)
	rec := Record{Parent: j.url, Size: fe.Size}
	if local != name {
		rec.Name = validName(name)
	}
	if !fe.ModTime.IsZero() {
		rec.MTime = stamp(fe.ModTime)
		switch {
		case fe.exact:
			rec.MTimeSource = "mlsd"
		case fe.noYear:
			rec.MTimeSource = "list-noyear"
		default:
			rec.MTimeSource = "list"
		}
	}
	switch fe.Type {
	case fetch.EntryDir:
		rec.URL = urlparse.FTPURL(s.urlHost, s.urlPort, s.urlUser, "", segs, "", 0)
		rec.Type = TypeDir
		e.markSeen(rec.URL)
		if !e.descend(rec, rel, j.depth+1) {
			return mdtmCheck{}, false
		}
		p := joinServer(j.path, name)
		s.mu.Lock()
		dupPath := s.visited[p]
		dupUnique := fe.unique != "" && s.uniques[fe.unique]
		s.visited[p] = true
		if fe.unique != "" {
			s.uniques[fe.unique] = true
		}
		s.mu.Unlock()
		if dupPath || dupUnique {
			rec.Path = path.Join(j.local, local)
			e.skip(rec, "a cycle: this directory was already visited (same path or MLSD unique fact)")
			return mdtmCheck{}, false
		}
		sub := &ftpDirJob{url: rec.URL, path: p, segs: segs, rel: rel, depth: j.depth + 1, parent: j.url,
			node: &dirNode{parent: j.node, url: rec.URL}}
		e.displaced(urlparse.FTPURL(s.urlHost, s.urlPort, s.urlUser, "", j.segs, name, 0), pathSegs(j.local, local))
		sub.local = e.paths.claimDir(rec.URL, pathSegs(j.local, local))
		rec.Path = sub.local
		sub.entry = dirEntry{rec.MTime, rec.MTimeSource, rec.Name}
		if !fe.ModTime.IsZero() && !e.opt.DryRun {
			e.mu.Lock()
			e.dirTimes[sub.local] = fe.ModTime
			e.mu.Unlock()
		}
		j.subs = append(j.subs, &task{list: true, host: s.host, job: sub})
	case fetch.EntryLink:
		rec.URL = urlparse.FTPURL(s.urlHost, s.urlPort, s.urlUser, "", j.segs, name, 0)
		rec.Type, rec.Target, rec.Size = TypeSymlink, fe.Target, -1
		e.markSeen(rec.URL)
		if !e.filter.file(rel) {
			return mdtmCheck{}, false
		}
		target, why := linkTarget(j.local, fe.Target)
		if target == "" {
			rec.Error = why
			e.record(rec)
			return mdtmCheck{}, false
		}
		e.displaced(urlparse.FTPURL(s.urlHost, s.urlPort, s.urlUser, "", segs, "", 0), pathSegs(j.local, local))
		rec.Path = e.paths.claimFile(rec.URL, pathSegs(j.local, local))
		e.link(rec, target)
	case fetch.EntryFile, fetch.EntryUnknown:
		rec.URL = urlparse.FTPURL(s.urlHost, s.urlPort, s.urlUser, "", j.segs, name, 0)
		rec.Type, rec.Key = TypeFile, fe.key
		e.markSeen(rec.URL)
		if !e.filter.file(rel) {
			return mdtmCheck{}, false
		}
		if !e.claimFileSlot() {
			return mdtmCheck{}, false
		}
		e.displaced(urlparse.FTPURL(s.urlHost, s.urlPort, s.urlUser, "", segs, "", 0), pathSegs(j.local, local))
		rec.Path = e.paths.claimFile(rec.URL, pathSegs(j.local, local))
		old, had := e.man.get(rec.URL)
		if had {
			e.renamed(&old, rec.Path)
		}
		job := &ftpFileJob{dir: j.path, name: name, rec: rec, old: old, hasOld: had && old.Status == StatusOK,
			mtime: fe.ModTime, exact: fe.exact, facts: fe.facts}
		if !had {
			job.why = "new"
			e.queueFile(s, job)
			return mdtmCheck{}, false
		}
		switch v, why := e.ftpUnchanged(j.view, old, rec, fe); v {
		case verdictSame:
			if e.opt.Checksum {
				return mdtmCheck{fe: fe, job: job, proven: true}, true
			}
			e.ftpKeep(old, rec, why)
		case verdictAsk:
			return mdtmCheck{fe: fe, job: job}, true
		default:
			job.why = why
			e.queueFile(s, job)
		}
	default:
		rec.URL = urlparse.FTPURL(s.urlHost, s.urlPort, s.urlUser, "", j.segs, name, 0)
		rec.Type, rec.Size = TypeOther, -1
		e.markSeen(rec.URL)
		e.record(rec)
	}
	return mdtmCheck{}, false
}

// queueFile queues a file to fetch; its listed size counts towards the
// progress line's total.
func (e *engine) queueFile(s *ftpState, job *ftpFileJob) {
	if job.rec.Size > 0 {
		e.toFetch.Add(job.rec.Size)
	}
	e.sched.push(&task{host: s.host, job: job})
}

// ftpKeep counts a file as unchanged, keeping its record up to date.
func (e *engine) ftpKeep(old, rec Record, why string) {
	e.nUnchanged.Add(1)
	if old.Parent != rec.Parent || old.Key != rec.Key {
		old.Parent, old.Key = rec.Parent, rec.Key
		if !e.opt.DryRun {
			e.man.put(old)
		}
	}
	e.emit(Event{Kind: EventUnchanged, URL: rec.URL, Path: old.Path, Size: old.Size, Why: why})
}

// pathSegs splits a local directory and appends a name.
func pathSegs(dir, name string) []string {
	var segs []string
	if dir != "" {
		segs = strings.Split(dir, "/")
	}
	return append(segs, name)
}
