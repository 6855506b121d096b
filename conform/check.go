package conform

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcp-conform/mcp-conform/internal/catalogue"
	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// Level is the strength of the rule a check verifies: the RFC 2119 key word of its
// catalogue row (internal/catalogue/requirements.yaml, level).
type Level string

// Levels. Must covers MUST, MUST NOT, (schema) and (JSON-RPC) rows; Should covers
// SHOULD and SHOULD NOT; May, Descriptive and Derived never fail.
const (
	Must        Level = "must"
	Should      Level = "should"
	May         Level = "may"
	Descriptive Level = "descriptive"
	Derived     Level = "derived"
)

// Needs says what a check needs from the server (the catalogue row's needs column).
type Needs string

// What a check needs.
const (
	NeedsAny           Needs = "any"           // any server, no cooperation
	NeedsCalls         Needs = "calls"         // only tools the operator allowed
	NeedsOpportunistic Needs = "opportunistic" // judges whatever traffic occurred
	NeedsFixture       Needs = "fixture"       // the fixture contract (test_* tools, refserver/doc.go)
)

// Group is the catalogue group of a check's row: with the ID it says which suite
// package and file hold the check (catalogue.HomeOf), and it orders --list and the
// reports.
type Group = catalogue.Group

// The groups a check may declare (catalogue.Groups, in the matrix's order).
const (
	GroupBase      = catalogue.Base
	GroupLifecycle = catalogue.Lifecycle
	GroupModern    = catalogue.Modern
	GroupStdio     = catalogue.Stdio
	GroupSSE       = catalogue.SSE
	GroupSHTTP     = catalogue.SHTTP
	GroupH5        = catalogue.H5
	GroupTools     = catalogue.Tools
	GroupPag       = catalogue.Pag
	GroupErr       = catalogue.Err
	GroupContent   = catalogue.Content
	GroupStruct    = catalogue.Struct
	GroupNotif     = catalogue.Notif
	GroupUtil      = catalogue.Util
	GroupRes       = catalogue.Res
	GroupAuth      = catalogue.Auth
)

// Row is what a check takes from its catalogue row
// (internal/catalogue/requirements.yaml): Register fills it from the row of the
// check's ID, so a check's literal never writes it. A check whose ID has no row (the
// runner's own tests) sets it itself.
type Row struct {
	Level     Level
	Revisions []revision.Revision
	// Group is the row's catalogue group (suites/layout_test.go holds every check
	// to its row's group and file).
	Group Group
	Needs Needs
	// Source is the spec text behind the verdict (the row's verdict basis).
	Source string
	// StricterFrom raises the level from a revision on (rows such as
	// "SHOULD (R1–R2) / MUST (R3–R4)").
	StricterFrom *LevelFrom
}

