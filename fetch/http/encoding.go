package http

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/urlget/urlget/fetch"
)

// acceptEncoding is the Accept-Encoding of Config.Compressed: the codings
// decoders has, in curl 7.88's order.
const acceptEncoding = "deflate, gzip, br, zstd"

// maxCodings is the most content codings a reply may list, curl's bound:
// each is a decoder stacked on the others.
const maxCodings = 5

// zstdMaxWindow is the largest zstd window decoded: RFC 9659's bound for
// the zstd content coding (8 MiB), which keeps a reply from making the
// decoder hold more.
const zstdMaxWindow = 8 << 20

// decoders open a decoding reader for each Content-Encoding decoded:
// deflate (RFC 9110 §8.4.1.2: the zlib format, RFC 1950; the raw deflate
// data, RFC 1951, that some servers send instead is taken too, as curl
// takes it), gzip (RFC 1952) with compress/gzip, br (RFC 7932) with
// github.com/andybalholm/brotli and zstd (RFC 8878) with
// github.com/klauspost/compress/zstd, both pure Go and maintained
// (the standard library has neither).
var decoders = map[string]func(io.Reader) (io.Reader, error){
	"deflate": inflate,
	"gzip":    gunzip,
	"x-gzip":  gunzip,
	"br":      func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil },
	"zstd": func(r io.Reader) (io.Reader, error) {
		d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdMaxWindow), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, err
		}
		return d.IOReadCloser(), nil
	},
}

// inflate opens a deflate body: zlib's format when its first two bytes
// are a zlib header (method 8, the check bits right), else raw deflate.
func inflate(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	if h, err := br.Peek(2); err == nil && h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
		return zlib.NewReader(br)
	}
	return flate.NewReader(br), nil
}

// codings opens the decoders of a list of content codings (what is
// "content") or transfer codings ("transfer"), as splitList gives it
// (RFC 9110 §8.4: in the order applied, "identity" none), undone last
// first. nil when there are none, or one urlget does not decode (the body
// is then passed on as it is); ErrBadEncoding past maxCodings.
func codings(list []string, what string) (func(io.Reader) (io.Reader, error), error) {
	var opens []func(io.Reader) (io.Reader, error)
	for n, c := range list {
		if n+1 > maxCodings {
			return nil, &fetch.Error{Kind: fetch.ErrBadEncoding, Msg: fmt.Sprintf("the reply lists more than %d %s codings", maxCodings, what)}
		}
		if c == "identity" {
			continue
		}
		open := decoders[c]
		if open == nil {
			return nil, nil
		}
		opens = append(opens, open)
	}
	if len(opens) == 0 {
		return nil, nil
	}
	return func(r io.Reader) (io.Reader, error) {
		for i := len(opens) - 1; i >= 0; i-- {
			d, err := opens[i](r)
			if err != nil {
				return nil, err
			}
			r = d
		}
		return r, nil
	}, nil
}

// gunzip opens a gzip body (RFC 1952). The first member's header is read
// here, its name and comment of any length (compress/gzip refuses those
// over 512 bytes, which curl's zlib takes); gzip.Reader reads the rest.
func gunzip(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	hdr, err := gzipHeader(br)
	if err != nil {
		return nil, err
	}
	return gzip.NewReader(io.MultiReader(bytes.NewReader(hdr), br))
}

// gzipHeader reads a gzip member's header (RFC 1952 §2.3) from br and
// returns it without its optional fields (FEXTRA, FNAME, FCOMMENT,
// FHCRC, which it checks): the ten bytes, flags cleared, that gzip.Reader
// reads as the same header. The fields are skipped, not kept: a name or
// comment may be as long as the body.
func gzipHeader(br *bufio.Reader) ([]byte, error) {
	const (
		fhcrc    = 1 << 1
		fextra   = 1 << 2
		fname    = 1 << 3
		fcomment = 1 << 4
	)
	crc := crc32.NewIEEE()
	r := io.TeeReader(br, crc)
	hdr := make([]byte, 10)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, gzip.ErrHeader
	}
	flg := hdr[3]
	if hdr[0] != 0x1f || hdr[1] != 0x8b || hdr[2] != 8 || flg&0xe0 != 0 {
		return nil, gzip.ErrHeader
	}
	if flg&fextra != 0 {
		var n [2]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return nil, gzip.ErrHeader
		}
		if _, err := io.CopyN(io.Discard, r, int64(n[0])|int64(n[1])<<8); err != nil {
			return nil, gzip.ErrHeader
		}
	}
	for _, f := range []byte{fname, fcomment} {
		if flg&f == 0 {
			continue
		}
		for {
			b, err := br.ReadByte()
			if err != nil {
				return nil, gzip.ErrHeader
			}
			crc.Write([]byte{b})
			if b == 0 {
				break
			}
		}
	}
	if flg&fhcrc != 0 {
		sum := uint16(crc.Sum32())
		var c [2]byte
		if _, err := io.ReadFull(br, c[:]); err != nil || uint16(c[0])|uint16(c[1])<<8 != sum {
			return nil, gzip.ErrHeader
		}
	}
	hdr[3] = 0
	return hdr, nil
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
	return &fetch.Error{Kind: fetch.ErrBadEncoding, Msg: "the body could not be decoded: its coding is corrupt or cut short", Err: fetch.Quiet(err)}
}

func (g *decoder) Close() error {
	if c, ok := g.dec.(io.Closer); ok {
		c.Close()
	}
	return g.raw.Close()
}
