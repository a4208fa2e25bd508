package mirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp"
)

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

func (o *outOfStepError) Error() string { return o.err.Error() }

func (o *outOfStepError) Unwrap() []error { return []error{o.err, errOutOfStep} }

func (o *outOfStepError) Transient() bool { return true }

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
