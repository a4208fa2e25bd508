package fetch

import (
	"testing"
	"time"
)

func TestParseRange(t *testing.T) {
	for _, tc := range []struct {
		in               string
		start, end, last int64
		spec             string
	}{
		{"0-499", 0, 499, 0, "0-499"},
		{"500-", 500, -1, 0, "500-"},
		{"-500", 0, -1, 500, "-500"},
		{"7", 7, -1, 0, "7-"},
		{"0-1,5-9", 0, 1, 0, "0-1,5-9"},
	} {
		r, err := ParseRange(tc.in)
		if err != nil || r.Start != tc.start || r.End != tc.end || r.Last != tc.last || r.Spec != tc.spec {
			t.Errorf("ParseRange(%q) = %+v, %v", tc.in, r, err)
		}
	}
	for _, bad := range []string{"", "-", "a-b", "9-1", "1-2,x", "-0", "+1-2", "1-2\r\n"} {
		if _, err := ParseRange(bad); err == nil {
			t.Errorf("ParseRange(%q): no error", bad)
		}
	}
	r, _ := ParseRange("-500")
	if s, n, err := r.Span(2000); s != 1500 || n != 500 || err != nil {
		t.Errorf("-500 of 2000: %d %d %v", s, n, err)
	}
	if _, _, err := r.Span(100); KindOf(err) != ErrResume {
		t.Errorf("-500 of 100: %v", err)
	}
	r, _ = ParseRange("10-99")
	if s, n, _ := r.Span(50); s != 10 || n != 40 {
		t.Errorf("10-99 of 50: %d %d", s, n)
	}
	if s, n, _ := r.Span(-1); s != 10 || n != 90 {
		t.Errorf("10-99 of unknown: %d %d", s, n)
	}
}

func TestParseDate(t *testing.T) {
	want := time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC)
	for _, s := range []string{
		"Sun, 06 Nov 1994 08:49:37 GMT",
		"Sunday, 06-Nov-94 08:49:37 GMT",
		"Sun Nov  6 08:49:37 1994",
		"06 Nov 1994 08:49:37 GMT",
		"Nov  6 08:49:37 1994",
		"1994 Nov 6 08:49:37",
		"94 6 Nov 08:49:37",
		"19941106 08:49:37",
		"Sun, 06 Nov 1994 09:49:37 CET",
		"Sun, 06 Nov 1994 01:49:37 -0700",
	} {
		if got, err := ParseDate(s); err != nil || !got.Equal(want) {
			t.Errorf("ParseDate(%q) = %v, %v", s, got, err)
		}
	}
	day := time.Date(1994, 11, 6, 0, 0, 0, 0, time.UTC)
	for _, s := range []string{"1994 Nov 6", "06-Nov-94", "Sun Nov 6 94", "1994.Nov.6", "Sun/Nov/6/94/GMT", "19941106"} {
		if got, err := ParseDate(s); err != nil || !got.Equal(day) {
			t.Errorf("ParseDate(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "yesterday", "32 Nov 1994", "Nov 1994", "25:00 6 Nov 1994", "31 Feb 2001", "file.txt"} {
		if _, err := ParseDate(s); err == nil {
			t.Errorf("ParseDate(%q): no error", s)
		}
	}
}
