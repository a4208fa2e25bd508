package mirror

import (
	"slices"
	"sync"
)

// scheduler hands tasks to workers: listings before files (so that the
// tree is known early), oldest first, never more than perHost at once on a
// host; but files first once more than fileBacklog are queued, so that the
// files waiting are bounded (a listing adds one directory's) rather than
// the whole tree's.
//
// With depthFirst the newest listing goes first: the tree is walked depth
// first, and the listings waiting are those of the directories beside the
// path walked (a few fan-outs), not a whole level of the tree (oldest
// first: every directory of a level is queued before the next is listed,
// 10,000 of them in a tree of 100 x 100). That suits a tree whose every
// directory is listed, whatever its depth (ftp); a walk bounded by depth
// that can reach a page by more than one path (http, gopher) needs the
// shortest path found first, oldest first.
type scheduler struct {
	mu         sync.Mutex
	cond       *sync.Cond
	lists      []*task
	files      []*task
	active     int
	perHost    map[string]int
	hostCap    int
	stopped    bool
	depthFirst bool
}

// task is one listing or one file to fetch.
type task struct {
	list    bool
	host    string
	slot    bool // holds one of its host's connection slots
	attempt int
	job     any
}

// fileBacklog is how many queued files make workers take files before
// listings: enough to keep every connection busy (a listing adds a
// directory's), few enough that the files waiting (each with its old and
// new records, about 1 KiB) stay a small part of a run's memory.
const fileBacklog = 1024

func newScheduler(hostCap int) *scheduler {
	s := &scheduler{perHost: map[string]int{}, hostCap: hostCap}
	s.cond = sync.NewCond(&s.mu)
	return s
}

func (s *scheduler) push(t *task) {
	s.mu.Lock()
	s.queue(t)
	s.mu.Unlock()
	s.cond.Signal()
}

// queue appends t to its queue (s.mu held).
func (s *scheduler) queue(t *task) {
	if t.list {
		s.lists = append(s.lists, t)
	} else {
		s.files = append(s.files, t)
	}
}

// pushLists adds the listings of a directory's subdirectories, to be
// taken in their order (depthFirst: pushed last first).
func (s *scheduler) pushLists(ts []*task) {
	if len(ts) == 0 {
		return
	}
	s.mu.Lock()
	for i := range ts {
		t := ts[i]
		if s.depthFirst {
			t = ts[len(ts)-1-i]
		}
		s.lists = append(s.lists, t)
	}
	s.mu.Unlock()
	s.cond.Broadcast()
}

// pick removes the first task of q whose host has room (scanning at most
// a few hundred); with newest, the last such.
func (s *scheduler) pick(q *[]*task, needRoom, newest bool) *task {
	n := len(*q)
	for k := 0; k < n && k <= 512; k++ {
		i := k
		if newest {
			i = n - 1 - k
		}
		if t := (*q)[i]; !needRoom || s.perHost[t.host] < s.hostCap {
			removeAt(q, i)
			return t
		}
	}
	return nil
}

// removeAt removes the task at i from q: the first by moving the start
// (no copy of the queue), the last by shortening it, another by moving
// those after it.
func removeAt(q *[]*task, i int) {
	switch i {
	case 0:
		(*q)[0] = nil
		*q = (*q)[1:]
	case len(*q) - 1:
		(*q)[i] = nil
		*q = (*q)[:i]
	default:
		*q = slices.Delete(*q, i, i+1)
	}
}

// next waits for a task; nil when there is none left and none running
// (or the scheduler was stopped).
func (s *scheduler) next() *task {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.stopped {
			return nil
		}
		var t *task
		if len(s.files) > fileBacklog {
			t = s.pick(&s.files, true, false)
		}
		if t == nil {
			t = s.pick(&s.lists, true, s.depthFirst)
		}
		if t == nil {
			t = s.pick(&s.files, true, false)
		}
		if t != nil {
			s.active++
			s.perHost[t.host]++
			t.slot = true
			return t
		}
		if s.active == 0 && len(s.lists) == 0 && len(s.files) == 0 {
			s.stopped = true
			s.cond.Broadcast()
			return nil
		}
		s.cond.Wait()
	}
}

// tryFile takes a file task for host without waiting and without a
// connection slot of its own: it rides on the caller's connection.
func (s *scheduler) tryFile(host string) *task {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped || len(s.lists) > 0 && len(s.files) <= fileBacklog {
		return nil
	}
	for i, t := range s.files {
		if i > 512 {
			break
		}
		if t.host == host {
			removeAt(&s.files, i)
			s.active++
			t.slot = false
			return t
		}
	}
	return nil
}

// done ends a task taken with next or tryFile.
func (s *scheduler) done(t *task) { s.end(t, false) }

// requeue puts a task taken with next or tryFile back (to be tried again).
func (s *scheduler) requeue(t *task) { s.end(t, true) }

// end ends a task taken, putting it back with again.
func (s *scheduler) end(t *task, again bool) {
	s.mu.Lock()
	s.active--
	if t.slot {
		s.perHost[t.host]--
		t.slot = false
	}
	if again {
		s.queue(t)
	}
	s.mu.Unlock()
	s.cond.Broadcast()
}

// stop wakes every waiting worker and makes next return nil.
func (s *scheduler) stop() {
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	s.cond.Broadcast()
}
