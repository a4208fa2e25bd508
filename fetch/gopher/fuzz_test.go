package gopher

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/urlget/urlget/urlparse"
)

func FuzzParseItem(f *testing.F) {
	for _, s := range []string{
		"0Hello\t/hello.txt\t127.0.0.1\t41070\r\n", "1Docs\t/docs\th\t70\t+", "iInfo", "3err\t\terror.host\t1",
		"hX\tURL:http://x/\th\t70", "0a\t/%41?#\th\t65535", "0\x80\xff\t/\x00\th\t1\t?", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		it, err := ParseItem(line)
		if it.Raw != string(trimEOL(line)) {
			t.Fatalf("Raw %q for %q", it.Raw, line)
		}
		if (err != nil) != it.Unparsed {
			t.Fatalf("err %v but Unparsed %v", err, it.Unparsed)
		}
		if raw := it.Raw; raw != "" {
			// The fields are what splitting at TABs gives.
			f := strings.SplitN(raw[1:], "\t", 5)
			want := [5]string{}
			copy(want[:], f)
			got := [5]string{it.Display, it.Selector, it.Host, it.RawPort, it.Extra}
			if it.Plus != 0 {
				got[4] = string(it.Plus)
			}
			if got != want || it.Fields != strings.Count(raw[1:], "\t")+1 || it.Type != raw[0] {
				t.Fatalf("%q: fields %q (%d), want %q (%d)", raw, got, it.Fields, want, strings.Count(raw[1:], "\t")+1)
			}
		}
		u := it.URL()
		if u == "" || strings.ContainsAny(it.Selector, "\r\n\x00") {
			return
		}
		p, perr := urlparse.Parse(u)
		if perr != nil {
			t.Fatalf("URL %q of %q does not parse: %v", u, line, perr)
		}
		if p.Gopher.Type != it.Type || p.Gopher.Selector != it.Selector || p.Gopher.HasSearch || p.Port != it.Port && !(it.Port == 70 && p.Port == -1) {
			t.Fatalf("URL %q of %q parses to type %q selector %q port %d", u, line, p.Gopher.Type, p.Gopher.Selector, p.Port)
		}
		if !strings.EqualFold(p.Host, it.Host) {
			t.Fatalf("URL %q of %q: host %q, want %q", u, line, p.Host, it.Host)
		}
	})
}

// lastLoneDot reports the length of a lone "." last line of in (0: none).
func lastLoneDot(in []byte) int {
	lines := bytes.SplitAfter(in, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	if len(lines) == 0 {
		return 0
	}
	last := lines[len(lines)-1]
	if l := string(last); l == ".\r\n" || l == ".\n" || l == "." {
		return len(last)
	}
	return 0
}

func FuzzDotReaderAuto(f *testing.F) {
	for _, s := range []string{"a\n.\nb\n", "a\r\n.\r\n", ".", "..\n.", "x.\r\n", strings.Repeat("y", 40) + "\n.\n", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, size := range []int{16, 4096} {
			d := newDotReader(bufio.NewReaderSize(bytes.NewReader(in), size), dotAuto, false, "text")
			got, err := io.ReadAll(d)
			if err != nil {
				t.Fatal(err)
			}
			want := in[:len(in)-lastLoneDot(in)]
			if !bytes.Equal(got, want) {
				t.Fatalf("buffer %d: %q gives %q, want %q", size, in, got, want)
			}
		}
	})
}

func FuzzMenuReader(f *testing.F) {
	f.Add([]byte(sampleMenu), 64)
	f.Add([]byte("0a\t/a\th\t70\r\n.\r\n0b"), 3)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		m := NewMenuReader(bytes.NewReader(in))
		m.SetMaxLine(max%1000 + 1)
		lines := bytes.Count(in, []byte("\n")) + 1
		n := 0
		for {
			it, err := m.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(it.Raw) > m.lr.max {
				t.Fatalf("line of %d bytes over the limit %d", len(it.Raw), m.lr.max)
			}
			n++
		}
		if n > lines {
			t.Fatalf("%d items from %d lines", n, lines)
		}
	})
}
