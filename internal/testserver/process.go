package testserver

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Default timeouts; Options can change them per server.
const (
	DefaultStartTimeout = 15 * time.Second
	DefaultStopTimeout  = 5 * time.Second
	// killWait bounds the wait for a process to disappear after SIGKILL.
	killWait = 5 * time.Second
	// logTail is how much of the server's output, and of each log file, is
	// kept and shown on failure.
	logTail = 64 << 10
)

// ErrAddrInUse marks a start that failed because the server's port was
// taken: the server said "address already in use", or the port answered but
// not from the server's own process group. LaunchOnFreePort retries then.
var ErrAddrInUse = errors.New("address already in use")

// Options tune Launch and its relatives. The zero value is fine.
type Options struct {
	// Name labels the server in messages (default: the command's base name).
	Name string
	// StartTimeout bounds the wait for the address to answer (default 15 s).
	StartTimeout time.Duration
	// StopTimeout is how long Stop waits for the server to exit after asking
	// it to, before SIGKILL (default 5 s).
	StopTimeout time.Duration
	// Terminate, if set, asks the server to exit instead of SIGTERM to its PID
	// (innd, for one, takes minutes to notice SIGTERM: use ctlinnd shutdown).
	// Stop still sends SIGKILL if the server is not gone after StopTimeout.
	Terminate func(p *Process) error
	// LogFiles are files the server writes (error logs …). Their tails are
	// shown with the server's output when a start fails or a test fails.
	LogFiles []string
	// SkipOwnerCheck turns off the check that the socket answering at the
	// wait address belongs to the server's process group. Set it when the
	// address is reached through something else (a proxy, another netns).
	SkipOwnerCheck bool
}

// A Process is a server started by Launch or Start. It runs in the
// foreground as a child of the test binary, as the leader of a new process
// group whose ID is its PID.
type Process struct {
	Name string
	Cmd  *exec.Cmd
	PID  int
	// Addr is the address that was waited for ("" if none).
	Addr string

	opt      Options
	out      *tailBuffer
	ownGroup bool // the process leads its own group, PGID == PID

	exited  chan struct{} // closed once the process has exited
	reaped  bool          // exited was closed after cmd.Wait (no zombie left to pin the PID)
	waitErr error         // cmd.Wait's result, valid once reaped

	stopping atomic.Bool
	killed   atomic.Bool
	stopOnce sync.Once
	stopErr  error
}

// Launch starts cmd and waits until a TCP connection to waitAddr succeeds
// (no wait when waitAddr is ""). The caller must call Stop. Unless cmd's
// Stdout and Stderr are set they are captured (and shown in errors); when set
// they also get a copy. The process is made the leader of a new process
// group (on Linux with SIGKILL as its parent-death signal) unless
// cmd.SysProcAttr already chose a group.
//
// If the process exits before waitAddr answers, or the time runs out, the
// process is stopped and the error includes its output and log files.
func Launch(cmd *exec.Cmd, waitAddr string, opt Options) (*Process, error) {
	if opt.StartTimeout <= 0 {
		opt.StartTimeout = DefaultStartTimeout
	}
	if opt.StopTimeout <= 0 {
		opt.StopTimeout = DefaultStopTimeout
	}
	if opt.Name == "" {
		opt.Name = filepath.Base(cmd.Path)
	}
	p := &Process{
		Name:   opt.Name,
		Cmd:    cmd,
		Addr:   waitAddr,
		opt:    opt,
		out:    &tailBuffer{max: logTail},
		exited: make(chan struct{}),
	}
	cmd.Stdout = tee(cmd.Stdout, p.out)
	cmd.Stderr = tee(cmd.Stderr, p.out)
	if cmd.WaitDelay == 0 {
		// Do not hang in Wait if something outside the group holds the pipes.
		cmd.WaitDelay = 2 * time.Second
	}
	p.ownGroup = setupProcAttr(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("testserver: starting %s: %w", p.Name, err)
	}
	p.PID = cmd.Process.Pid
	go func() {
		if waitNoReap(p.PID) {
			close(p.exited)
			return
		}
		p.waitErr = cmd.Wait()
		p.reaped = true
		close(p.exited)
	}()
	if waitAddr == "" {
		return p, nil
	}
	if err := p.waitReady(); err != nil {
		p.Stop()
		e := fmt.Errorf("testserver: %s (pid %d) on %s: %w\n%s", p.Name, p.PID, waitAddr, err, p.Logs())
		if !errors.Is(err, ErrAddrInUse) && strings.Contains(strings.ToLower(p.Logs()), "address already in use") {
			e = fmt.Errorf("%w (%w)", e, ErrAddrInUse)
		}
		return nil, e
	}
	return p, nil
}