// Check is one conformance check: it verifies one catalogue row in each revision
// it applies to. A plain check (the server as its session's opening left it, the
// revision's main session, no options) is its ID, its Title and its Run; every other
// field is an option, and each is implied by the one that needs it.
type Check struct {
	ID    string // the catalogue row ID, e.g. "TOOLS-CALL-UNKNOWN-01"
	Title string // what passing means, in a few words
	// Row is filled from the catalogue by Register.
	Row
	// Run judges one revision, called once per column. A check that finds it cannot
	// judge says so with T.Skip, T.Stop or T.Errorf, which end it there. It must not
	// panic otherwise; the runner turns a panic into an error verdict all the same.
	Run func(t *T) Verdict

	// The options. Each is implied by the one that needs it, and Register derives
	// the rest: PreInitProbe ⇒ Spare; Changes ⇒ PhaseStateChange; Probe and
	// SilenceProbe ⇒ PhaseTranscript; no Phase ⇒ PhaseClean; no Transports ⇒ the
	// group's (TransportsOf).

	// Phase is when, in its revision's run, the check runs on the main session:
	// what a check may touch follows from it (T.Scratch only in PhaseOddInput,
	// T.Sessions and T.Transcript only in PhaseTranscript).
	Phase Phase
	// Probe, for a transcript-wide check (PhaseTranscript) that sends something of
	// its own, is that sending: the runner calls it once, while the revision's
	// sessions are open and before any transcript check is judged, so that Run,
	// called after the column settled, judges complete transcripts. Probe may use
	// T.Once, T.SpareSession and T.NewSession; it reads no transcript.
	Probe func(t *T)
	// Transports are the transports the rule is about ("stdio", "http", "sse"): on
	// another the runner records not-applicable and Run is not called. Empty: the
	// group's transport (STDIO, SSE, SHTTP and H5), or every transport.
	Transports []string
	// NotOn are the revision and transport pairs where another rule takes the
	// check's place, each with the spec's reason: there the runner records
	// not-applicable, as for a transport not in Transports, and neither Probe nor
	// Run is called.
	NotOn []NotOn
	// Handshake marks checks that judge initialize itself: they also run in columns
	// whose revision the server did not support or whose initialize was refused.
	Handshake bool
	// Opening marks checks that judge the connection itself from the record of how
	// the revision's main session opened (T.Opening): they run in every column, also
	// one whose session failed to open (broken or refused), where every other check
	// is not run. They send nothing, and give the same verdict from the same
	// evidence whether or not the session opened.
	Opening bool
	// Auth marks checks of a protected server's authorization rules (the AUTH
	// group): they probe the HTTP target themselves, without the run's
	// Authorization header (T.AuthTarget), and so run in every column of an HTTP
	// target, also one whose session could not open because the server asked for
	// a token (HTTP 401), where every other check is skipped as needs-token.
	Auth bool
	// FreshSessions is how many sessions of its own the check opens with
	// T.NewSession: only where isolation is truly needed (`mcp-conform --list -v`
	// shows each). They are opened when the check asks, unless FreshAhead says
	// otherwise.
	FreshSessions int
	// FreshAhead, for a check with FreshSessions, is asked once the revision's
	// main session has opened whether the check will open its first fresh
	// session (a condition of the main session, such as a declared capability):
	// true opens that session then, beside the column's first checks, and the
	// check's T.NewSession takes it instead of starting a server process on its
	// column's path. False leaves it opened when asked (or not at all).
	FreshAhead func(main *Session) bool
	// Spare marks a check that uses the revision's spare session (T.SpareSession,
	// T.PreInit), in PhaseOddInput or in a transcript check's Probe. On a target of
	// a process per session (stdio), where the spare session is the main one, such
	// an odd-input check runs last in its column: after the transcript checks'
	// probes that need the main session, with the probes on the spare session.
	Spare bool
	// SilenceProbe marks a transcript-wide check whose probe is owed a reply the
	// server may not send (T.ProveSilence): its silence is proven when the column
	// settles, wire.GraceAfter the probe's barrier's round trip, instead of by a grace
	// the probe waits out itself. These probes are made after the others, so that
	// no other probe of stray input starts its window on the same session within
	// the grace (a reply that came then could not be told apart).
	SilenceProbe bool
	// PreInitProbe marks a check that reads T.PreInit: the revision's spare session
	// then opens in steps, probing the server before initialize and before
	// notifications/initialized (PreInit).
	PreInitProbe bool
	// Changes names the server state a PhaseStateChange check changes. On a server
	// every revision shares (HTTP), the checks that change one state run one
	// revision at a time; checks of different states overlap, as a change of one
	// cannot move what the other observes.
	Changes ServerState
	// ReadsFirst marks a check that changes the tool list (Changes StateToolList)
	// and reads the list before its change: on a shared server it starts once the
	// previous change check has made its change, so that its reading overlaps that
	// check's reading after the change; its change itself waits for that check's
	// end (T.ChangeNow, which the trigger calls), and a listing it made before a
	// later change is stale (T.StateGeneration). Without it the check starts after
	// the previous one has ended.
	ReadsFirst bool
	// HoldsByValue marks a Changes check that holds its state itself, a stretch at a
	// time, at the value it sets there (T.HoldState): on a shared server the
	// revisions that set the same value then run beside each other, and their
	// waits overlap; only one that sets another value waits. Without it the whole
	// check holds the state alone.
	HoldsByValue bool
	// PreOpen lists protocol versions the check asks for with T.OpenSession (a
	// negotiation probe): the runner opens those sessions alongside the main ones,
	// once per run for each version.
	PreOpen []string
}

// Phase orders a revision's checks on its one main session, so that a session can be
// shared without one check disturbing another: first the checks that need the server
// as initialize left it, then those that change its state, then the probes of odd
// input (a server that dies on one loses only what was left), and last the checks
// that judge the whole transcript, once it is provably complete.
type Phase int

// ServerState is a piece of server-wide state that checks change (Check.Changes).
type ServerState string

// The states that PhaseStateChange checks change.
const (
	// StateToolList is the tool list: a trigger changes it, and every session
	// (every subscription in 2026-07-28) may be told.
	StateToolList ServerState = "tool list"
	// StateLogLevel is the level logging/setLevel sets, which a server may keep
	// for every session alike.
	StateLogLevel ServerState = "log level"
)

