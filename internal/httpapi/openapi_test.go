package httpapi_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/pads-dev/pads/internal/console"
	"github.com/pads-dev/pads/internal/httpapi"
)

// TestOpenAPIDocumentIsValidAndNamesEveryRoute keeps docs/openapi.yaml
// true: a valid OpenAPI 3 document with exactly the routes pads serves
// (with the default service name), but for the operator console's HTML
// pages (console.IsConsolePath: /admin, /admin/ and /admin/console/...),
// which are for people, not API clients.
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
	var served, pages []string
	for _, route := range httpapi.Routes("pads") {
		_, path, _ := strings.Cut(route, " ")
		if console.IsConsolePath(path) {
			pages = append(pages, route)
			continue
		}
		served = append(served, route)
	}
	if len(pages) == 0 {
		t.Fatal("no console route found: is console.IsConsolePath still the console's?")
	}
	for _, route := range documented {
		if _, path, _ := strings.Cut(route, " "); console.IsConsolePath(path) {
			t.Errorf("docs/openapi.yaml documents the console page %s: the console is HTML, not API", route)
		}
	}
	slices.Sort(documented)
	slices.Sort(served)
	if !slices.Equal(documented, served) {
		t.Fatalf("docs/openapi.yaml documents\n  %v\npads serves\n  %v", documented, served)
	}
}
