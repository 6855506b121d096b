package conformtest

import (
	"context"
	"net/http"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/reports"
)

// RunPassing runs the checks with the IDs at the revisions against h, one server
// over Streamable HTTP shared by every revision (conform.RunLibrary), and fails the
// test when the run could not be made or a verdict is not a pass: for tests of how a
// run schedules its traffic, on a server every check passes.
func RunPassing(t testing.TB, h http.Handler, revs []string, ids ...string) *conform.Result {
	t.Helper()
	res, err := conform.RunLibrary(context.Background(), conform.Handler(h), conform.Revisions(revs...),
		conform.Configure(func(c *conform.Config) { c.Focus = ids }))
	if res == nil {
		t.Fatal(err)
	}
	for _, rev := range res.Report.Revisions {
		for _, c := range rev.Checks {
			if c.Status != reports.Pass {
				t.Errorf("%s %s = %s (%s), want pass", rev.Revision, c.ID, c.Status, c.Message)
			}
		}
	}
	return res
}
