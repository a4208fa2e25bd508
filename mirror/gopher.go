package mirror

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/gopher"
	"github.com/urlget/urlget/urlparse"
)

// menuFile is the name a menu is saved under, byte for byte, in its
// directory; rewrittenMenu is the browsable copy (RewriteMenus).
const (
	menuFile      = ".gopher-menu"
	rewrittenMenu = "gophermap"
	// maxMenu bounds one menu (bytes).
	maxMenu = 64 << 20
	// maxRobots bounds robots.txt.
	maxRobots = 256 << 10
)

// gopherState is the crawl's shared state.
type gopherState struct {
	raw *fetch.Client // for menus: replies byte for byte
	// base is the names (selectorNames) of the start selector's
	// directory on the mirrored host: what lies below it is mirrored,
	// stored relative to it (nil with Parents: the whole host, stored by
	// its full selectors).
	base []string
	mu   sync.Mutex
	// menus is the menus read or queued (menuKey -> the URL that claimed
	// it): one per local directory, held as every walk holds its
	// directories. docs is the documents queued (docKey), which any menu
	// may link: a keySet, in sorted scratch files past a few thousand, so
	// that a hole of millions of documents is walked in flat memory.
	menus  map[string]string
	docs   *keySet
	robots map[string]*robotsOnce // by host:port
	// dots says, by host:port, whether the server ends its menus with
	// the "." line (true once one did) or not (false: the same menu
	// twice without one, as pygopherd writes them).
	dots map[string]bool
}

type robotsOnce struct {
	once  sync.Once
	rules *robots
}

// gopherMenuJob is a menu to read.
type gopherMenuJob struct {
	url      string
	scheme   string
	host     string
	port     int
	selector string
	depth    int
	parent   string
	dir      string   // local directory
	rel      string   // path below the mirrored URL's host root, for filters
	segs     []string // local path components of dir
	// look is what a first read that ended without a "." line got (its
	// size and SHA-256): a second read that gets the same is the menu
	// of a server that writes no "." line (menuEnd).
	look string
}

// gopherDocJob is a document to fetch.
type gopherDocJob struct {
	url    string
	typ    byte
	rec    Record
	old    Record
	hasOld bool
	mtime  time.Time // the Gopher+ Mod-Date, zero when none
	facts  docFacts  // what the menu and the attributes stated of it
	why    string    // why it is fetched (-v)
	item   gopher.Item
	attrs  *gopher.Attributes // its Gopher+ attributes, when the menu's "$" gave them
}

func hostKey(host string, port int) string {
	return strings.ToLower(host) + ":" + strconv.Itoa(port)
}

// canonSelector is a menu selector as cycles are told: leading and
// trailing slashes do not count ("", "/"; "/docs", "/docs/").
func canonSelector(s string) string { return strings.Trim(s, "/") }

func menuKey(host string, port int, sel string) string {
	return "m|" + hostKey(host, port) + "|" + canonSelector(sel)
}

func docKey(host string, port int, sel string) string {
	return "d|" + hostKey(host, port) + "|" + sel
}

// ownerKey names who owns a local path: for gopher the canonical menu or
// document key, so that "/docs" and "/docs/" share a directory.
func ownerKey(raw string) string {
	if len(raw) < 6 || !strings.EqualFold(raw[:6], "gopher") {
		return raw // not parsed: this runs for every record of a manifest
	}
	u, err := urlparse.Parse(raw)
	if err != nil || (u.Scheme != "gopher" && u.Scheme != "gophers") {
		return raw
	}
	port := u.Port
	if port < 0 {
		port = gopher.DefaultPort
	}
	if u.Gopher.Type == gopher.TypeMenu || u.Gopher.Type == 0 {
		return menuKey(u.Host, port, u.Gopher.Selector)
	}
	return docKey(u.Host, port, u.Gopher.Selector)
}

// startHost reports whether host:port is the mirrored URL's.
func (e *engine) startHost(host string, port int) bool {
	return strings.EqualFold(host, e.u.Host) && port == e.u.PortOrDefault()
}

