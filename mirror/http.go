package mirror

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/html"

	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/http" // registers http and https
	"github.com/urlget/urlget/urlparse"
)

// httpState is the walk's shared state.
type httpState struct {
	host    string // host:port, the scheduler's key
	mu      sync.Mutex
	visited map[string]bool // directory URLs listed or queued
}

// httpDirJob is a directory index to read.
type httpDirJob struct {
	url    string // ends with "/"
	rel    string // names below the mirrored URL, for filters
	local  string // local directory
	depth  int
	parent string
	entry  Record // what the parent's index said of it
	node   *dirNode
}

// httpFileJob is a file to fetch, or to ask about.
type httpFileJob struct {
	rec    Record
	old    Record
	hasOld bool
	// cond asks with the recorded ETag and Last-Modified (If-None-Match,
	// If-Modified-Since): the copy is intact, only the server can say
	// whether it is current.
	cond bool
	why  string
}

// indexEntry is one link of a directory index to an item in it.
type indexEntry struct {
	url  string // absolute, as the index spells it
	name string // the name as the server has it (decoded)
	dir  bool
	size int64 // exact size when the index gives one in bytes, else -1
	// facts is the text after the link (date, size, description), its
	// spaces collapsed: what tells a listing from another (cycle.go).
	facts string
}

// withSlash is u with "/" ending its path: a directory's URL. nginx and
// Apache answer the URL without it with a redirect there.
func withSlash(u *urlparse.URL) (*urlparse.URL, error) {
	if strings.HasSuffix(u.RawPath, "/") {
		return u, nil
	}
	r := u.Ref
	r.RawPath += "/"
	r.RawQuery, r.HasQuery = "", false
	r.Fragment, r.RawFragment, r.HasFragment = "", "", false
	nu, err := urlparse.Parse(r.String())
	if err != nil {
		return nil, err
	}
	return &nu, nil
}

func (e *engine) runHTTP() error {
	if e.u.HasQuery {
		return &fetch.Error{Kind: fetch.ErrMalformed, URL: e.rootURL, Msg: "mirror: the URL has a query: give a directory URL"}
	}
	s := &httpState{host: hostKey(e.u.Host, e.u.PortOrDefault()), visited: map[string]bool{e.rootURL: true}}
	// The server's bytes, its statuses as they are: no decoding, no
	// redirects followed (a file that redirects is recorded), no -f.
	cl := *e.client
	cl.Compressed, cl.FollowRedirects, cl.Fail = false, false, false
	e.client = &cl
	// The copy builds its own fetchers, and keeps their connections
	// (keep-alive) for the whole run: a goodbye at its end.
	defer cl.CloseIdleConnections()
	root := &httpDirJob{url: e.rootURL, node: &dirNode{url: e.rootURL}}
	root.local = e.paths.claimDir(e.rootURL, nil)
	e.markSeen(e.rootURL)
	e.sched.push(&task{list: true, host: s.host, job: root})
	e.runJobs(func(w int, job any) {
		switch j := job.(type) {
		case *httpDirJob:
			e.httpDir(s, w, j)
		case *httpFileJob:
			e.httpFile(w, j)
		}
	})
	return nil
}

// httpDir reads one directory index and queues what it links to.
func (e *engine) httpDir(s *httpState, w int, j *httpDirJob) {
	rec := Record{URL: j.url, Type: TypeDir, Path: j.local, Parent: j.parent, Size: -1}
	var entries []indexEntry
	err := e.retrying(w, j.local+"/", func() error {
		var err error
		entries, err = e.readIndex(j)
		return err
	})
	if e.ctx.Err() != nil || errors.Is(err, errBytesCap) {
		return
	}
	if err != nil {
		e.failList(rec, j.depth, err)
		return
	}
	if a := j.node.sameAsAncestor(indexPrint(entries)); a != "" {
		// A server that follows a link to an ancestor (nginx's
		// autoindex): not followed, nothing made of it.
		e.skip(rec, cycleWhy(a))
		return
	}
	e.nDirs.Add(1)
	e.markListed(j.url)
	if !e.opt.DryRun {
		rec.Status, rec.Fetched = StatusOK, stamp(time.Now())
		if j.depth > 0 {
			rec.Name = j.entry.Name
		}
		if err := e.makeDir(j.local); err != nil {
			e.fail(rec, asLocal(err))
			return
		}
		old, had := e.man.get(j.url)
		e.putUnlessSame(old, had, rec)
	}
	e.emit(Event{Kind: EventDir, URL: j.url, Path: j.local})
	for _, ie := range entries {
		if e.ctx.Err() != nil {
			return
		}
		e.httpEntry(s, j, ie)
	}
	e.paths.done(j.local) // its entries are claimed
}

