package cli

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestMeterLine(t *testing.T) {
	now := time.Unix(1000, 0)
	m := &Meter{total: 1 << 20, start: now, now: func() time.Time { return now.Add(2 * time.Second) }}
	m.done = 1 << 19
	if s := m.line(80); !strings.HasPrefix(s, " 50.0%  512.0 KiB / 1.0 MiB  256.0 KiB/s  0:00:02  ETA 0:00:02") || len(s) != 79 {
		t.Errorf("meter %q", s)
	}
	m.bar = true
	if s := m.line(20); s != "######        50.0%" {
		t.Errorf("bar %q", s)
	}
}

func TestMultiMeterLine(t *testing.T) {
	now := time.Unix(1000, 0)
	m := &MultiMeter{now: func() time.Time { return now.Add(2 * time.Second) }, start: now}
	m.nStarted.Store(5)
	m.nEnded.Store(2)
	for _, n := range []int64{1 << 20, 1 << 20} {
		p := m.Progress()
		p(n/2, n)
	}
	if s := m.text(80); !strings.HasPrefix(s, "2 done, 3 going  1.0 MiB / 2.0 MiB  50.0%  512.0 KiB/s  0:00:02") || len(s) != 79 {
		t.Errorf("line %q", s)
	}
	m.Progress()(10, -1) // a size not known: no total, no percentage
	if s := m.text(80); strings.Contains(s, "%") || strings.Contains(s, " / ") {
		t.Errorf("line with a size unknown %q", s)
	}
}

func TestStatusLine(t *testing.T) {
	var b strings.Builder
	s := &StatusLine{W: &b, Width: func() int { return 6 }}
	s.Print("before\n") // nothing drawn: nothing to clear
	s.Draw("1234567890")
	s.Draw("ab")
	s.Print("message\n")
	s.Clear() // cleared already
	s.End("done")
	if want := "before\n\r\x1b[K12345\r\x1b[Kab\r\x1b[Kmessage\n\r\x1b[Kdone\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestTerminalNot(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "f")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, v := range []any{f, &strings.Builder{}, nil} {
		if _, ok := Terminal(v); ok {
			t.Errorf("%T is a terminal", v)
		}
	}
}
