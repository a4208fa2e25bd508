package mirror

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
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

// ftpConn is a worker's connection: an ftp.Conn, kept logged in for the
// whole run (in TYPE I), and what the walk knows of it.
type ftpConn struct {
	*ftp.Conn
	e       *engine
	cwd     string // "" when unknown
	home    string
	mlsd    bool // MLSD is offered (FEAT MLST/MLSD)
	mdtm    bool
	hash    string // the command that gives a file's SHA-256 (HASH, XSHA256), "" for none
	noMLSD  bool
	listed  string // the command of the last listing read (look)
	noSIZE  bool   // SIZE refused as unknown (500-502): not sent again
	listArg string // "-a" until the server refuses it
	// ahead is a passive request already sent (sendAhead) whose replies
	// passiveIn reads: for the directory aheadDir, with a CWD first
	// when aheadCWD.
	ahead, aheadCWD bool
	aheadDir        string
}

// dialFTP connects and logs in (ftp.Dial, within the timeout), then sends
// TYPE I, FEAT and PWD together.
func (e *engine) dialFTP(s *ftpState) (*ftpConn, error) {
	dctx, cancel := context.WithTimeout(e.ctx, e.timeout)
	fc, err := ftp.Dial(dctx, s.cfg, s.req)
	cancel()
	if err != nil {
		return nil, err
	}
	fc.Watch(e.ctx)
	fc.SetTimeout(e.timeout)
	c := &ftpConn{Conn: fc, e: e, listArg: "-a"}
	if err := c.start(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *ftpConn) start() error {
	if err := c.Send(ftp.Command{Verb: "TYPE", Arg: "I"}, ftp.Command{Verb: "FEAT"}, ftp.Command{Verb: "PWD"}); err != nil {
		return err
	}
	rt, err := c.ReadReply()
	if err != nil {
		return err
	}
	if !rt.Positive() {
		c.ReadReply()
		c.ReadReply()
		return ftp.RefusedError("TYPE", "I", rt)
	}
	if _, err := c.ReadReply(); err != nil {
		return err
	}
	feat, _ := c.Features() // from the FEAT just read
	_, mlst := feat["MLST"]
	_, mlsd := feat["MLSD"]
	_, c.mdtm = feat["MDTM"]
	c.hash = "XSHA256" // tried once: a refusal turns it off
	if h, ok := feat["HASH"]; ok && strings.Contains(strings.ToUpper(h), "SHA-256*") {
		c.hash = "HASH" // draft-bryan-ftpext-hash, with SHA-256 selected
	}
	c.mlsd = mlst || mlsd
	rw, err := c.ReadReply()
	if err != nil {
		return err
	}
	if rw.Code() == 257 {
		c.home, _ = ftp.ParsePWD(rw.Lines()[0])
	}
	if c.home == "" {
		c.home = "/"
	}
	c.cwd = c.home
	return nil
}

// ftpConnFor returns worker w's connection, logging in when it has none.
func (e *engine) ftpConnFor(s *ftpState, w int) (*ftpConn, error) {
	if c := s.conns[w]; c != nil {
		return c, nil
	}
	c, err := e.dialFTP(s)
	if err != nil {
		return nil, err
	}
	s.conns[w] = c
	s.live.Add(1)
	if strings.Contains(strings.ToLower(c.Greeting()), "pure-ftpd") {
		s.early.Store(false)
	}
	return c, nil
}

// dropConn closes worker w's connection after a failure on it.
func (e *engine) dropConn(s *ftpState, w int) {
	if c := s.conns[w]; c != nil {
		c.Close()
		s.conns[w] = nil
		s.live.Add(-1)
	}
}

// replyCode is the code of the server reply that refused a command, 0
// when err is not a refusal.
func replyCode(err error) int { return fetch.StatusOf(err) }

// is421 reports a "too many connections" refusal.
func is421(err error) bool { return replyCode(err) == 421 }

// connBroken reports whether err left the control connection unusable (an
// I/O error, a reply that was not one, a reply that said the session is
// over), as opposed to a refused command.
func connBroken(err error) bool {
	if replyCode(err) != 0 {
		return ftp.SessionGone(err)
	}
	return !errors.Is(err, errLocal)
}

// ReadReply is the connection's, but a reply that says the session is over
// (ftp.Reply.Gone: 421, or vsftpd's "500 OOPS: priv_sock_get_int" when its
// helper process died) is an error: it answers nothing that was asked, the
// connection is dead (connBroken), and what was asked is asked again on a
// new one, within the retry budget (the error is transient), instead of
// being taken as the server's refusal of a file or a listing command.
func (c *ftpConn) ReadReply() (*ftp.Reply, error) { return sessionGone(c.Conn.ReadReply()) }

// Cmd is the connection's, with ReadReply's rule.
func (c *ftpConn) Cmd(verb, arg string) (*ftp.Reply, error) {
	return sessionGone(c.Conn.Cmd(verb, arg))
}

// sessionGone turns a reply that says the session is over into its error
// (ReadReply's rule, also for a transfer's replies).
func sessionGone(r *ftp.Reply, err error) (*ftp.Reply, error) {
	if err == nil && r.Gone() {
		return nil, ftp.RefusedError(r.Verb(), "", r)
	}
	return r, err
}

// errOutOfStep marks a failure caused by the replies coming out of step
// with the commands pipelined on the connection: the item did not fail on
// its own, so it is tried again (on a new connection).
var errOutOfStep = errors.New("the replies came out of step with the commands")

type outOfStepError struct{ err error }

func (o *outOfStepError) Error() string   { return o.err.Error() }
func (o *outOfStepError) Unwrap() []error { return []error{o.err, errOutOfStep} }
func (o *outOfStepError) Transient() bool { return true }

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

// ftpEntry is a listing entry with what the walk needs of it.
type ftpEntry struct {
	fetch.Entry
	exact  bool   // ModTime is exact (MLSD modify)
	noYear bool   // an ls time without a year
	unique string // MLSD unique fact
	key    string // what changes when the file changes
	facts  string // MLSD: the line's facts, as sent
}

// lsNoYear reports whether an ls line holds a date with a time and no
// year ("Nov 21 08:52 "): a month's name (any case, not ending a longer
// word), white space, a day of one or two digits, white space, hours of one
// or two digits, a colon, two digits of minutes and white space. It is read
// once for every entry of every listing, so it is written out by hand: a
// regular expression took an eighth of a no-change rerun's CPU.
func lsNoYear(line string) bool {
	for c := strings.IndexByte(line, ':'); c >= 0; {
		if lsNoYearAt(line, c) {
			return true
		}
		n := strings.IndexByte(line[c+1:], ':')
		if n < 0 {
			break
		}
		c += 1 + n
	}
	return false
}

// lsNoYearAt is lsNoYear for the date whose time has its colon at c.
func lsNoYearAt(s string, c int) bool {
	if c+3 >= len(s) || !lsDigit(s[c+1]) || !lsDigit(s[c+2]) || !lsSpace(s[c+3]) {
		return false
	}
	hour := lsBack(s, c, lsDigit, 2)
	gap := lsBack(s, hour, lsSpace, len(s))
	day := lsBack(s, gap, lsDigit, 2)
	month := lsBack(s, day, lsSpace, len(s))
	if hour == c || gap == hour || day == gap || month == day || month < 3 {
		return false
	}
	if month > 3 && lsWord(s[month-4]) {
		return false
	}
	switch strings.ToLower(s[month-3 : month]) {
	case "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec":
		return true
	}
	return false
}

// lsBack steps back from end over at most max bytes that is takes, and
// returns where they begin.
func lsBack(s string, end int, is func(byte) bool, max int) int {
	i := end
	for i > 0 && end-i < max && is(s[i-1]) {
		i--
	}
	return i
}

func lsDigit(b byte) bool { return '0' <= b && b <= '9' }
func lsSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r' }
func lsWord(b byte) bool {
	return lsDigit(b) || 'a' <= b|0x20 && b|0x20 <= 'z' || b == '_'
}

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
func (c *ftpConn) list(j *ftpDirJob) (entries []ftpEntry, self string, err error) {
	entries, self, _, err = c.look(j, false)
	return entries, self, err
}

// look is list, and why the listing is not to be believed on one look
// ("" when it is): it is empty (a data connection cut before its first
// byte looks the same, while the server's 226 went through), or its last
// line has no line end (cut in the middle). With other, the listing
// command is the other one the server has: LIST where MLSD came first.
func (c *ftpConn) look(j *ftpDirJob, other bool) (entries []ftpEntry, self, doubt string, err error) {
	verb := "LIST"
	if c.mlsd && !c.noMLSD && !other {
		verb = "MLSD"
	}
	for tries := 0; tries < 4; tries++ {
		data, r, err := c.transfer(j.path, verb, c.listArgFor(verb), maxListing)
		if err != nil {
			if replyCode(err) == 0 || r == nil {
				return nil, "", "", err
			}
			switch code := r.Code(); {
			case code == 450 || code == 550 && verb == "NLST":
				// "No files found": empty.
				return nil, "", verb + " said " + strconv.Quote(r.String()), nil
			case verb == "MLSD" && code >= 500 && code <= 504:
				c.noMLSD, verb = true, "LIST"
				continue
			case verb == "LIST" && c.listArg != "" && code >= 500 && code <= 504:
				c.listArg = ""
				continue
			case verb == "LIST" && code >= 500 && code <= 502:
				verb = "NLST"
				continue
			}
			return nil, "", "", err
		}
		switch {
		case len(data) == 0:
			doubt = verb + " sent nothing"
		case data[len(data)-1] != '\n':
			doubt = verb + "'s last line has no line end (cut short?)"
		}
		c.listed = verb
		entries, self = parseListing(data, verb)
		if verb == "NLST" {
			entries, err = c.probeNLST(entries)
		}
		if verb == "MLSD" && err == nil {
			err = c.linkTargets(j, entries)
		}
		return entries, self, doubt, err
	}
	return nil, "", "", &fetch.Error{Kind: fetch.ErrProtocol, Msg: "ftp: the server takes no listing command"}
}

// linkTargets fills in the targets of symbolic links that MLSD listed
// without one (ProFTPD gives only type=OS.unix=symlink), from a LIST of
// the directory: one more listing, only for directories with such links.
func (c *ftpConn) linkTargets(j *ftpDirJob, entries []ftpEntry) error {
	idx := map[string]int{}
	for i, fe := range entries {
		if fe.Type == fetch.EntryLink && fe.Target == "" {
			idx[fe.Name] = i
		}
	}
	if len(idx) == 0 {
		return nil
	}
	data, _, err := c.transfer(j.path, "LIST", c.listArgFor("LIST"), maxListing)
	if err != nil {
		if replyCode(err) != 0 {
			return nil // the targets stay unknown: the links are recorded
		}
		return err
	}
	listed, _ := parseListing(data, "LIST")
	for _, le := range listed {
		if i, ok := idx[le.Name]; ok && le.Type == fetch.EntryLink {
			entries[i].Target = le.Target
		}
	}
	return nil
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
			if sp := strings.IndexByte(l, ' '); sp > 0 {
				fe.facts = l[:sp]
			}
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
				fe.noYear = lsNoYear(fe.Raw)
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
		var cmds []ftp.Command
		for _, fe := range batch {
			cmds = append(cmds, ftp.Command{Verb: "SIZE", Arg: fe.Name})
		}
		if err := c.Send(cmds...); err != nil {
			return nil, err
		}
		for i := range batch {
			r, err := c.ReadReply()
			if err != nil {
				return nil, err
			}
			fe := &batch[i]
			if n, ok := ftp.ParseSize(r); ok {
				fe.Type, fe.Size = fetch.EntryFile, n
				fe.key = "size=" + strconv.FormatInt(n, 10) + ";"
				continue
			}
			fe.Type = fetch.EntryDir
		}
	}
	return entries, nil
}