// readIndex fetches a directory index and returns the items it links to.
func (e *engine) readIndex(j *httpDirJob) ([]indexEntry, error) {
	u, err := urlparse.Parse(j.url)
	if err != nil {
		return nil, &fetch.Error{Kind: fetch.ErrMalformed, URL: j.url, Err: err}
	}
	ctx, touch, done := e.requestCtx()
	defer done()
	res, err := e.client.Do(ctx, &fetch.Request{URL: &u})
	if err != nil {
		return nil, e.idleErr(ctx, err)
	}
	defer res.Body.Close()
	if err := httpStatusError(res, j.url, 0); err != nil {
		e.archiveSmall(res, &u)
		return nil, err
	}
	if res.Status != 200 {
		e.archiveSmall(res, &u)
		msg := fmt.Sprintf("mirror: the directory index answered %d %s", res.Status, res.Reason)
		if res.Location != "" {
			msg += ", to " + res.Location + " (redirects are not followed: mirror that URL)"
		}
		return nil, &fetch.Error{Kind: fetch.ErrProtocol, URL: j.url, Status: res.Status, Msg: msg}
	}
	var buf bytes.Buffer
	cr := &countReader{r: res.Body, e: e, limit: maxListing, touch: touch}
	if _, err := io.Copy(&buf, cr); err != nil {
		return nil, e.idleErr(ctx, err)
	}
	e.archive(res, &u, bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	ct := strings.ToLower(res.ContentType)
	if !strings.Contains(ct, "html") && ct != "" {
		return nil, &fetch.Error{Kind: fetch.ErrUnsupported, URL: j.url,
			Msg: "mirror: not a directory index (Content-Type " + res.ContentType + "): give a directory URL"}
	}
	return parseIndex(buf.Bytes(), j.url), nil
}

// httpStatusError is the error of an HTTP reply that is no result: 404 is
// ErrNotFound, 401 and 403 ErrAccessDenied, any other status of 400 and up
// ErrHTTP (retried when it says "try again", as fetch.RetryPolicy does for
// -f). offset is the resume offset asked for (a 416 to it is fine).
func httpStatusError(res *fetch.Resource, url string, offset int64) error {
	err := fetch.FailError(res, offset)
	if err == nil {
		return nil
	}
	switch res.Status {
	case 404, 410:
		return &fetch.Error{Kind: fetch.ErrNotFound, URL: url, Status: res.Status, Msg: "not found (HTTP " + strconv.Itoa(res.Status) + ")"}
	case 401, 403:
		return &fetch.Error{Kind: fetch.ErrAccessDenied, URL: url, Status: res.Status, Msg: "access denied (HTTP " + strconv.Itoa(res.Status) + ")"}
	}
	return err
}

// parseIndex reads the links of a directory index (nginx autoindex,
// Apache mod_autoindex, lighttpd mod_dirlisting, and any page like them)
// to the items of the directory base: those whose URL is base and one
// more path segment (a directory when it ends with "/"). Sort links
// ("?C=N;O=D"), the parent ("../"), absolute links elsewhere and anything
// with a query or deeper are left out, as are names the URL cannot carry
// one to one. The size is taken from the text after the link when it is
// a plain number of bytes (nginx's autoindex_exact_size, the default).
func parseIndex(data []byte, base string) []indexEntry {
	bu, err := urlparse.Parse(base)
	if err != nil {
		return nil
	}
	prefix := bu.RawPath
	z := html.NewTokenizer(bytes.NewReader(data))
	var out []indexEntry
	seen := map[string]bool{}
	var cur *indexEntry // the last entry, whose size text may follow
	var text strings.Builder
	endEntry := func() {
		if cur == nil {
			return
		}
		f := strings.Fields(text.String())
		cur.facts = strings.Join(f, " ")
		if len(f) > 0 && !cur.dir {
			if n, err := strconv.ParseInt(f[len(f)-1], 10, 64); err == nil && n >= 0 {
				cur.size = n
			}
		}
		out = append(out, *cur)
		cur = nil
		text.Reset()
	}
	inAnchor := false
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			endEntry()
			return out
		case html.TextToken:
			if cur != nil && !inAnchor {
				text.Write(z.Text())
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "a":
				inAnchor = false
			case "tr", "pre", "table", "li", "body":
				endEntry()
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "tr", "li", "br":
				endEntry()
				continue
			case "a":
			default:
				continue
			}
			endEntry()
			inAnchor = tt == html.StartTagToken
			var href string
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if string(k) == "href" {
					href = string(v)
				}
			}
			ie, ok := indexLink(base, prefix, href)
			if ok && !seen[ie.url] {
				seen[ie.url] = true
				cur = &ie
			}
		}
	}
}

