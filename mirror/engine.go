package mirror

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/mirror/internal/warc"
	"github.com/urlget/urlget/urlparse"
)

// engine is one run.
type engine struct {
	opt      Options
	u        *urlparse.URL
	rootURL  string // canonical URL of the mirrored tree (the manifest's)
	ctx      context.Context
	cancel   context.CancelCauseFunc
	client   *fetch.Client
	fs       *localFS
	man      *manifest
	paths    *pathTable
	filter   *filter
	sched    *scheduler
	start    time.Time
	warc     *warc.Writer // Options.WARC, nil without
	warcFile *os.File
	warcMark *os.File // warcMarkName, while warcFile is open

	parallel, perHost  int
	maxFiles, maxDepth int
	timeout            time.Duration
	retry              fetch.RetryPolicy

	nNew, nChanged, nUnchanged, nDeleted, nGone atomic.Int64
	nFailed, nSkipped, nRecorded, nDirs         atomic.Int64
	nLinks                                      atomic.Int64
	filesKnown, filesClaimed, bytes             atomic.Int64
	toFetch, fetched                            atomic.Int64 // listed sizes of the files queued; their bytes received

	mu         sync.Mutex
	incomplete []string
	failures   []Failure
	seen       seenLog         // URLs found this run (listed, linked)
	listedOK   map[string]bool // directories and menus read completely this run
	dirTimes   map[string]time.Time
	parts      map[string]bool   // partial files kept this run (local paths), for the next
	replacing  map[string]Record // local path -> the manifest's item there, which one of another kind replaces (displaced)
	touched    map[string]bool   // local directories written into
	current    map[int]string    // worker -> local path in transfer
	capHit     bool
	fatal      error // the URL itself could not be read
	unwritable int64 // local copies left because they may not be written
	// rootFailed is the URL's own failure, its Event held back: it is
	// normally the run's error (end).
	rootFailed *Event
}

// newPolicy checks opt and u and gives the engine's policy: the filters,
// the Client (network text kept as it is), connections, retries, limits
// and timeout.
func newPolicy(opt Options, u *urlparse.URL) (*engine, error) {
	switch u.Scheme {
	case "ftp", "gopher", "gophers":
	case "http", "https":
		// A directory: its index lists what is in it.
		su, err := withSlash(u)
		if err != nil {
			return nil, &fetch.Error{Kind: fetch.ErrMalformed, URL: fetch.Redacted(u), Err: err}
		}
		u = su
	default:
		return nil, &fetch.Error{Kind: fetch.ErrUnsupported, URL: fetch.Redacted(u),
			Msg: "mirror: only ftp, http, https, gopher and gophers URLs can be mirrored, not " + u.Scheme}
	}
	if u.Host == "" {
		return nil, &fetch.Error{Kind: fetch.ErrMalformed, URL: fetch.Redacted(u), Msg: "mirror: the URL has no host"}
	}
	if err := u.CheckLine(); err != nil {
		return nil, &fetch.Error{Kind: fetch.ErrMalformed, URL: fetch.Redacted(u), Msg: "URL refused", Err: err}
	}
	f, err := newFilter(opt.Include, opt.Exclude)
	if err != nil {
		return nil, fmt.Errorf("mirror: %w", err)
	}
	e := &engine{opt: opt, u: u, filter: f, paths: newPathTable(), start: time.Now(),
		listedOK: map[string]bool{}, dirTimes: map[string]time.Time{},
		touched: map[string]bool{}, current: map[int]string{}}
	client := fetch.Client{}
	if opt.Client != nil {
		client = *opt.Client
	}
	// A copy is the server's bytes: network text keeps its CRLF line ends.
	client.Options = client.Options.With(fetch.OptCRLF, "1")
	e.client = &client
	e.parallel = orDefault(opt.Parallel, DefaultParallel)
	e.perHost = opt.PerHost
	if e.perHost <= 0 || e.perHost > e.parallel {
		e.perHost = e.parallel
	}
	// Parallel is the connections in all: net/http would otherwise dial
	// one more when a worker asks again before its last reply's
	// connection is back in the pool.
	client.MaxPerHost = e.perHost
	// A refused connection is retried: a server that turns a mirror away
	// for a moment must not cost it the file.
	e.retry = fetch.RetryPolicy{Retries: opt.Retries, Delay: opt.RetryWait, MaxDelay: maxRetryWait, Jitter: 0.2, Refused: true}
	switch {
	case e.retry.Retries == 0:
		e.retry.Retries = DefaultRetries
	case e.retry.Retries < 0:
		e.retry.Retries = 0
	}
	if e.retry.Delay <= 0 {
		e.retry.Delay = DefaultRetryWait
	}
	e.maxFiles = orDefault(opt.MaxFiles, DefaultMaxFiles)
	e.maxDepth = orDefault(opt.MaxDepth, DefaultMaxDepth)
	e.timeout = opt.Timeout
	if e.timeout <= 0 {
		e.timeout = DefaultTimeout
	}
	e.rootURL = canonicalURL(u)
	return e, nil
}

