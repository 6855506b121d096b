package conform

import (
	_ "github.com/onsi/ginkgo/v2"
	_ "github.com/onsi/gomega"
	_ "github.com/santhosh-tekuri/jsonschema/v5"
)