// indexPrint is listingPrint of a directory index: each entry's name, kind
// and facts.
func indexPrint(entries []indexEntry) string {
	keys := make([]string, 0, len(entries))
	for _, ie := range entries {
		keys = append(keys, fmt.Sprintf("%t\x00%s\x00%s", ie.dir, ie.name, ie.facts))
	}
	return listingPrint(keys)
}

// indexLink resolves href against the directory base (whose raw path is
// prefix) and says whether it names an item in it.
func indexLink(base, prefix, href string) (indexEntry, bool) {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") || strings.HasPrefix(href, "?") {
		return indexEntry{}, false
	}
	abs, err := urlparse.ResolveString(base, href)
	if err != nil {
		return indexEntry{}, false
	}
	u, err := urlparse.Parse(abs)
	if err != nil || u.HasQuery || u.CheckLine() != nil {
		return indexEntry{}, false
	}
	b, _ := urlparse.Parse(base)
	if !strings.EqualFold(u.Scheme, b.Scheme) || !strings.EqualFold(u.Host, b.Host) || u.PortOrDefault() != b.PortOrDefault() {
		return indexEntry{}, false
	}
	rest, ok := strings.CutPrefix(u.RawPath, prefix)
	if !ok || rest == "" {
		return indexEntry{}, false
	}
	dir := strings.HasSuffix(rest, "/")
	seg := strings.TrimSuffix(rest, "/")
	if seg == "" || strings.Contains(seg, "/") {
		return indexEntry{}, false
	}
	name := urlparse.Unescape(seg)
	if name == "." || name == ".." || name == "" || strings.Contains(name, "/") {
		return indexEntry{}, false
	}
	r := u.Ref
	r.Fragment, r.RawFragment, r.HasFragment = "", "", false
	return indexEntry{url: r.String(), name: name, dir: dir, size: -1}, true
}

// httpEntry handles one item of an index.
func (e *engine) httpEntry(s *httpState, j *httpDirJob, ie indexEntry) {
	rel := ie.name
	if j.rel != "" {
		rel = j.rel + "/" + ie.name
	}
	local := EncodeName(ie.name)
	rec := Record{URL: ie.url, Parent: j.url, Size: ie.size}
	if local != ie.name {
		rec.Name = validName(ie.name)
	}
	e.markSeen(rec.URL)
	if ie.dir {
		rec.Type, rec.Size = TypeDir, -1
		if !e.descend(rec, rel, j.depth+1) {
			return
		}
		s.mu.Lock()
		dup := s.visited[rec.URL]
		s.visited[rec.URL] = true
		s.mu.Unlock()
		if dup {
			return
		}
		sub := &httpDirJob{url: rec.URL, rel: rel, depth: j.depth + 1, parent: j.url,
			node: &dirNode{parent: j.node, url: rec.URL}}
		e.displaced(strings.TrimSuffix(rec.URL, "/"), pathSegs(j.local, local))
		sub.local = e.paths.claimDir(rec.URL, pathSegs(j.local, local))
		rec.Path = sub.local
		sub.entry = rec
		e.sched.push(&task{list: true, host: s.host, job: sub})
		return
	}
	rec.Type = TypeFile
	if !e.filter.file(rel) || !e.claimFileSlot() {
		return
	}
	e.displaced(rec.URL+"/", pathSegs(j.local, local))
	rec.Path = e.paths.claimFile(rec.URL, pathSegs(j.local, local))
	old, had := e.man.get(rec.URL)
	if had {
		e.renamed(&old, rec.Path)
	}
	job := &httpFileJob{rec: rec, old: old, hasOld: had && old.Status == StatusOK}
	switch {
	case !had:
		job.why = "new"
	case e.opt.Refetch:
		job.why = "mirror.Options.Refetch"
	case old.Status != StatusOK:
		job.why = "not mirrored yet (" + old.Status + ")"
	case old.Path != rec.Path || !e.fs.intact(old.Path, old.Size):
		job.why = "the local copy is missing or not the recorded size"
	case ie.size >= 0 && ie.size != old.Size:
		job.why = fmt.Sprintf("size %d, recorded %d", ie.size, old.Size)
	case e.opt.Verify && !e.fs.hashIs(old.Path, old.SHA256):
		job.why = verifyWhy
	case e.opt.Checksum:
		job.why = "mirror.Options.Checksum: the server gives no SHA-256: fetched to compare"
	case old.ETag == "" && old.MTime == "":
		job.why = "the server gave neither ETag nor Last-Modified to ask with"
	case racy(old):
		// nginx's ETag is the time and size: a change in the same
		// second at the same size keeps it.
		job.why = racyWhy(old)
	default:
		job.cond = true
	}
	if !job.cond && rec.Size > 0 {
		e.toFetch.Add(rec.Size)
	}
	e.sched.push(&task{host: s.host, job: job})
}