// newEngine is a run that mirrors into opt.Dir: newPolicy's engine with the
// local directory, its manifest and the WARC file opened.
func newEngine(ctx context.Context, opt Options, u *urlparse.URL) (*engine, error) {
	e, err := newPolicy(opt, u)
	if err != nil {
		return nil, err
	}
	if opt.DryRun {
		// Nothing is written: the directory is only read, if it exists.
		e.fs, err = openLocalReadOnly(opt.Dir)
	} else {
		e.fs, err = openLocal(opt.Dir)
	}
	if err != nil {
		return nil, fmt.Errorf("mirror: %w", err)
	}
	e.man, err = loadManifest(e.fs, e.rootURL, opt.DryRun)
	if err != nil {
		e.fs.close()
		return nil, fmt.Errorf("mirror: %w", err)
	}
	reserve := func(r Record) bool {
		switch {
		case r.Path == "":
		case r.Type == TypeDir:
			e.paths.reserve(ownerKey(r.URL), r.Path)
		case r.Type == TypeMenu:
			d := path.Dir(r.Path)
			if d == "." {
				d = ""
			}
			e.paths.reserve(ownerKey(r.URL), d)
		default:
			e.paths.reserveFile(e.man, ownerKey(r.URL), r.Path)
		}
		return true
	}
	// The fields needed are read from the lines as written, without
	// parsing them (lineField), where they can be.
	err = e.man.eachIf(false, func(line []byte) bool {
		p, ok1 := lineField(line, "path")
		typ, ok2 := lineField(line, "type")
		u := lineURL(line)
		if !ok1 || !ok2 || u == "" {
			return true
		}
		reserve(Record{URL: u, Path: string(p), Type: string(typ)})
		return false
	}, reserve)
	if err == nil {
		err = e.paths.seal(e.man)
	}
	if err != nil {
		e.paths.close()
		e.man.release()
		e.fs.close()
		return nil, fmt.Errorf("mirror: reading %s: %w", ManifestName, err)
	}
	if err := e.openWARC(); err != nil {
		e.paths.close()
		e.man.release()
		e.fs.close()
		return nil, fmt.Errorf("mirror: mirror.Options.WARC: %w", err)
	}
	e.ctx, e.cancel = context.WithCancelCause(ctx)
	e.sched = newScheduler(e.perHost)
	return e, nil
}

func orDefault(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return -1
	}
	return v
}

func (e *engine) close() {
	e.cancel(nil)
	e.seen.close()
	e.paths.close()
	e.closeWARC()
	e.man.release()
	e.fs.close()
}

