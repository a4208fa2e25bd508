// Package mirror copies an FTP tree, an HTTP directory index or a gopher
// hole into a local directory, incrementally, over several connections,
// and safely.
//
//	sum, err := mirror.Run(ctx, mirror.Options{URL: "ftp://ftp.example.org/pub/", Dir: "pub"})
//
// # FTP
//
// The tree below the URL is walked with MLSD where the server has it (exact
// sizes and UTC modification times), else with LIST (parsed by
// ftp.ListParser: UNIX ls, DOS/IIS, EPLF, VMS, OS/2, NetWare, OS/400, MVS,
// z/OS), else with NLST (names only). New and changed files — by
// size and modification time — are downloaded, each file gets the server's
// modification time (MLSD, else MDTM, both UTC; from LIST only when
// neither is there: minutes, time zone unknown, year guessed for recent
// files — the manifest says which), and directories get theirs after
// their contents. Symbolic links are recorded in the manifest, never
// followed. Connections stay logged in for the whole run and commands are
// pipelined: the next file's commands go out while the current file
// arrives (not on servers that answer such commands at once, like
// pure-ftpd, nor once replies came out of step). The connections are
// fetch/ftp's Conn, with the Client's policy (fetch.Client.Prepare): the
// credentials, netrc, connect timeout and SOCKS proxy mean the same as for
// a fetch, and a refused command is the same error (a refused CWD is
// ErrAccessDenied).
//
// VMS names are mapped, for the server and the local disk alike:
// "FILE.TXT;3" is FILE.TXT (a VMS server gives the newest version of a name
// without one, and lists the newest first; older versions are not
// mirrored), "NAME.DIR;1" is the directory NAME, "NOTES.;1" (no type) is
// NOTES. A VMS listing's sizes are in blocks, not bytes: its files are
// judged unchanged by the listing's date alone (its day against the copy's
// MDTM time), as for ls dates with a year.
//
// # HTTP
//
// An http or https URL names a directory ("/" is added to a path without
// one) whose index page lists what is in it: nginx's autoindex, Apache's
// mod_autoindex, lighttpd's dirlisting, or any page of links like them.
// Only links to the directory's own items are followed (one more path
// segment; "name/" is a subdirectory): never the parent, sort links
// ("?C=N"), other hosts or deeper paths, so the walk cannot leave the
// start directory. Index pages are read every run and not saved. Files are
// saved byte for byte (no Content-Encoding asked for) with their
// Last-Modified as modification time, and their ETag and Last-Modified
// recorded; the next run asks for each file whose copy is intact with
// If-None-Match and If-Modified-Since, so that an unchanged file costs one
// request answered 304 and no data (index sizes and minute dates cannot
// prove a file unchanged). With Checksum every file is fetched again and
// compared (an HTTP server gives no hash). A file whose Content-Length and
// Last-Modified are known is written to a partial file named after them;
// cut short, it is continued by the next run with Range and If-Range (a
// server whose file changed sends it whole). A file that redirects is
// recorded with its Location, not followed. robots.txt is not read: the
// mirror fetches one directory it was pointed at, as lftp does.
//
// # Gopher
//
// Menus are crawled from the URL, on the same host and port (unless
// SpanHosts), breadth first, never above the start selector's directory
// (unless Parents): an item whose selector does not begin with the start
// menu's names (a ".." item, a link elsewhere on the host) is recorded,
// not followed, as the http mirror never leaves its start directory. Every
// menu is saved byte for byte as it was received (DIR/<path>/.gopher-menu),
// every document under a path derived from its selector below the start
// selector (DIR/<path>; with Parents the full selector), binary items byte
// for byte. The path is the selector's names, each decoded where
// gophernicus escaped a byte as "#" and three octal digits ("#040" is a
// space), then made safe with EncodeName: gophernicus names a directory
// both ways, and it is one local directory. Search (7), CSO (2), telnet (8, T), mirror (+) and "h" URL: items
// are recorded, not followed; info lines stay in the saved menus. With
// RewriteMenus a "gophermap" beside each saved menu points its items at the
// local files, so that DIR can be served by gophernicus or pygopherd (or
// read with urlget file://…). A robots.txt at the server's root (selector
// "/robots.txt") is obeyed unless IgnoreRobots. Where the server speaks
// Gopher+, the "$" attributes of each menu give the items' Mod-Dates.
//
// # Reverse (upload)
//
// With Reverse the tree in Dir is uploaded below an ftp URL, as lftp's
// mirror -R does: the server's directory (made with MKD when missing) is
// listed as for a download (MLSD, LIST, NLST), and a local file is
// uploaded when the server has none of that name, or one of another size,
// or another modification time — MLSD's, else MDTM's, to the second. Each
// upload gets the local time where the server lets a client set it (MFMT,
// else vsftpd's MDTM with a time, else SITE UTIME); on a server that lets
// none, a server time after the local one counts as the same (it is the
// upload's). Files go to a temporary name (".urlget-up-" with the local
// file's path hash, size and time), are checked with SIZE, and only then
// renamed over their name (RNFR, RNTO): a file cut short never has its
// final name, and the next run continues it with APPE when the local file
// is still the one it came from (else it is deleted). Missing directories
// are made; the listings and the uploads run on Parallel connections
// (listings first, as for a download). Symbolic links in Dir are not followed and not
// uploaded. With Delete, what the server has and Dir has not (files, and
// directories with their contents; never what Include and Exclude leave
// out) is deleted once every upload succeeded, within DeleteLimit; without
// it, it is reported as gone. DryRun lists and compares, and changes
// nothing. Nothing is written into Dir (no manifest: the server's listing
// is the state).
//
// # Incremental runs, interrupted runs
//
// DIR/.urlget-mirror.jsonl is the manifest: one JSON line per URL (local
// path, type, size, server time, SHA-256, when fetched, status). Lines are
// appended as items finish, and the file is rewritten with one line per URL
// at the end (see Memory), so that a rerun fetches only what is new or changed, and a
// run that was killed resumes without fetching again what it finished.
// Listings and menus are always read again (they are how changes are
// seen); a file is fetched again when its listing entry changed (size or
// time; for gopher the menu line or the Gopher+ Mod-Date), when the server
// does not answer 304 to the conditions recorded (http), or when its local
// copy is missing or has the wrong size. A gopher document is also fetched
// again when its recorded date (gophernicus's menu minute, the Gopher+
// Mod-Date) could still have been current when it was fetched ("racy":
// the server's time zone unknown, any is allowed), and when its copy's
// size is not what the server states (the Gopher+ "+N" length, exact; the
// +VIEWS size or gophernicus's "50.0 MB", approximate); a document that
// arrives shorter than the stated size allows is a failure, never recorded
// ok (longer is not: gophernicus sends texts with CRLF). One
// whose exact length nothing stated is recorded Unconfirmed, and Verify
// fetches it again and compares.
//
// # Memory
//
// A run does not hold its state per file. The manifest (format version 2)
// is sorted by directory: a run keeps one index entry per directory and
// reads a directory's records when it is listed; the records it changes go
// to the journal at the end of the file, merged into a new sorted manifest
// at the end in one streaming pass (the journal sorted in chunks of 4 MiB,
// spilled to temporary files in DIR). A version 1 manifest, or one with a
// killed run's journal, is merged when it is loaded. The URLs found, the
// manifest's local paths and the files a walker is done with go to such
// sorted scratch files too (past 1 MiB), and the delete sweep, the gone
// marking and the gophermap rewrite are passes over the sorted files. The
// gopher walk, whose documents any menu may link, tells one queued before
// by a set of 16-byte digests, sorted into scratch runs past 16,384 (a
// lookup reads one block of each run), and lets the path table drop a
// menu's files once its items are claimed; the files waiting to be
// fetched are bounded (workers take files first when more than 1,024 are
// queued). What memory holds goes with the
// directories (their index entries, the listed set, directory times) and
// with what failed or is gone.
//
// A sorted file and not an embedded database: bbolt maps its file into
// memory, so a rerun that reads every record counts the whole database in
// the resident set; SQLite needs cgo or modernc.org/sqlite, a large
// dependency to build for every build and CI run. The mirror reads its
// state in one order (directory by directory) and writes it once a run,
// which a sorted file does with the standard library alone, and the file
// stays JSON lines (ReadManifest, or any JSON-lines tool, reads it).
//
// # Safety
//
// Names from the server never leave DIR: each is one path component made
// by EncodeName (no "/", no "..", no leading ".", no control bytes; the
// offending bytes are percent-encoded, nothing is dropped) and the mapping
// is in the manifest. Everything is written through an os.Root, no
// symbolic link is ever followed (not even inside DIR), files are written
// to a new temporary name and renamed into place when complete. An item
// whose kind changed on the server (a link or file now a directory, a
// directory now a file or link) replaces the local copy, swapped in in one
// step, but never a directory holding anything the mirror did not make
// (see replace.go). Cycles (a directory or menu that contains itself, two
// that point at each other) are found from what was visited: host, port and canonical selector or
// path, the MLSD "unique" fact, or a directory whose listing is the same
// as one of its ancestors' — never by depth alone.
package mirror