// httpFile fetches one file (conditionally when its copy is intact).
func (e *engine) httpFile(w int, j *httpFileJob) {
	if e.overBytes() {
		e.markIncomplete(fmt.Sprintf("mirror.Options.MaxBytes %d reached", e.opt.MaxBytes))
		return
	}
	err := e.retrying(w, j.rec.Path, func() error { return e.httpFetch(j) })
	if e.ctx.Err() != nil || errors.Is(err, errBytesCap) {
		return
	}
	if err != nil {
		e.fail(j.rec, err)
	}
}

// conditional fills in the request's conditions from the record of the
// copy: its ETag and Last-Modified.
func conditional(req *fetch.Request, old Record) {
	req.IfNoneMatch = old.ETag
	if t, err := time.Parse(time.RFC3339Nano, old.MTime); err == nil && old.MTimeSource == "http" {
		req.IfModifiedSince = t
	}
}

// partName is the name prefix of the partial files of url (in its
// directory); the server's size and Last-Modified of the version it holds
// follow it.
func partName(url string) string {
	sum := sha256.Sum256([]byte(url))
	return fmt.Sprintf("%s%x-", partPrefix, sum[:8])
}

func (e *engine) httpFetch(j *httpFileJob) error {
	ctx, touch, done := e.requestCtx()
	defer done()
	return e.idleErr(ctx, e.httpFetchBody(ctx, touch, j))
}