// The phases, in run order. The zero value is no phase: Register refuses it.
const (
	PhaseClean       Phase = iota + 1 // needs the server as the session's opening left it
	PhaseStateChange                  // changes server state (a tool list change)
	PhaseOddInput                     // sends odd or malformed input (T.Scratch)
	PhaseTranscript                   // judges every message of the revision's sessions
)

// String names the phase as --list shows it.
func (p Phase) String() string {
	switch p {
	case PhaseClean:
		return "clean"
	case PhaseStateChange:
		return "state-change"
	case PhaseOddInput:
		return "odd-input"
	case PhaseTranscript:
		return "transcript"
	}
	return fmt.Sprintf("phase(%d)", int(p))
}

// RunPhase is the check's declared phase.
func (c *Check) RunPhase() Phase { return c.Phase }

// LevelFrom is a level that applies from a revision on.
type LevelFrom struct {
	Revision string
	Level    Level
}

// LevelAt is the check's level in one revision.
func (c *Check) LevelAt(r revision.Revision) Level {
	if c.StricterFrom != nil && r.AtLeast(c.StricterFrom.Revision) {
		return c.StricterFrom.Level
	}
	return c.Level
}

// AppliesTo reports whether the check has a verdict in revision r.
func (c *Check) AppliesTo(r revision.Revision) bool {
	return slices.ContainsFunc(c.Revisions, func(x revision.Revision) bool { return x.Name == r.Name })
}

// Labels are the Ginkgo labels of the check in one revision.
func (c *Check) Labels(r revision.Revision) []string {
	return []string{
		"rev:" + r.Name,
		"level:" + string(c.LevelAt(r)),
		"group:" + string(c.Group),
		"phase:" + c.Phase.String(),
		"needs:" + string(c.Needs),
		"id:" + c.ID,
	}
}

var idPattern = regexp.MustCompile(`^[A-Z][A-Z0-9]*(-[A-Z0-9]+)*-[0-9]{2}$`)

type registry struct {
	mu        sync.Mutex
	pending   []*Check // registered, not yet validated (settle)
	checks    []*Check
	errs      []error
	validated map[string]*Check // by ID, the checks settle has let in
}

var checks registry

// Register adds a check to the suite. It is meant for package-level var blocks:
//
//	var _ = conform.Register(conform.Check{ID: "PING-01", …})
//
// A malformed or duplicate check is recorded and reported by Run (and by Validate)
// as a configuration error at start-up, so a suite cannot silently lose a check.
//
// The check is validated, and its row filled in from the catalogue, when the
// registry is first read (Checks, RegistryErr), not here: every process of this
// binary registers every check at start-up, the reference server's too, which reads
// none of them, and reading the catalogue for each was a fifth of the CPU of each
// reference-server process a run starts.
func Register(c Check) *Check {
	checks.mu.Lock()
	defer checks.mu.Unlock()
	cp := c
	run := cp.Run
	if run != nil {
		cp.Run = func(t *T) Verdict {
			v := t.Resolve(t.call(run))
			if m := t.misuseFound(); m != "" {
				// A check that touched what its phase does not allow would judge
				// incomplete evidence: its verdict cannot be trusted.
				return Errorf("harness: %s", m)
			}
			return v
		}
	}
	checks.pending = append(checks.pending, &cp)
	return &cp
}

// settle validates the checks registered since the last read, in registration
// order, and lets in the valid ones that repeat no ID. The caller holds checks.mu.
func (r *registry) settle() {
	if len(r.pending) == 0 {
		return
	}
	if r.validated == nil {
		r.validated = map[string]*Check{}
	}
	for _, c := range r.pending {
		if err := validateCheck(c); err != nil {
			r.errs = append(r.errs, err)
			continue
		}
		if other, dup := r.validated[c.ID]; dup {
			r.errs = append(r.errs, fmt.Errorf("check %s is registered twice (%q and %q)", c.ID, other.Title, c.Title))
			continue
		}
		r.validated[c.ID] = c
		r.checks = append(r.checks, c)
	}
	r.pending = nil
}

