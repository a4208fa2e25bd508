// Package testserver starts real servers on 127.0.0.1 for urlget's
// integration tests, and stops them again.
//
// Every server runs in the foreground as a child of the test binary, with its
// configuration, logs and temporary files in a directory of its own (usually
// t.TempDir()), on a port picked free at start. A test gets the server from
// one call, for example
//
//	addr := testserver.Nginx(t, root)
//
// and the server is stopped by t.Cleanup. Stopping is always by PID, never by
// name: SIGTERM to the PID, up to 5 s to exit, then SIGKILL to its process
// group (each server is started as the leader of a new process group).
// Whatever is left of the group after the leader has exited is killed too,
// before the leader is reaped, so that the group ID cannot have been reused.
// On Linux the server also gets SIGKILL if the test binary dies (Pdeathsig).
//
// Missing servers: Require skips the test when the server's binary is not
// installed, telling to run scripts/test as root (which installs the Debian
// packages) — but when the environment variable CI is set it fails the test
// instead, since there a skip would hide a broken install step. With
// -short, every test that asks Require for a server is skipped.
//
// Bad networks: FaultProxy sits in front of any of them and resets
// connections at seeded random points, stalls, trickles or half-closes
// them, carries FTP data connections (with faults of their own), and lets
// a test restart the server between a client's attempts (OnConnect,
// SetTarget). DelayProxy adds latency.
//
// The building blocks are exported for the other server kinds (FTP, Gopher,
// NNTP, …): FreePort, WaitPort, Start / StartWith / StartOnFreePort with
// their non-test counterparts Launch / LaunchOnFreePort, and Process.
package testserver