// waitReady waits until p.Addr answers from a socket of p's process group.
func (p *Process) waitReady() error {
	_, portStr, err := net.SplitHostPort(p.Addr)
	if err != nil {
		return err
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return fmt.Errorf("bad port in %q", p.Addr)
	}
	deadline := time.Now().Add(p.opt.StartTimeout)
	stranger := false
	for {
		select {
		case <-p.exited:
			if stranger {
				return fmt.Errorf("exited before answering, and another process answers there: %w", ErrAddrInUse)
			}
			return errors.New("exited before answering")
		default:
		}
		if err := dialOnce(p.Addr); err == nil {
			if p.opt.SkipOwnerCheck {
				return nil
			}
			pgid := 0
			if p.ownGroup {
				pgid = p.PID
			}
			owned, known := ownsListener(p.PID, pgid, port)
			if owned || !known && !p.Exited() {
				return nil
			}
			stranger = !owned
		}
		if time.Now().After(deadline) {
			if stranger {
				return fmt.Errorf("port answers, but not from this server within %v: %w", p.opt.StartTimeout, ErrAddrInUse)
			}
			return fmt.Errorf("did not answer within %v", p.opt.StartTimeout)
		}
		time.Sleep(pollInterval)
	}
}

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// Killed reports whether Stop had to use SIGKILL.
func (p *Process) Killed() bool { return p.killed.Load() }

// Stop stops the server by PID and reaps it: Options.Terminate or SIGTERM to
// the PID, up to StopTimeout for it to exit, then SIGKILL to its process
// group. Once the leader has exited — and before it is reaped, so the group
// ID cannot have been reused — whatever is left of its group gets SIGKILL.
// Stop is idempotent; it returns an error only if the process would not die.
func (p *Process) Stop() error {
	p.stopOnce.Do(func() {
		p.stopping.Store(true)
		p.stopErr = p.stop()
	})
	return p.stopErr
}

func (p *Process) stop() error {
	if !p.Exited() {
		var err error
		if p.opt.Terminate != nil {
			err = p.opt.Terminate(p)
		} else {
			err = p.Cmd.Process.Signal(syscall.SIGTERM)
		}
		timeout := p.opt.StopTimeout
		if err != nil && !errors.Is(err, os.ErrProcessDone) {
			timeout = 0 // could not ask nicely: kill at once
		}
		timer := time.NewTimer(timeout)
		select {
		case <-p.exited:
			timer.Stop()
		case <-timer.C:
			p.killed.Store(true)
			if p.ownGroup {
				killGroup(p.PID)
			}
			p.Cmd.Process.Kill()
			select {
			case <-p.exited:
			case <-time.After(killWait):
				return fmt.Errorf("testserver: %s (pid %d) still running %v after SIGKILL", p.Name, p.PID, killWait)
			}
		}
	}
	if !p.reaped {
		// The leader is a zombie: its PID, hence the group ID, is still ours.
		if p.ownGroup {
			killGroup(p.PID)
		}
		p.waitErr = p.Cmd.Wait()
		p.reaped = true
	}
	return nil
}

// WaitErr is the result of the process's Wait (after Stop, or after it
// exited on its own).
func (p *Process) WaitErr() error {
	<-p.exited
	if !p.reaped {
		return nil
	}
	return p.waitErr
}

// Output returns the tail of what the process wrote to stdout and stderr.
func (p *Process) Output() string { return p.out.String() }