// below reports whether the selector sel of host:port lies below the start
// selector's directory (g.base): its names begin with the base's, and
// none is "." or ".." (which a server may resolve to above it; below the
// root nothing is above). Items of other hosts are not bounded (SpanHosts decides
// whether they are followed, as wget's --no-parent bounds only the start
// host). The rule is the http mirror's: nothing above the start directory.
func (g *gopherState) below(e *engine, host string, port int, sel string) bool {
	if !e.startHost(host, port) {
		return true
	}
	names := selectorNames(sel)
	if len(g.base) == 0 {
		return true
	} else if len(names) < len(g.base) {
		return false
	}
	for i, n := range names {
		if n == "." || n == ".." || i < len(g.base) && n != g.base[i] {
			return false
		}
	}
	return true
}

// relNames is the names of sel below the start selector's directory (for
// an item of the start host below it), or host:port and every name (for
// another host's).
func (g *gopherState) relNames(e *engine, host string, port int, sel string) []string {
	names := selectorNames(sel)
	if !e.startHost(host, port) {
		return append([]string{hostKey(host, port)}, names...)
	}
	return names[min(len(g.base), len(names)):]
}

// localSegs is where an item of host:port goes: its selector's path below
// the start selector's directory for the mirrored host (as the ftp and
// http mirrors store what is below their URL), its whole selector's path
// under "@host:port" for others.
func (g *gopherState) localSegs(e *engine, host string, port int, sel string) []string {
	if !e.startHost(host, port) {
		return append([]string{hostComponent(host, port)}, SelectorPath(sel)...)
	}
	names := g.relNames(e, host, port, sel)
	for i, n := range names {
		names[i] = encodeGopherSegment(n)
	}
	return names
}

func (e *engine) runGopher() error {
	g := &gopherState{menus: map[string]string{}, docs: newKeySet(e.man), robots: map[string]*robotsOnce{}, dots: map[string]bool{}}
	defer g.docs.close()
	raw := *e.client
	raw.Options = maps.Clone(e.client.Options)
	if raw.Options == nil {
		raw.Options = map[string]string{}
	}
	raw.Options[gopher.OptRaw] = "1"
	delete(raw.Options, gopher.OptPlus)
	g.raw = &raw

	gu := e.u.Gopher
	typ := gu.Type
	if typ == 0 {
		typ = gopher.TypeMenu
	}
	if gu.HasSearch || gu.HasPlus {
		return &fetch.Error{Kind: fetch.ErrMalformed, URL: e.rootURL, Msg: "mirror: the URL has a search or gopher+ string; give a menu or document URL"}
	}
	switch typ {
	case gopher.TypeSearch, gopher.TypeTelnet, gopher.TypeTN3270, gopher.TypeCSO:
		return &fetch.Error{Kind: fetch.ErrUnsupported, URL: e.rootURL,
			Msg: fmt.Sprintf("mirror: a type %c item cannot be mirrored: give a menu or document URL", typ)}
	}
	port := e.u.PortOrDefault()
	host := e.u.Host
	if !e.opt.Parents {
		g.base = selectorNames(gu.Selector)
		if typ != gopher.TypeMenu && len(g.base) > 0 {
			g.base = g.base[:len(g.base)-1] // a document: its directory
		}
	}
	if !e.opt.IgnoreRobots {
		e.robotsFor(g, e.u.Scheme, host, port)
	}
	if typ == gopher.TypeMenu {
		segs := g.localSegs(e, host, port, gu.Selector)
		job := &gopherMenuJob{url: e.rootURL, scheme: e.u.Scheme, host: host, port: port,
			selector: gu.Selector, segs: segs}
		job.dir = e.paths.claimDir(ownerKey(e.rootURL), segs)
		g.menus[menuKey(host, port, gu.Selector)] = e.rootURL
		e.markSeen(e.rootURL)
		e.sched.push(&task{list: true, host: hostKey(host, port), job: job})
	} else {
		it := gopher.Item{Type: typ, Selector: gu.Selector, Host: host, Port: port, Display: path.Base(gu.Selector)}
		if !e.queueDoc(g, it, nil, e.rootURL, "", "", docFacts{hi: -1}) {
			return e.fatal
		}
	}
	e.runJobs(func(w int, job any) {
		switch j := job.(type) {
		case *gopherMenuJob:
			e.gopherMenu(g, w, j)
		case *gopherDocJob:
			e.gopherDoc(w, j)
		}
	})
	if e.opt.RewriteMenus && !e.opt.DryRun && e.ctx.Err() == nil {
		// A document's local copy is looked up by its own URL (the
		// documents' keys are digests): one linked under another item
		// type than the URL that claimed it keeps its server line.
		e.rewriteMenus(func(key string) string {
			g.mu.Lock()
			defer g.mu.Unlock()
			return g.menus[key]
		})
	}
	return nil
}

