package ftp

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/urlget/urlget/fetch"
)

// dataBody streams a RETR, LIST, NLST or MLSD reply from the data
// connection. It reports io.EOF only once the data connection has ended,
// the server's final reply (226/250) has arrived and the data are every
// size the server stated (SIZE, the 150 reply: Transfer.Expect); anything
// else is ErrPartial.
type dataBody struct {
	f     *Fetcher
	c     *pconn
	ctx   context.Context
	data  *Transfer
	r     io.Reader // data, or an ASCII converter around it
	ascii bool
	final bool // the final reply came instead of a 1xx: none to wait for
	what  string
	// stop: the body ends after limit bytes though the file may go on
	// (a Range): then the transfer is aborted (Transfer.Abort).
	stop  bool
	limit int64
	res   *fetch.Resource // its Status becomes the final reply's (226) at the end
	post  []quoteCmd      // ftp-quote: its "-" commands go once the transfer succeeded

	err    error // sticky: io.EOF or a typed error
	inStep bool  // the control connection has no reply outstanding
	closed bool
}

func (b *dataBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	n, err := b.r.Read(p)
	if err != nil {
		b.end(err)
		if n > 0 {
			return n, nil // the error is returned by the next Read
		}
		return 0, b.err
	}
	return n, nil
}

// stopAt ends the body after n bytes of the data connection: what would
// come after them is refused with ABOR.
func (b *dataBody) stopAt(n int64) {
	b.limit, b.stop = n, true
	var src io.Reader = io.LimitReader(b.data, n)
	b.r = src
	if b.ascii {
		b.r = fetch.LFReader(src)
	}
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// WriteTo copies the rest of the body to w through one large buffer.
func (b *dataBody) WriteTo(w io.Writer) (int64, error) {
	if b.err != nil {
		if b.err == io.EOF {
			return 0, nil
		}
		return 0, b.err
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	var total int64
	for {
		nr, er := b.r.Read(buf)
		if nr > 0 {
			nw, ew := w.Write(buf[:nr])
			total += int64(nw)
			if ew == nil && nw < nr {
				ew = io.ErrShortWrite
			}
			if ew != nil {
				b.c.broken = true
				b.err = ew
				return total, ew
			}
		}
		if er != nil {
			b.end(er)
			if b.err == io.EOF {
				return total, nil
			}
			return total, b.err
		}
	}
}

// Straight is the data connection itself (fetch.StraightBody) for a binary
// transfer read to its end with no stall timeout of its own (SetTimeout,
// which every Read re-arms); nil otherwise, and whenever the body reads
// the data through something (an ASCII transfer's or a listing's CRLF
// made LF: fetch.TextReader), which the kernel's copy would go round.
func (b *dataBody) Straight() io.Reader {
	if b.err != nil || b.ascii || b.stop || b.r != io.Reader(b.data) || b.data.data == nil || b.data.c.timeout > 0 {
		return nil
	}
	return fetch.StraightConn(b.data.data)
}

// Took counts bytes read from the data connection past the body, as the
// Transfer counts its reads (what the sizes stated are compared with).
func (b *dataBody) Took(n int64) { b.data.took(n) }

// wireBytes is Resource.WireBytes: the bytes of the data connection,
// before any conversion of line ends.
func (b *dataBody) wireBytes() int64 { return b.data.n }

// end handles the end of the data stream: EOF means read the final reply.
func (b *dataBody) end(err error) {
	if err != io.EOF {
		b.data.Close()
		b.c.broken = true
		b.err = dataError(b.ctx, b.what, err)
		return
	}
	if b.stop && b.data.n == b.limit {
		b.c.raw.SetReadDeadline(time.Now().Add(b.f.finalTimeout()))
		_, aerr := b.data.Abort()
		b.c.raw.SetReadDeadline(time.Time{})
		// curl ends the session after an ABOR (QUIT): so does the pool.
		b.c.reusable = false
		if aerr != nil {
			b.c.broken = true
		}
		b.inStep = true
		b.err = io.EOF
		return
	}
	if !b.final {
		b.c.raw.SetReadDeadline(time.Now().Add(b.f.finalTimeout()))
		r, rerr := b.data.finish()
		b.c.raw.SetReadDeadline(time.Time{})
		if rerr != nil {
			b.c.broken = true
			if b.ctx.Err() != nil {
				b.err = fetch.ContextError(b.ctx)
				return
			}
			b.err = &fetch.Error{Kind: fetch.ErrPartial, Msg: "ftp: " + b.what + ": no final reply after the data connection closed", Err: rerr}
			return
		}
		b.inStep = true
		if !r.Positive() {
			b.err = replyError(fetch.ErrPartial, "ftp: "+b.what+": transfer failed", b.what, r)
			return
		}
		if b.res != nil {
			b.res.Status = r.code // the final reply, curl's response_code
		}
	} else {
		b.data.Close()
		b.inStep = true
	}
	if err := b.data.checkSize(); err != nil {
		// The server's word (226) and the data disagree: the session
		// is not trusted further and ends without QUIT, as curl's
		// (its test 161).
		b.c.broken = true
		b.err = err
		return
	}
	if err := b.f.quote(b.ctx, b.c, b.post, quoteAfter); err != nil {
		b.err = err
		return
	}
	b.err = io.EOF
}

// Close releases the data connection. After a complete transfer the
// control connection goes back to the pool; after an early Close it is
// closed, since the server's reply to the abandoned transfer is still due.
func (b *dataBody) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	b.data.Close()
	if b.inStep && !b.c.broken {
		b.f.release(b.c)
	} else {
		b.c.Close()
	}
	if b.err == nil {
		b.err = &fetch.Error{Kind: fetch.ErrOther, Msg: "ftp: read from a closed body"}
	}
	return nil
}

// doneBody is the empty Body of a result that needed no data connection
// (HEAD, a resume with nothing left, an upload); Close releases the
// control connection.
type doneBody struct {
	f    *Fetcher
	c    *pconn
	once sync.Once
}

func (d *doneBody) Read([]byte) (int, error) { return 0, io.EOF }
func (d *doneBody) Close() error {
	d.once.Do(func() {
		if d.c != nil {
			d.f.release(d.c)
		}
	})
	return nil
}

// lfToCRLF turns local text into NVT-ASCII for a TYPE A upload: every LF
// not already preceded by CR gets one.
type lfToCRLF struct {
	r    io.Reader
	buf  []byte
	out  []byte
	last byte
	err  error
}

func (l *lfToCRLF) Read(p []byte) (int, error) {
	for len(l.out) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		if l.buf == nil {
			l.buf = make([]byte, 16<<10)
		}
		n, err := l.r.Read(l.buf)
		l.err = err
		out := l.out[:0]
		for _, c := range l.buf[:n] {
			if c == '\n' && l.last != '\r' {
				out = append(out, '\r')
			}
			out = append(out, c)
			l.last = c
		}
		l.out = out
	}
	n := copy(p, l.out)
	l.out = l.out[n:]
	return n, nil
}