// transfer runs one data command in dir (CWD there first when needed) and
// returns up to max bytes of its data (listings). A refusal comes with its
// reply.
func (c *ftpConn) transfer(dir, verb, arg string, max int64) ([]byte, *ftp.Reply, error) {
	addr, r, err := c.passiveIn(dir)
	if err != nil {
		return nil, r, err
	}
	t, err := c.List(c.e.ctx, addr, verb, arg)
	if err != nil {
		return nil, nil, err
	}
	if r, err = sessionGone(t.Start()); err != nil {
		return nil, nil, err
	}
	if !r.Preliminary() && !r.Positive() {
		return nil, r, ftp.RefusedError(verb, arg, r)
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(t, max+1))
	c.e.addBytes(n)
	if err != nil {
		return nil, nil, err
	}
	if n > max {
		return nil, nil, &fetch.Error{Kind: fetch.ErrTooLarge, Msg: fmt.Sprintf("ftp: %s: over %d bytes", verb, max)}
	}
	if r, err = sessionGone(t.Finish()); err != nil {
		return nil, nil, err
	}
	if !r.Positive() {
		return nil, r, ftp.RefusedError(verb, arg, r)
	}
	return buf.Bytes(), r, nil
}

// passiveIn makes dir the connection's directory (CWD, when it is
// elsewhere) and asks for a passive data connection, the two commands in
// one write: the address to open it to. A refusal comes with its reply.
func (c *ftpConn) passiveIn(dir string) (string, *ftp.Reply, error) {
	if !c.ahead {
		if err := c.Send(c.aheadCommands(dir)...); err != nil {
			return "", nil, err
		}
	}
	if c.aheadDir != dir {
		return "", nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "ftp: a passive request for " + c.aheadDir + " is pending, not for " + dir}
	}
	cwd := c.aheadCWD
	c.ahead = false
	if cwd {
		r, err := c.ReadReply()
		if err != nil {
			return "", nil, err
		}
		if !r.Positive() {
			c.cwd = ""
			if _, err := c.ReadReply(); err != nil { // the EPSV's reply
				return "", nil, err
			}
			return "", r, ftp.RefusedError("CWD", dir, r)
		}
		c.cwd = dir
	}
	r, err := c.ReadReply()
	if err != nil {
		return "", nil, err
	}
	addr, err := c.Passive(r)
	if err != nil {
		return "", r, err
	}
	return addr, nil, nil
}