// robotsFor returns the robots.txt rules of host:port, fetching them the
// first time.
func (e *engine) robotsFor(g *gopherState, scheme, host string, port int) *robots {
	g.mu.Lock()
	ro := g.robots[hostKey(host, port)]
	if ro == nil {
		ro = &robotsOnce{}
		g.robots[hostKey(host, port)] = ro
	}
	g.mu.Unlock()
	ro.once.Do(func() {
		u, err := urlparse.Parse(urlparse.GopherURL(scheme, host, port, gopher.TypeText, "/robots.txt"))
		if err != nil {
			return
		}
		ctx, touch, done := e.requestCtx()
		defer done()
		res, err := e.client.Do(ctx, &fetch.Request{URL: &u})
		if err != nil {
			return
		}
		defer res.Body.Close()
		data, err := io.ReadAll(io.LimitReader(&countReader{r: res.Body, e: e, touch: touch}, maxRobots))
		if err != nil {
			return
		}
		ro.rules = parseRobots(data, "urlget")
	})
	return ro.rules
}

// allowed reports whether robots.txt lets the crawl fetch sel on host:port.
func (e *engine) allowed(g *gopherState, scheme, host string, port int, sel string) bool {
	if e.opt.IgnoreRobots {
		return true
	}
	return e.robotsFor(g, scheme, host, port).allows(sel)
}

// gopherMenu reads one menu, saves it, and queues its items.
func (e *engine) gopherMenu(g *gopherState, w int, j *gopherMenuJob) {
	rec := Record{URL: j.url, Type: TypeMenu, ItemType: "1", Path: path.Join(j.dir, menuFile), Parent: j.parent, Size: -1}
	if j.selector != "" && "/"+j.dir != j.selector && "/"+j.dir+"/" != j.selector {
		rec.Name = validName(j.selector)
	}
	var items []gopher.Item
	err := e.retrying(w, rec.Path, func() error {
		var err error
		items, err = e.readMenu(g, j, &rec)
		if errors.Is(err, errLookAgain) {
			items, err = e.readMenu(g, j, &rec)
		}
		return err
	})
	if e.ctx.Err() != nil {
		return
	}
	if err != nil {
		if errors.Is(err, errBytesCap) {
			return
		}
		e.failList(rec, j.depth, err)
		return
	}
	e.nDirs.Add(1)
	e.markListed(j.url)
	e.emit(Event{Kind: EventDir, URL: j.url, Path: rec.Path, Size: rec.Size})

	// Gopher+ servers give every item's attributes (its Mod-Date) in one
	// "$" request.
	var mods map[string]*gopher.Attributes
	for _, it := range items {
		if it.Plus != 0 {
			mods = e.menuAttributes(j)
			break
		}
	}
	for _, it := range items {
		if e.ctx.Err() != nil {
			return
		}
		e.menuItem(g, j, it, mods)
	}
	// Its documents are claimed: the path table may drop the
	// directory's files from memory (read back should another menu
	// link one there).
	e.paths.done(j.dir)
}

