package fetch

import "io"

// OptCRLF, set to "1", keeps network text's CRLF line ends without the rest
// of OptRaw (a gopher text's "." handling, error detection): what a mirror's
// byte-exact copy asks for. No flag sets it.
const OptCRLF = "crlf"

// OptAsSent, set to "1" by a caller that writes the result where no person
// reads it (a file, a pipe: Downloader.Readable unset), asks for a gopher
// menu or text as the server sent it, its "." line and CRLF line ends
// included, as curl writes it; errors are still told (a gopher error item
// is still ErrNotFound). Network text whose conversion is the protocol's
// own (an ftp ASCII transfer, a news article) keeps it. No flag sets it.
const OptAsSent = "as-sent"

// TextReader is how a fetcher passes on network text (lines ending in
// CRLF): LFReader(r), the lines ending in LF as a person or a pipe
// expects, unless opts ask for the wire's line ends (OptRaw or OptCRLF).
func TextReader(r io.Reader, opts Options) io.Reader {
	for _, k := range []string{OptRaw, OptCRLF} {
		if keep, _ := opts.Bool(k); keep {
			return r
		}
	}
	return LFReader(r)
}

// LFReader turns network text (lines ending in CRLF: an FTP TYPE A
// transfer or listing, a news article, gopher text) into local text (lines
// ending in LF), as curl and lftp print it: every CR directly followed by
// LF is dropped; any other CR is kept.
func LFReader(r io.Reader) io.Reader {
	return &crlfReader{r: r, buf: make([]byte, 32<<10)}
}

// crlfReader is LFReader's reader.
type crlfReader struct {
	r    io.Reader
	buf  []byte
	i, n int
	cr   bool // a CR was read and not yet passed on
	err  error
}

func (a *crlfReader) Read(p []byte) (int, error) {
	w := 0
	for w < len(p) {
		if a.i == a.n {
			if a.err != nil || w > 0 {
				break
			}
			n, err := a.r.Read(a.buf)
			a.i, a.n, a.err = 0, n, err
			continue
		}
		c := a.buf[a.i]
		if a.cr {
			a.cr = false
			if c == '\n' {
				p[w] = '\n'
				w++
				a.i++
			} else {
				p[w] = '\r'
				w++
			}
			continue
		}
		a.i++
		if c == '\r' {
			a.cr = true
			continue
		}
		p[w] = c
		w++
	}
	if w == 0 && len(p) > 0 && a.i == a.n && a.err != nil {
		if a.cr {
			a.cr = false
			p[0] = '\r'
			return 1, nil
		}
		return 0, a.err
	}
	return w, nil
}
