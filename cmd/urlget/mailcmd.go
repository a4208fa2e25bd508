package main

import (
	"io"
	"os"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/mailto"
)

// mailRequest fills in a mailto request (see fetch/mailto):
//   - -T FILE, or -T - for stdin, is the message text after the URL's body=;
//   - -o FILE (or -O) writes the composed message instead of sending it,
//     as --dry-run does;
//   - warnings go to stderr (Client.Warnings).
//
// On a terminal the fetcher asks before sending (fetch.OptInteractive,
// answered by askUser) unless --yes. It returns what to close after the
// attempt.
func (c *fetchCmd) mailRequest(req *fetch.Request, out *output) (io.Closer, error) {
	opts := fetch.Options{}
	for k, v := range req.Options {
		opts[k] = v
	}
	if out.path != "" {
		opts[mailto.OptDryRun] = "1"
	}
	req.Options = opts
	req.BodySize = -1
	switch c.o.uploadFile {
	case "":
		return io.NopCloser(nil), nil
	case "-":
		req.Body = c.e.stdin
		return io.NopCloser(nil), nil
	}
	f, err := os.Open(c.o.uploadFile)
	if err != nil {
		return nil, fetch.NewError(fetch.ErrRead, "-T/--upload-file", err)
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		req.BodySize = st.Size()
	}
	req.Body = f
	return f, nil
}
