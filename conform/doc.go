// Package conform is mcp-conform's runner: the registry that suites add checks to
// (check.go), the sessions checks talk through (session.go, t.go), and Run (run.go),
// which opens one session per revision, runs the checks as Ginkgo specs (a container
// per revision) and returns the report.
//
// A run is in parts, each in its own file:
//   - runstate.go — the run's state: its columns (one per revision), the selected
//     checks in run order, memoized probes, notes.
//   - column.go — opening the columns, concurrently, with the negotiation probes'
//     sessions, and classifying how each opened.
//   - era.go — one driver per era (legacy: initialize; modern: server/discover and
//     per-request _meta), which owns everything that differs by era: opening a
//     session, era detection, reconciling the columns, where serverInfo is. A new era
//     is a new driver; nothing else branches on the era.
//   - schedule.go — the phase scheduler: a worker per column judges its checks phase
//     by phase (clean, state change, odd input, transcript), and on a shared server
//     every column finishes a phase before any starts the next.
//   - judging.go — judging one check: its context and bound, panic recovery, the
//     verdict recorded and mirrored in Ginkgo.
//   - settle.go — before the transcript phase, every probe is made and every session
//     brought to a provable end of traffic.
//   - finish.go — closing the sessions, assembling the report, the exit code, the
//     transcripts.
//
// Verdicts follow one policy (verdict.go): a check's level turns a broken rule into
// fail or warn, and a check that touches what its phase does not allow is an error.
package conform
