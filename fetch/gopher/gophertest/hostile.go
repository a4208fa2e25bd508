package gophertest

import (
	"bytes"
	"fmt"
	"strconv"
	"time"
)

// Bytes answers every request with b and closes.
func Bytes(b []byte) Handler {
	return HandlerFunc(func(c *Conn, r *Request) { c.Write(b) })
}

// HugeLine answers with a menu whose first line is an item whose display
// string is n bytes long, then a normal item and "." — written in pieces,
// never held whole.
func HugeLine(n int64) Handler {
	return HandlerFunc(func(c *Conn, r *Request) {
		if _, err := c.WriteString("0"); err != nil {
			return
		}
		chunk := bytes.Repeat([]byte{'x'}, 64<<10)
		for left := n; left > 0; {
			k := min(left, int64(len(chunk)))
			if _, err := c.Write(chunk[:k]); err != nil {
				return
			}
			left -= k
		}
		line := "\t/huge\t" + c.Server.Host + "\t" + strconv.Itoa(c.Server.Port) + "\r\n"
		c.WriteString(line)
		c.WriteString("0After\t/after\t" + c.Server.Host + "\t" + strconv.Itoa(c.Server.Port) + "\r\n.\r\n")
	})
}

// ManyItems answers with a menu of n items ("0Item K" TAB "/item/K"), then
// ".", generated as it is written.
func ManyItems(n int) Handler {
	return HandlerFunc(func(c *Conn, r *Request) {
		var b []byte
		suffix := "\t" + c.Server.Host + "\t" + strconv.Itoa(c.Server.Port) + "\r\n"
		for i := 0; i < n; i++ {
			b = append(b, "0Item "...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, "\t/item/"...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, suffix...)
			if len(b) > 60<<10 || i == n-1 {
				if _, err := c.Write(b); err != nil {
					return
				}
				b = b[:0]
			}
		}
		c.WriteString(".\r\n")
	})
}

// ArchiveMenu returns a menu of n items of an archive server, "." included:
// the lines bench/gopher-menu.sh serves, for benchmarks of rendering.
func ArchiveMenu(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "0File number %d of the archive\t/pub/archive/file-%08d.txt\tgopher.example.org\t70\r\n", i, i)
	}
	b.WriteString(".\r\n")
	return b.Bytes()
}

// Endless writes the byte c forever (no line end), until the client goes
// away or the server closes.
func Endless(fill byte) Handler {
	return HandlerFunc(func(c *Conn, r *Request) {
		chunk := bytes.Repeat([]byte{fill}, 64<<10)
		for {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	})
}

// NoClose writes b and then keeps the connection open without sending
// anything more, until the server closes.
func NoClose(b []byte) Handler {
	return HandlerFunc(func(c *Conn, r *Request) {
		c.Write(b)
		<-c.Done()
	})
}

// Trickle writes b one byte at a time, every interval.
func Trickle(b []byte, every time.Duration) Handler {
	return HandlerFunc(func(c *Conn, r *Request) {
		t := time.NewTicker(every)
		defer t.Stop()
		for i := range b {
			select {
			case <-t.C:
			case <-c.Done():
				return
			}
			if _, err := c.Write(b[i : i+1]); err != nil {
				return
			}
		}
	})
}

// Stall reads the request and never answers, until the server closes.
func Stall() Handler {
	return HandlerFunc(func(c *Conn, r *Request) { <-c.Done() })
}

// EarlyClose announces n bytes with a Gopher+ "+n" header, sends only
// data, and closes.
func EarlyClose(n int, data []byte) Handler {
	return HandlerFunc(func(c *Conn, r *Request) {
		c.WriteString("+" + strconv.Itoa(n) + "\r\n")
		c.Write(data)
	})
}