// aheadCommands are passiveIn's commands for dir, to be sent in one write
// (with others before them, from another caller: then passiveIn only reads
// their replies).
func (c *ftpConn) aheadCommands(dir string) []ftp.Command {
	var cmds []ftp.Command
	c.ahead, c.aheadDir, c.aheadCWD = true, dir, c.cwd != dir
	if c.aheadCWD {
		cmds = append(cmds, ftp.Command{Verb: "CWD", Arg: dir})
	}
	return append(cmds, ftp.Command{Verb: c.PassiveCommand()})
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

// joinServer appends a name to a server path as it is (names are not
// cleaned: they are the server's).
func joinServer(dir, name string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

// fingerprint is listingPrint of an ftp listing: each entry's type, name
// and what the listing says of it (size, date, facts).
func fingerprint(entries []ftpEntry) string {
	keys := make([]string, 0, len(entries))
	for _, fe := range entries {
		keys = append(keys, fmt.Sprintf("%d\x00%s\x00%s", fe.Type, fe.Name, fe.key))
	}
	return listingPrint(keys)
}

// mdtmCheck is a file whose listing entry could not prove it unchanged
// (a date to the minute or the day, or none): its MDTM decides.
type mdtmCheck struct {
	fe     ftpEntry
	job    *ftpFileJob
	proven bool // the listing proved it unchanged (--checksum asks all the same)
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

// ftpCheckMDTM settles the files whose listing entries could not prove
// them unchanged: MDTM for all of them, sent together on c (which is in
// their directory after the listing), so a directory costs one round trip
// more, not one per file. A file whose MDTM and size are those recorded is
// unchanged; any other answer (another time, a refusal, no MDTM on this
// server) means fetching it, since nothing else can tell.
func (e *engine) ftpCheckMDTM(s *ftpState, w int, c *ftpConn, j *ftpDirJob, checks []mdtmCheck) {
	fetchIt := func(ck mdtmCheck, why string) {
		ck.job.why = why
		e.queueFile(s, ck.job)
	}
	var same []mdtmCheck // unchanged as far as times and sizes tell
	keep := func(ck mdtmCheck, why string) {
		if e.opt.Checksum {
			ck.job.why = why
			same = append(same, ck)
		} else {
			e.ftpKeep(ck.job.old, ck.job.rec, why)
		}
	}
	var ask []mdtmCheck
	for _, ck := range checks {
		switch {
		case ck.proven:
			keep(ck, "same size and modification time as recorded")
		case !c.mdtm && e.ftpListSameDay(ck.job.old, ck.fe) && racy(ck.job.old):
			fetchIt(ck, racyWhy(ck.job.old))
		case !c.mdtm && e.ftpListSameDay(ck.job.old, ck.fe):
			keep(ck, "same size, and the listing's date matches the copy's time (the server has no MDTM)")
		case !c.mdtm:
			fetchIt(ck, "the listing cannot show it unchanged and the server has no MDTM")
		default:
			ask = append(ask, ck)
		}
	}
	for start := 0; start < len(ask); start += 100 {
		batch := ask[start:min(start+100, len(ask))]
		replies, err := c.askBatch(j.path, "MDTM", batch)
		if err != nil {
			if connBroken(err) {
				e.dropConn(s, w)
				c.hash = "" // and no hashes asked on it
			}
			for _, ck := range ask[start:] {
				fetchIt(ck, "MDTM could not be asked ("+err.Error()+")")
			}
			break
		}
		for i, ck := range batch {
			old := ck.job.old
			var mt time.Time
			if replies[i].Code() == 213 {
				mt, _ = ftp.ParseMDTM(strings.TrimSpace(replies[i].Text()))
			}
			switch {
			case mt.IsZero():
				fetchIt(ck, "the listing cannot show it unchanged and MDTM gave no time")
			case old.MTimeSource != "mdtm" && old.MTimeSource != "mlsd":
				fetchIt(ck, "the listing cannot show it unchanged and no exact time was recorded")
			case stamp(mt) != old.MTime:
				fetchIt(ck, "MDTM "+stamp(mt)+", recorded "+old.MTime)
			case racy(old):
				fetchIt(ck, racyWhy(old))
			default:
				keep(ck, "same size and MDTM as recorded")
			}
		}
	}
	e.ftpCheckHash(s, w, c, j, same)
}

// sha256Hex finds a SHA-256 (64 hex digits) in a hash command's reply.
var sha256Hex = regexp.MustCompile(`\b[0-9a-fA-F]{64}\b`)

// ftpCheckHash is --checksum: files that times and sizes show unchanged
// are compared by the server's SHA-256 of them (HASH, else XSHA256), asked
// together, with the one recorded; where the server gives none, they are
// fetched and compared (sameBytes leaves a copy with the same bytes
// alone).
func (e *engine) ftpCheckHash(s *ftpState, w int, c *ftpConn, j *ftpDirJob, same []mdtmCheck) {
	fetchIt := func(ck mdtmCheck, why string) {
		ck.job.why = "mirror.Options.Checksum: " + why
		e.queueFile(s, ck.job)
	}
	for start := 0; start < len(same); start += 100 {
		batch := same[start:min(start+100, len(same))]
		if c.hash == "" {
			for _, ck := range batch {
				fetchIt(ck, "the server gives no SHA-256 (HASH, XSHA256): fetched to compare")
			}
			continue
		}
		verb := c.hash
		replies, err := c.askBatch(j.path, verb, batch)
		if err != nil {
			if connBroken(err) {
				e.dropConn(s, w)
				c.hash = ""
			}
			for _, ck := range same[start:] {
				fetchIt(ck, verb+" could not be asked ("+err.Error()+")")
			}
			return
		}
		for i, ck := range batch {
			r := replies[i]
			sum := ""
			if r.Positive() {
				sum = strings.ToLower(sha256Hex.FindString(r.Text()))
			} else if r.Code() >= 500 && r.Code() <= 502 {
				c.hash = "" // not a command of this server's
			}
			switch {
			case sum == "":
				fetchIt(ck, verb+" gave no SHA-256 ("+strconv.Quote(r.String())+"): fetched to compare")
			case sum != ck.job.old.SHA256:
				fetchIt(ck, verb+" "+sum+", recorded "+ck.job.old.SHA256)
			default:
				e.ftpKeep(ck.job.old, ck.job.rec, ck.job.why+", and the same SHA-256 ("+verb+")")
			}
		}
	}
}

// askBatch sends verb for each file of batch (in dir) at once, and reads
// the replies.
func (c *ftpConn) askBatch(dir, verb string, batch []mdtmCheck) ([]*ftp.Reply, error) {
	var cmds []ftp.Command
	cwd := c.cwd != dir
	if cwd {
		cmds = append(cmds, ftp.Command{Verb: "CWD", Arg: dir})
	}
	for _, ck := range batch {
		cmds = append(cmds, ftp.Command{Verb: verb, Arg: ck.job.name})
	}
	if err := c.Send(cmds...); err != nil {
		return nil, err
	}
	var refused error
	if cwd {
		r, err := c.ReadReply()
		if err != nil {
			return nil, err
		}
		if r.Positive() {
			c.cwd = dir
		} else {
			c.cwd = ""
			refused = ftp.RefusedError("CWD", dir, r)
		}
	}
	replies := make([]*ftp.Reply, len(batch))
	for i := range batch {
		r, err := c.ReadReply()
		if err != nil {
			return nil, err
		}
		replies[i] = r
	}
	return replies, refused
}

// pathSegs splits a local directory and appends a name.
func pathSegs(dir, name string) []string {
	var segs []string
	if dir != "" {
		segs = strings.Split(dir, "/")
	}
	return append(segs, name)
}

// Verdicts on a file from its listing entry.
const (
	verdictFetch = iota // changed, or the copy is not there: fetch it
	verdictSame         // the listing proves it unchanged
	verdictAsk          // the listing cannot tell: ask MDTM
)

// ftpUnchanged judges a file mirrored before by its listing entry, and
// says why. Only an exact time (MLSD's modify) and the same size prove a
// file unchanged: an ls date has minutes at best (a file rewritten within
// the minute, at the same size, lists the same), only the day for older
// files, or is missing.
func (e *engine) ftpUnchanged(local *dirView, old, rec Record, fe ftpEntry) (int, string) {
	switch {
	case e.opt.Refetch:
		return verdictFetch, "mirror.Options.Refetch"
	case old.Status != StatusOK:
		return verdictFetch, "not mirrored yet (" + old.Status + ")"
	case old.Path != rec.Path || !local.intact(old.Path, old.Size):
		return verdictFetch, "the local copy is missing or not the recorded size"
	case fe.Size >= 0 && old.Size != fe.Size:
		return verdictFetch, fmt.Sprintf("size %d, recorded %d", fe.Size, old.Size)
	case e.opt.Verify && !e.fs.hashIs(old.Path, old.SHA256):
		return verdictFetch, verifyWhy
	case fe.exact && old.Key == rec.Key && rec.Key != "" && racy(old):
		return verdictFetch, racyWhy(old)
	case fe.exact && old.Key == rec.Key && rec.Key != "":
		return verdictSame, "same size and modification time as recorded"
	case fe.exact:
		return verdictFetch, "listed with another modification time"
	}
	return verdictAsk, ""
}

// ftpListSameDay is the best a server without MDTM allows: an ls time
// compared with the exact time of the copy, at the listing's precision
// (minutes for recent files, days for older ones).
func (e *engine) ftpListSameDay(old Record, fe ftpEntry) bool {
	if old.Key == "" || fe.ModTime.IsZero() || fe.Size < 0 {
		return false
	}
	if old.MTimeSource != "mdtm" && old.MTimeSource != "mlsd" {
		return old.Key == fe.key
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

// prelude is what was sent before a RETR: CWD (when the connection was
// elsewhere), MDTM (when the listing gave no exact time), SIZE (what the
// data are checked against, with the listing's size and the 150 reply's)
// and EPSV/PASV.
type prelude struct {
	t    *task
	j    *ftpFileJob
	cwd  bool
	mdtm bool
	size bool
	// mdtmReply is the reply to MDTM, once read (for the WARC file)
	mdtmReply *ftp.Reply
	// stated is the size SIZE gave, -1 for none.
	stated int64
}

func (c *ftpConn) sendPrelude(t *task) (*prelude, error) {
	j := t.job.(*ftpFileJob)
	p := &prelude{t: t, j: j, stated: -1}
	var cmds []ftp.Command
	if c.cwd != j.dir {
		cmds = append(cmds, ftp.Command{Verb: "CWD", Arg: j.dir})
		p.cwd = true
		c.cwd = j.dir // as far as the next command knows
	}
	if !j.exact && c.mdtm {
		cmds = append(cmds, ftp.Command{Verb: "MDTM", Arg: j.name})
		p.mdtm = true
	}
	if !c.noSIZE {
		cmds = append(cmds, ftp.Command{Verb: "SIZE", Arg: j.name})
		p.size = true
	}
	cmds = append(cmds, ftp.Command{Verb: c.PassiveCommand()})
	if err := c.Send(cmds...); err != nil {
		return nil, err
	}
	return p, nil
}

// readPrelude reads the prelude's replies: the data address and, when
// MDTM was sent, the exact modification time.
func (c *ftpConn) readPrelude(p *prelude) (string, time.Time, error) {
	var mtime time.Time
	var refused error
	if p.cwd {
		r, err := c.ReadReply()
		if err != nil {
			return "", mtime, err
		}
		if !r.Positive() {
			c.cwd = ""
			refused = ftp.RefusedError("CWD", p.j.dir, r)
		}
	}
	if p.mdtm {
		r, err := c.ReadReply()
		if err != nil {
			return "", mtime, err
		}
		p.mdtmReply = r
		switch {
		case r.Code() == 213:
			mtime, _ = ftp.ParseMDTM(strings.TrimSpace(r.Text()))
		case r.Code() >= 500 && r.Code() <= 502:
			c.mdtm = false
		}
	}
	if p.size {
		r, err := c.ReadReply()
		if err != nil {
			return "", mtime, err
		}
		if n, ok := ftp.ParseSize(r); ok {
			p.stated = n
		} else if r.Code() >= 500 && r.Code() <= 502 {
			c.noSIZE = true
		}
	}
	r, err := c.ReadReply() // EPSV's (or PASV's)
	if err != nil {
		return "", mtime, err
	}
	if refused != nil {
		return "", mtime, refused
	}
	addr, err := c.Passive(r)
	if err != nil && replyCode(err) == 0 && fetch.KindOf(err) == fetch.ErrProtocol {
		// Not the reply to EPSV: perhaps one to a command sent during
		// the last transfer.
		err = &outOfStepError{err}
	}
	return addr, mtime, err
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