// run walks, fetches, deletes, and sums up.
func (e *engine) run() (Summary, error) {
	stopProgress := e.startProgress()
	var walkErr error
	switch e.u.Scheme {
	case "ftp":
		walkErr = e.runFTP()
	case "http", "https":
		walkErr = e.runHTTP()
	default:
		walkErr = e.runGopher()
	}
	interrupted := e.ctx.Err() != nil
	if walkErr == nil && !interrupted && e.fatal == nil {
		e.finishDeletes()
	}
	if !e.opt.DryRun {
		e.finishLocal(interrupted)
	}
	stopProgress()
	if err := e.closeWARC(); err != nil {
		e.markIncomplete("writing the WARC file: " + fetch.OneLine(err.Error()))
	}
	sum := e.summary()
	if err := e.man.err; err != nil && !e.opt.DryRun {
		if e.fatal != nil && fetch.KindOf(e.fatal) == fetch.ErrWrite {
			return sum, e.fatal // the disk is full: that says it all
		}
		return sum, &fetch.Error{Kind: fetch.ErrWrite, URL: e.rootURL, Msg: "mirror: writing the manifest", Err: err}
	}
	if !e.opt.DryRun {
		if (e.fatal != nil || walkErr != nil) && !e.man.anyOK() {
			// Nothing was mirrored (the URL could not be read): leave
			// no manifest that would tie DIR to it.
			e.man.release()
			e.fs.removeFile(ManifestName)
		} else if err := e.man.compact(); err != nil && walkErr == nil {
			if e.fatal != nil && fetch.KindOf(e.fatal) == fetch.ErrWrite {
				return sum, e.fatal // the disk is full: that says it all
			}
			return sum, &fetch.Error{Kind: fetch.ErrWrite, URL: e.rootURL, Msg: "mirror: writing the manifest", Err: err}
		}
	}
	return sum, e.outcome(sum, walkErr)
}

