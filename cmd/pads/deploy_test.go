package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The repository's root, from cmd/pads.
const repoRoot = "../.."

// The systemd units of deploy/ pass systemd-analyze verify, with no
// warning (an unknown or misspelt setting is only a warning there).
func TestTheSystemdUnitsVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pads")
	}
	t.Parallel()
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("systemd-analyze is not installed (Debian: apt-get install systemd)")
		}
		t.Skip("systemd-analyze is not installed")
	}
	bin, err := buildPads()
	if err != nil {
		t.Fatal(err)
	}
	units, _ := filepath.Glob(filepath.Join(repoRoot, "deploy", "pads*.*"))
	if len(units) != 3 {
		t.Fatalf("deploy/ units: %v, want the service, the backup service and its timer", units)
	}
	dir := t.TempDir()
	var names []string
	for _, u := range units {
		// verify checks that ExecStart's program exists: this test's pads.
		text := strings.ReplaceAll(readFile(t, u), "/usr/local/bin/pads", bin)
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(u)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, "./"+filepath.Base(u))
	}
	cmd := exec.Command(analyze, append([]string{"verify"}, names...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// docs/deploy.md shows deploy/pads.service as it is.
func TestDeployDocShowsTheUnit(t *testing.T) {
	t.Parallel()
	doc := readFile(t, filepath.Join(repoRoot, "docs", "deploy.md"))
	for _, name := range []string{"pads.service", "pads-backup.service", "pads-backup.timer"} {
		unit := readFile(t, filepath.Join(repoRoot, "deploy", name))
		if !strings.Contains(doc, "```ini\n"+unit+"```\n") {
			t.Errorf("docs/deploy.md must show deploy/%s as it is, in an ini block", name)
		}
	}
}

// The Dockerfile's own build command, run here, makes a static pads
// (CGO_ENABLED=0: the distroless static base has no C library), and the
// Dockerfile names the paths the image and the docs use.
func TestTheDockerfileBuildsAStaticPads(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pads")
	}
	t.Parallel()
	df := readFile(t, filepath.Join(repoRoot, "Dockerfile"))
	gomod := readFile(t, filepath.Join(repoRoot, "go.mod"))
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(gomod)
	for _, want := range []string{
		"FROM golang:" + goVersion[1] + " AS build",
		"FROM gcr.io/distroless/static-debian12:nonroot\n",
		"COPY --from=build /out/pads /usr/local/bin/pads\n",
		`ENTRYPOINT ["/usr/local/bin/pads"]`,
		`CMD ["serve", "--config", "/etc/pads/pads.yaml"]`,
		"USER 65532:65532\n",
		"VOLUME /var/lib/pads\n",
	} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile: no %q", want)
		}
	}
	build := regexp.MustCompile(`RUN (CGO_ENABLED=0 [^\n]*go build [^\n]*-o /out/pads \./cmd/pads)`).FindStringSubmatch(df)
	if build == nil {
		t.Fatal("Dockerfile: no RUN CGO_ENABLED=0 ... go build ... -o /out/pads ./cmd/pads")
	}
	out := t.TempDir()
	cmd := exec.Command("sh", "-c", strings.ReplaceAll(build[1], "/out/", out+"/"))
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "VERSION=test")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the Dockerfile's build: %v\n%s", err, b)
	}
	bin := filepath.Join(out, "pads")
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Fatal("the Dockerfile's pads is dynamically linked: it would not run on distroless/static")
		}
	}
	if v, err := exec.Command(bin, "version").Output(); err != nil || strings.TrimSpace(string(v)) != "pads test" {
		t.Fatalf("pads version: %q %v", v, err)
	}
}
