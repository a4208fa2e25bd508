package fetch_test

import (
	"testing"

	"github.com/urlget/urlget/fetch"
)

func TestSizeString(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{512, "512 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{100000, "97.7 KiB"},
		{1<<20 - 1, "1024.0 KiB"},
		{1 << 20, "1.0 MiB"},
		{5 << 20, "5.0 MiB"},
		{3 << 30, "3.0 GiB"},
		{2469606195, "2.3 GiB"},
		{5 << 40, "5120.0 GiB"},
	} {
		if got := fetch.SizeString(tc.n); got != tc.want {
			t.Errorf("SizeString(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
