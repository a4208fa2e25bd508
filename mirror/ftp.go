package mirror

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"path"
	"regexp"
	"sort"
	"strconv"
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
	login   *ftpLogin
	host    string // host:port, the scheduler's key
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
	entry  Record // what the parent's listing said of it
}

// dirNode links a directory to its ancestors for cycle detection.
type dirNode struct {
	parent *dirNode
	fp     string // fingerprint of the listing
	url    string
}

// ftpFileJob is a file to fetch.
type ftpFileJob struct {
	dir    string // server directory
	name   string
	rec    Record
	old    Record
	hasOld bool
	mtime  time.Time // from the listing
	exact  bool      // mtime is exact (MLSD): no MDTM needed
}

func (e *engine) runFTP() error {
	u := e.u
	proxy, err := e.client.ProxyFor(u)
	if err != nil {
		return err
	}
	if proxy != nil {
		return &fetch.Error{Kind: fetch.ErrUnsupported, URL: e.rootURL,
			Msg: "mirror: ftp through a proxy (" + fetch.Redacted(proxy) + ") is not supported: use --noproxy or unset ftp_proxy"}
	}
	lg, err := e.ftpLogin()
	if err != nil {
		return err
	}
	s := &ftpState{login: lg, host: hostKey(u.Host, u.PortOrDefault()), urlHost: u.Host, urlPort: u.PortOrDefault(),
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
	root := &ftpDirJob{url: e.rootURL, segs: clean, node: &dirNode{url: e.rootURL}}
	root.local = e.paths.claimDir(e.rootURL, nil)
	e.markSeen(e.rootURL)
	e.sched.push(&task{list: true, host: s.host, job: root})
	n := min(e.parallel, e.perHost)
	s.conns = make([]*ftpConn, n)
	e.runWorkers(n, func(w int, t *task) bool { return e.ftpTask(s, w, t) })
	for _, c := range s.conns {
		if c != nil {
			c.quit()
		}
	}
	return nil
}

// ftpLogin works out the credentials: the Client's (-u), the URL's, then
// netrc; anonymous when none.
func (e *engine) ftpLogin() (*ftpLogin, error) {
	c, u := e.client, e.u
	lg := &ftpLogin{addr: net.JoinHostPort(u.Host, strconv.Itoa(u.PortOrDefault())), connect: c.ConnectTimeout,
		verbose: c.Verbose, email: ftp.DefaultEmail()}
	if v := c.Options["ftp-email"]; v != "" {
		lg.email = v
	}
	lg.dialer = c.Dialer
	if lg.dialer == nil {
		lg.dialer = &net.Dialer{}
	}
	switch {
	case c.HasUser || c.User != "" || c.HasPassword:
		lg.user, lg.pass, lg.hasPass = c.User, c.Password, c.HasPassword || c.Password != ""
	case u.HasUserinfo:
		lg.user, lg.pass, lg.hasPass = u.User, u.Password, u.HasPassword
		if !u.HasPassword && c.Netrc {
			if n := e.netrc(); n != nil {
				if m, ok := n.Lookup(u.Host, u.User); ok && m.HasPassword {
					lg.pass, lg.hasPass = m.Password, true
				}
			}
		}
	case c.Netrc:
		if n := e.netrc(); n != nil {
			if m, ok := n.Lookup(u.Host, ""); ok {
				lg.user, lg.pass, lg.hasPass = m.Login, m.Password, m.HasPassword
			}
		}
	}
	if strings.ContainsAny(lg.user+lg.pass+lg.email, "\r\n\x00") {
		return nil, &fetch.Error{Kind: fetch.ErrMalformed, Msg: "ftp: user or password holds CR, LF or NUL"}
	}
	return lg, nil
}

func (e *engine) netrc() *fetch.Netrc {
	p := e.client.NetrcFile
	if p == "" {
		var err error
		if p, err = fetch.DefaultNetrcPath(); err != nil {
			return nil
		}
	}
	n, err := fetch.ReadNetrc(p)
	if err != nil {
		return nil
	}
	return n
}

// conn returns worker w's connection, logging in when it has none.
func (e *engine) ftpConnFor(s *ftpState, w int) (*ftpConn, error) {
	if c := s.conns[w]; c != nil {
		return c, nil
	}
	c, err := e.dialFTP(e.ctx, s.login)
	if err != nil {
		return nil, err
	}
	s.conns[w] = c
	s.live.Add(1)
	if strings.Contains(strings.ToLower(c.greeting), "pure-ftpd") {
		s.early.Store(false)
	}
	return c, nil
}

// dropConn closes worker w's connection after a failure on it.
func (e *engine) dropConn(s *ftpState, w int) {
	if c := s.conns[w]; c != nil {
		c.close()
		s.conns[w] = nil
		s.live.Add(-1)
	}
}

// is421 reports a "too many connections" refusal.
func is421(err error) bool {
	var fe *ftpError
	return errors.As(err, &fe) && fe.reply.code == 421
}

// connBroken reports whether err left the control connection unusable (an
// I/O error, a reply that was not one), as opposed to a refused command.
func connBroken(err error) bool {
	var fe *ftpError
	if errors.As(err, &fe) {
		return fe.reply.code == 421
	}
	return !errors.Is(err, errLocal)
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
		e.ftpList(s, w, c, t, j)
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
	if retryable(err) && t.attempt < e.retries {
		t.attempt++
		if e.backoff(t.attempt) {
			e.sched.requeue(t)
			return
		}
		e.sched.done(t)
		return
	}
	switch j := t.job.(type) {
	case *ftpDirJob:
		rec := Record{URL: j.url, Type: TypeDir, Path: j.local, Parent: j.parent, Size: -1}
		if j.depth == 0 {
			e.mu.Lock()
			if e.fatal == nil {
				e.fatal = err
			}
			e.mu.Unlock()
		}
		e.fail(rec, err)
	case *ftpFileJob:
		e.fail(j.rec, err)
	}
	e.sched.done(t)
}

// ftpEntry is a listing entry with what the walk needs of it.
type ftpEntry struct {
	fetch.Entry
	exact  bool   // ModTime is exact (MLSD modify)
	noYear bool   // an ls time without a year
	unique string // MLSD unique fact
	key    string // what changes when the file changes
}

// lsNoYear matches an ls date with a time and no year ("Nov 21 08:52").
var lsNoYear = regexp.MustCompile(`(?i)\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\s+\d{1,2}\s+\d{1,2}:\d{2}\s`)

// mlsFacts returns the facts of an MLSD line, by lower-case name.
func mlsFacts(line string) map[string]string {
	sp := strings.IndexByte(line, ' ')
	if sp <= 0 {
		return nil
	}
	m := map[string]string{}
	for _, f := range strings.Split(strings.TrimSuffix(line[:sp], ";"), ";") {
		if k, v, ok := strings.Cut(f, "="); ok {
			m[strings.ToLower(k)] = v
		}
	}
	return m
}

// list reads the directory j.path on c: CWD there, then MLSD (when the
// server offers it), LIST, or NLST — whichever the server takes.
func (c *ftpConn) list(j *ftpDirJob, lg *ftpLogin) (entries []ftpEntry, self string, err error) {
	verb := "LIST"
	if c.mlsd && !c.noMLSD {
		verb = "MLSD"
	}
	for tries := 0; tries < 4; tries++ {
		data, r, err := c.transfer(j.path, verb, c.listArgFor(verb), lg, maxListing)
		if err != nil {
			var fe *ftpError
			if !errors.As(err, &fe) || r == nil {
				return nil, "", err
			}
			switch {
			case r.code == 450 || r.code == 550 && verb == "NLST":
				return nil, "", nil // "no files found": empty
			case verb == "MLSD" && r.code >= 500 && r.code <= 504:
				c.noMLSD, verb = true, "LIST"
				continue
			case verb == "LIST" && c.listArg != "" && r.code >= 500 && r.code <= 504:
				c.listArg = ""
				continue
			case verb == "LIST" && r.code >= 500 && r.code <= 502:
				verb = "NLST"
				continue
			}
			return nil, "", err
		}
		entries, self = parseListing(data, verb)
		if verb == "NLST" {
			entries, err = c.probeNLST(entries)
		}
		return entries, self, err
	}
	return nil, "", &fetch.Error{Kind: fetch.ErrProtocol, Msg: "ftp: the server takes no listing command"}
}

func (c *ftpConn) listArgFor(verb string) string {
	if verb == "LIST" {
		return c.listArg
	}
	return ""
}

// parseListing parses a listing's lines; self is the MLSD unique fact of
// the directory itself (type=cdir), when given.
func parseListing(data []byte, verb string) (out []ftpEntry, self string) {
	seen := map[string]bool{}
	lp := ftp.NewListParser(ftp.ListAuto) // the listing's first lines settle its format
	for _, line := range bytes.Split(data, []byte("\n")) {
		l := strings.TrimSuffix(string(line), "\r")
		if l == "" {
			continue
		}
		var fe ftpEntry
		switch verb {
		case "MLSD":
			fe.Entry = ftp.ParseMLSx(l)
			facts := mlsFacts(l)
			switch strings.ToLower(facts["type"]) {
			case "cdir":
				self = facts["unique"]
				continue
			case "pdir":
				continue
			}
			fe.unique = facts["unique"]
			if v, ok := facts["modify"]; ok && !fe.ModTime.IsZero() {
				fe.exact = true
				fe.key = "modify=" + v
			}
		case "NLST":
			fe.Entry = ftp.ParseNLST(l)
			// NLST may give paths ("dir/name"): keep the last part.
			if i := strings.LastIndexByte(fe.Name, '/'); i >= 0 && i < len(fe.Name)-1 {
				fe.Name = fe.Name[i+1:]
			}
		default:
			fe.Entry = lp.Parse(l)
			fe.Name = listName(lp.Format(), fe.Entry)
			if !fe.Unparsed && !fe.ModTime.IsZero() {
				fe.noYear = lsNoYear.MatchString(fe.Raw)
				if fe.noYear {
					fe.key = "list=" + fe.ModTime.Format("01-02 15:04")
				} else {
					fe.key = "list=" + fe.ModTime.Format("2006-01-02 15:04")
				}
			}
		}
		if fe.Unparsed || fe.Name == "" || fe.Name == "." || fe.Name == ".." || seen[fe.Name] {
			continue
		}
		seen[fe.Name] = true
		fe.key = "size=" + strconv.FormatInt(fe.Size, 10) + ";" + fe.key
		out = append(out, fe)
	}
	return out, self
}

// probeNLST tells files from directories in an NLST listing (names only):
// SIZE for every name, in one batch; a size means a file.
func (c *ftpConn) probeNLST(entries []ftpEntry) ([]ftpEntry, error) {
	if len(entries) == 0 {
		return entries, nil
	}
	for start := 0; start < len(entries); start += 100 {
		batch := entries[start:min(start+100, len(entries))]
		var cmds []string
		for _, fe := range batch {
			cmds = append(cmds, "SIZE "+fe.Name)
		}
		if err := c.send(cmds...); err != nil {
			return nil, c.ioErr("SIZE", err)
		}
		for i := range batch {
			r, err := c.read()
			if err != nil {
				return nil, c.ioErr("SIZE", err)
			}
			fe := &batch[i]
			if r.code == 213 {
				if n, err := strconv.ParseInt(strings.TrimSpace(r.text()), 10, 64); err == nil {
					fe.Type, fe.Size = fetch.EntryFile, n
					fe.key = "size=" + strconv.FormatInt(n, 10) + ";"
					continue
				}
			}
			fe.Type = fetch.EntryDir
		}
	}
	return entries, nil
}

// transfer runs one data command in dir (CWD there first when needed) and
// returns up to max bytes of its data (listings).
func (c *ftpConn) transfer(dir, verb, arg string, lg *ftpLogin, max int64) ([]byte, *ftpReply, error) {
	var cmds []string
	cwd := c.cwd != dir
	if cwd {
		cmds = append(cmds, "CWD "+dir)
	}
	pasv := "EPSV"
	if c.noEPSV {
		pasv = "PASV"
	}
	cmds = append(cmds, pasv)
	if err := c.send(cmds...); err != nil {
		return nil, nil, c.ioErr("CWD", err)
	}
	if cwd {
		r, err := c.read()
		if err != nil {
			return nil, nil, c.ioErr("CWD", err)
		}
		if r.code/100 != 2 {
			c.cwd = ""
			c.read() // the EPSV's reply
			return nil, r, refusedErr("CWD "+dir, r)
		}
		c.cwd = dir
	}
	port, err := c.passive(pasv)
	if err != nil {
		return nil, nil, err
	}
	dc, err := c.dialData(port, lg)
	if err != nil {
		return nil, nil, err
	}
	defer dc.Close()
	cmd := verb
	if arg != "" {
		cmd += " " + arg
	}
	if err := c.send(cmd); err != nil {
		return nil, nil, c.ioErr(verb, err)
	}
	r, err := c.read()
	if err != nil {
		return nil, nil, c.ioErr(verb, err)
	}
	if r.code/100 != 1 && r.code/100 != 2 {
		return nil, r, refusedErr(verb, r)
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(deadlineReader{dc, c.e.timeout}, max+1))
	dc.Close() // some servers (ProFTPD) send 226 only once the client closed
	c.e.addBytes(n)
	if err != nil {
		return nil, nil, c.ioErr(verb+" data", err)
	}
	if n > max {
		return nil, nil, &fetch.Error{Kind: fetch.ErrTooLarge, Msg: fmt.Sprintf("ftp: %s: over %d bytes", verb, max)}
	}
	if r.code/100 == 1 {
		if r, err = c.read(); err != nil {
			return nil, nil, c.ioErr(verb, err)
		}
	}
	if r.code/100 != 2 {
		return nil, r, refusedErr(verb, r)
	}
	return buf.Bytes(), r, nil
}

// passive reads an EPSV or PASV reply already asked for; when EPSV is
// refused it asks PASV from then on.
func (c *ftpConn) passive(verb string) (int, error) {
	r, err := c.read()
	if err != nil {
		return 0, c.ioErr(verb, err)
	}
	if verb == "EPSV" && r.code >= 500 && r.code <= 504 {
		c.noEPSV = true
		if err := c.send("PASV"); err != nil {
			return 0, c.ioErr("PASV", err)
		}
		if r, err = c.read(); err != nil {
			return 0, c.ioErr("PASV", err)
		}
		verb = "PASV"
	}
	return c.dataPort(r, verb)
}

// ftpList lists one directory and queues what is in it.
func (e *engine) ftpList(s *ftpState, w int, c *ftpConn, t *task, j *ftpDirJob) {
	if j.path == "" {
		j.path = c.home
		for _, sg := range j.segs {
			if strings.HasPrefix(sg, "/") {
				j.path = sg
			} else {
				j.path = joinServer(j.path, sg)
			}
		}
		s.mu.Lock()
		s.visited[j.path] = true
		s.mu.Unlock()
	}
	e.setCurrent(w, j.local+"/")
	entries, self, err := c.list(j, s.login)
	e.setCurrent(w, "")
	if err != nil {
		if connBroken(err) {
			e.dropConn(s, w)
		}
		e.retryOrFail(t, err)
		return
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
		if old, ok := e.man.get(j.url); ok {
			rec.MTime, rec.MTimeSource, rec.Name = old.MTime, old.MTimeSource, old.Name
		}
		if j.depth > 0 {
			rec.MTime, rec.MTimeSource, rec.Name = j.entry.MTime, j.entry.MTimeSource, j.entry.Name
		}
		// An empty remote directory is made too, as lftp and wget do.
		if err := e.fs.mkdirAll(j.local); err != nil {
			e.fail(rec, err)
			return
		}
		e.man.put(rec)
	}
	e.emit(Event{Kind: EventDir, URL: j.url, Path: j.local})
	// Cycle check for servers without unique facts: a directory listed
	// the same as one of its ancestors contains itself.
	fp := fingerprint(entries)
	j.node.fp = fp
	for a := j.node.parent; a != nil; a = a.parent {
		if a.fp == fp {
			e.skip(Record{URL: j.url, Type: TypeDir, Path: j.local, Parent: j.parent, Size: -1},
				"a cycle: the directory lists the same as its ancestor "+a.url)
			return
		}
	}
	for _, fe := range entries {
		if e.ctx.Err() != nil {
			return
		}
		e.ftpEntry(s, j, fe)
	}
}

// joinServer appends a name to a server path as it is (names are not
// cleaned: they are the server's).
func joinServer(dir, name string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

func fingerprint(entries []ftpEntry) string {
	keys := make([]string, 0, len(entries))
	for _, fe := range entries {
		keys = append(keys, fmt.Sprintf("%d\x00%s\x00%s", fe.Type, fe.Name, fe.key))
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ftpEntry handles one entry of a listing.
func (e *engine) ftpEntry(s *ftpState, j *ftpDirJob, fe ftpEntry) {
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
		if !e.filter.dir(rel) {
			return
		}
		if e.maxDepth >= 0 && j.depth+1 > e.maxDepth {
			e.hitCap(fmt.Sprintf("--max-depth %d reached", e.maxDepth))
			e.skip(rec, "deeper than --max-depth")
			return
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
			return
		}
		sub := &ftpDirJob{url: rec.URL, path: p, segs: segs, rel: rel, depth: j.depth + 1, parent: j.url,
			node: &dirNode{parent: j.node, url: rec.URL}}
		sub.local = e.paths.claimDir(rec.URL, pathSegs(j.local, local))
		rec.Path = sub.local
		sub.entry = rec
		if !fe.ModTime.IsZero() && !e.opt.DryRun {
			e.mu.Lock()
			e.dirTimes[sub.local] = fe.ModTime
			e.mu.Unlock()
		}
		e.sched.push(&task{list: true, host: s.host, job: sub})
	case fetch.EntryLink:
		rec.URL = urlparse.FTPURL(s.urlHost, s.urlPort, s.urlUser, "", j.segs, name, 0)
		rec.Type, rec.Target, rec.Size = TypeSymlink, fe.Target, -1
		e.markSeen(rec.URL)
		e.record(rec)
	case fetch.EntryFile, fetch.EntryUnknown:
		rec.URL = urlparse.FTPURL(s.urlHost, s.urlPort, s.urlUser, "", j.segs, name, 0)
		rec.Type, rec.Key = TypeFile, fe.key
		e.markSeen(rec.URL)
		if !e.filter.file(rel) {
			return
		}
		if !e.claimFileSlot() {
			return
		}
		rec.Path = e.paths.claimFile(rec.URL, pathSegs(j.local, local))
		old, had := e.man.get(rec.URL)
		if had && e.ftpUnchanged(old, rec, fe) {
			e.nUnchanged.Add(1)
			if old.Parent != rec.Parent || old.Key != rec.Key {
				old.Parent, old.Key = rec.Parent, rec.Key
				if !e.opt.DryRun {
					e.man.put(old)
				}
			}
			e.emit(Event{Kind: EventUnchanged, URL: rec.URL, Path: old.Path, Size: old.Size})
			return
		}
		job := &ftpFileJob{dir: j.path, name: name, rec: rec, old: old, hasOld: had && old.Status == StatusOK,
			mtime: fe.ModTime, exact: fe.exact}
		e.sched.push(&task{host: s.host, job: job})
	default:
		rec.URL = urlparse.FTPURL(s.urlHost, s.urlPort, s.urlUser, "", j.segs, name, 0)
		rec.Type, rec.Size = TypeOther, -1
		e.markSeen(rec.URL)
		e.record(rec)
	}
}

// pathSegs splits a local directory and appends a name.
func pathSegs(dir, name string) []string {
	var segs []string
	if dir != "" {
		segs = strings.Split(dir, "/")
	}
	return append(segs, name)
}

// ftpUnchanged reports whether the listing says the file is the one
// mirrored last time, and the local copy is still there.
func (e *engine) ftpUnchanged(old, rec Record, fe ftpEntry) bool {
	if e.opt.Refetch || old.Status != StatusOK || old.Path != rec.Path || !e.fs.intact(old.Path, old.Size) {
		return false
	}
	if fe.Size >= 0 && old.Size != fe.Size {
		return false
	}
	if old.Key == rec.Key && rec.Key != "" && fe.Size >= 0 && !fe.ModTime.IsZero() {
		return true
	}
	// An ls time compared with the exact time of the copy, at the
	// listing's precision: minutes for recent files, days for older ones
	// (ls changes format as files age).
	if fe.exact || fe.ModTime.IsZero() || old.MTimeSource != "mdtm" && old.MTimeSource != "mlsd" {
		return false
	}
	t, err := time.Parse(time.RFC3339Nano, old.MTime)
	if err != nil {
		return false
	}
	t = t.UTC()
	lt := fe.ModTime.UTC()
	if fe.noYear {
		return t.Month() == lt.Month() && t.Day() == lt.Day() && t.Hour() == lt.Hour() && t.Minute() == lt.Minute()
	}
	return t.Year() == lt.Year() && t.Month() == lt.Month() && t.Day() == lt.Day()
}

// prelude is what was sent before a RETR: CWD (when the connection was
// elsewhere), MDTM (when the listing gave no exact time) and EPSV/PASV.
type prelude struct {
	t    *task
	j    *ftpFileJob
	cwd  bool
	mdtm bool
	pasv string
}

func (c *ftpConn) sendPrelude(t *task) (*prelude, error) {
	j := t.job.(*ftpFileJob)
	p := &prelude{t: t, j: j, pasv: "EPSV"}
	if c.noEPSV {
		p.pasv = "PASV"
	}
	var cmds []string
	if c.cwd != j.dir {
		cmds = append(cmds, "CWD "+j.dir)
		p.cwd = true
		c.cwd = j.dir // as far as the next command knows
	}
	if !j.exact && c.mdtm {
		cmds = append(cmds, "MDTM "+j.name)
		p.mdtm = true
	}
	cmds = append(cmds, p.pasv)
	if err := c.send(cmds...); err != nil {
		return nil, c.ioErr("EPSV", err)
	}
	return p, nil
}

// readPrelude reads the prelude's replies: the data port and, when MDTM
// was sent, the exact modification time.
func (c *ftpConn) readPrelude(p *prelude) (int, time.Time, error) {
	var mtime time.Time
	var refused error
	if p.cwd {
		r, err := c.read()
		if err != nil {
			return 0, mtime, c.ioErr("CWD", err)
		}
		if r.code/100 != 2 {
			c.cwd = ""
			refused = refusedErr("CWD "+p.j.dir, r)
		}
	}
	if p.mdtm {
		r, err := c.read()
		if err != nil {
			return 0, mtime, c.ioErr("MDTM", err)
		}
		switch {
		case r.code == 213:
			mtime, _ = ftp.ParseMDTM(strings.TrimSpace(r.text()))
		case r.code >= 500 && r.code <= 502:
			c.mdtm = false
		}
	}
	if refused != nil {
		c.read() // the EPSV's reply
		return 0, mtime, refused
	}
	port, err := c.passive(p.pasv)
	return port, mtime, err
}

// ftpFiles fetches the file of task t on c, and, while each file arrives,
// sends the commands of the next one (taken from the queue), so that the
// server answers them as soon as the transfer ends: one round trip per
// file instead of three or four.
func (e *engine) ftpFiles(s *ftpState, w int, c *ftpConn, t *task) {
	if e.opt.DryRun {
		j := t.job.(*ftpFileJob)
		kind := "new"
		if j.hasOld {
			e.nChanged.Add(1)
			kind = "changed"
		} else {
			e.nNew.Add(1)
		}
		e.emit(Event{Kind: EventWouldGet, URL: j.rec.URL, Path: j.rec.Path, Size: j.rec.Size, Err: errors.New(kind)})
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
				e.markIncomplete(fmt.Sprintf("--max-bytes %d reached", e.opt.MaxBytes))
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
		if !errors.Is(ferr, errLocal) && retryable(ferr) && p.t.attempt < e.retries {
			p.t.attempt++
			e.sched.requeue(p.t)
		} else {
			e.fail(j.rec, ferr)
			e.sched.done(p.t)
		}
		return next, nil
	}
	port, mdtm, err := c.readPrelude(p)
	if err != nil {
		if connBroken(err) {
			return nil, err
		}
		return refused(err)
	}
	dc, err := c.dialData(port, s.login)
	if err != nil {
		return nil, err
	}
	defer dc.Close()
	if err := c.send("RETR " + j.name); err != nil {
		return nil, c.ioErr("RETR", err)
	}
	if s.early.Load() {
		if err := sendNext(); err != nil {
			return nil, err
		}
	}
	e.setCurrent(w, j.rec.Path)
	defer e.setCurrent(w, "")
	r, err := c.read()
	if err != nil {
		return next, c.ioErr("RETR", err)
	}
	if r.code/100 != 1 && r.code/100 != 2 {
		dc.Close()
		return refused(refusedErr("RETR "+j.name, r))
	}
	// final reads the server's reply after the data, when not had yet.
	final := func() (*ftpReply, error) {
		if r.code/100 != 1 {
			return r, nil
		}
		fr, err := c.read()
		if err != nil {
			return nil, c.ioErr("RETR", err)
		}
		return fr, nil
	}
	tmp, lerr := e.fs.create(j.rec.Path)
	if lerr != nil {
		// Read and drop the data, so that the connection stays usable.
		io.Copy(io.Discard, deadlineReader{dc, e.timeout})
		dc.Close()
		if _, err := final(); err != nil {
			return next, err
		}
		return refused(asLocal(lerr))
	}
	defer tmp.discard()
	e.touch(path.Dir(j.rec.Path))
	cr := &countReader{r: deadlineReader{dc, e.timeout}, e: e}
	_, cerr := io.Copy(tmp, cr)
	dc.Close() // some servers (ProFTPD) send 226 only once the client closed
	if errors.Is(cerr, errBytesCap) {
		return next, c.ioErr("RETR", cerr) // the run stops
	}
	fr, err := final()
	if err != nil {
		return next, err
	}
	switch {
	case cerr != nil && cr.readErr == nil:
		return refused(asLocal(cerr))
	case cerr != nil:
		return refused(&fetch.Error{Kind: fetch.ErrPartial, Msg: "ftp: RETR " + printableLine(j.name), Err: cerr})
	case fr.code/100 != 2 && next != nil:
		// Perhaps the answer to the next file's commands, sent during
		// the transfer: no more of that on this server.
		s.early.Store(false)
		return next, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "ftp: RETR " + printableLine(j.name) +
			": reply " + strconv.Quote(fr.String()) + " (commands sent during transfers are not taken: not doing that any more)"}
	case fr.code/100 != 2:
		return refused(refusedErr("RETR "+j.name, fr))
	}
	rec := j.rec
	rec.Size = tmp.n
	rec.SHA256 = tmp.sum()
	rec.Fetched = stamp(time.Now())
	rec.Status = StatusOK
	mtime := j.mtime
	if !mdtm.IsZero() {
		mtime = mdtm
		rec.MTime, rec.MTimeSource = stamp(mdtm), "mdtm"
	}
	if err := tmp.commit(rec.Path, mtime); err != nil {
		return refused(asLocal(err))
	}
	e.man.put(rec)
	kind := EventNew
	if j.hasOld {
		e.nChanged.Add(1)
		kind = EventChanged
	} else {
		e.nNew.Add(1)
	}
	e.emit(Event{Kind: kind, URL: rec.URL, Path: rec.Path, Size: rec.Size})
	e.sched.done(p.t)
	return next, nil
}
