package reports

import _ "embed"

// ReportSchema is the JSON Schema (draft 2020-12) of report.json, as WriteJSON writes
// it. It is the published contract for scripts; reports/reportstest validates every
// report the tests write against it.
//
//go:embed report.schema.json
var ReportSchema []byte
