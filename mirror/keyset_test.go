package mirror

import (
	"fmt"
	"testing"
)

// TestKeySetSpills: with a few keys in memory, the rest in runs merged as
// they pile up, every key added is found again, no key is taken as seen
// that was not, and memory holds no more than its bound.
func TestKeySetSpills(t *testing.T) {
	oldMem, oldBlock, oldRuns := keySetMem, keyBlock, keyRuns
	keySetMem, keyBlock, keyRuns = 100, 4, 3
	t.Cleanup(func() { keySetMem, keyBlock, keyRuns = oldMem, oldBlock, oldRuns })
	s := newKeySet(&manifest{dryRun: true})
	defer s.close()
	key := func(i int) string { return fmt.Sprintf("d|host:70|/sel%d/%d", i%37, i) }
	for i := 0; i < 5000; i++ {
		if !s.add(key(i)) {
			t.Fatalf("key %d taken as seen before it was added", i)
		}
		if i%7 == 0 && s.add(key(i/2)) {
			t.Fatalf("key %d (added) taken as new", i/2)
		}
	}
	if len(s.mem) >= keySetMem || len(s.runs) == 0 || len(s.runs) > keyRuns+1 {
		t.Errorf("%d keys in memory, %d runs: want fewer than %d and 1 to %d runs", len(s.mem), len(s.runs), keySetMem, keyRuns+1)
	}
	n := int64(0)
	for _, r := range s.runs {
		n += r.n
	}
	if n+int64(len(s.mem)) != 5000 {
		t.Errorf("%d keys held, want 5000", n+int64(len(s.mem)))
	}
	for i := 0; i < 5000; i++ {
		if s.add(key(i)) {
			t.Fatalf("key %d taken as new the second time", i)
		}
	}
	for i := 5000; i < 6000; i++ {
		if !s.add(key(i)) {
			t.Fatalf("key %d taken as seen before it was added", i)
		}
	}
}
