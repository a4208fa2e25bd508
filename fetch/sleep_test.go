package fetch_test

import (
	"context"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
)

func TestSleep(t *testing.T) {
	if err := fetch.Sleep(context.Background(), 10*time.Millisecond); err != nil {
		t.Error(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	begin := time.Now()
	if err := fetch.Sleep(ctx, time.Minute); err != context.Canceled || time.Since(begin) > 5*time.Second {
		t.Errorf("cancelled: %v after %v", err, time.Since(begin))
	}
	if err := fetch.Sleep(ctx, 0); err != context.Canceled {
		t.Errorf("zero wait on a done context: %v", err)
	}
}