import (
	"context"
	"errors"
	"maps"
	"os"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// Defaults for the zero fields of Options.
const (
	DefaultParallel  = 4
	DefaultRetries   = 3
	DefaultRetryWait = time.Second
	DefaultMaxFiles  = 100_000
	DefaultMaxDepth  = 50
	DefaultTimeout   = 60 * time.Second
	// maxRetryWait caps the doubling backoff between retries.
	maxRetryWait = 30 * time.Second
)

// Options say what to mirror where, and how.
type Options struct {
	// URL is the ftp, http, https, gopher or gophers URL to mirror: an FTP
	// directory, an HTTP directory index, a gopher menu (or a single
	// document).
	URL string
	// Dir is the local directory (made if needed).
	Dir string

	// Client carries the policy, as for a fetch: for gopher the
	// timeouts, TLS, proxies, MaxFileSize and Verbose; for FTP what
	// Client.Prepare gives (the credentials from User and Password, the
	// URL or netrc; ConnectTimeout, Dialer and a SOCKS proxy; Verbose; the
	// ftp options such as ftp-email and ftp-account). An HTTP proxy cannot
	// carry an FTP mirror (ErrUnsupported). nil: a zero Client.
	Client *fetch.Client

	// Parallel is the number of connections in all (0: DefaultParallel);
	// PerHost caps the connections to one host (0: Parallel). An FTP
	// server that answers 421 ("too many connections") gets fewer.
	Parallel int
	PerHost  int

	// Retries is how many times a failed transfer is tried again (0:
	// DefaultRetries, negative: never), waiting RetryWait (0:
	// DefaultRetryWait) before the first retry, twice that before the
	// next, … at most 30 s. Only transient failures are retried (connect,
	// timeout, partial transfer, FTP 4xx replies); "not found" or "access
	// denied" are not.
	Retries   int
	RetryWait time.Duration

	// MaxFiles stops the run after this many files (0: DefaultMaxFiles,
	// negative: no limit); MaxBytes after this many bytes downloaded (0:
	// no limit); MaxDepth does not go deeper than this many directory or
	// menu levels below the URL (0: DefaultMaxDepth, negative: no limit).
	// A run that hits a limit is incomplete.
	MaxFiles int
	MaxBytes int64
	MaxDepth int

	// Delete removes local files that are gone from the server (only
	// files this mirror made: those in the manifest). With DeleteLimit >
	// 0, more deletions than that are refused (none is made, the run is
	// incomplete); negative refuses every deletion.
	Delete      bool
	DeleteLimit int
	// DryRun reads listings and menus and reports what would be fetched
	// and deleted, writing nothing at all.
	DryRun bool

	// Reverse uploads Dir below URL (an ftp URL) instead: lftp's mirror
	// -R. See the package documentation's "Reverse (upload)".
	Reverse bool

	// Include and Exclude are glob patterns (see the package filter
	// rules in docs/mirror.md: a pattern without "/" matches base names, one
	// with "/" the path below the URL).
	Include, Exclude []string

	// SpanHosts follows gopher items to other hosts and ports.
	SpanHosts bool
	// Parents follows gopher items of the URL's host that lie outside
	// the start selector's directory (wget's --no-parent inverted): the
	// whole host reachable from the URL is mirrored, each item stored by
	// its full selector. Without it only what lies below the start
	// selector is, stored relative to it.
	Parents bool
	// RewriteMenus writes a browsable "gophermap" beside each saved menu.
	RewriteMenus bool
	// IgnoreRobots does not fetch or obey the gopher robots.txt.
	IgnoreRobots bool
	// Refetch fetches every file again, even when its listing entry did
	// not change (a file whose content is the same is left alone).
	Refetch bool
	// Checksum compares every FTP file that sizes and times show
	// unchanged by its SHA-256: the server's (HASH, XSHA256) where it
	// gives one, else by fetching it; and fetches again every gopher
	// document without a Gopher+ date. A copy with the same bytes is left
	// alone.
	Checksum bool
	// Verify hashes every local copy that is judged unchanged again and
	// fetches it anew when its SHA-256 is not the one recorded at fetch
	// time (bit rot, a hand edit); it also fetches again, to compare,
	// every gopher document recorded Unconfirmed (no server stated its
	// length).
	Verify bool

	// WARC, when set, is a file to which every response the run fetches
	// is written as a WARC 1.1 record (ISO 28500), one gzip member each
	// unless the name ends in ".warc": a warcinfo record first (the file
	// is appended to, each run starting its own), then for http the
	// responses as received (directory indexes included; a 304 as a
	// revisit record, profile server-not-modified; a 206 with the bytes
	// it brought; a chunked body, whose framing is lost, with a
	// Content-Length in place of Transfer-Encoding), each after a request
	// record of the request as written on the connection, the two linked
	// by WARC-Concurrent-To; for ftp and gopher a resource record with the
	// URL and a Content-Type (from the name, or the gopher item type), and
	// a metadata record (WARC-Refers-To it) of warc-fields: for ftp the
	// MLSD facts and the commands and replies of the retrieval (MDTM,
	// REST, RETR's 150 and 226), for gopher the item type, the selector,
	// the menu line and the Gopher+ attributes when the server gave them —
	// every record with WARC-Block-Digest and WARC-Payload-Digest (SHA-1,
	// base32), WARC-Date and WARC-Record-ID. Bodies are read back from the
	// local files, never held in memory. Not written by a DryRun.
	WARC string

	// Timeout bounds each wait for the server: an FTP reply, data on a
	// connection, the next bytes of a gopher reply (0: DefaultTimeout). A
	// request that times out is retried.
	Timeout time.Duration

	// Progress, when set, is called every ProgressInterval (0: 200 ms)
	// while the run goes on, and once at the end.
	Progress         func(Progress)
	ProgressInterval time.Duration
	// Event, when set, is called for every item as it is done. Calls may
	// come from several goroutines at once. The failure of the URL itself
	// (its directory or menu could not be read) is not one when it is the
	// error Run returns.
	Event func(Event)
	// Ask, when set, is asked for what the server said it needs when the
	// run failed for it (a *fetch.InputNeededError: a password for the
	// user, at login, before anything was read); the run is made once
	// more with the answers added to a copy of the Client's Options.
	// urlget mirror asks on the terminal. Nil answers: no second run.
	Ask func(error) fetch.Options
}

// Progress is a snapshot of a running mirror.
type Progress struct {
	FilesDone  int64         // files done (new, changed, unchanged, failed, skipped)
	FilesKnown int64         // files found so far
	Dirs       int64         // directories or menus read
	Bytes      int64         // bytes downloaded
	Rate       float64       // bytes per second since the start
	Elapsed    time.Duration //
	Current    []string      // local paths being transferred
	// ToFetch is the sum of the listed sizes of the files queued for
	// fetching so far (FTP; gopher gives no sizes), Fetched how much of
	// them has arrived (a resumed file counts what it had): the progress
	// line's percentage and ETA.
	ToFetch, Fetched int64
}

// EventKind says what happened to the item of an Event.
type EventKind string

// Event kinds. Their values are the words the CLI prints.
const (
	EventNew       EventKind = "new"          // fetched for the first time
	EventChanged   EventKind = "changed"      // fetched again: it changed on the server
	EventUnchanged EventKind = "unchanged"    // the local copy is current: not fetched
	EventDeleted   EventKind = "deleted"      // gone from the server: the local copy was deleted (Delete)
	EventGone      EventKind = "gone"         // gone from the server: the local copy was kept
	EventFailed    EventKind = "failed"       // could not be mirrored (Err says why)
	EventSkipped   EventKind = "skipped"      // deliberately not mirrored (Err says why), or a note without URL
	EventRecorded  EventKind = "recorded"     // a link, search or session: recorded in the manifest, not fetched
	EventLinked    EventKind = "linked"       // a symbolic link was made (or replaced) inside the mirror
	EventDir       EventKind = "dir"          // a directory or menu was read
	EventWouldGet  EventKind = "would-fetch"  // DryRun: would be fetched (Err says "new" or "changed")
	EventWouldDel  EventKind = "would-delete" // DryRun: would be deleted
)

// Event reports one item done.
type Event struct {
	Kind EventKind
	URL  string
	Path string // local path, relative to Dir
	Size int64
	Err  error // for EventFailed and EventSkipped
	// Why says why a file was fetched (new, changed, unchanged,
	// would-fetch): what the listing or the server's answers showed.
	Why string
}

// Summary says what a run did.
type Summary struct {
	URL        string        `json:"url"`
	Dir        string        `json:"dir"`
	New        int64         `json:"new"`
	Changed    int64         `json:"changed"`
	Unchanged  int64         `json:"unchanged"`
	Deleted    int64         `json:"deleted"`
	Gone       int64         `json:"gone"` // gone from the server, kept (no Delete)
	Failed     int64         `json:"failed"`
	Skipped    int64         `json:"skipped"`
	Recorded   int64         `json:"recorded"` // links, searches, sessions: recorded, not fetched
	Links      int64         `json:"links"`    // symbolic links made inside the mirror (or there already)
	Dirs       int64         `json:"dirs"`     // directories or menus read
	Bytes      int64         `json:"bytes"`    // bytes downloaded (files, listings and menus)
	Duration   time.Duration `json:"-"`
	Seconds    float64       `json:"seconds"`
	DryRun     bool          `json:"dry_run,omitempty"`
	Reverse    bool          `json:"reverse,omitempty"`    // an upload (Options.Reverse): Dir to URL
	Incomplete []string      `json:"incomplete,omitempty"` // why the mirror is not complete
	// Failures are the first MaxFailures items that failed (Failed counts
	// them all; each is an Event as it happens).
	Failures []Failure `json:"failures,omitempty"`
}

// MaxFailures bounds Summary.Failures: a run holds no more of them.
const MaxFailures = 1000

// Failure is one item that could not be mirrored.
type Failure struct {
	URL   string `json:"url"`
	Path  string `json:"path,omitempty"`
	Error string `json:"error"`
}

// ErrIncomplete is wrapped by the error Run returns when the run went
// through but the mirror is not complete: some items failed, a limit was
// reached, or deletions were refused.
var ErrIncomplete = errors.New("mirror incomplete")

// IncompleteError is that error: Reasons says why.
type IncompleteError struct {
	Failed  int64
	Reasons []string
}

func (e *IncompleteError) Error() string {
	return "mirror incomplete: " + strings.Join(e.Reasons, "; ")
}

func (e *IncompleteError) Unwrap() error { return ErrIncomplete }

// Run mirrors opt.URL into opt.Dir. It returns the summary and, when not
// everything was mirrored, an error: one wrapping ErrIncomplete (see
// IncompleteError) when the run went through but some items failed or a
// limit stopped it (a *fetch.Error of kind ErrWrite wrapping it when a
// local copy could not be written: one this process may not write is left
// as it is, and the run is curl's 23, as -o); a *fetch.Error when the URL itself could not be read
// (its Kind gives the exit code), or the context's error (ErrAborted,
// ErrTimeout) when it was cancelled; another error for a local problem
// (the directory cannot be written, it is a mirror of another URL, another
// run holds it).
//
// A run that fails or is cancelled before anything was mirrored removes
// the directory Dir when it made it and it is empty.
func Run(ctx context.Context, opt Options) (Summary, error) {
	_, statErr := os.Stat(opt.Dir)
	sum, err := run(ctx, opt)
	var ine *fetch.InputNeededError
	if errors.As(err, &ine) && opt.Ask != nil && opt.Client != nil {
		if a := opt.Ask(err); a != nil {
			cl := *opt.Client
			cl.Options = fetch.Options{}
			maps.Copy(cl.Options, opt.Client.Options)
			maps.Copy(cl.Options, a)
			opt.Client = &cl
			sum, err = run(ctx, opt)
		}
	}
	if err != nil && !errors.Is(err, ErrIncomplete) && !opt.Reverse && os.IsNotExist(statErr) && sum.New == 0 && sum.Changed == 0 {
		os.Remove(opt.Dir) // removes only an empty directory
	}
	return sum, err
}

func run(ctx context.Context, opt Options) (Summary, error) {
	u, err := urlparse.Parse(opt.URL)
	if err != nil {
		return Summary{URL: opt.URL, Dir: opt.Dir, Reverse: opt.Reverse}, &fetch.Error{Kind: fetch.ErrMalformed, URL: opt.URL, Err: err}
	}
	if opt.Dir == "" {
		return Summary{URL: opt.URL, Reverse: opt.Reverse}, errors.New("mirror: no local directory given")
	}
	if opt.Reverse {
		return runReverse(ctx, opt, &u)
	}
	e, err := newEngine(ctx, opt, &u)
	if err != nil {
		return Summary{URL: fetch.Redacted(&u), Dir: opt.Dir}, err
	}
	defer e.close()
	return e.end(e.run())
}

// verifyWhy is why Verify fetches a file again.
const verifyWhy = "mirror.Options.Verify: the local copy's SHA-256 is not the one recorded when it was fetched (changed on disk)"

// canonicalURL is the URL as the manifest names it: without a password.
func canonicalURL(u *urlparse.URL) string {
	r := u.Ref
	r.RawUserinfo, r.HasUserinfo, r.HasPassword = "", false, false
	if u.HasUserinfo && u.User != "" {
		r.RawUserinfo, r.HasUserinfo = urlparse.UserinfoEscape(u.User), true
	}
	r.Fragment, r.RawFragment, r.HasFragment = "", "", false
	return r.String()
}
