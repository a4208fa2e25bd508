package http

import (
	"compress/gzip"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/urlget/urlget/fetch"
)

// acceptEncoding is the Accept-Encoding of Config.Compressed: the codings
// decoders has (curl 7.88 offers deflate too).
const acceptEncoding = "gzip, br, zstd"

// zstdMaxWindow is the largest zstd window decoded: RFC 9659's bound for
// the zstd content coding (8 MiB), which keeps a reply from making the
// decoder hold more.
const zstdMaxWindow = 8 << 20

// decoders open a decoding reader for each Content-Encoding decoded:
// gzip (RFC 1952) with compress/gzip, br (RFC 7932) with
// github.com/andybalholm/brotli and zstd (RFC 8878) with
// github.com/klauspost/compress/zstd, both pure Go and maintained
// (the standard library has neither).
var decoders = map[string]func(io.Reader) (io.Reader, error){
	"gzip":   func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) },
	"x-gzip": func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) },
	"br":     func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil },
	"zstd": func(r io.Reader) (io.Reader, error) {
		d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdMaxWindow), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, err
		}
		return d.IOReadCloser(), nil
	},
}

// srcReader is the raw body, counted (the bytes on the wire), its read
// error kept: a decoder's error that is not its source's is the coding's.
type srcReader struct {
	fetch.CountingReader
	err error
}

func (s *srcReader) Read(p []byte) (int, error) {
	n, err := s.CountingReader.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

// decoder decodes a body, at most max bytes (0: no cap).
type decoder struct {
	raw  io.ReadCloser
	src  *srcReader
	open func(io.Reader) (io.Reader, error)
	dec  io.Reader
	n    int64
	max  int64
	err  error
}

func newDecoder(raw io.ReadCloser, open func(io.Reader) (io.Reader, error), max int64) *decoder {
	return &decoder{raw: raw, src: &srcReader{CountingReader: fetch.CountingReader{R: raw}}, open: open, max: max}
}

func (g *decoder) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.dec == nil {
		dec, err := g.open(g.src)
		if err != nil {
			g.err = g.decodeError(err)
			return 0, g.err
		}
		g.dec = dec
	}
	if g.max > 0 && int64(len(p)) > g.max-g.n+1 {
		p = p[:g.max-g.n+1]
	}
	n, err := g.dec.Read(p)
	if g.max > 0 && g.n+int64(n) > g.max {
		n = int(g.max - g.n)
		g.n = g.max
		g.err = &fetch.Error{Kind: fetch.ErrTooLarge, Msg: fmt.Sprintf("decompressed body over %d bytes", g.max)}
		return n, g.err
	}
	g.n += int64(n)
	if err != nil {
		g.err = g.decodeError(err)
	}
	return n, g.err
}

// decodeError types a decoder's error: the source's as it is, the end as
// io.EOF, anything else (a corrupt or truncated coding) ErrBadEncoding.
func (g *decoder) decodeError(err error) error {
	switch {
	case err == io.EOF:
		return io.EOF
	case g.src.err != nil:
		return g.src.err
	}
	return &fetch.Error{Kind: fetch.ErrBadEncoding, Msg: "the body could not be decoded", Err: err}
}

func (g *decoder) Close() error {
	if c, ok := g.dec.(io.Closer); ok {
		c.Close()
	}
	return g.raw.Close()
}
