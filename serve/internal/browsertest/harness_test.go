package browsertest

import (
	"bytes"
	"context"
	"flag"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/urlget/urlget/internal/testserver"
)

// A headless chromium for the browser tests, driven with chromedp: a fresh
// profile in a temporary directory, no proxy, every host name but
// 127.0.0.1 unresolvable (the tests stay on this machine), downloads kept
// in a temporary directory, and every console error, uncaught exception and
// browser log error (a refused script, a failed load) recorded.
type browserT struct {
	t        *testing.T
	ctx      context.Context
	download string
	log      *consoleLog
}

// on is the browser for the (sub)test t, with what pages reported before
// forgotten.
func (b *browserT) on(t *testing.T) *browserT {
	c := *b
	c.t = t
	c.log.take()
	return &c
}

// consoleLog holds what the page reported since the last look.
type consoleLog struct {
	mu       sync.Mutex
	problems []string
}

// stepTimeout bounds one step (a navigation, a click and its page).
const stepTimeout = 30 * time.Second

func startBrowser(t *testing.T) *browserT {
	t.Helper()
	bin := testserver.Require(t, "chromium")
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("no-proxy-server", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.WindowSize(1000, 640),
	)
	if os.Geteuid() == 0 {
		// Chromium's sandbox refuses to run as root.
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	b := &browserT{t: t, download: t.TempDir(), log: &consoleLog{}}
	var cancel context.CancelFunc
	b.ctx, cancel = chromedp.NewContext(actx, chromedp.WithListener(b.log.record))
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(b.ctx); err != nil {
		t.Fatalf("starting chromium (%s): %v", bin, err)
	}
	yes := true
	if _, err := chromedp.CallBrowser(b.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior:      browser.SetDownloadBehaviorBehaviorAllowAndName,
		DownloadPath:  b.download,
		EventsEnabled: &yes,
	}); err != nil {
		t.Fatalf("chromium: setting the download directory: %v", err)
	}
	return b
}

// record keeps the console errors, exceptions and log errors of the page.
// It runs in the tab's event loop: it only appends.
func (l *consoleLog) record(ev any) {
	var p string
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range ev.Args {
				if a.Value != nil {
					args = append(args, string(a.Value))
				} else {
					args = append(args, a.Description)
				}
			}
			p = "console." + string(ev.Type) + ": " + strings.Join(args, " ")
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		p = "exception: " + d.Text
		if d.Exception != nil {
			p += " " + d.Exception.Description
		}
	case *log.EventEntryAdded:
		if e := ev.Entry; e.Level == log.EntryLevelError {
			p = "log (" + string(e.Source) + "): " + e.Text + " " + e.URL
		}
	}
	if p != "" {
		l.mu.Lock()
		l.problems = append(l.problems, p)
		l.mu.Unlock()
	}
}

// take returns the problems recorded since the last call.
func (l *consoleLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.problems
	l.problems = nil
	return p
}

// noProblems fails the test if the page logged an error since the last
// check.
func (b *browserT) noProblems(what string) {
	b.t.Helper()
	for _, p := range b.log.take() {
		b.t.Errorf("%s: the browser reported %s", what, p)
	}
}

// step runs actions with a time limit.
func (b *browserT) step(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// load runs actions that lead to a new page (a navigation, a click on a
// link, a form submitted) and waits for it; the page must answer 200.
func (b *browserT) load(what string, actions ...chromedp.Action[chromedp.Void]) *network.Response {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	res, err := chromedp.RunResponse(ctx, actions...)
	if err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	if res.Status != http.StatusOK {
		b.t.Fatalf("%s: %s answered %d %s", what, res.URL, res.Status, res.StatusText)
	}
	return res
}

// value runs an action that returns a value, with a time limit.
func value[T any](b *browserT, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// text is the page's visible text (document.body.innerText).
func (b *browserT) text(what string) string {
	b.t.Helper()
	return value(b, what, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
}

// downloadClick clicks sel, which must start a download, waits for it to
// finish and returns the downloaded file's bytes.
func (b *browserT) downloadClick(what string, sel chromedp.Search) []byte {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	events := chromedp.BrowserEvents(ctx, browser.DownloadProgress)
	if err := chromedp.Do(ctx, chromedp.Click(sel)); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	for ev, err := range events {
		if err != nil {
			b.t.Fatalf("%s: waiting for the download: %v", what, err)
		}
		switch ev.State {
		case browser.DownloadProgressStateCompleted:
			data, err := os.ReadFile(filepath.Join(b.download, ev.GUID))
			if err != nil {
				b.t.Fatalf("%s: %v", what, err)
			}
			return data
		case browser.DownloadProgressStateCanceled:
			b.t.Fatalf("%s: the download was cancelled", what)
		}
	}
	b.t.Fatalf("%s: no download", what)
	return nil
}

var screenshots = flag.String("screenshots", "", "write the browser tests' screenshots (PNG) into this directory, e.g. docs")

// screenshot takes a picture of the page's viewport, which must show
// something (more than a few colours: the page was drawn); with
// -screenshots DIR it is written to DIR/name.png.
func (b *browserT) screenshot(name string) {
	b.t.Helper()
	buf := value(b, "screenshot "+name, chromedp.CaptureScreenshot())
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	colors := map[color.Color]bool{}
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y += 4 {
		for x := r.Min.X; x < r.Max.X; x += 4 {
			colors[img.At(x, y)] = true
		}
	}
	if len(colors) < 3 {
		b.t.Errorf("screenshot %s: %d colours in %v: the page shows nothing", name, len(colors), r.Size())
	}
	if *screenshots != "" {
		if err := os.WriteFile(filepath.Join(*screenshots, name+".png"), buf, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
}

// TestBrowserHarness checks the harness itself on a page of its own: a
// strict CSP blocks the page's inline script and the harness sees the
// refusal, a script error is seen, a download arrives whole.
func TestBrowserHarness(t *testing.T) {
	b := startBrowser(t)
	payload := []byte("\x00\x01binary\r\n\xff")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/csp":
			w.Header().Set("Content-Security-Policy", "default-src 'none'")
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<title>kept</title><p>csp</p><script>document.title="ran"</script>`))
		case "/throws":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<title>t</title><p>throws</p><script>throw new Error("harness-check")</script>`))
		case "/":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<title>t</title><a href="/file.bin">file</a>`))
		case "/favicon.ico":
			w.WriteHeader(http.StatusNoContent)
		case "/file.bin":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(payload)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	b.load("csp page", chromedp.Navigate(srv.URL+"/csp"))
	if title := value(b, "title", chromedp.Title()); title != "kept" {
		t.Errorf("the inline script ran under default-src 'none': title %q", title)
	}
	if p := b.log.take(); len(p) == 0 || !strings.Contains(strings.Join(p, "\n"), "Content Security Policy") {
		t.Errorf("the harness did not see the CSP refusal: %q", p)
	}
	b.load("throwing page", chromedp.Navigate(srv.URL+"/throws"))
	if p := b.log.take(); len(p) == 0 || !strings.Contains(strings.Join(p, "\n"), "harness-check") {
		t.Errorf("the harness did not see the exception: %q", p)
	}
	b.load("link page", chromedp.Navigate(srv.URL+"/"))
	if got := b.downloadClick("download", `//a[text()="file"]`); string(got) != string(payload) {
		t.Errorf("downloaded %q, want %q", got, payload)
	}
	b.noProblems("download")
}