// outcome is the error a run ends with, from what its summary says: the
// context's end, the walk's or the URL's own error, or IncompleteError.
func (e *engine) outcome(sum Summary, walkErr error) error {
	switch {
	case e.ctx.Err() != nil:
		cause := context.Cause(e.ctx)
		if cause == nil {
			cause = e.ctx.Err()
		}
		k := fetch.ErrAborted
		if errors.Is(e.ctx.Err(), context.DeadlineExceeded) {
			k = fetch.ErrTimeout
		}
		return &fetch.Error{Kind: k, URL: e.rootURL, Msg: "mirror interrupted", Err: cause}
	case walkErr != nil:
		return walkErr
	case e.fatal != nil:
		return e.fatal
	case sum.Failed > 0 || len(sum.Incomplete) > 0:
		reasons := append([]string(nil), sum.Incomplete...)
		if sum.Failed > 0 {
			reasons = append([]string{fmt.Sprintf("%d %s failed", sum.Failed, plural(sum.Failed, "item", "items"))}, reasons...)
		}
		ie := &IncompleteError{Failed: sum.Failed, Reasons: reasons}
		if n := e.unwritable; n > 0 {
			return &fetch.Error{Kind: fetch.ErrWrite, URL: e.rootURL, Err: ie,
				Msg: fmt.Sprintf("mirror: %d local %s may not be written, left as %s", n, plural(n, "copy", "copies"), plural(n, "it is", "they are"))}
		}
		return ie
	}
	return nil
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// finishLocal sets directory times (deepest first, after everything in
// them was written) and sweeps temporary files left by an interrupted run.
func (e *engine) finishLocal(interrupted bool) {
	e.mu.Lock()
	dirs := make([]string, 0, len(e.touched))
	for d := range e.touched {
		dirs = append(dirs, d)
	}
	times := e.dirTimes
	e.mu.Unlock()
	// Partial files stay for the next run when this one was interrupted
	// or they were kept this run; others (of files gone, finished or
	// changed since) go.
	var keep map[string]bool
	if !interrupted {
		e.mu.Lock()
		keep = e.parts
		if keep == nil {
			keep = map[string]bool{}
		}
		e.mu.Unlock()
	}
	for _, d := range dirs {
		e.fs.sweepTemp(d, keep)
	}
	if interrupted {
		return
	}
	var list []string
	for d := range times {
		list = append(list, d)
	}
	sort.Slice(list, func(i, j int) bool {
		di, dj := strings.Count(list[i], "/"), strings.Count(list[j], "/")
		if di != dj {
			return di > dj
		}
		return list[i] > list[j]
	})
	for _, d := range list {
		if d == "" {
			continue
		}
		e.fs.chtimes(d, times[d])
	}
}

func (e *engine) summary() Summary {
	e.mu.Lock()
	defer e.mu.Unlock()
	d := time.Since(e.start)
	return Summary{
		URL: e.rootURL, Dir: e.opt.Dir,
		New: e.nNew.Load(), Changed: e.nChanged.Load(), Unchanged: e.nUnchanged.Load(),
		Deleted: e.nDeleted.Load(), Gone: e.nGone.Load(), Failed: e.nFailed.Load(),
		Skipped: e.nSkipped.Load(), Recorded: e.nRecorded.Load(), Links: e.nLinks.Load(), Dirs: e.nDirs.Load(),
		Bytes: e.bytes.Load(), Duration: d, Seconds: d.Seconds(), DryRun: e.opt.DryRun, Reverse: e.opt.Reverse,
		Incomplete: append([]string(nil), e.incomplete...),
		Failures:   append([]Failure(nil), e.failures...),
	}
}

// markIncomplete records why the mirror is not complete (once per reason).
func (e *engine) markIncomplete(reason string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range e.incomplete {
		if r == reason {
			return
		}
	}
	e.incomplete = append(e.incomplete, reason)
}

// hitCap records that a limit stopped the run: no deletions then, as what
// was not reached is not known to be gone.
func (e *engine) hitCap(reason string) {
	e.mu.Lock()
	e.capHit = true
	e.mu.Unlock()
	e.markIncomplete(reason)
}

func (e *engine) emit(ev Event) {
	if e.opt.Event != nil {
		e.opt.Event(ev)
	}
}

func (e *engine) markSeen(url string) { e.seen.add(e.man, url) }

func (e *engine) markListed(url string) {
	e.mu.Lock()
	e.listedOK[url] = true
	e.mu.Unlock()
}

func (e *engine) touch(localDir string) {
	e.mu.Lock()
	e.touched[localDir] = true
	e.mu.Unlock()
}

// claimFileSlot counts one more file against MaxFiles; false when the
// limit is reached.
func (e *engine) claimFileSlot() bool {
	n := e.filesClaimed.Add(1)
	if e.maxFiles > 0 && n > int64(e.maxFiles) {
		e.hitCap(fmt.Sprintf("mirror.Options.MaxFiles %d reached", e.maxFiles))
		return false
	}
	e.filesKnown.Add(1)
	return true
}

// addBytes counts downloaded bytes; it reports false once MaxBytes is
// passed.
func (e *engine) addBytes(n int64) bool {
	total := e.bytes.Add(n)
	if e.opt.MaxBytes > 0 && total > e.opt.MaxBytes {
		e.hitCap(fmt.Sprintf("mirror.Options.MaxBytes %d reached", e.opt.MaxBytes))
		return false
	}
	return true
}

// overBytes reports whether MaxBytes has been passed.
func (e *engine) overBytes() bool {
	return e.opt.MaxBytes > 0 && e.bytes.Load() > e.opt.MaxBytes
}

// errIdle is the cause of a request stopped because the server sent
// nothing for Timeout.
var errIdle = errors.New("the server sent nothing")

// requestCtx returns the context of one request (gopher goes through the
// fetch.Client, which has no idle timeout): it is cancelled when touch is
// not called for Timeout. done releases it.
func (e *engine) requestCtx() (ctx context.Context, touch func(), done func()) {
	ctx, cancel := context.WithCancelCause(e.ctx)
	t := time.AfterFunc(e.timeout, func() { cancel(errIdle) })
	return ctx, func() { t.Reset(e.timeout) }, func() { t.Stop(); cancel(nil) }
}

// idleErr turns the error of a request stopped by requestCtx's timer into
// a timeout (retried), leaving other errors alone.
func (e *engine) idleErr(ctx context.Context, err error) error {
	if err != nil && e.ctx.Err() == nil && errors.Is(context.Cause(ctx), errIdle) {
		return &fetch.Error{Kind: fetch.ErrTimeout, Msg: fmt.Sprintf("the server sent nothing for %v", e.timeout), Err: err}
	}
	return err
}

// errBytesCap stops a transfer at MaxBytes.
var errBytesCap = errors.New("mirror.Options.MaxBytes reached")

// sameBytes ends a file fetched again whose bytes are those of the copy
// (same SHA-256, the copy intact): the copy is left alone (only its time
// set), the new one dropped, and the file counts as unchanged.
func (e *engine) sameBytes(tmp *tmpFile, rec, old Record, hasOld bool, mtime time.Time) bool {
	if !hasOld || old.SHA256 != rec.SHA256 || old.Path != rec.Path || !e.fs.intact(rec.Path, rec.Size) ||
		e.opt.Verify && !e.fs.hashIs(rec.Path, rec.SHA256) {
		return false
	}
	tmp.keep = false
	tmp.discard()
	if !mtime.IsZero() {
		e.fs.chtimes(rec.Path, mtime)
	}
	e.man.put(rec)
	e.nUnchanged.Add(1)
	e.emit(Event{Kind: EventUnchanged, URL: rec.URL, Path: rec.Path, Size: rec.Size, Why: "fetched again: the same bytes (SHA-256) as the copy, left alone"})
	return true
}

// fetchedKind counts a file fetched (or, in a dry run, one that would
// be): changed when there was a copy, else new.
func (e *engine) fetchedKind(hasOld bool) EventKind {
	if hasOld {
		e.nChanged.Add(1)
		return EventChanged
	}
	e.nNew.Add(1)
	return EventNew
}

// descend reports whether the directory or menu rec, at rel below the
// URL and depth levels down, is walked: the filters allow it and it is
// not deeper than MaxDepth (then it is skipped, and the run incomplete).
func (e *engine) descend(rec Record, rel string, depth int) bool {
	if !e.filter.dir(rel) {
		return false
	}
	if e.maxDepth >= 0 && depth > e.maxDepth {
		e.hitCap(fmt.Sprintf("mirror.Options.MaxDepth %d reached", e.maxDepth))
		e.skip(rec, "deeper than mirror.Options.MaxDepth")
		return false
	}
	return true
}

// failList records a directory or menu that could not be read; the URL's
// own (depth 0) is the run's error, its Event held back (end).
func (e *engine) failList(rec Record, depth int, err error) {
	e.mu.Lock()
	root := depth == 0 && e.fatal == nil
	if root {
		e.fatal = err
	}
	e.mu.Unlock()
	ev := e.failed(rec, err)
	if !root {
		e.emit(ev)
		return
	}
	e.mu.Lock()
	e.rootFailed = &ev
	e.mu.Unlock()
}

// end ends a run with err: the URL's own failure is an Event only when
// err is not it (a Go program prints the Events and the error, as the
// command does, and says it once).
func (e *engine) end(sum Summary, err error) (Summary, error) {
	e.mu.Lock()
	ev := e.rootFailed
	e.mu.Unlock()
	if ev != nil && !errors.Is(err, ev.Err) {
		e.emit(*ev)
	}
	return sum, err
}

// retrying runs do until it succeeds, the run ends, or the retry policy
// gives up, showing local as in transfer on worker w; its last error.
func (e *engine) retrying(w int, local string, do func() error) error {
	return e.retry.Do(e.ctx, func(int) error {
		e.setCurrent(w, local)
		defer e.setCurrent(w, "")
		return do()
	}, func(_ int, err error, _ time.Duration) bool { return e.retriable(err) })
}

// renamed moves the copy of a file mirrored before to the local path it
// now gets (the naming rule changed: "100%25.txt" became "100%.txt"), so
// that it is neither fetched again nor left behind under its old name. It
// reports whether old now has that path.
func (e *engine) renamed(old *Record, to string) bool {
	if old.Path == to {
		return true
	}
	if e.opt.DryRun || old.Status != StatusOK || old.Type != TypeFile || !e.fs.intact(old.Path, old.Size) {
		return false
	}
	if err := e.fs.move(old.Path, to); err != nil {
		return false
	}
	old.Path = to
	e.man.put(*old)
	return true
}

// fail records a failed item and reports it.
func (e *engine) fail(r Record, err error) { e.emit(e.failed(r, err)) }

// failed records a failed item; its Event. A full disk (or quota) ends
// the run with ErrWrite (23): nothing more can be stored.
func (e *engine) failed(r Record, err error) Event {
	e.nFailed.Add(1)
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		e.mu.Lock()
		if e.fatal == nil {
			e.fatal = &fetch.Error{Kind: fetch.ErrWrite, URL: e.rootURL, Msg: "mirror: no space left for " + r.Path, Err: err}
		}
		e.mu.Unlock()
	}
	if errors.As(err, new(*unwritableError)) {
		e.mu.Lock()
		e.unwritable++
		e.mu.Unlock()
	}
	msg := fetch.OneLine(err.Error())
	e.mu.Lock()
	if len(e.failures) < MaxFailures {
		e.failures = append(e.failures, Failure{URL: r.URL, Path: r.Path, Error: msg})
	}
	e.mu.Unlock()
	old, had := e.man.get(r.URL)
	if had && old.Status == StatusOK {
		// Keep what is known of the local copy: it is still there.
		old.Status, old.Error = StatusFailed, msg
		r = old
	} else {
		r.Status, r.Error = StatusFailed, msg
	}
	if !e.opt.DryRun {
		e.man.put(r)
	}
	return Event{Kind: EventFailed, URL: r.URL, Path: r.Path, Err: err}
}

