package testserver

import "os/exec"

// bindMount is a file or directory mounted over another (From over On).
type bindMount struct{ From, On string }

// inMountNamespace returns the command that runs argv in a private mount
// namespace where each bind mount is made first. The host sees none of
// them, and the command's PID is argv[0]'s own (unshare and sh exec it).
// It needs root.
func inMountNamespace(binds []bindMount, argv ...string) (*exec.Cmd, error) {
	unshare, err := LookPath("unshare")
	if err != nil {
		return nil, err
	}
	script := `while [ "$1" != -- ]; do mount --bind "$1" "$2" || exit 1; shift 2; done; shift; exec "$@"`
	args := []string{"-m", "--propagation", "private", "sh", "-c", script, "sh"}
	for _, b := range binds {
		args = append(args, b.From, b.On)
	}
	args = append(append(args, "--"), argv...)
	return exec.Command(unshare, args...), nil
}