// readMenu fetches the menu byte for byte, saves it (when it changed) and
// returns its items (info and error lines left out).
func (e *engine) readMenu(g *gopherState, j *gopherMenuJob, rec *Record) ([]gopher.Item, error) {
	u, err := urlparse.Parse(j.url)
	if err != nil {
		return nil, &fetch.Error{Kind: fetch.ErrMalformed, URL: j.url, Err: err}
	}
	ctx, touch, done := e.requestCtx()
	defer done()
	items, err := e.readMenuBody(ctx, touch, g, &u, j, rec)
	return items, e.idleErr(ctx, err)
}

func (e *engine) readMenuBody(ctx context.Context, touch func(), g *gopherState, u *urlparse.URL, j *gopherMenuJob, rec *Record) ([]gopher.Item, error) {
	res, err := g.raw.Do(ctx, &fetch.Request{URL: u})
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var tmp *tmpFile
	var sink io.Writer = io.Discard
	if !e.opt.DryRun {
		if tmp, err = e.fs.create(rec.Path); err != nil {
			return nil, asLocal(err)
		}
		defer tmp.discard()
		sink = tmp
		e.touch(j.dir)
	}
	cr := &countReader{r: res.Body, e: e, limit: maxMenu, touch: touch}
	var end lastByte
	tee := io.TeeReader(cr, io.MultiWriter(sink, &end))
	mr := gopher.NewMenuReader(tee)
	var items []gopher.Item
	var first gopher.Item
	n := 0
	onlyInfo := true
	for {
		it, err := mr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			first = it
		} else if it.Type != gopher.TypeInfo {
			onlyInfo = false
		}
		n++
		if it.Unparsed || it.Type == gopher.TypeInfo || it.Type == gopher.TypeError {
			continue
		}
		items = append(items, it)
	}
	// The rest (after a "." line) is saved too: the menu as received.
	if _, err := io.Copy(io.Discard, tee); err != nil {
		return nil, err
	}
	// A reply that is one error item (and info lines), or gophernicus's
	// "Error: …" page, stands for a menu that is not there.
	errItem := n > 0 && !first.Unparsed && first.Type == gopher.TypeError && first.Fields >= 4 && onlyInfo
	errPage := n > 0 && strings.HasPrefix(first.Raw, "Error: ") && len(items) == 0
	if errItem || errPage {
		msg := first.Raw
		if errItem {
			msg = first.Display
		}
		se := &gopher.ServerError{Message: msg}
		k := fetch.ErrOther
		if se.NotFound() {
			k = fetch.ErrNotFound
		} else if se.Denied() {
			k = fetch.ErrAccessDenied
		}
		return nil, &fetch.Error{Kind: k, URL: j.url, Msg: "gopher: the server answered with an error", Err: se}
	}
	look := strconv.FormatInt(cr.n, 10)
	if tmp != nil {
		look += " " + tmp.sum()
	}
	if err := g.menuEnd(j, mr.Terminated, cr.n == 0 || end.b == '\n', look); err != nil {
		return nil, err
	}
	rec.Size = cr.n
	rec.Fetched = stamp(time.Now())
	rec.Status = StatusOK
	if e.opt.DryRun {
		return items, nil
	}
	rec.SHA256 = tmp.sum()
	if err := e.archiveResource(j.url, "application/gopher-menu", tmp, gopherFields(gopher.TypeMenu, j.selector, "", nil)); err != nil {
		return nil, asLocal(err)
	}
	old, had := e.man.get(j.url)
	if had && old.Status == StatusOK && old.SHA256 == rec.SHA256 && old.Path == rec.Path && e.fs.intact(rec.Path, rec.Size) {
		tmp.discard()
	} else if err := tmp.commit(rec.Path, time.Time{}); err != nil {
		return nil, asLocal(err)
	}
	e.putUnlessSame(old, had, *rec)
	return items, nil
}

// errLookAgain is menuEnd's word for a menu to be read once more before
// it is believed (not a failure: gopherMenu reads it again at once).
var errLookAgain = errors.New("gopher: the menu ended without a \".\" line: read again")

