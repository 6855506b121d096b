package ecosystem

import _ "embed"

// Schema is the JSON Schema (draft 2020-12) of matrix.json, as WriteJSON writes it:
// the published contract for scripts. The tests validate every matrix they write
// against it (reports/reportstest.ValidateMatrix).
//
//go:embed matrix.schema.json
var Schema []byte
