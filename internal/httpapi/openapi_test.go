package httpapi_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/pads-dev/pads/internal/httpapi"
)

// TestOpenAPIDocumentIsValidAndNamesEveryRoute keeps docs/openapi.yaml
// true: a valid OpenAPI 3 document with exactly the routes pads serves
// (with the default service name).
func TestOpenAPIDocumentIsValidAndNamesEveryRoute(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromFile("../../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("docs/openapi.yaml is not valid: %v", err)
	}
	var documented []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	served := httpapi.Routes("pads")
	slices.Sort(documented)
	slices.Sort(served)
	if !slices.Equal(documented, served) {
		t.Fatalf("docs/openapi.yaml documents\n  %v\npads serves\n  %v", documented, served)
	}
}