// menuEnd decides whether a menu read to its end is the whole menu: one
// that ended with the "." line is (and says that its server ends its
// menus so). One that ended without it — a connection closed early by a
// server restart, a NAT, a proxy looks the same as the end of a menu from
// a server that writes no "." line (pygopherd) — is not, from a server
// known to end its menus with one, nor when its last line has no line
// end; from a server not known either way it is read again (errLookAgain),
// and the same bytes twice are the menu of a server without "." lines.
// A menu not believed is ErrPartial: retried, then failed, its directory
// never taken as it looked (the items it lost kept in the manifest).
func (g *gopherState) menuEnd(j *gopherMenuJob, dot, eol bool, look string) error {
	host := hostKey(j.host, j.port)
	g.mu.Lock()
	defer g.mu.Unlock()
	if dot {
		g.dots[host] = true
		return nil
	}
	cut := func(why string) error {
		return &fetch.Error{Kind: fetch.ErrPartial, URL: j.url, Msg: "gopher: the menu " + why + " (cut short?)"}
	}
	dotted, known := g.dots[host]
	switch {
	case dotted:
		return cut("ended before its \".\" line, which this server ends its menus with")
	case !eol:
		return cut("ended in the middle of a line")
	case known: // a server without "." lines
		return nil
	case j.look == "":
		j.look = look
		return errLookAgain
	case j.look == look:
		g.dots[host] = false
		return nil
	}
	j.look = look
	return cut("ended without a \".\" line, and otherwise on a second read")
}

// lastByte remembers the last byte written to it.
type lastByte struct{ b byte }

func (l *lastByte) Write(p []byte) (int, error) {
	if len(p) > 0 {
		l.b = p[len(p)-1]
	}
	return len(p), nil
}

// menuAttributes asks a Gopher+ server for the attributes of every item of
// the menu ("$") and returns them by selector. Errors give an empty map:
// the attributes (the dates) are a help, not a need.
func (e *engine) menuAttributes(j *gopherMenuJob) map[string]*gopher.Attributes {
	u, err := urlparse.Parse(urlparse.GopherPlusURL(j.scheme, j.host, j.port, gopher.TypeMenu, j.selector, "", "$"))
	if err != nil {
		return nil
	}
	ctx, touch, done := e.requestCtx()
	defer done()
	res, err := e.client.Do(ctx, &fetch.Request{URL: &u})
	if err != nil {
		return nil
	}
	defer res.Body.Close()
	cr := &countReader{r: res.Body, e: e, limit: maxMenu, touch: touch}
	ar := gopher.NewAttributeReader(cr)
	out := map[string]*gopher.Attributes{}
	for {
		a, err := ar.Next()
		if err != nil {
			break
		}
		if a.Info.Unparsed {
			continue
		}
		out[a.Info.Selector] = &a
	}
	return out
}

