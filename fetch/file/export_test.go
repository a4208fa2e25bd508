package file

// SetSortLimit sets the largest directory listed sorted, and returns a
// function that restores it.
func SetSortLimit(n int) (restore func()) {
	old := sortLimit
	sortLimit = n
	return func() { sortLimit = old }
}
