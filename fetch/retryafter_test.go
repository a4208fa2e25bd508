package fetch

import (
	"testing"
	"time"
)

func TestResourceRetryAfter(t *testing.T) {
	for v, want := range map[string]time.Duration{"7": 7 * time.Second, "soon": 0} {
		res := &Resource{Meta: Meta{Header: Header{{Name: "Retry-After", Value: v}}}}
		if got := res.RetryAfter(); got != want {
			t.Errorf("Retry-After %q: %v, want %v", v, got, want)
		}
	}
	if got := (&Resource{}).RetryAfter(); got != 0 {
		t.Errorf("no header: %v", got)
	}
}