func (e *engine) httpFetchBody(ctx context.Context, touch func(), j *httpFileJob) error {
	u, err := urlparse.Parse(j.rec.URL)
	if err != nil {
		return &fetch.Error{Kind: fetch.ErrMalformed, URL: j.rec.URL, Err: err}
	}
	if e.opt.DryRun && !j.cond {
		return e.wouldGet(j, j.why)
	}
	started := time.Now() // the copy's time for racy: a change after it may not show
	// A dry run asks HEAD with the conditions: a 304 is unchanged.
	req := &fetch.Request{URL: &u, Head: e.opt.DryRun}
	if j.cond {
		conditional(req, j.old)
	}
	dir := path.Dir(j.rec.Path)
	if dir == "." {
		dir = ""
	}
	// A part an earlier run left: continued with Range, If-Range its
	// Last-Modified (a server whose file changed sends it whole).
	prefix := partName(j.rec.URL)
	var part string
	if !e.opt.DryRun {
		if name, size, lm, ok := e.fs.findPart(dir, prefix); ok && size > 0 {
			part = path.Join(dir, name)
			if pn, ok := partOffset(e.fs, part); ok && pn > 0 && pn < size {
				req.Offset, req.Since = pn, lm
			}
		}
	}
	res, err := e.client.Do(ctx, req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if err := httpStatusError(res, j.rec.URL, req.Offset); err != nil {
		e.archiveSmall(res, &u)
		return err
	}
	rec := j.rec
	switch {
	case res.NotModified:
		if part != "" {
			e.fs.removeFile(part) // of a version that is not the server's
		}
		e.archive(res, &u, nil, 0)
		e.nUnchanged.Add(1)
		old := j.old
		if old.Parent != rec.Parent && !e.opt.DryRun {
			old.Parent = rec.Parent
			e.man.put(old)
		}
		e.emit(Event{Kind: EventUnchanged, URL: rec.URL, Path: old.Path, Size: old.Size,
			Why: fmt.Sprintf("%d Not Modified to the recorded %s", res.Status, validators(old))})
		return nil
	case res.Status >= 300 && res.Status < 400 && res.Location != "":
		e.archiveSmall(res, &u)
		rec.Type, rec.Target, rec.Size, rec.Path = TypeLink, res.Location, -1, ""
		rec.Error = fmt.Sprintf("redirected (%d): not followed", res.Status)
		e.record(rec)
		return nil
	case res.Status != 200 && res.Status != 206 && res.Status != 416:
		return &fetch.Error{Kind: fetch.ErrProtocol, URL: rec.URL, Status: res.Status,
			Msg: fmt.Sprintf("mirror: unexpected reply %d %s", res.Status, res.Reason)}
	}
	if e.opt.DryRun {
		return e.wouldGet(j, "the server's ETag or Last-Modified is not the recorded "+validators(j.old))
	}
	why := j.why
	if j.cond {
		why = fmt.Sprintf("%d to the recorded %s", res.Status, validators(j.old))
		if res.Size > 0 {
			e.toFetch.Add(res.Size)
		}
	}
	lm := res.ModTime
	total := int64(-1)
	if res.Size >= 0 {
		total = res.Offset + res.Size
	}
	e.touch(dir)
	var tmp *tmpFile
	if res.Offset > 0 {
		// 206 (or 416: nothing left): the part goes on.
		if tmp, err = e.fs.openPart(part); err != nil {
			return asLocal(err)
		}
		if tmp.n != res.Offset {
			tmp.discard()
			return &fetch.Error{Kind: fetch.ErrResume, URL: rec.URL, Msg: "the partial copy changed while it was continued"}
		}
		why += fmt.Sprintf("; continuing a partial copy from byte %d (Range)", res.Offset)
		e.fetched.Add(res.Offset)
	} else {
		if part != "" {
			e.fs.removeFile(part) // another version's
		}
		if total > 0 && !lm.IsZero() {
			// Kept when cut short, for the next run to continue.
			name := fmt.Sprintf("%s%d-%d", prefix, total, lm.Unix())
			tmp, err = e.fs.openPart(path.Join(dir, name))
			if err == nil && tmp.n > 0 {
				err = tmp.truncate()
			}
		} else {
			tmp, err = e.fs.create(rec.Path)
		}
		if err != nil {
			if tmp != nil {
				tmp.discard()
			}
			return asLocal(err)
		}
	}
	defer e.keepPart(tmp, rec.Path)
	cr := &countReader{r: res.Body, e: e, touch: touch, payload: true}
	if _, err := io.Copy(tmp, cr); err != nil {
		if cr.readErr == nil {
			return asLocal(err)
		}
		return err
	}
	if total >= 0 && tmp.n != total {
		return &fetch.Error{Kind: fetch.ErrPartial, URL: rec.URL, Msg: fmt.Sprintf("got %d of %d bytes", tmp.n, total)}
	}
	rec.Size = tmp.n
	rec.SHA256 = tmp.sum()
	rec.Fetched = stamp(started)
	rec.Status = StatusOK
	rec.ETag = res.Header.Get("ETag")
	rec.MTime, rec.MTimeSource = "", ""
	if !lm.IsZero() {
		rec.MTime, rec.MTimeSource = stamp(lm), "http"
	}
	if err := e.archiveFile(res, &u, tmp); err != nil {
		return asLocal(err)
	}
	if e.sameBytes(tmp, rec, j.old, j.hasOld, lm) {
		return nil
	}
	if err := e.commitOver(tmp, rec.Path, lm); err != nil {
		return asLocal(err)
	}
	e.man.put(rec)
	kind := e.fetchedKind(j.hasOld)
	e.emit(Event{Kind: kind, URL: rec.URL, Path: rec.Path, Size: rec.Size, Why: why})
	return nil
}

// validators names what a conditional request asked with.
func validators(r Record) string {
	var v []string
	if r.ETag != "" {
		v = append(v, "ETag "+r.ETag)
	}
	if r.MTime != "" && r.MTimeSource == "http" {
		v = append(v, "Last-Modified "+r.MTime)
	}
	return strings.Join(v, " and ")
}

// partOffset is the size of the partial file rel.
func partOffset(l *localFS, rel string) (int64, bool) {
	if !l.intact(rel, -1) {
		return 0, false
	}
	fi, err := l.root.Lstat(rel)
	if err != nil {
		return 0, false
	}
	return fi.Size(), true
}

// wouldGet reports a file a dry run would fetch.
func (e *engine) wouldGet(j *httpFileJob, why string) error {
	kind := e.fetchedKind(j.hasOld)
	e.emit(Event{Kind: EventWouldGet, URL: j.rec.URL, Path: j.rec.Path, Size: j.rec.Size, Err: errors.New(string(kind)), Why: why})
	return nil
}
