package modern

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// DualEra says how the run shows that the server also serves the legacy era ("" when
// it does not): a legacy revision this run negotiated (its column opened with
// initialize), or a legacy version the column's DiscoverResult lists among its
// supportedVersions. The rules that bind only "a server that supports only this
// revision" (2026-07-28) do not bind such a server, whatever it answers.
func DualEra(t *conform.T) string {
	return dualEra(t.RevisionsAsked(), discovered(t))
}

// discovered reads supportedVersions of the column's DiscoverResult (nil when none).
func discovered(t *conform.T) []string {
	s := t.Session()
	if s == nil {
		return nil
	}
	var vs []string
	_ = json.Unmarshal(s.InitResult["supportedVersions"], &vs)
	return vs
}

// dualEra is DualEra of the run's columns (revision → the version negotiated, ""
// when none) and the DiscoverResult's supportedVersions.
func dualEra(asked map[string]string, supported []string) string {
	var names []string
	for name := range asked {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if r, ok := revision.Lookup(name); ok && r.Era == revision.Legacy && asked[name] != "" {
			return fmt.Sprintf("this run's %s session was negotiated (%s)", name, asked[name])
		}
	}
	for _, v := range supported {
		if r, ok := revision.Lookup(v); ok && r.Era == revision.Legacy {
			return fmt.Sprintf("server/discover lists %s among its supportedVersions", v)
		}
	}
	return ""
}
