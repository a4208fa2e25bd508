// Package owner holds the one rule by which urlget replaces a local file
// that exists (an -o output file, a mirrored copy): one this process may
// not write is left as it is (curl's open fails: exit 23), and one that
// is another user's or group's is written in place, never renamed over,
// so that its owner never changes.
package owner

import (
	"io/fs"
	"os"
)

// CanWrite reports whether the existing regular file name may be written
// by this process, as open(2) judges (root may write any): it is opened
// for writing with open (os.OpenFile, or an os.Root's), nothing written,
// and closed.
func CanWrite(open func(string, int, fs.FileMode) (*os.File, error), name string) error {
	f, err := open(name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	return f.Close()
}
