//go:build !unix

package download

import "io/fs"

func writable(string) error { return nil }

func othersFile(fs.FileInfo) bool { return false }
