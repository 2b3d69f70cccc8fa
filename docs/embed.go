// Package docs holds pads' documentation; the OpenAPI document is built
// into the binary, so GET /openapi.yaml serves the very file a test keeps
// equal to the routes.
package docs

import _ "embed"

// OpenAPI is docs/openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPI []byte