// menuItem handles one item of a menu.
func (e *engine) menuItem(g *gopherState, j *gopherMenuJob, it gopher.Item, mods map[string]*gopher.Attributes) {
	same := strings.EqualFold(it.Host, j.host) && it.Port == j.port
	scheme := "gopher"
	if same {
		scheme = j.scheme
	}
	if h, ok := it.HURL(); ok {
		url := fmt.Sprintf("%s#%s", it.URLWithScheme(scheme), "link")
		e.markSeen(url)
		e.record(Record{URL: url, Type: TypeLink, ItemType: "h", Name: validName(it.Display), Target: h, Size: -1, Parent: j.url})
		return
	}
	url := it.URLWithScheme(scheme)
	if url == "" {
		return // no host or port: nothing to fetch
	}
	pu, err := urlparse.Parse(url)
	if err != nil {
		return
	}
	e.markSeen(url)
	rec := Record{URL: url, ItemType: string([]byte{it.Type}), Size: -1, Parent: j.url}
	if err := pu.CheckLine(); err != nil {
		// CR, LF or NUL in the selector: it cannot be asked for.
		rec.Type = TypeOther
		e.skip(rec, "refused: "+err.Error())
		return
	}
	switch it.Type {
	case gopher.TypeSearch:
		rec.Type = TypeSearch
		e.record(rec)
		return
	case gopher.TypeTelnet, gopher.TypeTN3270:
		rec.Type = TypeSession
		e.record(rec)
		return
	case gopher.TypeCSO:
		rec.Type = TypeCSO
		e.record(rec)
		return
	case gopher.TypeMirror:
		rec.Type = TypeOther
		e.record(rec)
		return
	}
	if !e.startHost(it.Host, it.Port) && !e.opt.SpanHosts {
		rec.Type = TypeExternal
		e.record(rec)
		return
	}
	if !g.below(e, it.Host, it.Port, it.Selector) {
		rec.Type, rec.Error = TypeExternal, "above the start menu: not followed (following parents is off)"
		e.record(rec)
		return
	}
	rel := path.Join(g.relNames(e, it.Host, it.Port, it.Selector)...)
	if it.Type == gopher.TypeMenu {
		key := menuKey(it.Host, it.Port, it.Selector)
		g.mu.Lock()
		_, dup := g.menus[key]
		if !dup {
			g.menus[key] = url
		}
		g.mu.Unlock()
		if dup {
			return // a cycle, or a menu linked twice: read once
		}
		rec.Type = TypeMenu
		if !e.descend(rec, rel, j.depth+1) {
			return
		}
		if !e.allowed(g, scheme, it.Host, it.Port, it.Selector) {
			e.skip(rec, "disallowed by robots.txt")
			return
		}
		segs := g.localSegs(e, it.Host, it.Port, it.Selector)
		job := &gopherMenuJob{url: url, scheme: scheme, host: it.Host, port: it.Port, selector: it.Selector,
			depth: j.depth + 1, parent: j.url, rel: rel, segs: segs}
		job.dir = e.paths.claimDir(ownerKey(url), segs)
		e.sched.push(&task{list: true, host: hostKey(it.Host, it.Port), job: job})
		return
	}
	if !g.docs.add(docKey(it.Host, it.Port, it.Selector)) {
		return // linked before
	}
	if !e.filter.file(rel) {
		return
	}
	if !e.allowed(g, scheme, it.Host, it.Port, it.Selector) {
		rec.Type = TypeFile
		e.skip(rec, "disallowed by robots.txt")
		return
	}
	var attrs *gopher.Attributes
	if mods != nil && same {
		attrs = mods[it.Selector]
	}
	facts := menuDocFacts(it.Display)
	if scriptOutput(it.Selector) {
		facts.lo, facts.hi, facts.sizeText = 0, -1, ""
	}
	if attrs != nil {
		facts.mod, _ = attrs.ModDate()
		if lo, hi, text, ok := viewBounds(attrs); ok && !facts.stated() {
			facts.lo, facts.hi, facts.sizeText = lo, hi, text
		}
	}
	key := "line:" + it.Raw
	if !facts.mod.IsZero() {
		key += "|mod:" + facts.mod.Format("20060102150405")
	}
	e.queueDoc(g, it, attrs, url, j.url, key, facts)
}