// putUnlessSame puts rec, a directory, menu or item read again, unless
// the manifest holds it as it is (old, had) but for when it was read:
// then it is not written again, so that a rerun that finds nothing
// changed leaves the manifest as it is, rather than rewriting all of it
// for the times of its listings (Fetched stays the first read that found
// it so).
func (e *engine) putUnlessSame(old Record, had bool, rec Record) {
	if old.Fetched = rec.Fetched; !had || old != rec {
		e.man.put(rec)
	}
}

// skip records an item deliberately not mirrored.
func (e *engine) skip(r Record, reason string) {
	e.nSkipped.Add(1)
	r.Status, r.Error = StatusSkipped, reason
	if !e.opt.DryRun {
		old, had := e.man.get(r.URL)
		e.putUnlessSame(old, had, r)
	}
	e.emit(Event{Kind: EventSkipped, URL: r.URL, Path: r.Path, Err: errors.New(reason)})
}

// record records an item that is listed but not fetched (a link, a
// search…); r.Error, when set, says why.
func (e *engine) record(r Record) {
	e.nRecorded.Add(1)
	r.Status = StatusRecorded
	if old, ok := e.man.get(r.URL); !ok || old != r {
		if !e.opt.DryRun {
			e.man.put(r)
		}
	}
	e.emit(Event{Kind: EventRecorded, URL: r.URL, Path: r.Path, Why: r.Error})
}

