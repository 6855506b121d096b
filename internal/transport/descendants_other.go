//go:build !linux

package transport

import (
	"context"
	"errors"
	"fmt"
)

// BecomeSubreaper needs Linux's PR_SET_CHILD_SUBREAPER, which other systems lack:
// there a process that leaves the server's process group (or, on Windows, its job
// object) is re-parented to init, out of the suite's reach. It returns an error
// wrapping errors.ErrUnsupported.
func BecomeSubreaper() error {
	return fmt.Errorf("child subreaper: %w", errors.ErrUnsupported)
}

// KillDescendants finds the suite's descendants through /proc, which only Linux
// has. Elsewhere every server is still stopped with its whole process group (or job
// object) by the stop sequence; what left it is not found, so this kills nothing and
// returns 0.
func KillDescendants(context.Context) int { return 0 }
