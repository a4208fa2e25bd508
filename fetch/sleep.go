package fetch

import (
	"context"
	"time"
)

// Sleep waits for d, or until ctx ends: then it returns ctx.Err() (wrap it
// with ContextError for a typed error). A d of 0 or less returns at once.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