// linkTarget is the local target of a symbolic link in the local
// directory dir whose server target is target, each name encoded as the
// mirror encodes it; "" and why when the link is not to be made: its
// target is absolute, or leaves the mirror. Only leading ".." components
// are taken (a ".." after a name could climb out of a directory that is
// itself a link), and no more of them than dir is deep, so that a link
// made here, and any chain of them, stays inside the mirror.
func linkTarget(dir, target string) (string, string) {
	if target == "" {
		return "", "the link's target is unknown"
	}
	if strings.HasPrefix(target, "/") {
		return "", "the link's target is absolute: not made (it would point outside the mirror)"
	}
	depth := 0
	if dir != "" {
		depth = strings.Count(dir, "/") + 1
	}
	var out []string
	names := false
	for _, c := range strings.Split(target, "/") {
		switch {
		case c == "" || c == ".":
			continue
		case c == "..":
			if names || depth == 0 {
				return "", "the link's target leaves the mirror: not made"
			}
			depth--
			out = append(out, "..")
		default:
			names = true
			out = append(out, EncodeName(c))
		}
	}
	if len(out) == 0 {
		return ".", ""
	}
	return strings.Join(out, "/"), ""
}

// link makes r (a symbolic link, at r.Path) point to target, a relative
// path inside the mirror (linkTarget). A link already there with that
// target is left alone; a file or another link is replaced, never
// written through.
func (e *engine) link(r Record, target string) {
	old, had := e.man.get(r.URL)
	if e.opt.DryRun {
		if !had || old.Status != StatusOK || old.Target != r.Target {
			e.emit(Event{Kind: EventWouldGet, URL: r.URL, Path: r.Path, Err: errors.New("new"), Why: "a link to " + target})
		}
		return
	}
	e.touch(path.Dir(r.Path))
	made, err := e.linkOver(target, r.Path)
	if err != nil {
		e.fail(r, asLocal(err))
		return
	}
	r.Status = StatusOK
	e.nLinks.Add(1)
	if !had || old != r {
		e.man.put(r)
	}
	kind := EventUnchanged
	if made {
		kind = EventLinked
	}
	e.emit(Event{Kind: kind, URL: r.URL, Path: r.Path, Size: -1, Why: "a link to " + target})
}

