package mongo

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// fileSystemSpace returns the used and total bytes of the file system
// that holds dir, as MongoDB's dbStats counts them: total is the file
// system's capacity, used is the capacity less what an unprivileged
// process may still write.
func fileSystemSpace(dir string) (used, total int64, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, 0, fmt.Errorf("file system of %s: %w", dir, err)
	}
	bsize := int64(st.Bsize)
	total = int64(st.Blocks) * bsize
	return total - int64(st.Bavail)*bsize, total, nil
}
