// Package reportstest validates the reports mcp-conform writes against the schemas
// their consumers use: junit.xml against the Jenkins (xunit-plugin junit-10.xsd) and
// the Ant JUnit XML Schemas, with xmllint; report.json against reports.ReportSchema.
// matrix.json against ecosystem.Schema. It is for tests: the reports packages' own and
// the end-to-end ones.
package reportstest

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/reports/ecosystem"
)

// The JUnit schemas, kept unchanged with their licences and provenance (xsd/README.md).
//
//go:embed xsd/jenkins-junit-10.xsd xsd/ant-junit.xsd
var xsdFiles embed.FS

// JUnitSchemas names the JUnit XML Schemas junit.xml must satisfy, by file name.
var JUnitSchemas = []string{"jenkins-junit-10.xsd", "ant-junit.xsd"}

// XMLLint is the validator's command; `make test` installs it (Debian's
// libxml2-utils) when it is missing.
const XMLLint = "xmllint"

// ValidateJUnit validates the junit.xml document data against every schema of
// JUnitSchemas with xmllint, and returns the first schema's complaints as an error.
// A missing xmllint is an error, never a pass.
func ValidateJUnit(data []byte) error {
	lint, err := exec.LookPath(XMLLint)
	if err != nil {
		return fmt.Errorf("xmllint not found (install Debian's libxml2-utils; make test does it when run as root): %w", err)
	}
	dir, err := os.MkdirTemp("", "junit-xsd-")
	if err != nil {
		return fmt.Errorf("validate junit.xml: %w", err)
	}
	defer os.RemoveAll(dir)
	doc := filepath.Join(dir, "junit.xml")
	if err := os.WriteFile(doc, data, 0o600); err != nil {
		return fmt.Errorf("validate junit.xml: %w", err)
	}
	for _, name := range JUnitSchemas {
		xsd, err := xsdFiles.ReadFile("xsd/" + name)
		if err != nil {
			return fmt.Errorf("validate junit.xml: %w", err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, xsd, 0o600); err != nil {
			return fmt.Errorf("validate junit.xml: %w", err)
		}
		out, err := exec.Command(lint, "--noout", "--nonet", "--schema", path, doc).CombinedOutput()
		if err != nil {
			return fmt.Errorf("junit.xml does not validate against %s: %v\n%s", name, err, bytes.TrimSpace(out))
		}
	}
	return nil
}

// compileSchema compiles a draft 2020-12 schema document, asserting formats.
func compileSchema(url string, doc []byte) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	if err := c.AddResource(url, bytes.NewReader(doc)); err != nil {
		return nil, fmt.Errorf("load %s: %w", url, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", url, err)
	}
	return s, nil
}

// compiled is reports.ReportSchema, compiled once.
var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	return compileSchema("report.schema.json", reports.ReportSchema)
})

// compiledMatrix is ecosystem.Schema, compiled once.
var compiledMatrix = sync.OnceValues(func() (*jsonschema.Schema, error) {
	return compileSchema("matrix.schema.json", ecosystem.Schema)
})

// ValidateMatrix validates the matrix.json document data against ecosystem.Schema.
func ValidateMatrix(data []byte) error {
	s, err := compiledMatrix()
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("matrix.json does not parse: %w", err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("matrix.json does not validate against its schema: %#v", err)
	}
	return nil
}

// ValidateJSON validates the report.json document data against reports.ReportSchema.
func ValidateJSON(data []byte) error {
	s, err := compiled()
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("report.json does not parse: %w", err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("report.json does not validate against its schema: %#v", err)
	}
	return nil
}