// queueDoc decides whether a document is fetched (new, changed, its copy
// missing) or unchanged, and queues it. It returns false when it could
// not (a limit).
func (e *engine) queueDoc(g *gopherState, it gopher.Item, attrs *gopher.Attributes, url, parent, key string, facts docFacts) bool {
	mtime := facts.mod
	rec := Record{URL: url, Type: TypeFile, ItemType: string([]byte{it.Type}), Size: -1, Parent: parent, Key: key}
	if !e.claimFileSlot() {
		e.markSeen(url)
		return false
	}
	segs := g.localSegs(e, it.Host, it.Port, it.Selector)
	if len(segs) == 0 || len(segs) == 1 && strings.HasPrefix(segs[0], "@") {
		segs = append(segs, "@empty")
	}
	rec.Path = e.paths.claimFile(ownerKey(url), segs)
	if path.Join(SelectorPath(it.Selector)...) != rec.Path || it.Selector != "/"+rec.Path {
		rec.Name = validName(it.Selector)
	}
	if !mtime.IsZero() {
		rec.MTime, rec.MTimeSource = stamp(mtime), "gopher+"
	} else if !facts.date.IsZero() {
		rec.MTime, rec.MTimeSource = stamp(facts.date), "menu"
	}
	e.markSeen(url)
	old, had := e.man.get(url)
	if had {
		e.renamed(&old, rec.Path)
	}
	// Only a Gopher+ date can prove a document unchanged: with --checksum,
	// one without is fetched again and compared (sameBytes).
	checkBytes := e.opt.Checksum && mtime.IsZero()
	// Nor can a date that was still current when the copy was fetched
	// (racy), a copy whose size is not what the server states, or, with
	// Verify, one whose length nothing stated.
	isRacy := had && racy(old)
	badSize := had && !facts.fits(old.Size)
	unconfirmed := had && e.opt.Verify && old.Unconfirmed
	if had && old.Status == StatusOK && old.Key == key && key != "" && old.Path == rec.Path && !e.opt.Refetch &&
		!checkBytes && !isRacy && !badSize && !unconfirmed &&
		e.fs.intact(old.Path, old.Size) && (!e.opt.Verify || e.fs.hashIs(old.Path, old.SHA256)) {
		e.nUnchanged.Add(1)
		if old.Parent != parent && parent != "" {
			old.Parent = parent
			if !e.opt.DryRun {
				e.man.put(old)
			}
		}
		why := "the same menu line as recorded"
		if !mtime.IsZero() {
			why = "the same menu line and Gopher+ date as recorded"
		}
		e.emit(Event{Kind: EventUnchanged, URL: url, Path: old.Path, Size: old.Size, Why: why})
		return true
	}
	why := "new"
	switch {
	case had && e.opt.Refetch:
		why = "mirror.Options.Refetch"
	case had && checkBytes && old.Key == key:
		why = "mirror.Options.Checksum: no Gopher+ date: fetched to compare"
	case had && old.Key != key:
		why = "the menu line or Gopher+ date changed"
	case had && old.Status == StatusOK && badSize:
		why = "the copy's size is not what the server states: " + facts.sizeErr(old.Size)
	case had && old.Status == StatusOK && isRacy:
		why = racyWhy(old)
	case had && old.Status == StatusOK && unconfirmed && e.fs.intact(old.Path, old.Size) && e.fs.hashIs(old.Path, old.SHA256):
		why = "mirror.Options.Verify: no server stated its length: fetched again to compare"
	case had && e.opt.Verify && old.Status == StatusOK:
		why = verifyWhy
	case had:
		why = "the copy is missing or not mirrored yet"
	}
	e.sched.push(&task{host: hostKey(it.Host, it.Port), job: &gopherDocJob{url: url, typ: it.Type, rec: rec, old: old,
		hasOld: had && old.Status == StatusOK, mtime: mtime, facts: facts, why: why, item: it, attrs: attrs}})
	return true
}

// gopherDoc fetches one document.
func (e *engine) gopherDoc(w int, j *gopherDocJob) {
	if e.opt.DryRun {
		kind := e.fetchedKind(j.hasOld)
		e.emit(Event{Kind: EventWouldGet, URL: j.url, Path: j.rec.Path, Err: errors.New(string(kind))})
		return
	}
	if e.overBytes() {
		e.markIncomplete(fmt.Sprintf("mirror.Options.MaxBytes %d reached", e.opt.MaxBytes))
		return
	}
	err := e.retrying(w, j.rec.Path, func() error { return e.fetchDoc(j) })
	if e.ctx.Err() != nil {
		return
	}
	if errors.Is(err, errBytesCap) {
		return
	}
	if err != nil {
		e.fail(j.rec, err)
	}
}

func (e *engine) fetchDoc(j *gopherDocJob) error {
	ctx, touch, done := e.requestCtx()
	defer done()
	return e.idleErr(ctx, e.fetchDocBody(ctx, touch, j))
}