func validateCheck(c *Check) error {
	switch {
	case !idPattern.MatchString(c.ID):
		return fmt.Errorf("check %q: the ID is not a catalogue ID like TOOLS-CALL-UNKNOWN-01", c.ID)
	case c.Title == "":
		return fmt.Errorf("check %s: no title", c.ID)
	case c.Run == nil:
		return fmt.Errorf("check %s: no Run function", c.ID)
	}
	if err := fillRow(c); err != nil {
		return err
	}
	imply(c)
	switch {
	case len(c.Revisions) == 0:
		return fmt.Errorf("check %s: applies to no revision", c.ID)
	case c.Source == "":
		return fmt.Errorf("check %s: no spec source: every verdict must be backed by spec text", c.ID)
	case !c.Group.Known():
		return fmt.Errorf("check %s: group %q is not a catalogue group", c.ID, c.Group)
	case c.Phase < PhaseClean || c.Phase > PhaseTranscript:
		return fmt.Errorf("check %s: unknown phase %d", c.ID, c.Phase)
	case (c.Phase == PhaseStateChange) != (c.Changes != ""):
		return fmt.Errorf("check %s: a PhaseStateChange check, and only one, declares the server state it changes (Changes)", c.ID)
	case c.Changes != "" && c.Changes != StateToolList && c.Changes != StateLogLevel:
		return fmt.Errorf("check %s: unknown server state %q", c.ID, c.Changes)
	case c.ReadsFirst && c.Changes != StateToolList:
		return fmt.Errorf("check %s: a check that reads first changes the tool list (Changes StateToolList)", c.ID)
	case c.HoldsByValue && c.Changes == "":
		return fmt.Errorf("check %s: a check that holds its state by value declares the state (Changes)", c.ID)
	case c.Spare && c.Phase != PhaseOddInput && c.Phase != PhaseTranscript:
		return fmt.Errorf("check %s: the spare session takes odd input: a check that uses it runs in PhaseOddInput or PhaseTranscript", c.ID)
	case (c.SilenceProbe || c.Probe != nil) && c.Phase != PhaseTranscript:
		return fmt.Errorf("check %s: a Probe (and a silence proven when the column settles) is a transcript-wide check's: PhaseTranscript", c.ID)
	case c.Opening && (c.Phase != PhaseClean || c.Handshake || c.FreshSessions > 0 || len(c.PreOpen) > 0):
		return fmt.Errorf("check %s: an opening check judges only the opening record: it declares PhaseClean, and no handshake, fresh or pre-opened session", c.ID)
	case c.FreshAhead != nil && c.FreshSessions == 0:
		return fmt.Errorf("check %s: a fresh session opened ahead is one the check declares (FreshSessions)", c.ID)
	case c.Auth && (c.Phase != PhaseClean || c.Opening || c.Handshake || c.FreshSessions > 0 || len(c.PreOpen) > 0):
		return fmt.Errorf("check %s: an authorization check sends its own requests without the run's token: it declares PhaseClean, and no opening, handshake, fresh or pre-opened session", c.ID)
	}
	for _, tr := range c.Transports {
		if !slices.Contains(transportKinds, tr) {
			return fmt.Errorf("check %s: unknown transport %q (one of %v)", c.ID, tr, transportKinds)
		}
	}
	for _, n := range c.NotOn {
		switch {
		case !slices.ContainsFunc(c.Revisions, func(r revision.Revision) bool { return r.Name == n.Revision }):
			return fmt.Errorf("check %s: NotOn names revision %q, which is not one of the check's %v", c.ID, n.Revision, c.Revisions)
		case !c.AppliesOn(n.Transport):
			return fmt.Errorf("check %s: NotOn names transport %q, which the check is not about", c.ID, n.Transport)
		case n.Why == "":
			return fmt.Errorf("check %s: NotOn %s over %s gives no reason", c.ID, n.Revision, n.Transport)
		}
	}
	switch c.Level {
	case Must, Should, May, Descriptive, Derived:
	default:
		return fmt.Errorf("check %s: unknown level %q", c.ID, c.Level)
	}
	if c.Needs == "" {
		c.Needs = NeedsAny
	}
	return nil
}

// fillRow fills the check's Row from its catalogue row. A check with no catalogue row
// (the runner's own tests) brings its Row; one with a row may not: the row is the one
// source of a check's group, revisions, level, needs and spec text.
func fillRow(c *Check) error {
	row, ok := catalogue.CheckRowOf(c.ID)
	if !ok {
		return nil
	}
	if c.Group != "" || c.Level != "" || c.Revisions != nil || c.Needs != "" || c.Source != "" || c.StricterFrom != nil {
		return fmt.Errorf("check %s: its Row comes from its catalogue row (internal/catalogue/requirements.yaml); the literal does not set it", c.ID)
	}
	c.Group, c.Level, c.Needs, c.Source = row.Group, Level(row.Level), Needs(row.Needs), row.Basis
	for _, name := range row.Revisions {
		r, ok := revision.Lookup(name)
		if !ok {
			return fmt.Errorf("check %s: its row names revision %s, which the suite does not know", c.ID, name)
		}
		c.Revisions = append(c.Revisions, r)
	}
	if row.StricterFrom != "" {
		c.StricterFrom = &LevelFrom{Revision: row.StricterFrom, Level: Level(row.StricterLevel)}
	}
	return nil
}

