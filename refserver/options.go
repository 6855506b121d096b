package refserver

import (
	"fmt"
	"io"
	"log"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// DefaultPageSize is the tools/list page size used when Options.PageSize is zero.
const DefaultPageSize = 5

// NoPaging as Options.PageSize returns every tool on one page.
const NoPaging = -1

// ServerName and ServerVersion identify the reference server in serverInfo.
const (
	ServerName    = "mcp-conform-reference"
	ServerTitle   = "mcp-conform reference server"
	ServerVersion = "0.1.0"
	// ServerDescription and ServerWebsite are serverInfo's 2025-11-25 extras.
	ServerDescription = "The reference MCP server the mcp-conform suite tests itself against."
	ServerWebsite     = "https://github.com/mcp-conform/mcp-conform"
)

// Instructions is the InitializeResult.instructions text.
const Instructions = "Reference server of the mcp-conform suite. Tools named test_* implement " +
	"the fixture contract (the fixture contract, refserver/doc.go); every tool is side-effect free."

// defaultClientRequestTimeout bounds how long a tool waits for the client to answer a
// server→client request (elicitation, sampling).
const defaultClientRequestTimeout = 30 * time.Second

// Options configures the reference server. The zero value is a correct server for
// every supported revision.
type Options struct {
	// Revisions lists the protocol revisions the server supports (names such as
	// "2025-06-18"). Empty means every legacy revision the suite knows.
	Revisions []string
	// PageSize is the tools/list page size: 0 means DefaultPageSize, NoPaging (or any
	// negative value) returns every tool on one page.
	PageSize int
	// Faults switches on deliberate misbehaviour by name (see Faults for the
	// catalogue); an unknown name is a configuration error. Nil or empty is a correct
	// server.
	Faults map[string]bool
	// Log receives diagnostics (never protocol traffic). Nil discards them.
	Log *log.Logger
	// ExtraTools lists that many more tools after the fixture contract's (bulk_00001,
	// …: not test_* names, so the suite's default tier never calls them), for the
	// scale benchmark. At most MaxExtraTools.
	ExtraTools int
	// ClientRequestTimeout bounds a wait for the client's answer to a server→client
	// request; zero means 30 s.
	ClientRequestTimeout time.Duration
	// Era selects which protocol eras are served: EraDual ("" too: legacy
	// initialize sessions for Revisions, and stateless 2026-07-28 requests), EraModern
	// (2026-07-28 only) or EraLegacy (Revisions only).
	Era string
	// AuthToken, when set, protects the Streamable HTTP endpoint: only requests
	// with this bearer token are served (refserver/auth.go, the AUTH rules).
	AuthToken string
}

// config is Options after validation, shared by every session of one server.
type config struct {
	revisions      []revision.Revision // oldest first
	pageSize       int                 // <= 0: no paging
	faults         faultSet
	log            *log.Logger
	clientReqLimit time.Duration
	tools          *registry
	era            string              // EraDual, EraModern or EraLegacy
	modernRevs     []revision.Revision // modern revisions served (none for EraLegacy)
	modern         *modernState        // shared by every modern request of this server
}

// checkOptions reports what newConfig would refuse in opts, short of building the
// tool registry: the command line and Serve check their options before serving,
// and building the registry for that (twice, then once more to serve) was a tenth
// of the CPU of each reference-server process a run starts.
func checkOptions(opts Options) error {
	_, err := parseOptions(opts)
	return err
}

// parsedOptions are the options newConfig reads, parsed and checked.
type parsedOptions struct {
	faults    faultSet
	revisions []revision.Revision
	era       string
}

// parseOptions parses and checks the options, in the order their errors are told.
func parseOptions(opts Options) (parsedOptions, error) {
	var p parsedOptions
	var err error
	if p.faults, err = newFaultSet(opts.Faults); err != nil {
		return p, err
	}
	if p.revisions, err = supportedRevisions(opts.Revisions); err != nil {
		return p, err
	}
	if p.era, err = checkEra(opts.Era); err != nil {
		return p, err
	}
	if opts.ExtraTools < 0 || opts.ExtraTools > MaxExtraTools {
		return p, fmt.Errorf("extra tools: %d is outside 0…%d", opts.ExtraTools, MaxExtraTools)
	}
	return p, nil
}

// newConfig checks opts (parseOptions) and builds the server's configuration.
func newConfig(opts Options) (*config, error) {
	p, err := parseOptions(opts)
	if err != nil {
		return nil, err
	}
	c := &config{
		pageSize:       opts.PageSize,
		log:            opts.Log,
		clientReqLimit: opts.ClientRequestTimeout,
		faults:         p.faults,
		revisions:      p.revisions,
		era:            p.era,
	}
	if c.pageSize == 0 {
		c.pageSize = DefaultPageSize
	}
	if c.log == nil {
		c.log = log.New(io.Discard, "", 0)
	}
	if c.clientReqLimit <= 0 {
		c.clientReqLimit = defaultClientRequestTimeout
	}
	c.modernRevs, c.modern = modernRevisions(c.era), newModernState()
	reg, err := newRegistry(c.faults)
	if err != nil {
		return nil, fmt.Errorf("build tool registry: %w", err)
	}
	if err := reg.addBulk(opts.ExtraTools); err != nil {
		return nil, fmt.Errorf("build tool registry: %w", err)
	}
	c.tools = reg
	return c, nil
}

// supportedRevisions resolves revision names (oldest first, without duplicates);
// only legacy-era (initialize-based) revisions can be served.
func supportedRevisions(names []string) ([]revision.Revision, error) {
	if len(names) == 0 {
		return revision.InEra(revision.Legacy), nil
	}
	revs, err := revision.Parse(strings.Join(names, ","))
	if err != nil {
		return nil, fmt.Errorf("supported revisions: %w", err)
	}
	for _, r := range revs {
		if r.Era != revision.Legacy {
			return nil, fmt.Errorf("protocol revision %s is not served by the reference server (legacy revisions only)", r.Name)
		}
	}
	return revs, nil
}

// negotiate picks the revision answered to a requested protocolVersion: the same one
// when supported, otherwise the newest supported one.
func (c *config) negotiate(requested string) revision.Revision {
	if c.faults.on(faultVersionSwap) {
		swap := map[string]string{"2024-11-05": "2025-03-26", "2025-03-26": "2024-11-05"}
		if other, ok := swap[requested]; ok && c.supports(other) {
			requested = other
		}
	}
	for _, r := range c.revisions {
		if r.Name == requested {
			return r
		}
	}
	if c.faults.on(faultFallbackOldest) {
		return c.revisions[0]
	}
	return c.revisions[len(c.revisions)-1]
}

// supports reports whether the named revision is served.
func (c *config) supports(name string) bool {
	for _, r := range c.revisions {
		if r.Name == name {
			return true
		}
	}
	return false
}