// retriable reports whether an item that failed with err may be tried
// again under the retry policy (fetch.RetryPolicy, the one the CLI's
// --retry follows; FTP replies out of step with the commands pipelined on
// the connection are transient, since the item did not fail on its own):
// local errors and the MaxBytes stop never are.
func (e *engine) retriable(err error) bool {
	return !errors.Is(err, errBytesCap) && !errors.Is(err, errLocal)
}

// again reports whether an item that failed with err, after done retries,
// is tried once more (the FTP walker's requeue, which waits with backoff).
func (e *engine) again(done int, err error) bool {
	return e.retriable(err) && e.retry.Again(done, err)
}

// errLocal marks an error of the local file system (never retried).
var errLocal = errors.New("local file system")

type localError struct{ err error }

func (l *localError) Error() string { return l.err.Error() }
func (l *localError) Unwrap() []error {
	return []error{l.err, errLocal}
}

func asLocal(err error) error {
	if err == nil {
		return nil
	}
	return &localError{err}
}

// backoff waits before retry number attempt (from 1): RetryWait doubled
// each time, at most 30 s, with ±20 % jitter (the retry policy). It
// returns false when the context ended.
func (e *engine) backoff(attempt int) bool {
	d, _ := e.retry.Wait(attempt, nil, 0)
	return retrySleep(e.ctx, d) == nil
}

// retrySleep is backoff's wait (a test counts the waits).
var retrySleep = fetch.Sleep

// setCurrent shows what worker w transfers ("" when idle).
func (e *engine) setCurrent(w int, p string) {
	e.mu.Lock()
	if p == "" {
		delete(e.current, w)
	} else {
		e.current[w] = p
	}
	e.mu.Unlock()
}

func (e *engine) progress() Progress {
	e.mu.Lock()
	cur := make([]string, 0, len(e.current))
	keys := make([]int, 0, len(e.current))
	for k := range e.current {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		cur = append(cur, e.current[k])
	}
	e.mu.Unlock()
	el := time.Since(e.start)
	b := e.bytes.Load()
	rate := 0.0
	if s := el.Seconds(); s > 0 {
		rate = float64(b) / s
	}
	done := e.nNew.Load() + e.nChanged.Load() + e.nUnchanged.Load() + e.nFailed.Load() + e.nSkipped.Load()
	return Progress{FilesDone: done, FilesKnown: max(e.filesKnown.Load(), done), Dirs: e.nDirs.Load(), Bytes: b,
		Rate: rate, Elapsed: el, Current: cur, ToFetch: e.toFetch.Load(), Fetched: e.fetched.Load()}
}

func (e *engine) startProgress() (stop func()) {
	if e.opt.Progress == nil {
		return func() {}
	}
	every := e.opt.ProgressInterval
	if every <= 0 {
		every = 200 * time.Millisecond
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				e.opt.Progress(e.progress())
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		e.opt.Progress(e.progress())
	}
}

// stamp is the time written into records.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// runJobs runs Parallel workers that hand each task's job to do.
func (e *engine) runJobs(do func(w int, job any)) {
	e.runWorkers(e.parallel, func(w int, t *task) bool {
		defer e.sched.done(t)
		do(w, t.job)
		return true
	})
}

// runWorkers runs n workers until the scheduler is empty; each calls
// handle for its tasks, and stops early when handle returns false. The
// context's end stops the scheduler.
func (e *engine) runWorkers(n int, handle func(w int, t *task) bool) {
	stop := context.AfterFunc(e.ctx, e.sched.stop)
	defer stop()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for t := e.sched.next(); t != nil; t = e.sched.next() {
				if !handle(w, t) {
					return
				}
			}
		}(i)
	}
	wg.Wait()
}