func (e *engine) fetchDocBody(ctx context.Context, touch func(), j *gopherDocJob) error {
	u, err := urlparse.Parse(j.url)
	if err == nil && j.item.Plus == '+' {
		// A Gopher+ item is asked for with "+": the reply states its
		// exact length ("+N"; fewer bytes are ErrPartial).
		u, err = urlparse.Parse(urlparse.GopherPlusURL(u.Scheme, j.item.Host, j.item.Port, j.typ, j.item.Selector, "", "+"))
	}
	if err != nil {
		return &fetch.Error{Kind: fetch.ErrMalformed, URL: j.url, Err: err}
	}
	started := time.Now()
	res, err := e.client.Do(ctx, &fetch.Request{URL: &u})
	if err != nil {
		return err
	}
	defer res.Body.Close()
	tmp, err := e.fs.create(j.rec.Path)
	if err != nil {
		return asLocal(err)
	}
	defer tmp.discard()
	e.touch(path.Dir(j.rec.Path))
	cr := &countReader{r: res.Body, e: e, touch: touch}
	if _, err := io.Copy(tmp, cr); err != nil {
		if cr.readErr == nil {
			return asLocal(err)
		}
		return err
	}
	if res.Size >= 0 && tmp.n != res.Size {
		return &fetch.Error{Kind: fetch.ErrPartial, URL: j.url, Msg: fmt.Sprintf("gopher: %d bytes arrived, the Gopher+ reply states %d", tmp.n, res.Size)}
	}
	if !j.facts.fits(tmp.n) {
		// A server restart, a cut connection: the close ended the
		// document early. Never recorded ok; retried.
		return &fetch.Error{Kind: fetch.ErrPartial, URL: j.url, Msg: "gopher: " + j.facts.sizeErr(tmp.n)}
	}
	rec := j.rec
	rec.Size = tmp.n
	rec.SHA256 = tmp.sum()
	// When the fetch began: a change after it, within the recorded
	// date's precision, makes the copy racy.
	rec.Fetched = stamp(started)
	rec.Unconfirmed = res.Size < 0
	rec.Status = StatusOK
	if err := e.archiveResource(rec.URL, gopherType(j.typ, j.rec.Path), tmp, gopherFields(j.typ, j.item.Selector, j.item.Raw, j.attrs)); err != nil {
		return asLocal(err)
	}
	if e.sameBytes(tmp, rec, j.old, j.hasOld, j.mtime) {
		return nil // fetched again (the menu line changed), but the same bytes
	}
	if err := tmp.commit(rec.Path, j.mtime); err != nil {
		return asLocal(err)
	}
	e.man.put(rec)
	kind := e.fetchedKind(j.hasOld)
	e.emit(Event{Kind: kind, URL: rec.URL, Path: rec.Path, Size: rec.Size, Why: j.why})
	return nil
}

// countReader counts what is read into the run's byte total, stops at
// MaxBytes (and at limit bytes when limit > 0), and remembers read errors
// (to tell them from write errors).
type countReader struct {
	r       io.Reader
	e       *engine
	n       int64
	limit   int64
	readErr error
	touch   func() // called when data arrives (idle timeout)
	payload bool   // a file's bytes (counted in Progress.Fetched)
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if n > 0 && c.touch != nil {
		c.touch()
	}
	if c.payload {
		c.e.fetched.Add(int64(n))
	}
	if n > 0 && !c.e.addBytes(int64(n)) {
		c.readErr = errBytesCap
		return n, errBytesCap
	}
	if c.limit > 0 && c.n > c.limit {
		c.readErr = &fetch.Error{Kind: fetch.ErrTooLarge, Msg: fmt.Sprintf("over %d bytes", c.limit)}
		return n, c.readErr
	}
	if err != nil && err != io.EOF {
		c.readErr = err
	}
	return n, err
}

// fetchedTime is the time a record was fetched (zero when unknown).
func fetchedTime(r Record) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, r.Fetched)
	return t
}