// imply sets the options that follow from the ones a check declares.
func imply(c *Check) {
	if c.PreInitProbe {
		c.Spare = true
	}
	if c.Phase == 0 {
		switch {
		case c.Changes != "":
			c.Phase = PhaseStateChange
		case c.Probe != nil || c.SilenceProbe:
			c.Phase = PhaseTranscript
		default:
			c.Phase = PhaseClean
		}
	}
	if len(c.Transports) == 0 {
		c.Transports = TransportsOf(c.Group)
	}
}

// NotOn is one revision and transport where a check's rule gives way to another.
type NotOn struct {
	Revision  string // a revision name, e.g. "2026-07-28"
	Transport string // one of Session.Kind's values
	Why       string // the spec's reason, shown in the not-applicable verdict
}

// The transports a check may be about: Session.Kind's values.
var transportKinds = []string{"stdio", "http", "sse"}

// TransportsOf is the transport a group's rules are about, nil for a group whose
// rules bind every transport.
func TransportsOf(g Group) []string {
	switch g {
	case GroupStdio:
		return []string{"stdio"}
	case GroupSSE:
		return []string{"sse"}
	case GroupSHTTP, GroupH5, GroupAuth:
		return []string{"http"}
	}
	return nil
}

// OptionNames names the options a check declares beyond its phase and transports,
// as --list -v and the golden list of checks show them.
func (c *Check) OptionNames() []string {
	var out []string
	add := func(on bool, name string) {
		if on {
			out = append(out, name)
		}
	}
	add(c.Probe != nil, "probe")
	add(c.Handshake, "handshake")
	add(c.Opening, "opening")
	add(c.Auth, "auth")
	add(c.FreshSessions > 0, fmt.Sprintf("fresh sessions: %d", c.FreshSessions))
	add(c.FreshAhead != nil, "first fresh session opened ahead")
	add(c.Spare, "spare session")
	add(c.PreInitProbe, "pre-initialize probe")
	add(c.SilenceProbe, "silence probe")
	add(c.Changes != "", "changes: "+string(c.Changes))
	add(c.HoldsByValue, "holds it by value")
	add(c.ReadsFirst, "reads first")
	for _, v := range c.PreOpen {
		out = append(out, "pre-opens "+v)
	}
	for _, n := range c.NotOn {
		out = append(out, fmt.Sprintf("not on %s over %s", n.Revision, n.Transport))
	}
	return out
}

// AppliesOn reports whether the check's rule is about the transport kind.
func (c *Check) AppliesOn(kind string) bool {
	return len(c.Transports) == 0 || slices.Contains(c.Transports, kind)
}

// Checks returns every registered check in a stable order: by catalogue group in the
// matrix's order, then by ID.
func Checks() []*Check {
	checks.mu.Lock()
	defer checks.mu.Unlock()
	checks.settle()
	out := slices.Clone(checks.checks)
	sort.SliceStable(out, func(i, j int) bool {
		if gi, gj := groupRank(out[i].Group), groupRank(out[j].Group); gi != gj {
			return gi < gj
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func groupRank(g Group) int { return slices.Index(catalogue.Groups, g) }

// RegistryErr reports malformed or duplicate registrations.
func RegistryErr() error {
	checks.mu.Lock()
	defer checks.mu.Unlock()
	checks.settle()
	if len(checks.errs) == 0 {
		return nil
	}
	msgs := make([]string, len(checks.errs))
	for i, e := range checks.errs {
		msgs[i] = e.Error()
	}
	return fmt.Errorf("invalid check registry: %s", strings.Join(msgs, "; "))
}

// List prints every check: ID, revisions, level, title.
func List(w io.Writer) error {
	if err := RegistryErr(); err != nil {
		return err
	}
	for _, c := range Checks() {
		if _, err := fmt.Fprintf(w, "%-30s %-40s %-12s %s\n", c.ID, revisionSpan(c), levelSpan(c), c.Title); err != nil {
			return fmt.Errorf("list checks: %w", err)
		}
	}
	return nil
}

func revisionSpan(c *Check) string {
	names := make([]string, len(c.Revisions))
	for i, r := range c.Revisions {
		names[i] = r.Name
	}
	return strings.Join(names, ",")
}

func levelSpan(c *Check) string {
	if c.StricterFrom != nil {
		return fmt.Sprintf("%s/%s≥%s", c.Level, c.StricterFrom.Level, c.StricterFrom.Revision)
	}
	return string(c.Level)
}
