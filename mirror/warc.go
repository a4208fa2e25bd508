package mirror

import (
	"io"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// archive writes a response whose body (n bytes) is body to the WARC file.
func (e *engine) archive(res *fetch.Resource, u *urlparse.URL, body io.Reader, n int64) {}

// archiveFile writes a response whose body is what tmp holds.
func (e *engine) archiveFile(res *fetch.Resource, u *urlparse.URL, tmp *tmpFile) error { return nil }