// Logs returns the process's output and the tails of its log files, for
// showing when something failed.
func (p *Process) Logs() string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s (pid %d) stdout+stderr:\n%s", p.Name, p.PID, p.Output())
	for _, f := range p.opt.LogFiles {
		data, err := readTail(f, logTail)
		if err != nil {
			fmt.Fprintf(&b, "\n--- %s: %v", f, err)
			continue
		}
		fmt.Fprintf(&b, "\n--- %s:\n%s", f, data)
	}
	return b.String()
}

// AddLogFile adds a file to those shown by Logs.
func (p *Process) AddLogFile(path string) { p.opt.LogFiles = append(p.opt.LogFiles, path) }

// Start is Launch for tests: it fails the test if the server does not start,
// and registers a cleanup that stops it (see Process.Stop) and, if the test
// failed, logs the server's output and log files. A server that exits by
// itself before the cleanup fails the test; call Stop first to end it early.
func Start(t testing.TB, cmd *exec.Cmd, waitAddr string) *Process {
	t.Helper()
	return StartWith(t, cmd, waitAddr, Options{})
}

// StartWith is Start with Options.
func StartWith(t testing.TB, cmd *exec.Cmd, waitAddr string, opt Options) *Process {
	t.Helper()
	p, err := Launch(cmd, waitAddr, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cleanup(t) })
	return p
}

// cleanup stops p at the end of a test and reports what went wrong.
func (p *Process) cleanup(t testing.TB) {
	early := p.Exited() && !p.stopping.Load()
	err := p.Stop()
	switch {
	case early:
		t.Errorf("testserver: %s (pid %d) exited before the test ended (%v)\n%s", p.Name, p.PID, p.WaitErr(), p.Logs())
	case err != nil:
		t.Errorf("%v\n%s", err, p.Logs())
	case t.Failed():
		t.Logf("testserver: the test failed; %s's logs:\n%s", p.Name, p.Logs())
	}
	if p.Killed() {
		t.Logf("testserver: %s (pid %d) did not exit within %v of being asked to; killed it", p.Name, p.PID, p.opt.StopTimeout)
	}
}

// LaunchOnFreePort picks a free port, builds the server's command with
// mk(port) (which returns the command and the address to wait for) and
// launches it; if the port turns out to be taken (ErrAddrInUse) it tries
// again with another port, up to 5 times.
func LaunchOnFreePort(opt Options, mk func(port int) (*exec.Cmd, string, error)) (*Process, error) {
	var err error
	for range 5 {
		var port int
		if port, err = PickPort(); err != nil {
			return nil, err
		}
		cmd, addr, e := mk(port)
		if e != nil {
			return nil, e
		}
		var p *Process
		if p, err = Launch(cmd, addr, opt); err == nil {
			return p, nil
		}
		if !errors.Is(err, ErrAddrInUse) {
			return nil, err
		}
	}
	return nil, err
}

// StartOnFreePort is LaunchOnFreePort for tests, with Start's cleanup.
func StartOnFreePort(t testing.TB, opt Options, mk func(port int) (*exec.Cmd, string, error)) *Process {
	t.Helper()
	p, err := LaunchOnFreePort(opt, mk)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cleanup(t) })
	return p
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int64
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.dropped += int64(over)
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped > 0 {
		return fmt.Sprintf("[… %d bytes dropped …]\n%s", b.dropped, b.buf)
	}
	return string(b.buf)
}

// tee adds b as a copy of w (or as w, when w is nil).
func tee(w io.Writer, b *tailBuffer) io.Writer {
	if w == nil {
		return b
	}
	return io.MultiWriter(w, b)
}

// readTail returns the last n bytes of a file.
func readTail(path string, n int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	prefix := ""
	if fi.Size() > n {
		if _, err := f.Seek(fi.Size()-n, io.SeekStart); err != nil {
			return "", err
		}
		prefix = fmt.Sprintf("[… %d bytes skipped …]\n", fi.Size()-n)
	}
	data, err := io.ReadAll(f)
	return prefix + string(data), err
}
